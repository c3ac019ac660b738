package tap

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/internal/proctest"
	"github.com/acplint/acplint/transcript"
)

// The test binary doubles as the fixture agent: with TAP_FIXTURE set it
// runs one of the agents below instead of the tests.
func TestMain(m *testing.M) {
	proctest.ChildrenExitAtOnce()
	Supervise() // for the tests that run the agent under a supervisor
	switch os.Getenv("TAP_FIXTURE") {
	case "":
		os.Exit(m.Run())
	case "echo":
		echoAgent(-1)
	case "crash":
		echoAgent(2) // answers two lines, then dies with exit code 3
	case "hang":
		time.Sleep(time.Hour)
	case "empty-flood":
		// Writes TAP_BYTES newlines through a 1 MiB pipe, so that the
		// tap reads them 256 KiB at a time (F_SETPIPE_SZ; Linux only,
		// elsewhere the reads are smaller).
		var n int
		fmt.Sscan(os.Getenv("TAP_BYTES"), &n)
		syscall.Syscall(syscall.SYS_FCNTL, 1, 1031, 1<<20)
		os.Stdout.Write(bytes.Repeat([]byte{'\n'}, n))
	case "chatty":
		// Writes TAP_LINES numbered lines, then waits for the end of its
		// stdin, as an agent does between turns.
		var n int
		fmt.Sscan(os.Getenv("TAP_LINES"), &n)
		w := bufio.NewWriter(os.Stdout)
		for i := range n {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","method":"_fixture/line","params":{"i":%d}}`+"\n", i)
		}
		w.Flush()
		io.Copy(io.Discard, os.Stdin)
	case "closes-stdout":
		// Says one line, closes its stdout and stays, ignoring its stdin.
		fmt.Println(`{"jsonrpc":"2.0","method":"_fixture/bye"}`)
		os.Stdout.Close()
		time.Sleep(time.Hour)
	case "wrapper":
		// A shell script that runs the real agent as its child, the way npx
		// or a launcher script does: the child ignores SIGTERM and notes
		// its pid in TAP_PIDFILE.
		c := exec.Command("/bin/sh", "-c", `env TAP_FIXTURE=stubborn-pid "$0"; echo wrapper-done`, os.Args[0])
		c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
		c.Run()
	case "stubborn-pid":
		signal.Ignore(syscall.SIGTERM)
		os.WriteFile(os.Getenv("TAP_PIDFILE"), []byte(fmt.Sprint(os.Getpid())), 0o600)
		fmt.Println(`{"jsonrpc":"2.0","method":"_fixture/ready"}`)
		time.Sleep(time.Hour)
	case "stubborn":
		signal.Ignore(syscall.SIGTERM)
		time.Sleep(time.Hour)
	case "hup":
		// Says it is ready, then waits for SIGHUP (exit 7) or the end of
		// its stdin (exit 0).
		hup := make(chan os.Signal, 1)
		signal.Notify(hup, syscall.SIGHUP)
		fmt.Println(`{"jsonrpc":"2.0","method":"_fixture/ready"}`)
		go func() {
			io.Copy(io.Discard, os.Stdin)
			os.Exit(0)
		}()
		<-hup
		fmt.Println(`{"jsonrpc":"2.0","method":"_fixture/hup"}`)
		os.Exit(7)
	}
	os.Exit(0)
}

// echoAgent answers every line with a deterministic reply and echoes the
// line back, so a tapped run and a direct run must write the same bytes.
func echoAgent(crashAfter int) {
	r := bufio.NewReaderSize(os.Stdin, 1<<20)
	w := bufio.NewWriter(os.Stdout)
	for n := 0; ; n++ {
		if n == crashAfter {
			w.Flush()
			os.Exit(3)
		}
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","method":"_fixture/seen","params":{"n":%d,"bytes":%d}}`+"\n", n, len(line))
			w.Write(line)
			w.Flush()
		}
		if err != nil {
			return
		}
	}
}

func fixture(kind string) []string {
	return []string{"/usr/bin/env", "TAP_FIXTURE=" + kind, os.Args[0]}
}

// direct runs the fixture without the tap: the reference output.
func direct(t *testing.T, kind string, input []byte) []byte {
	t.Helper()
	c := exec.Command(fixture(kind)[0], fixture(kind)[1:]...)
	c.Stdin = bytes.NewReader(input)
	out, err := c.Output()
	if _, exit := err.(*exec.ExitError); err != nil && !exit {
		t.Fatal(err)
	}
	return out
}

type recorder struct {
	mu     sync.Mutex
	frames []transcript.Frame
}

func (r *recorder) observe(f transcript.Frame) {
	r.mu.Lock()
	r.frames = append(r.frames, f)
	r.mu.Unlock()
}

func (r *recorder) lines(from domain.Direction) [][]byte {
	var out [][]byte
	for _, f := range r.frames {
		if f.From == from {
			out = append(out, f.Data)
		}
	}
	return out
}

func tapped(t *testing.T, kind string, input io.Reader) ([]byte, Result, *recorder) {
	t.Helper()
	var out, stderr bytes.Buffer
	rec := &recorder{}
	// The agents here end by themselves when their stdin ends, so the
	// grace never runs out in a passing test; it is long because a
	// race-enabled echo agent on a loaded machine can be silent for
	// seconds while it joins a 50 MB line, or while the tap grows its
	// buffers past 32 MB, and at 2 s it was sent SIGTERM mid-line
	// (TestFiftyMegabyteLine: 0 or 32 MB of 50 forwarded, 3 runs in 5
	// with eight busy loops beside it).
	res, err := Run(context.Background(), Options{Command: fixture(kind), Stderr: &stderr, Observers: []Observer{{Name: "test recorder", Frame: rec.observe}}, Grace: 10 * time.Second}, input, &out)
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), res, rec
}

func splitLines(b []byte) [][]byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	if len(b) == 0 {
		return nil
	}
	return bytes.Split(b, []byte("\n"))
}

func checkSame(t *testing.T, input []byte, kind string) {
	t.Helper()
	want := direct(t, kind, input)
	got, res, rec := tapped(t, kind, bytes.NewReader(input))
	if !bytes.Equal(got, want) {
		t.Fatalf("tapped output differs from a direct run: %d bytes vs %d", len(got), len(want))
	}
	if res.ExitCode != 0 {
		t.Errorf("exit code %d, want 0", res.ExitCode)
	}
	if c, w := rec.lines(domain.FromClient), splitLines(input); !equalLines(c, w) {
		t.Errorf("recorded %d client lines, want the %d sent", len(c), len(w))
	}
	if a, w := rec.lines(domain.FromAgent), splitLines(want); !equalLines(a, w) {
		t.Errorf("recorded %d agent lines, want the %d written", len(a), len(w))
	}
}

func equalLines(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func TestByteExact(t *testing.T) {
	input := []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}` + "\n" +
		"not json, still forwarded\r\n" +
		`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/p","mcpServers":[]}}` + "\n")
	checkSame(t, input, "echo")
}

// TestUnobservedCountsTheSame: with no observer the tap only counts the
// lines (--no-lint without --record); it forwards the same bytes and
// counts what it would have given an observer, a last line without "\n"
// and a line longer than MaxLine included.
func TestUnobservedCountsTheSame(t *testing.T) {
	input := []byte("{}\n\n" + strings.Repeat("x", 300) + "\nnot json\r\n" + "last, unterminated")
	want, observed, _ := tapped(t, "echo", bytes.NewReader(input))
	var out bytes.Buffer
	res, err := Run(context.Background(), Options{Command: fixture("echo"), Stderr: io.Discard, MaxLine: 100, Grace: 2 * time.Second}, bytes.NewReader(input), &out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("unobserved, the editor got %q, want %q", out.Bytes(), want)
	}
	if res.FromClient != 5 || res.FromClient != observed.FromClient || res.FromAgent != observed.FromAgent {
		t.Errorf("unobserved counts %d client, %d agent lines; observed %d, %d; want 5 client lines", res.FromClient, res.FromAgent, observed.FromClient, observed.FromAgent)
	}
}

func TestFiftyMegabyteLine(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"` +
		strings.Repeat("x", 50<<20) + `"}]}}` + "\n"
	checkSame(t, []byte(big), "echo")
}

func TestHundredThousandMessages(t *testing.T) {
	var b bytes.Buffer
	for i := range 100_000 {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","method":"_x/ping","params":{"i":%d}}`+"\n", i)
	}
	checkSame(t, b.Bytes(), "echo")
}

func TestAgentCrashPropagatesExitCode(t *testing.T) {
	input := strings.Repeat(`{"jsonrpc":"2.0","method":"_x/ping"}`+"\n", 10)
	pr, pw := io.Pipe()
	go func() {
		pw.Write([]byte(input))
		// The editor keeps its end open, as a real one does; the tap must
		// still finish when the agent dies.
	}()
	defer pw.Close()
	_, res, rec := tapped(t, "crash", pr)
	if res.ExitCode != 3 {
		t.Errorf("exit code %d, want the agent's 3", res.ExitCode)
	}
	if n := len(rec.lines(domain.FromAgent)); n != 4 {
		t.Errorf("recorded %d agent lines before the crash, want 4", n)
	}
}

func TestClientDisconnectMidTurn(t *testing.T) {
	// The editor sends a prompt and goes away: the agent sees EOF on its
	// stdin and exits; the tap ends cleanly with its exit code.
	input := `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}` + "\n"
	_, res, _ := tapped(t, "echo", strings.NewReader(input))
	if res.ExitCode != 0 {
		t.Errorf("exit code %d, want 0", res.ExitCode)
	}
}

func TestHungAgentIsTerminated(t *testing.T) {
	start := time.Now()
	var out bytes.Buffer
	res, err := Run(context.Background(), Options{Command: fixture("hang"), Stderr: io.Discard, Grace: 100 * time.Millisecond}, strings.NewReader(""), &out)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 128+15 {
		t.Errorf("exit code %d, want 143 (SIGTERM)", res.ExitCode)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("took %v to stop a hung agent", time.Since(start))
	}
}

// TestCancelEscalatesToKill cancels the tap's context while the agent
// ignores SIGTERM: the close ladder must still end in SIGKILL.
func TestCancelEscalatesToKill(t *testing.T) {
	t.Setenv("TAP_PIDFILE", filepath.Join(t.TempDir(), "pid"))
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe() // the editor stays connected
	defer pw.Close()
	fromAgent, agentWrites := io.Pipe()
	go func() {
		// Cancel once the agent says it ignores SIGTERM: before that, a
		// loaded machine could deliver SIGTERM to an agent not yet set up.
		sc := bufio.NewScanner(fromAgent)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "_fixture/ready") {
				cancel()
			}
		}
	}()
	res, err := Run(ctx, Options{Command: fixture("stubborn-pid"), Stderr: io.Discard, Grace: 100 * time.Millisecond}, pr, agentWrites)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 128+9 {
		t.Errorf("exit code %d, want 137 (SIGKILL)", res.ExitCode)
	}
}

func TestRedact(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/p","mcpServers":[{"name":"gh","command":"/bin/gh","args":[],"env":[{"name":"GITHUB_TOKEN","value":"ghp_secret"}]},{"type":"http","name":"x","url":"https://x","headers":[{"name":"Authorization","value":"Bearer abc"}]}],"_meta":{"apiKey":"sk-1","count":3}}}`
	got := string(Redact([]byte(in)))
	for _, secret := range []string{"ghp_secret", "Bearer abc", "sk-1"} {
		if strings.Contains(got, secret) {
			t.Errorf("%q survived redaction: %s", secret, got)
		}
	}
	want := strings.NewReplacer(`"ghp_secret"`, `"[REDACTED]"`, `"Bearer abc"`, `"[REDACTED]"`, `"sk-1"`, `"[REDACTED]"`).Replace(in)
	if got != want {
		t.Errorf("redaction changed other bytes:\n got %s\nwant %s", got, want)
	}
	if s := "not json {"; string(Redact([]byte(s))) != s {
		t.Error("non-JSON line changed")
	}
}

// BenchmarkForwarding compares throughput through the tap with a direct
// pipe to the same agent, on 32 MB of small messages.
func BenchmarkForwarding(b *testing.B) {
	var buf bytes.Buffer
	for buf.Len() < 32<<20 {
		fmt.Fprintf(&buf, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"%s"}}}}`+"\n", strings.Repeat("y", 200))
	}
	input := buf.Bytes()
	b.Run("direct", func(b *testing.B) {
		b.SetBytes(int64(len(input)))
		for b.Loop() {
			c := exec.Command(fixture("echo")[0], fixture("echo")[1:]...)
			c.Stdin = bytes.NewReader(input)
			c.Stdout = io.Discard
			if err := c.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("tap", func(b *testing.B) {
		b.SetBytes(int64(len(input)))
		for b.Loop() {
			w, _ := transcript.NewWriter(io.Discard, transcript.Header{})
			_, err := Run(context.Background(), Options{Command: fixture("echo"), Stderr: io.Discard, Observers: []Observer{{Name: "recording", Frame: func(f transcript.Frame) { w.Write(f) }}}}, bytes.NewReader(input), io.Discard)
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestSignalIsForwarded: a signal sent to the tap (the editor hanging up)
// reaches the agent, whose exit code the tap then returns.
func TestSignalIsForwarded(t *testing.T) {
	// Catch SIGHUP here too, so that a tap that failed to handle it could
	// not kill the test binary.
	mine := make(chan os.Signal, 1)
	signal.Notify(mine, syscall.SIGHUP)
	defer signal.Stop(mine)

	editorIn, editorWrites := io.Pipe() // the editor stays connected
	defer editorWrites.Close()
	fromAgent, agentWrites := io.Pipe()
	lines := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(fromAgent)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	done := make(chan Result, 1)
	go func() {
		res, err := Run(context.Background(), Options{Command: fixture("hup"), Stderr: io.Discard, Grace: time.Second}, editorIn, agentWrites)
		if err != nil {
			t.Error(err)
		}
		agentWrites.Close()
		done <- res
	}()
	select {
	case l := <-lines:
		if !strings.Contains(l, "_fixture/ready") {
			t.Fatalf("first agent line %q, want the ready notification", l)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the agent did not start")
	}
	// The agent's first line came through the tap, so the tap is past
	// setting up its signal handling.
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	var res Result
	select {
	case res = <-done:
	case <-time.After(10 * time.Second):
		editorWrites.Close() // lets a fixture that never got the signal exit 0
		res = <-done
	}
	if res.ExitCode != 7 {
		t.Errorf("exit code %d, want 7: the agent did not get the SIGHUP sent to the tap", res.ExitCode)
	}
	if l := <-lines; !strings.Contains(l, "_fixture/hup") {
		t.Errorf("agent's last line %q, want its report of the SIGHUP", l)
	}
}

// delayedObserver counts what a queue gives it.
type delayedObserver struct {
	mu     sync.Mutex
	frames []transcript.Frame
	idles  int
}

func (o *delayedObserver) observer(delay time.Duration) Observer {
	return Observer{Name: "delayed", Delay: delay,
		Frame: func(f transcript.Frame) { o.mu.Lock(); o.frames = append(o.frames, f); o.mu.Unlock() },
		Idle:  func() { o.mu.Lock(); o.idles++; o.mu.Unlock() }}
}

func (o *delayedObserver) count() (frames, idles int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.frames), o.idles
}

// TestObserverDelayBatchesWakeUps: an observer with a Delay is woken about
// once per Delay while lines keep coming, not once per line, and still
// gets every line, in order, by the end.
func TestObserverDelayBatchesWakeUps(t *testing.T) {
	const lines, delay = 100, 50 * time.Millisecond
	var o delayedObserver
	q := newQueue(o.observer(delay), 1<<20, nil)
	start := time.Now()
	for i := range lines {
		pushLine(q, []byte(fmt.Sprint(i)))
		time.Sleep(time.Millisecond)
	}
	elapsed := time.Since(start)
	q.close()
	<-q.done
	n, idles := o.count()
	if n != lines {
		t.Fatalf("%d frames, want %d", n, lines)
	}
	for i, f := range o.frames {
		if string(f.Data) != fmt.Sprint(i) {
			t.Fatalf("frame %d is %q", i, f.Data)
		}
	}
	if most := int(elapsed/delay) + 2; idles > most {
		t.Errorf("the observer ran empty %d times in %v of lines every millisecond; want at most %d with a Delay of %v", idles, elapsed, most, delay)
	}
}

// TestObserverDelayEndsWhenTheQueueFills: a queue half full wakes its
// observer before its Delay is up, so a delay never costs frames that fit
// the queue; closing the queue ends the delay too.
func TestObserverDelayEndsWhenTheQueueFills(t *testing.T) {
	var o delayedObserver
	q := newQueue(o.observer(time.Hour), 10<<10, nil)
	line := bytes.Repeat([]byte("x"), 1<<10)
	// The observer's goroutine may start after the first frames are
	// queued, and then takes them at once; it waits out its Delay for
	// the first frame that comes once it has run empty.
	for range 2 {
		pushLine(q, line)
		time.Sleep(50 * time.Millisecond)
	}
	for range 4 { // 5 queued: past half of the queue, frames' own cost included
		pushLine(q, line)
	}
	deadline := time.Now().Add(10 * time.Second)
	for n, _ := o.count(); n < 6; n, _ = o.count() {
		if time.Now().After(deadline) {
			t.Fatalf("the observer has %d of 6 frames after 10s; a half-full queue should have woken it", n)
		}
		time.Sleep(time.Millisecond)
	}
	for range 2 {
		pushLine(q, line)
		time.Sleep(50 * time.Millisecond)
	}
	q.close()
	select {
	case <-q.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the observer still waits out its Delay after the queue was closed")
	}
	if n, _ := o.count(); n != 8 {
		t.Errorf("%d frames, want 8", n)
	}
}

// pushLine queues one line from the agent, as a pump does.
func pushLine(q *queue, line []byte) {
	q.push(newRead(domain.FromAgent, 0, []event{{data: line}}, DefaultMaxLine))
}

// TestTooLongLinesInARowAreOneGap: lines too long to keep, one after the
// other and of one length, reach the observer as one gap, as a queue's
// drops do; a line of another length, or a line kept, ends it.
func TestTooLongLinesInARowAreOneGap(t *testing.T) {
	var o delayedObserver
	q := newQueue(o.observer(0), 1<<20, nil)
	q.push(newRead(domain.FromAgent, 0, []event{{tooLong: 200}, {tooLong: 200}, {tooLong: 200}}, 100))
	q.push(newRead(domain.FromAgent, 0, []event{{tooLong: 200}, {tooLong: 300}, {data: []byte("{}")}, {tooLong: 200}}, 100))
	q.close()
	<-q.done
	var got []string
	for _, f := range o.frames {
		if f.Lost != nil {
			got = append(got, fmt.Sprintf("gap %d/%d", f.Lost.Frames, f.Lost.Bytes))
		} else {
			got = append(got, string(f.Data))
		}
	}
	if want := "gap 4/800,gap 1/300,{},gap 1/200"; strings.Join(got, ",") != want {
		t.Errorf("the observer got %s, want %s", strings.Join(got, ","), want)
	}
}
