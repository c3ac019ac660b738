package conformance

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/internal/proctest"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/transcript"
)

// watchMemory panics, taking the test binary down with a message, once
// the runtime holds more than limit bytes: a regression in the bounds
// under test must fail the test, not exhaust the machine that runs it.
func watchMemory(t *testing.T, limit uint64) {
	t.Helper()
	done := make(chan struct{})
	stopped := make(chan uint64)
	t.Cleanup(func() {
		close(done)
		t.Logf("peak memory held by the runtime: %d MiB", <-stopped>>20)
	})
	sample := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		var peak uint64
		for {
			select {
			case <-done:
				stopped <- peak
				return
			case <-tick.C:
			}
			metrics.Read(sample)
			used := sample[0].Value.Uint64()
			peak = max(peak, used)
			if used > limit {
				panic(fmt.Sprintf("memory watchdog: %s holds %d MiB, over its bound of %d MiB", t.Name(), used>>20, limit>>20))
			}
		}
	}()
}

// shAgent is an agent written as a shell one-liner. The script appends
// the pids that must not outlive the check to $PIDFILE.
func shAgent(t *testing.T, script string) (AgentCommand, string) {
	pidfile := filepath.Join(t.TempDir(), "pids")
	return AgentCommand{Path: "sh", Args: []string{"-c", script}, Env: []string{"PIDFILE=" + pidfile}}, pidfile
}

// floodUpdate is a valid session/update, repeated by flooding agents.
const floodUpdate = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"flood"}}}}`

// TestFaultMatrix runs check against agents that misbehave at the process
// level. Each case is bounded in time and memory, must end with the
// verdict it names, and must leave no agent process behind.
func TestFaultMatrix(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("fake agents are sh one-liners; the pid checks read /proc")
	}
	const startup = time.Second
	for _, tc := range []struct {
		name   string
		script string
		// wantStart is a text the start error must contain; empty when the
		// agent starts and the check must give a verdict instead.
		wantStart string
		// wantFailed is a rule or check the verdict must fail.
		wantFailed string
		within     time.Duration
		// memory bounds what the runtime holds meanwhile.
		memory uint64
	}{
		{
			name:      "floods stdout and never answers",
			script:    `echo $$ >>"$PIDFILE"; exec yes '` + floodUpdate + `'`,
			wantStart: "within the startup timeout of 1s",
			// yes computes, so on a loaded machine it waits for the CPU, and
			// the startup timeout is stretched by that (see stallMeter).
			within: (1+maxStretch)*startup + 3*time.Second,
			memory: 256 << 20,
		},
		{
			name:      "prints garbage",
			script:    `echo $$ >>"$PIDFILE"; exec yes 'garbage garbage'`,
			wantStart: "within the startup timeout of 1s",
			within:    (1+maxStretch)*startup + 3*time.Second,
			memory:    256 << 20,
		},
		{
			name:      "never speaks",
			script:    `echo $$ >>"$PIDFILE"; exec sleep 60`,
			wantStart: "within the startup timeout of 1s",
			within:    startup + 3*time.Second,
			memory:    256 << 20,
		},
		{
			name:      "exits at once",
			script:    `echo $$ >>"$PIDFILE"; exit 3`,
			wantStart: "exit status 3",
			within:    3 * time.Second,
			memory:    256 << 20,
		},
		{
			name:      "closes stdout but keeps running",
			script:    `echo $$ >>"$PIDFILE"; exec >&-; exec sleep 60`,
			wantStart: "closed stdout",
			within:    3 * time.Second,
			memory:    256 << 20,
		},
		{
			name:      "ignores SIGTERM",
			script:    `trap '' TERM; echo $$ >>"$PIDFILE"; exec sleep 60`,
			wantStart: "within the startup timeout of 1s",
			within:    startup + 3*time.Second,
			memory:    256 << 20,
		},
		{
			name: "leaves a grandchild holding stdout",
			// POSIX gives a background command /dev/null as stdin before
			// its own redirections, so "<&0" would hand it /dev/null: the
			// agent's stdin reaches the grandchild through fd 3.
			script:    `exec 3<&0; sleep 60 <&3 3<&- 2>&- & echo $! >>"$PIDFILE"; exit 0`,
			wantStart: "within the startup timeout of 1s",
			within:    startup + 3*time.Second,
			memory:    256 << 20,
		},
		{
			name:      "forks a grandchild and ignores SIGTERM",
			script:    `trap '' TERM; sleep 60 & echo $! $$ >>"$PIDFILE"; wait`,
			wantStart: "within the startup timeout of 1s",
			within:    startup + 3*time.Second,
			memory:    256 << 20,
		},
		{
			// Answers initialize and session/new blindly (the client's ids
			// are 0 and 1), then floods updates instead of ending the turn.
			name: "floods updates during a prompt",
			script: `echo $$ >>"$PIDFILE"; read l; echo '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[]}}'; ` +
				`read l; echo '{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}'; read l; exec yes '` + floodUpdate + `'`,
			wantFailed: CheckTimeout,
			within:     20 * time.Second,
			memory:     256 << 20,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			watchMemory(t, tc.memory)
			agent, pidfile := shAgent(t, tc.script)
			opts := Options{
				Agent: agent, Runs: 1, Steps: 1, Seed: 1,
				StartupTimeout: startup, ResponseTimeout: time.Second, RunTimeout: 3 * time.Second,
				CloseGrace: 200 * time.Millisecond, ShrinkTime: 100 * time.Millisecond, MaxShrinks: -1,
			}
			type result struct {
				v   *Verdict
				err error
			}
			done := make(chan result, 1)
			start := time.Now()
			go func() {
				v, err := Check(context.Background(), opts)
				done <- result{v, err}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(tc.within + 10*time.Second):
				t.Fatalf("check still running after %v", tc.within+10*time.Second)
			}
			if took := time.Since(start); took > tc.within {
				t.Errorf("check took %v, want at most %v", took.Round(time.Millisecond), tc.within)
			}
			switch {
			case tc.wantStart != "":
				// It runs, so it gets a verdict: it did not start.
				if r.err != nil || !r.v.NotStarted || !slices.Contains(r.v.Failed(), CheckStart) || !strings.Contains(r.v.Summary, tc.wantStart) {
					t.Errorf("got %v (verdict %+v), want a verdict that fails %s saying %q", r.err, r.v, CheckStart, tc.wantStart)
				}
			case r.err != nil:
				t.Errorf("check failed: %v", r.err)
			case !strings.Contains(" "+strings.Join(r.v.Failed(), " ")+" ", " "+tc.wantFailed+" "):
				t.Errorf("verdict fails %v, want %s among them", r.v.Failed(), tc.wantFailed)
			}
			proctest.AssertGone(t, pidfile)
		})
	}
}

// TestCheckInterrupted: cancelling the check (what SIGINT and SIGTERM do
// in the command) ends a run against an agent that floods and ignores
// SIGTERM within a second or two, kills its whole process group, and still
// gives the verdict of the runs made. The cancel comes once the flood has
// begun (its pid is written), not after a fixed time, which a loaded
// machine may not have reached the flood in.
func TestCheckInterrupted(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the pid checks read /proc")
	}
	watchMemory(t, 1<<30)
	agent, pidfile := shAgent(t, `trap '' TERM; echo $$ >>"$PIDFILE"; read l; echo '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[]}}'; `+
		`read l; echo '{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}'; read l; yes '`+floodUpdate+`' & echo $! >>"$PIDFILE"; wait`)
	opts := Options{
		Agent: agent, Runs: 1, Steps: 1, Seed: 1,
		StartupTimeout: 5 * time.Second, ResponseTimeout: time.Minute, RunTimeout: time.Minute,
		CloseGrace: time.Minute, MaxShrinks: -1,
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelled := make(chan time.Time, 1)
	go func() {
		// The preflight's agent writes its pid, then the flood's.
		for {
			data, _ := os.ReadFile(pidfile)
			if len(strings.Fields(string(data))) >= 2 {
				break
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
		cancelled <- time.Now()
		cancel()
	}()
	v, err := Check(ctx, opts)
	ended := time.Now()
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	exercised := false
	if v != nil {
		for _, r := range v.Rules {
			exercised = exercised || r.Status != StatusNotExercised
		}
	}
	if !exercised {
		// The preflight run at least was made (Runs counts generated
		// runs only, and the cancel may come before the first).
		t.Errorf("no verdict of the runs made")
	}
	select {
	case at := <-cancelled:
		// At most three rungs of interruptGrace, and the time to notice.
		if took := ended.Sub(at); took > 4*interruptGrace {
			t.Errorf("check ended %v after the interrupt, want at most %v", took.Round(time.Millisecond), 4*interruptGrace)
		}
	default:
		t.Errorf("the check ended before the agent flooded")
	}
	proctest.AssertGone(t, pidfile)
}

// TestTranscriptBounded: a transcript keeps its start on disk up to the
// spill bound and its most recent records in memory, says how many it
// dropped between, and what it writes is still read by lint, with the gap
// reported instead of taken for traffic.
func TestTranscriptBounded(t *testing.T) {
	tr := &Transcript{spillMax: 64 << 10, ringMax: 16, ringBytesMax: 1 << 20}
	defer tr.release()
	tr.add(domain.FromClient, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`+"\n"))
	const n = 200_000
	for i := range n {
		tr.add(domain.FromAgent, fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s%d"}}`+"\n", i))
	}
	if tr.Len() != n+1 {
		t.Fatalf("Len = %d, want %d", tr.Len(), n+1)
	}
	if tr.spillBytes > 64<<10 || tr.ringLen != 16 {
		t.Errorf("kept %d bytes on disk and %d records in memory, want at most 64 KiB and 16", tr.spillBytes, tr.ringLen)
	}
	kept := tr.spillRecords + tr.ringLen
	if got := tr.Dropped(); got != int64(n+1-kept) {
		t.Errorf("Dropped = %d, want %d", got, n+1-kept)
	}
	// The first line, one in the middle that was dropped, the last one.
	win := tr.Lines([]int{1, n / 2, n + 1})
	if len(win) != 2 || win[0].Line != 1 || !strings.Contains(win[0].Text, `"initialize"`) ||
		win[1].Line != n+1 || !strings.Contains(win[1].Text, fmt.Sprintf(`"s%d"`, n-1)) {
		t.Errorf("Lines(1, %d, %d) = %+v", n/2, n+1, win)
	}
	var out bytes.Buffer
	if err := tr.WriteJSONL(&out); err != nil {
		t.Fatal(err)
	}
	if lines := bytes.Count(out.Bytes(), []byte("\n")); lines != kept+1 {
		t.Errorf("wrote %d lines, want %d kept and one gap record", lines, kept)
	}
	if !bytes.Contains(out.Bytes(), fmt.Appendf(nil, `"lost":{"frames":%d,`, n+1-kept)) {
		t.Errorf("no gap record counting the %d dropped records", n+1-kept)
	}
	// Finishing moves the tail to disk: nothing stays in memory, and the
	// transcript reads the same.
	tr.finish()
	var after bytes.Buffer
	if err := tr.WriteJSONL(&after); err != nil {
		t.Fatal(err)
	}
	if tr.ring != nil || !bytes.Equal(after.Bytes(), out.Bytes()) {
		t.Errorf("after finish: ring kept %d records; transcript changed: %v", tr.ringLen, !bytes.Equal(after.Bytes(), out.Bytes()))
	}
	if again := tr.Lines([]int{1, n / 2, n + 1}); !slices.Equal(again, win) {
		t.Errorf("after finish, Lines(1, %d, %d) = %.300v, want %.300v", n/2, n+1, again, win)
	}
	res, err := lint.Transcript(&out, lint.Options{Format: transcript.FormatJSONL})
	if err != nil {
		t.Fatal(err)
	}
	gaps := 0
	for _, f := range res.Findings {
		if f.Blame == findings.PartyTool && f.Location.Line == tr.spillRecords+1 {
			gaps++
		}
	}
	if gaps != 1 || res.Lines != kept+1 {
		t.Errorf("lint read %d lines and reported the gap %d times, want %d lines and once", res.Lines, gaps, kept+1)
	}
}

// endlessLine is a line of n bytes and its newline, produced as read.
type endlessLine struct{ n int }

func (r *endlessLine) Read(p []byte) (int, error) {
	if r.n < 0 {
		return 0, errors.New("read past the end")
	}
	if r.n == 0 {
		p[0] = '\n'
		r.n = -1
		return 1, nil
	}
	k := min(len(p), r.n)
	for i := range k {
		p[i] = 'x'
	}
	r.n -= k
	return k, nil
}

// TestLongLineNotBuffered: a line over the maximum is streamed past, not
// kept, and the line after it is read normally.
func TestLongLineNotBuffered(t *testing.T) {
	const size = 256 << 20
	br := bufio.NewReaderSize(&endlessLine{n: size}, 64<<10)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	line, skipped, err := readLine(br, 1<<20)
	runtime.ReadMemStats(&after)
	if line != nil || skipped != size+1 || err != nil {
		t.Fatalf("readLine = %d bytes, skipped %d, %v; want nothing, %d skipped", len(line), skipped, err, size+1)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
		t.Errorf("reading past a %d MiB line allocated %d MiB", size>>20, grew>>20)
	}
}

// TestLongLineRecordedAsGap: the harness records an agent line over
// MaxLine as a gap of its length and hands the client the next line.
func TestLongLineRecordedAsGap(t *testing.T) {
	rec := &Transcript{}
	defer rec.release()
	agent, _ := shAgent(t, `head -c 3000000 /dev/zero | tr '\0' x; echo; echo '{"jsonrpc":"2.0","id":0,"result":{}}'; sleep 5`)
	p, err := startProc(agent, rec, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { p.shutdown(100*time.Millisecond, 100*time.Millisecond, nil, nil); p.stop() }()
	select {
	case f := <-p.frames:
		p.received(f)
		if f.num != 2 || string(f.line) != `{"jsonrpc":"2.0","id":0,"result":{}}` {
			t.Errorf("first frame = line %d %.40q, want line 2, the response", f.num, f.line)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no frame")
	}
	if w := rec.Lines([]int{1}); len(w) != 1 || !strings.Contains(w[0].Text, `"lost":{"frames":1,"bytes":3000001,`) {
		t.Errorf("line 1 = %.200v, want a gap of 3000001 bytes", w)
	}
}

// TestReproductionAfterGap: a run that outgrew its transcript bounds
// still yields a minimal transcript that lint reads and that reproduces
// the failure, with the dropped lines marked by one gap record.
func TestReproductionAfterGap(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the fake agent is a sh one-liner")
	}
	watchMemory(t, 256<<20)
	agent, pidfile := shAgent(t, `echo $$ >>"$PIDFILE"; read l; echo '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[]}}'; `+
		`read l; echo '{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}'; read l; exec yes '`+floodUpdate+`'`)
	out := t.TempDir()
	v, err := Check(context.Background(), Options{
		Agent: agent, Runs: 1, Steps: 1, Seed: 1, MaxTranscript: 64 << 10,
		StartupTimeout: 5 * time.Second, ResponseTimeout: time.Second, RunTimeout: time.Second,
		CloseGrace: 200 * time.Millisecond, ShrinkTime: 100 * time.Millisecond, MaxShrinks: 1, OutDir: out,
	})
	if err != nil {
		t.Fatal(err)
	}
	proctest.AssertGone(t, pidfile)
	if len(v.Reproductions) == 0 {
		t.Fatalf("no reproduction; verdict fails %v", v.Failed())
	}
	rep := v.Reproductions[0]
	if !rep.Reproduced {
		t.Errorf("%s: lint of %s does not reproduce it (lint reports %v)", rep.Key, rep.File, rep.LintRules)
	}
	data, err := os.ReadFile(rep.File)
	if err != nil {
		t.Fatal(err)
	}
	if gaps := bytes.Count(data, []byte(`"lost":{"frames":`)); gaps != 1 || len(data) > 64<<10+9<<20 {
		t.Errorf("%s: %d bytes with %d gap records, want at most 64 KiB + the tail, and one gap", rep.File, len(data), gaps)
	}
}

// TestEscapedGrandchild: a process the agent started in a session of its
// own is out of reach of the process-group signals, and holds the agent's
// stdout and stderr open. The run still ends, with the agent's own exit
// status, and acplint stops reading from it.
func TestEscapedGrandchild(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("uses setsid(1)")
	}
	agent, pidfile := shAgent(t, `setsid sleep 30 <&0 & echo $! >>"$PIDFILE"; exit 7`)
	defer func() {
		data, _ := os.ReadFile(pidfile)
		for _, f := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(f); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}()
	start := time.Now()
	run := runPlan(t, Options{Agent: agent, StartupTimeout: time.Second, CloseGrace: 200 * time.Millisecond}, preflightPlan())
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the run took %v, want at most 5s", took.Round(time.Millisecond))
	}
	if run.Exit != "exit status 7" {
		t.Errorf("the agent %s, want exit status 7", run.Exit)
	}
}

// TestTranscriptReleasesLongLineBuffer: a check keeps the transcript of
// every run until it reports; the buffer that encoded a long line must
// not stay with it. (A 64 MiB agent line held 64-128 MiB per run kept, 9
// GB of heap for a check whose agent sent one such line per run.)
func TestTranscriptReleasesLongLineBuffer(t *testing.T) {
	tr := &Transcript{}
	defer tr.release()
	long := append(bytes.Repeat([]byte("x"), 4<<20), '\n')
	tr.add(domain.FromAgent, long)
	tr.add(domain.FromAgent, []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s"}}`+"\n"))
	tr.add(domain.FromAgent, long)
	if c := tr.enc.Cap(); c > maxKeptEncoding {
		t.Errorf("the transcript keeps a %d-byte encoding buffer after a long line, want at most %d", c, maxKeptEncoding)
	}
}
