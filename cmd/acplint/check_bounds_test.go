package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acplint/acplint/internal/proctest"
)

// buildAcplint builds the acplint command into a temporary directory, so
// that a test can measure it as a process of its own.
func buildAcplint(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "acplint")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// boundedRun is how a process run by runBounded ended.
type boundedRun struct {
	code           int
	stdout, stderr string
	maxRSS         int64 // KiB
	took           time.Duration
}

// runBounded runs bin with args and returns its exit code, output and
// peak resident memory. A watchdog kills it when its resident memory
// passes killRSS or it runs past timeout, so that a regression fails the
// test instead of exhausting the machine. signalAfter, when positive,
// sends SIGTERM that long after the start.
func runBounded(t *testing.T, bin string, args []string, env []string, killRSS int64, timeout, signalAfter time.Duration) boundedRun {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	peak := proctest.WatchPeak(cmd.Process.Pid)
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		deadline := time.After(timeout)
		var term <-chan time.Time
		if signalAfter > 0 {
			term = time.After(signalAfter)
		}
		for {
			select {
			case <-done:
				return
			case <-term:
				cmd.Process.Signal(syscall.SIGTERM)
			case <-deadline:
				t.Errorf("acplint still running after %v: killed", timeout)
				cmd.Process.Kill()
				return
			case <-tick.C:
				if rss := proctest.ResidentKiB(cmd.Process.Pid); rss > killRSS {
					t.Errorf("acplint holds %d MiB: killed", rss>>10)
					cmd.Process.Kill()
					return
				}
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	r := boundedRun{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String(), took: time.Since(start)}
	if err != nil && r.code < 0 {
		t.Errorf("acplint: %v", err)
	}
	r.maxRSS = peak()
	return r
}

// floodAgent answers initialize and session/new blindly (the client's ids
// are 0 and 1), then floods session/update for ever instead of ending the
// turn. Its pids go to $PIDFILE.
const floodAgent = `echo $$ >>"$PIDFILE"; read l; echo '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[]}}'; ` +
	`read l; echo '{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}'; read l; ` +
	`yes '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"flood"}}}}' & echo $! >>"$PIDFILE"; wait`

// maxCheckRSS is the peak memory `acplint check` may reach against an
// agent that floods it (issue 13).
const maxCheckRSS = 512 << 10 // KiB

// TestCheckPeakMemory runs the built acplint against agents that flood it
// and reports, and bounds, its peak resident memory.
func TestCheckPeakMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc and ru_maxrss in KiB")
	}
	if proctest.RaceEnabled {
		// The acplint it measures is built without the race detector
		// (buildAcplint), so under -race this would repeat, byte for byte
		// and for a minute, the run .ci/run's memory step makes. The
		// race detector sees check against a flooding agent and one that
		// prints garbage in conformance's TestFaultMatrix, in process.
		t.Skip("runs a binary built without the race detector: .ci/run's memory step runs this test, without -race")
	}
	bin := buildAcplint(t)
	for _, tc := range []struct {
		name     string
		args     []string
		script   string
		wantCode int
		wantErr  string
		// wantOut is a text the verdict must contain.
		wantOut string
	}{
		{
			name:     "updates flood a prompt",
			args:     []string{"--runs", "1", "--steps", "2", "--run-timeout", "4s", "--close-grace", "300ms", "--max-shrinks", "1", "--shrink-time", "1s"},
			script:   floodAgent,
			wantCode: exitFindings,
			// The minimal run, written and linted again from the file,
			// still shows the unanswered prompt.
			wantOut: "reproduces it",
		},
		{
			name:     "garbage and never an answer",
			args:     []string{"--runs", "1", "--startup-timeout", "5s", "--close-grace", "300ms"},
			script:   `echo $$ >>"$PIDFILE"; exec yes "garbage garbage"`,
			wantCode: exitFindings,
			// The initialize request's line depends on how much garbage
			// the agent wrote before the client's first line was recorded.
			wantOut: "the agent did not start: no response to initialize (line ",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			pidfile := filepath.Join(dir, "pids")
			// One agent at a time: the bound is on what one flooding
			// agent makes check hold, and parallel floods on a loaded
			// machine push every run past its timeout, so that which
			// failure gets a minimal run depends on the load.
			args := append([]string{"check", "-j", "1", "--out", filepath.Join(dir, "out")}, tc.args...)
			args = append(args, "--", "sh", "-c", tc.script)
			r := runBounded(t, bin, args, []string{"PIDFILE=" + pidfile}, 2*maxCheckRSS, 2*time.Minute, 0)
			t.Logf("peak RSS %d MiB in %v", r.maxRSS>>10, r.took.Round(time.Millisecond))
			if r.maxRSS > maxCheckRSS {
				t.Errorf("peak RSS %d MiB, want at most %d MiB", r.maxRSS>>10, maxCheckRSS>>10)
			}
			if r.code != tc.wantCode || !strings.Contains(r.stderr, tc.wantErr) || !strings.Contains(r.stdout, tc.wantOut) {
				t.Errorf("exit %d, stderr %q, stdout %q; want exit %d, %q and %q", r.code, r.stderr, r.stdout, tc.wantCode, tc.wantErr, tc.wantOut)
			}
			proctest.AssertGone(t, pidfile)
		})
	}
}

// TestCheckSIGTERM: SIGTERM ends a check against an agent that floods and
// ignores SIGTERM within seconds: the agent's whole process group is
// killed, the verdict of the runs made so far is written and acplint
// exits 2.
func TestCheckSIGTERM(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	bin := buildAcplint(t)
	pidfile := filepath.Join(t.TempDir(), "pids")
	args := []string{"check", "--runs", "1000", "--steps", "1", "--run-timeout", "1s", "--max-shrinks", "0", "--",
		"sh", "-c", "trap '' TERM; " + floodAgent}
	const after = 3 * time.Second
	r := runBounded(t, bin, args, []string{"PIDFILE=" + pidfile}, 2*maxCheckRSS, 60*time.Second, after)
	t.Logf("acplint ended %v after SIGTERM, exit %d", (r.took - after).Round(time.Millisecond), r.code)
	if r.took > after+3*time.Second {
		t.Errorf("acplint ended %v after SIGTERM, want at most 3s", (r.took - after).Round(time.Millisecond))
	}
	if r.code != exitUsage || !strings.Contains(r.stdout, "verdict:") || !strings.Contains(r.stderr, "interrupted") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, a verdict and a note that check was interrupted", r.code, r.stdout, r.stderr)
	}
	proctest.AssertGone(t, pidfile)
}

// TestCheckKilledLeavesNoAgent: when acplint itself is killed (SIGKILL,
// or a second Ctrl-C), the agent it started does not live on.
func TestCheckKilledLeavesNoAgent(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal is Linux's")
	}
	bin := buildAcplint(t)
	pidfile := filepath.Join(t.TempDir(), "pids")
	cmd := exec.Command(bin, "check", "--runs", "1", "--startup-timeout", "1m", "--", "sh", "-c", `echo $$ >>"$PIDFILE"; exec sleep 60`)
	cmd.Env = append(os.Environ(), "PIDFILE="+pidfile)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if data, _ := os.ReadFile(pidfile); len(data) > 0 && data[len(data)-1] == '\n' {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the agent never started")
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	proctest.AssertGone(t, pidfile)
}
