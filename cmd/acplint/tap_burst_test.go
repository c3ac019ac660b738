package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/acplint/acplint/internal/proctest"
	"github.com/acplint/acplint/lint"
)

// burstLines is what the burst agent (and the editor, in the other
// direction) writes just before the end: JSON-RPC notifications with a
// line every 7th that is not JSON-RPC, a finding each.
func burstLines(n int, who string) []byte {
	var b bytes.Buffer
	for i := range n {
		if i%7 == 3 {
			fmt.Fprintf(&b, "log: %s step %d, not JSON-RPC %s\n", who, i, strings.Repeat("x", i%200))
			continue
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","method":"_fixture/%s","params":{"i":%d,"pad":%q}}`+"\n", who, i, strings.Repeat("y", i%300))
	}
	return b.Bytes()
}

// burstAgent writes FAULT_LINES lines at once, notes in FAULT_LATE that
// they are in the pipe, and then, as FAULT_END says, exits at once
// ("exit"), reads its stdin to the end and exits ("stdin"), or reads its
// stdin until a signal ends it ("signal"). Before a signal, the note
// waits until the editor's FAULT_LINES lines have arrived too: what the
// tap has not yet read from the editor when the signal comes is neither
// forwarded nor recorded, rightly, and the test must not count it.
func burstAgent() {
	n, _ := strconv.Atoi(os.Getenv("FAULT_LINES"))
	os.Stdout.Write(burstLines(n, "agent"))
	end := os.Getenv("FAULT_END")
	in := bufio.NewReader(os.Stdin)
	if end == "signal" {
		for lines := 0; lines < n; {
			_, err := in.ReadSlice('\n')
			if err == nil {
				lines++
			} else if err != bufio.ErrBufferFull {
				break
			}
		}
	}
	if f := os.Getenv("FAULT_LATE"); f != "" {
		os.WriteFile(f, []byte("written"), 0o600)
	}
	switch end {
	case "stdin":
		io.Copy(io.Discard, in)
	case "signal":
		// Reading what the editor sends, until the signal.
		io.Copy(io.Discard, in)
		time.Sleep(time.Hour)
	}
}

// TestTapCleanEndsLoseNothing: the agent and the editor each write a
// large burst just before the session ends cleanly, by the agent's exit,
// by the editor closing its stdin, or by SIGTERM or SIGINT to the tap.
// Every byte reaches the other side, the recording holds every line of
// both bursts, and the findings printed live are exactly those of
// `acplint lint` of the recording. The live linter runs at the normal
// priority here: at the lowest, on a machine whose cores other work
// takes, it gets no CPU for as long as that lasts, and the tap waits for
// it only so long (TestTapLiveLinterKeptFromCPU); this test is of what
// the end of a session loses, not of that.
func TestTapCleanEndsLoseNothing(t *testing.T) {
	n := 20000
	if proctest.RaceEnabled {
		// A race build lints 40 000 lines in more than the 10 s the tap
		// waits for its observers once the agent has gone.
		n = 3000
	}
	for _, end := range []string{"exit", "stdin", "SIGTERM", "SIGINT"} {
		t.Run(end, func(t *testing.T) {
			dir := t.TempDir()
			rec, live, written := filepath.Join(dir, "rec.jsonl"), filepath.Join(dir, "live.txt"), filepath.Join(dir, "written")
			agentEnd := end
			if strings.HasPrefix(end, "SIG") {
				agentEnd = "signal"
			}
			c := tapProcess(t, "burst", []string{"FAULT_LINES=" + strconv.Itoa(n), "FAULT_END=" + agentEnd, "FAULT_LATE=" + written,
				liveLintTestEnv + "=normal-priority"}, "--record", rec, "--lint-out", live)
			editorIn, _ := c.StdinPipe()
			stdout, _ := c.StdoutPipe()
			var stderr bytes.Buffer
			c.Stderr = &stderr
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			forwardedWithin := readAllAsync(t, c, stdout)
			clientBurst := burstLines(n, "client")
			if end == "exit" {
				// The agent ends the session: the editor has nothing to say.
				clientBurst = nil
			}
			if _, err := editorIn.Write(clientBurst); err != nil {
				t.Fatalf("writing the editor's burst: %v", err)
			}
			switch end {
			case "stdin":
				editorIn.Close()
			case "SIGTERM", "SIGINT":
				deadline := time.Now().Add(20 * time.Second)
				for time.Now().Before(deadline) {
					if _, err := os.Stat(written); err == nil {
						break
					}
					time.Sleep(time.Millisecond)
				}
				sig := syscall.SIGTERM
				if end == "SIGINT" {
					sig = syscall.SIGINT
				}
				c.Process.Signal(sig)
			}
			forwarded := forwardedWithin(time.Minute)
			waitExit(t, c, 30*time.Second)
			editorIn.Close()
			if want := burstLines(n, "agent"); !bytes.Equal(forwarded, want) {
				t.Errorf("the editor got %d bytes, want the agent's %d", len(forwarded), len(want))
			}
			if frames := recordedFramesFrom(t, rec, "agent"); frames != n {
				t.Errorf("recorded %d agent frames, want all %d", frames, n)
			}
			if frames := recordedFramesFrom(t, rec, "client"); frames != bytes.Count(clientBurst, []byte("\n")) {
				t.Errorf("recorded %d client frames, want all %d", frames, bytes.Count(clientBurst, []byte("\n")))
			}
			liveFindingsAreLintOf(t, live, rec, stderr.String())
		})
	}
}

// liveFindingsAreLintOf checks that the findings the tap printed live to
// the file live are exactly those of `acplint lint` of its recording rec;
// stderr is the tap's, for the failure's message.
func liveFindingsAreLintOf(t *testing.T, live, rec, stderr string) {
	t.Helper()
	liveFindings, err := os.ReadFile(live)
	if err != nil {
		t.Fatal(err)
	}
	recording, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	res, err := lint.Transcript(bytes.NewReader(recording), lint.Options{File: rec})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range res.Findings {
		want = append(want, fmt.Sprintf("%s: %s: [%s] %s (%s)", f.Location, f.Severity, f.Blame, f.Message, f.RuleID))
	}
	var gotFindings []string
	for _, l := range strings.Split(strings.TrimSpace(string(liveFindings)), "\n") {
		if l != "" && !strings.HasPrefix(l, "\t") {
			gotFindings = append(gotFindings, l)
		}
	}
	sort.Strings(gotFindings)
	sort.Strings(want)
	if len(want) == 0 || strings.Join(gotFindings, "\n") != strings.Join(want, "\n") {
		t.Errorf("live findings (%d) differ from lint of the recording (%d); stderr:\n%s", len(gotFindings), len(want), stderr)
		lintSet := map[string]bool{}
		for _, f := range want {
			lintSet[f] = true
		}
		for _, f := range gotFindings {
			if !lintSet[f] && !strings.Contains(f, "more like this") {
				t.Errorf("live only: %s", f)
			}
		}
	}
}

// keepCoresBusy keeps every core busy, at the normal priority, with twice
// as many goroutines as there are cores, until the function it returns
// is called (at the latest when the test ends).
func keepCoresBusy(t *testing.T) (stop func()) {
	done := make(chan struct{})
	var once sync.Once
	stop = func() { once.Do(func() { close(done) }) }
	t.Cleanup(stop)
	for range 2 * runtime.NumCPU() {
		go func() {
			for x := 0; ; x++ {
				if x%1024 == 0 {
					select {
					case <-done:
						return
					default:
					}
				}
			}
		}()
	}
	return stop
}

// TestTapRecordsEverythingUnderLoad: with every core kept busy by other
// work and a queue a small fraction of the traffic, an agent that writes
// a long burst at once is still recorded whole: the traffic waits for the
// recorder while it writes (tap.Observer.Hold) instead of the recorder
// dropping frames. (Before, the recorder dropped what it fell behind by
// past --queue; with the queue bound here it lost most of such a burst.)
func TestTapRecordsEverythingUnderLoad(t *testing.T) {
	n := 60000
	if proctest.RaceEnabled {
		n = 10000
	}
	keepCoresBusy(t)
	rec := filepath.Join(t.TempDir(), "rec.jsonl")
	c := tapProcess(t, "burst", []string{"FAULT_LINES=" + strconv.Itoa(n), "FAULT_END=stdin"},
		"--no-lint", "--record", rec, "--queue", "262144")
	editorIn, _ := c.StdinPipe()
	stdout, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	forwardedWithin := readAllAsync(t, c, stdout)
	editorIn.Close()
	forwarded := forwardedWithin(2 * time.Minute)
	waitExit(t, c, 30*time.Second)
	if want := burstLines(n, "agent"); !bytes.Equal(forwarded, want) {
		t.Errorf("the editor got %d bytes, want the agent's %d", len(forwarded), len(want))
	}
	recording, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	if gaps := bytes.Count(recording, []byte(`"lost":{`)); gaps > 0 {
		t.Errorf("the recording has %d gap records", gaps)
	}
	if frames := recordedFramesFrom(t, rec, "agent"); frames != n {
		t.Errorf("recorded %d agent frames, want all %d", frames, n)
	}
}

// readAllAsync reads the tap's stdout to its end on a goroutine, as the
// editor does; the function it returns waits for that at most d, and
// past it kills the tap and fails the test.
func readAllAsync(t *testing.T, c *exec.Cmd, stdout io.Reader) func(d time.Duration) []byte {
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(stdout)
		got <- b
	}()
	return func(d time.Duration) []byte {
		t.Helper()
		select {
		case b := <-got:
			return b
		case <-time.After(d):
			c.Process.Kill()
			t.Fatalf("the tap did not end within %v", d)
			return nil
		}
	}
}
