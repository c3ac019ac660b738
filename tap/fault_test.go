package tap

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/internal/proctest"
	"github.com/acplint/acplint/transcript"
)

// The fault matrix of the tap: each test breaks one thing around the
// forwarding path (an observer, the editor, the agent, a signal) and checks
// the promise: every byte forwarded unchanged, the tap ends with the agent
// and leaves no process behind. Every test is bounded by within().

// within fails the test if fn does not return in d: a stalled tap must
// fail, not hang CI.
func within(t *testing.T, d time.Duration, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still running after %v", d)
	}
}

func chattyLines(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","method":"_fixture/line","params":{"i":%d}}`+"\n", i)
	}
	return b.Bytes()
}

// gapRecorder is an observer that counts frames and gaps.
type gapRecorder struct {
	mu                 sync.Mutex
	frames, lostFrames int
	lostBytes          int64
	reasons            []string
	block              chan struct{} // Frame waits until it is closed
}

func (g *gapRecorder) frame(f transcript.Frame) {
	if g.block != nil {
		<-g.block
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if f.Lost != nil {
		g.lostFrames += int(f.Lost.Frames)
		g.lostBytes += f.Lost.Bytes
		g.reasons = append(g.reasons, f.Lost.Reason)
		return
	}
	g.frames++
}

// TestStuckObserverDoesNotStallForwarding: an observer that cannot keep up
// (here: one that does not return until the agent is done) costs it
// frames, which it is told about, never the editor's bytes.
func TestStuckObserverDoesNotStallForwarding(t *testing.T) {
	const n = 20000
	t.Setenv("TAP_LINES", strconv.Itoa(n))
	stuck := &gapRecorder{block: make(chan struct{})}
	var trouble atomic.Value
	pr, pw := io.Pipe() // the editor stays connected until it has every line
	var out bytes.Buffer
	var res Result
	within(t, 30*time.Second, func() {
		done := make(chan struct{})
		go func() {
			defer close(done)
			var err error
			res, err = Run(context.Background(), Options{Command: fixture("chatty"), Stderr: io.Discard, QueueBytes: 64 << 10,
				DrainTimeout: 200 * time.Millisecond, OnTrouble: func(err error) { trouble.Store(err.Error()) },
				Observers: []Observer{{Name: "stuck", Frame: stuck.frame}}}, pr, &syncWriter{w: &out, onLines: n, done: func() { pw.Close() }})
			if err != nil {
				t.Error(err)
			}
		}()
		<-done
	})
	close(stuck.block) // too late for the run; lets the goroutine end
	if !bytes.Equal(out.Bytes(), chattyLines(n)) {
		t.Fatalf("the editor got %d bytes, want the agent's %d", out.Len(), len(chattyLines(n)))
	}
	if res.FromAgent != n {
		t.Errorf("counted %d agent lines, want %d", res.FromAgent, n)
	}
	// The observer never returned, so the tap gave up waiting for it at
	// the end, and said so.
	if msg, _ := trouble.Load().(string); !strings.Contains(msg, "stuck did not finish") {
		t.Errorf("trouble reported: %q, want that the stuck observer did not finish", msg)
	}
}

// syncWriter is an editor's stdout: it counts lines and calls done once
// it has seen onLines of them.
type syncWriter struct {
	mu      sync.Mutex
	w       *bytes.Buffer
	onLines int
	seen    int
	done    func()
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w.Write(p)
	before := s.seen
	s.seen += bytes.Count(p, []byte("\n"))
	if before < s.onLines && s.seen >= s.onLines {
		s.done()
	}
	return len(p), nil
}

// TestSlowObserverIsToldWhatItMissed: an observer that stalls until the
// editor has every line, then catches up, gets what fitted in its queue
// and gap frames for the rest: delivered plus lost add up to every line.
func TestSlowObserverIsToldWhatItMissed(t *testing.T) {
	const n = 5000
	t.Setenv("TAP_LINES", strconv.Itoa(n))
	release := make(chan struct{})
	slow := &gapRecorder{block: release} // stalls until the editor has every line
	var out bytes.Buffer
	within(t, 30*time.Second, func() {
		_, err := Run(context.Background(), Options{Command: fixture("chatty"), Stderr: io.Discard, QueueBytes: 4 << 10,
			Observers: []Observer{{Name: "slow observer", Frame: slow.frame}}},
			bytes.NewReader(nil), &syncWriter{w: &out, onLines: n, done: func() { close(release) }})
		if err != nil {
			t.Error(err)
		}
	})
	if !bytes.Equal(out.Bytes(), chattyLines(n)) {
		t.Fatalf("the editor got %d bytes, want %d", out.Len(), len(chattyLines(n)))
	}
	if got := slow.frames + slow.lostFrames; got != n || slow.lostFrames == 0 {
		t.Errorf("delivered %d + lost %d = %d frames, want %d with some lost", slow.frames, slow.lostFrames, got, n)
	}
	if slow.lostBytes <= 0 {
		t.Errorf("lost %d bytes", slow.lostBytes)
	}
	for _, r := range slow.reasons {
		if !strings.Contains(r, "slow observer fell behind") {
			t.Errorf("gap reason %q does not say the observer fell behind", r)
		}
	}
}

// TestObserverPanicStopsOnlyTheObserver: a bug in an observer (a lint
// rule, the recorder) is reported once and forwarding goes on.
func TestObserverPanicStopsOnlyTheObserver(t *testing.T) {
	const n = 1000
	t.Setenv("TAP_LINES", strconv.Itoa(n))
	var seen atomic.Int64
	var troubles []error
	var mu sync.Mutex
	healthy := &gapRecorder{}
	var out bytes.Buffer
	within(t, 30*time.Second, func() {
		res, err := Run(context.Background(), Options{Command: fixture("chatty"), Stderr: io.Discard,
			Observers: []Observer{
				{Name: "buggy rule", Frame: func(transcript.Frame) {
					if seen.Add(1) == 3 {
						panic("index out of range")
					}
				}},
				{Name: "recorder", Frame: healthy.frame},
			},
			OnTrouble: func(err error) { mu.Lock(); troubles = append(troubles, err); mu.Unlock() },
		}, bytes.NewReader(nil), &out)
		if err != nil || res.ExitCode != 0 {
			t.Errorf("exit %d, err %v", res.ExitCode, err)
		}
	})
	if !bytes.Equal(out.Bytes(), chattyLines(n)) {
		t.Errorf("the editor got %d bytes, want %d", out.Len(), len(chattyLines(n)))
	}
	if len(troubles) != 1 || !strings.Contains(troubles[0].Error(), "buggy rule") || !strings.Contains(troubles[0].Error(), "index out of range") {
		t.Errorf("troubles reported: %v, want one naming the observer and the panic", troubles)
	}
	if seen.Load() != 3 {
		t.Errorf("the panicking observer was called %d times, want 3 (it stops at its panic)", seen.Load())
	}
	if healthy.frames != n {
		t.Errorf("the other observer got %d frames, want all %d", healthy.frames, n)
	}
}

// brokenEditor takes limit bytes, then fails every write as a closed pipe
// does.
type brokenEditor struct {
	mu    sync.Mutex
	got   bytes.Buffer
	limit int
}

func (b *brokenEditor) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.got.Len()+len(p) > b.limit {
		return 0, syscall.EPIPE
	}
	return b.got.Write(p)
}

// TestEditorGoneKeepsRecording: the editor stops reading (its end of the
// pipe closed): the tap keeps reading the agent so it never blocks,
// observes every line, closes the agent's stdin and ends with it.
func TestEditorGoneKeepsRecording(t *testing.T) {
	const n = 300
	t.Setenv("TAP_LINES", strconv.Itoa(n))
	rec := &gapRecorder{}
	editorIn, editorKeepsOpen := io.Pipe() // the editor never closes its side
	defer editorKeepsOpen.Close()
	var res Result
	within(t, 30*time.Second, func() {
		var err error
		res, err = Run(context.Background(), Options{Command: fixture("chatty"), Stderr: io.Discard, Grace: 5 * time.Second,
			Observers: []Observer{{Name: "recorder", Frame: rec.frame}}}, editorIn, &brokenEditor{limit: 300})
		if err != nil {
			t.Error(err)
		}
	})
	if res.ExitCode != 0 {
		t.Errorf("exit code %d, want the agent's 0: its stdin should have been closed when the editor left", res.ExitCode)
	}
	if rec.frames != n {
		t.Errorf("recorded %d lines, want all %d the agent wrote", rec.frames, n)
	}
}

// TestAgentStdoutEOFReachesEditorAtOnce: an agent that closes its stdout
// but keeps running; the editor must see the end of the stream then, not
// when the agent finally exits.
func TestAgentStdoutEOFReachesEditorAtOnce(t *testing.T) {
	editorIn, editorWrites := io.Pipe()
	fromAgent, agentWrites := io.Pipe()
	done := make(chan Result, 1)
	go func() {
		res, _ := Run(context.Background(), Options{Command: fixture("closes-stdout"), Stderr: io.Discard, Grace: 200 * time.Millisecond}, editorIn, agentWrites)
		done <- res
	}()
	within(t, 10*time.Second, func() {
		got, err := io.ReadAll(fromAgent)
		if err != nil || !strings.Contains(string(got), "_fixture/bye") {
			t.Errorf("editor read %q, %v", got, err)
		}
	})
	select {
	case <-done:
		t.Fatal("the tap ended before the agent did")
	default:
	}
	editorWrites.Close() // the editor hangs up: now the agent is ended
	within(t, 10*time.Second, func() {
		if res := <-done; res.ExitCode != 128+int(syscall.SIGTERM) {
			t.Errorf("exit code %d, want 143", res.ExitCode)
		}
	})
}

// startReady runs the tap over fixture kind with the editor connected,
// and returns once the agent has said it is ready (through the tap, so the
// tap is past setting up its signal handling); done yields the result.
func startReady(t *testing.T, kind string) (editorWrites *io.PipeWriter, done chan Result) {
	t.Helper()
	editorIn, editorWrites := io.Pipe()
	fromAgent, agentWrites := io.Pipe()
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(fromAgent)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "_fixture/ready") {
				close(ready)
			}
		}
	}()
	done = make(chan Result, 1)
	go func() {
		res, _ := Run(context.Background(), Options{Command: fixture(kind), Stderr: io.Discard, Grace: 200 * time.Millisecond}, editorIn, agentWrites)
		agentWrites.Close()
		done <- res
	}()
	within(t, 10*time.Second, func() { <-ready })
	return editorWrites, done
}

// TestWrapperGrandchildIsEnded: the agent command is a wrapper whose child
// is the real agent, which ignores SIGTERM. When the editor hangs up, the
// whole group is signalled: the tap ends within the close ladder and the
// grandchild is gone.
func TestWrapperGrandchildIsEnded(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	t.Setenv("TAP_PIDFILE", pidFile)
	editorWrites, done := startReady(t, "wrapper")
	editorWrites.Close()
	within(t, 10*time.Second, func() { <-done })
	proctest.AssertGone(t, pidFile)
}

// TestSignalToTapEscalatesToKill: SIGTERM sent to the tap reaches the agent
// (and its group); an agent that ignores it is killed after the grace.
func TestSignalToTapEscalatesToKill(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	t.Setenv("TAP_PIDFILE", pidFile)
	editorWrites, done := startReady(t, "stubborn-pid")
	defer editorWrites.Close()
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	within(t, 10*time.Second, func() {
		if res := <-done; res.ExitCode != 128+int(syscall.SIGKILL) {
			t.Errorf("exit code %d, want 137: the agent ignores SIGTERM", res.ExitCode)
		}
	})
	proctest.AssertGone(t, pidFile)
}

// TestLongLineIsForwardedNotKept: a line longer than MaxLine is forwarded
// byte for byte; observers get a gap in its place and the lines after it.
func TestLongLineIsForwardedNotKept(t *testing.T) {
	long := `{"jsonrpc":"2.0","method":"_x/big","params":{"s":"` + strings.Repeat("z", 3<<20) + `"}}` + "\n"
	input := []byte(long + `{"jsonrpc":"2.0","method":"_x/after"}` + "\n")
	rec := &gapRecorder{}
	var out bytes.Buffer
	within(t, 30*time.Second, func() {
		_, err := Run(context.Background(), Options{Command: []string{"cat"}, Stderr: io.Discard, MaxLine: 1 << 20,
			Observers: []Observer{{Name: "recorder", Frame: rec.frame}}}, bytes.NewReader(input), &out)
		if err != nil {
			t.Error(err)
		}
	})
	if !bytes.Equal(out.Bytes(), input) {
		t.Fatalf("forwarded %d bytes, want the %d sent", out.Len(), len(input))
	}
	// Both directions: cat echoes, so each line crosses twice.
	if rec.lostFrames != 2 || rec.lostBytes != 2*int64(len(long)-1) || rec.frames != 2 {
		t.Errorf("observer got %d frames and %d lost (%d bytes), want 2 frames and 2 lost of %d bytes", rec.frames, rec.lostFrames, rec.lostBytes, len(long)-1)
	}
	for _, r := range rec.reasons {
		if !strings.Contains(r, "--max-line") {
			t.Errorf("gap reason %q does not name --max-line", r)
		}
	}
}

// TestDetachedWriterNeverBlocks: a destination that blocks for ever (a
// stderr nobody reads) costs the writer bytes, never its callers' time.
func TestDetachedWriterNeverBlocks(t *testing.T) {
	pr, pw := io.Pipe() // nobody reads pr
	w := NewDetachedWriter(pw, 1<<10)
	within(t, 5*time.Second, func() {
		for range 10000 {
			w.Write([]byte("acplint: a finding nobody reads\n"))
		}
	})
	var dropped int64
	within(t, 5*time.Second, func() { dropped, _ = w.Close(100 * time.Millisecond) })
	if dropped == 0 {
		t.Error("no bytes counted as dropped")
	}
	pr.Close()
	// A failed destination: the error is kept and later writes dropped.
	w = NewDetachedWriter(failingWriter{}, 1<<10)
	w.Write([]byte("x\n"))
	time.Sleep(10 * time.Millisecond)
	w.Write([]byte("y\n"))
	if _, err := w.Close(time.Second); !errors.Is(err, syscall.EPIPE) {
		t.Errorf("Close reported %v, want EPIPE", err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, syscall.EPIPE }

// TestAgentExitEndsTapDespiteHelper: the agent exits (code 5) leaving a
// helper that holds its stdout and never exits. The editor must learn that
// the agent ended, with its exit code, and the helper must not outlive the
// tap.
func TestAgentExitEndsTapDespiteHelper(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	editorIn, editorWrites := io.Pipe() // the editor stays connected
	defer editorWrites.Close()
	script := `echo '{"jsonrpc":"2.0","method":"_fixture/hi"}'; sleep 3600 & echo $! > "$0"; exit 5`
	var out bytes.Buffer
	within(t, 10*time.Second, func() {
		res, err := Run(context.Background(), Options{Command: []string{"/bin/sh", "-c", script, pidFile}, Stderr: io.Discard, Grace: 200 * time.Millisecond}, editorIn, &out)
		if err != nil || res.ExitCode != 5 {
			t.Errorf("exit code %d (%v), want the agent's 5", res.ExitCode, err)
		}
	})
	if !strings.Contains(out.String(), "_fixture/hi") {
		t.Errorf("the editor got %q", out.String())
	}
	proctest.AssertGone(t, pidFile)
}

// TestEmptyLineFloodIsBounded: a queued frame costs its bytes and itself,
// so a flood of empty lines, which have no bytes, fills an observer's queue
// like any other traffic instead of growing it without bound.
func TestEmptyLineFloodIsBounded(t *testing.T) {
	const lines = 1 << 20
	const queue = 64 << 10
	release := make(chan struct{})
	slow := &gapRecorder{block: release} // stalls until the editor has every line
	var out bytes.Buffer
	within(t, 60*time.Second, func() {
		_, err := Run(context.Background(), Options{Command: []string{"/bin/sh", "-c", "yes '' | head -c " + strconv.Itoa(2*lines)},
			Stderr: io.Discard, QueueBytes: queue, Observers: []Observer{{Name: "slow observer", Frame: slow.frame}}},
			bytes.NewReader(nil), &syncWriter{w: &out, onLines: 2 * lines, done: func() { close(release) }})
		if err != nil {
			t.Error(err)
		}
	})
	if out.Len() != 2*lines {
		t.Fatalf("forwarded %d bytes, want %d", out.Len(), 2*lines)
	}
	// The observer stalled until every line had crossed, so it got what
	// its queue held then, and gaps for the rest.
	if most := queue/int(unsafe.Sizeof(event{})) + maxReadLines; slow.frames > most {
		t.Errorf("the observer got %d frames through a %d-byte queue; at most %d fit", slow.frames, queue, most)
	}
	if slow.frames+slow.lostFrames != 2*lines {
		t.Errorf("delivered %d + lost %d, want %d", slow.frames, slow.lostFrames, 2*lines)
	}
}

// TestRecordingKeepsCauseBeforeAnswer: the editor writes a burst larger
// than the pipe; the agent answers the first line while the tap's write of
// the burst still blocks. The observers must see each line before the
// agent's answer to it.
func TestRecordingKeepsCauseBeforeAnswer(t *testing.T) {
	input := chattyLines(20000)
	_, _, rec := tapped(t, "echo", bytes.NewReader(input))
	seen := 0 // client lines observed so far
	for _, f := range rec.frames {
		switch f.From {
		case domain.FromClient:
			seen++
		case domain.FromAgent:
			var n int
			if _, err := fmt.Sscanf(string(f.Data), `{"jsonrpc":"2.0","method":"_fixture/seen","params":{"n":%d`, &n); err == nil && n >= seen {
				t.Fatalf("the agent's answer to line %d was observed when only %d client lines were", n, seen)
			}
		}
	}
}

// TestEditorGoneFloodingAgentEnds: the editor stopped reading and the
// agent floods its stdout for ever, ignoring its stdin. Its output goes
// nowhere, so it does not extend the grace: it gets SIGTERM.
func TestEditorGoneFloodingAgentEnds(t *testing.T) {
	editorIn, editorKeepsOpen := io.Pipe()
	defer editorKeepsOpen.Close()
	within(t, 20*time.Second, func() {
		res, err := Run(context.Background(), Options{Command: []string{"yes"}, Stderr: io.Discard, Grace: 200 * time.Millisecond},
			editorIn, &brokenEditor{limit: 100})
		if err != nil || res.ExitCode != 128+int(syscall.SIGTERM) {
			t.Errorf("exit %d (%v), want 143", res.ExitCode, err)
		}
	})
}

// TestSupervisedAgentEndsAsItself: under the supervisor the tap still
// reports the agent's own end (exit code, signal), a missing agent is a
// start error, and the agent's stdout EOF reaches the editor at once.
func TestSupervisedAgentEndsAsItself(t *testing.T) {
	run := func(command []string, in io.Reader, out io.Writer, grace time.Duration) (Result, error) {
		return Run(context.Background(), Options{Command: command, Stderr: io.Discard, Grace: grace, Supervised: true}, in, out)
	}
	within(t, 20*time.Second, func() {
		if res, err := run([]string{"/bin/sh", "-c", "echo hi; exit 3"}, strings.NewReader(""), io.Discard, time.Second); err != nil || res.ExitCode != 3 {
			t.Errorf("exit 3: got %d (%v)", res.ExitCode, err)
		}
		if res, err := run([]string{"/bin/sh", "-c", "kill -TERM $$"}, strings.NewReader(""), io.Discard, time.Second); err != nil || res.ExitCode != 128+int(syscall.SIGTERM) {
			t.Errorf("killed by SIGTERM: got %d (%v), want 143", res.ExitCode, err)
		}
		if _, err := run([]string{"/nonexistent/agent"}, strings.NewReader(""), io.Discard, time.Second); err == nil || !strings.Contains(err.Error(), "starting the agent") {
			t.Errorf("missing agent: %v, want a start error", err)
		}
	})
	// The stdout EOF: the supervisor must not hold the agent's stdout.
	editorIn, editorWrites := io.Pipe()
	fromAgent, agentWrites := io.Pipe()
	done := make(chan Result, 1)
	go func() {
		res, _ := run(fixture("closes-stdout"), editorIn, agentWrites, 200*time.Millisecond)
		done <- res
	}()
	within(t, 10*time.Second, func() {
		if got, err := io.ReadAll(fromAgent); err != nil || !strings.Contains(string(got), "_fixture/bye") {
			t.Errorf("editor read %q, %v", got, err)
		}
	})
	editorWrites.Close()
	within(t, 10*time.Second, func() {
		if res := <-done; res.ExitCode != 128+int(syscall.SIGTERM) {
			t.Errorf("exit code %d, want 143", res.ExitCode)
		}
	})
}

// TestHeldObserverGetsEveryLine: an observer that holds the traffic
// (Observer.Hold, the recorder) and is far slower than the agent, behind a
// queue a fraction of the traffic's size, still gets every line, in
// order, and no gap: the traffic waits for it while it keeps up.
func TestHeldObserverGetsEveryLine(t *testing.T) {
	const n = 3000
	t.Setenv("TAP_LINES", strconv.Itoa(n))
	var mu sync.Mutex
	var got [][]byte
	gaps := 0
	slow := func(f transcript.Frame) {
		time.Sleep(20 * time.Microsecond)
		mu.Lock()
		defer mu.Unlock()
		if f.Lost != nil {
			gaps++
			return
		}
		got = append(got, bytes.Clone(f.Data))
	}
	var out bytes.Buffer
	within(t, 60*time.Second, func() {
		_, err := Run(context.Background(), Options{Command: fixture("chatty"), Stderr: io.Discard, QueueBytes: 8 << 10,
			Observers: []Observer{{Name: "recorder", Frame: slow, Hold: true}}},
			bytes.NewReader(nil), &out)
		if err != nil {
			t.Error(err)
		}
	})
	want := chattyLines(n)
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("the editor got %d bytes, want %d", out.Len(), len(want))
	}
	if gaps != 0 {
		t.Errorf("%d gap frames; an observer that holds the traffic and keeps up loses nothing", gaps)
	}
	if !bytes.Equal(append(bytes.Join(got, []byte("\n")), '\n'), want) {
		t.Errorf("the observer got %d lines, not the agent's %d in order", len(got), n)
	}
}

// TestHeldObserverThatStopsIsLeftBehind: an observer that holds the
// traffic but stops taking frames (a recorder whose disk hangs) holds it
// for one holdWindow, not for ever; then it is left behind, and told what
// it missed once it moves again. Delivered plus lost add up to every line.
func TestHeldObserverThatStopsIsLeftBehind(t *testing.T) {
	const n = 5000
	t.Setenv("TAP_LINES", strconv.Itoa(n))
	release := make(chan struct{})
	stuck := &gapRecorder{block: release}
	var out bytes.Buffer
	var took time.Duration
	within(t, 30*time.Second, func() {
		start := time.Now()
		_, err := Run(context.Background(), Options{Command: fixture("chatty"), Stderr: io.Discard, QueueBytes: 4 << 10,
			Observers: []Observer{{Name: "recorder", Frame: stuck.frame, Hold: true}}},
			bytes.NewReader(nil), &syncWriter{w: &out, onLines: n, done: func() { took = time.Since(start); close(release) }})
		if err != nil {
			t.Error(err)
		}
	})
	if !bytes.Equal(out.Bytes(), chattyLines(n)) {
		t.Fatalf("the editor got %d bytes, want %d", out.Len(), len(chattyLines(n)))
	}
	// One window of waiting, and the time it takes to start the agent and
	// move 5,000 lines on a loaded machine.
	if most := holdWindow + 5*time.Second; took > most {
		t.Errorf("the editor had every line after %v; a stopped observer may hold the traffic for %v", took, holdWindow)
	}
	if got := stuck.frames + stuck.lostFrames; got != n || stuck.lostFrames == 0 {
		t.Errorf("delivered %d + lost %d = %d frames, want %d with some lost", stuck.frames, stuck.lostFrames, got, n)
	}
	for _, r := range stuck.reasons {
		if !strings.Contains(r, "recorder fell behind") {
			t.Errorf("gap reason %q does not say the recorder fell behind", r)
		}
	}
}

// TestTapMemoryBoundedByQueue: an observer that keeps a little of each
// read (it is slow, so its queue drops most) must not make the tap hold
// far more than its queue. A read of 256 KiB of empty lines is 262,144
// lines; when the lines of one read shared one slice of events, a queue
// that kept 1,024 of them (40 KiB counted) held the whole read's 10 MiB
// slice, and the tap's heap grew to hundreds of MiB with a 1 MiB queue.
func TestTapMemoryBoundedByQueue(t *testing.T) {
	if proctest.RaceEnabled {
		t.Skip("the race detector changes what is allocated; .ci/run runs this test without it")
	}
	const queue, flood = 1 << 20, 64 << 20
	t.Setenv("TAP_BYTES", strconv.Itoa(flood))
	slowly := func(transcript.Frame) { time.Sleep(time.Microsecond) }
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
		}
	}()
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var out countingWriter
	within(t, 120*time.Second, func() {
		_, err := Run(context.Background(), Options{Command: fixture("empty-flood"), Stderr: io.Discard, QueueBytes: queue,
			DrainTimeout: 100 * time.Millisecond,
			Observers:    []Observer{{Name: "slow observer", Frame: slowly}, {Name: "second", Frame: slowly}}},
			bytes.NewReader(nil), &out)
		if err != nil {
			t.Error(err)
		}
	})
	close(done)
	if out.n != flood {
		t.Fatalf("forwarded %d bytes, want %d", out.n, flood)
	}
	// Two queues of 1 MiB, a read of each side in the cutter, the pump's
	// buffers, and the collector's slack (GOGC=100 doubles the live heap).
	grew := int64(peak.Load()) - int64(base.HeapInuse)
	if most := int64(24 << 20); grew > most {
		t.Errorf("the heap grew by %d MiB through a %d MiB queue per observer; want at most %d MiB", grew>>20, queue>>20, most>>20)
	}
	t.Logf("heap grew by %.1f MiB", float64(grew)/(1<<20))
}

// countingWriter counts what is written to it.
type countingWriter struct {
	mu sync.Mutex
	n  int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n += len(p)
	return len(p), nil
}

// TestHeldObserverTooSlowIsLeftBehind: an observer that holds the traffic
// and keeps taking frames, but fewer bytes a second than it must
// (holdNeed: here 1 MiB for a 4 MiB queue; it takes about 300 KB/s, a
// slow disk), holds the traffic for about a holdWindow, not for the whole
// session: then it is left behind and told what it missed. (When only a
// single wait that lasted a holdWindow counted, an observer that freed
// some room in every window held the traffic to its pace for good: 20 MB
// took the editor 54 s with a recorder on a disk writing 400 KB/s.)
func TestHeldObserverTooSlowIsLeftBehind(t *testing.T) {
	const n = 200000
	t.Setenv("TAP_LINES", strconv.Itoa(n))
	var got, lost atomic.Int64
	lines := 0
	slow := func(f transcript.Frame) {
		if f.Lost != nil {
			lost.Add(f.Lost.Frames)
			return
		}
		got.Add(1)
		if lines++; lines%5 == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	var out bytes.Buffer
	var took time.Duration
	var res Result
	within(t, 60*time.Second, func() {
		start := time.Now()
		var err error
		res, err = Run(context.Background(), Options{Command: fixture("chatty"), Stderr: io.Discard, QueueBytes: 4 << 20,
			Observers: []Observer{{Name: "recorder", Frame: slow, Hold: true}}},
			bytes.NewReader(nil), &syncWriter{w: &out, onLines: n, done: func() { took = time.Since(start) }})
		if err != nil {
			t.Error(err)
		}
	})
	if !bytes.Equal(out.Bytes(), chattyLines(n)) {
		t.Fatalf("the editor got %d bytes, want %d", out.Len(), len(chattyLines(n)))
	}
	if most := holdWindow + 5*time.Second; took > most {
		t.Errorf("the editor had every line after %v; an observer too slow to hold the traffic may hold it for about %v", took, holdWindow)
	}
	// Too slow at the end as well, it was stopped; Result.Left says what
	// it was not given (the recorder writes that as a gap record).
	left := res.Left["recorder"].Frames
	if lost.Load()+left == 0 || got.Load()+lost.Load()+left != n {
		t.Errorf("the observer got %d frames, was told of %d lost and left without %d; want %d in all, some of them lost", got.Load(), lost.Load(), left, n)
	}
}
