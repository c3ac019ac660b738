package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acplint/acplint/conformance/agents"
)

// The load tests reproduce what a loaded machine does to a check: the
// agent gets a fraction of a CPU. They pin busy processes and the agent
// to one CPU, where the kernel shares it out evenly, so the agent's share
// is at most 1/(loadProcs+1) whatever else the machine runs, and they
// burn one CPU only. What else the machine runs lowers the share further;
// a machine so busy that the agent would need more than the check
// stretches a wait for (maxStretch) skips the tests that want a pass. The agents need a fixed amount of CPU time to start
// or to exit, as real ones do (a runtime starting, caches written on the
// way out), so under that load their start or their exit takes several
// times the wait the harness would give them on the wall clock.

const (
	// loadProcs is how many busy processes share the agent's CPU.
	loadProcs = 9
	// agentCPU is the CPU time the load agents need to start or to exit:
	// under the load, loadProcs+1 times that on the wall clock at least.
	agentCPU = 130 * time.Millisecond
	// loadWait is the startup timeout and close grace of the load tests,
	// which the agents would make in agentCPU on an idle machine.
	loadWait = time.Second
)

// loadAgent runs the agents of the load tests: "slowstart" needs agentCPU
// before it serves as the reference agent, "slowexit" after its stdin
// closed before it exits, and "spin" never answers and never stops
// computing.
func loadAgent(name string) int {
	switch name {
	case "slowstart":
		burnCPU(agentCPU)
		return agents.Main(nil, os.Stdin, os.Stdout, os.Stderr)
	case "slowexit":
		code := agents.Main(nil, os.Stdin, os.Stdout, os.Stderr)
		burnCPU(cpuTime() + agentCPU)
		return code
	case "spin":
		burnCPU(time.Duration(1<<63 - 1))
	}
	return 2
}

// cpuTime is the CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var burnSink uint64

// burnCPU computes until the process has used total CPU time.
func burnCPU(total time.Duration) {
	for cpuTime() < total {
		for i := range 1 << 16 {
			burnSink += uint64(i)
		}
	}
}

// pinnedLoad keeps loadProcs busy processes on one CPU the test may use
// for as long as the test runs, and returns that CPU.
func pinnedLoad(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("taskset"); err != nil {
		t.Skip("taskset (util-linux) pins the load and the agent to one CPU")
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	cpu := ""
	for line := range strings.Lines(string(status)) {
		if list, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			cpu, _, _ = strings.Cut(strings.TrimSpace(list), ",")
			cpu, _, _ = strings.Cut(cpu, "-")
		}
	}
	if cpu == "" {
		t.Fatal("no Cpus_allowed_list in /proc/self/status")
	}
	for range loadProcs {
		cmd := exec.Command("taskset", "-c", cpu, "sh", "-c", "while :; do :; done")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		})
	}
	return cpu
}

// pinned is agent run on cpu only.
func pinned(agent AgentCommand, cpu string) AgentCommand {
	pinned := agent
	pinned.Path = "taskset"
	pinned.Args = append([]string{"-c", cpu, agent.Path}, agent.Args...)
	return pinned
}

// loadOptions are the options of a load test's run against agent.
func loadOptions(t *testing.T, agent string, cpu string) Options {
	opts := testOptions(t, agent)
	opts.Agent = pinned(opts.Agent, cpu)
	opts.StartupTimeout = loadWait
	opts.CloseGrace = loadWait
	opts.defaults()
	return opts
}

// startTook is how long after the initialize request its response came,
// read from the run's transcript: the agent's start took at least that.
func startTook(t *testing.T, run *Run) time.Duration {
	t.Helper()
	var ts []time.Time
	for line := range strings.Lines(string(run.Transcript.JSONL())) {
		var r struct {
			TS time.Time `json:"ts"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("transcript line %q: %v", line, err)
		}
		if ts = append(ts, r.TS); len(ts) == 2 {
			return ts[1].Sub(ts[0])
		}
	}
	t.Fatalf("no initialize exchange in\n%s", run.Transcript.JSONL())
	return 0
}

// TestStartUnderLoad: a conforming agent whose start needs agentCPU, on a
// CPU it shares with loadProcs busy processes, answers initialize later
// than the startup timeout on the wall clock. The time it waited for the
// CPU does not count against it: it must not fail CHECK-START, a MUST.
// (Before the startup timeout was stretched by the load, it did.)
func TestStartUnderLoad(t *testing.T) {
	cpu := pinnedLoad(t)
	opts := loadOptions(t, "slowstart", cpu)
	ws, err := NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	run := execute(context.Background(), &opts, ws, &Plan{Version: 1})
	defer run.Transcript.release()
	if f := run.Failure; f != nil && f.Check == CheckStart && strings.Contains(f.Message, fmt.Sprintf("stretched to %v ", (1+maxStretch)*loadWait)) {
		t.Skipf("the machine is busier than the check stretches the startup timeout for: %s", f.Message)
	}
	if run.Failure != nil {
		t.Fatalf("a conforming agent slowed down by the load fails %s: %s", run.Failure.Check, run.Failure.Message)
	}
	took := startTook(t, run)
	t.Logf("initialize answered after %v under the load (startup timeout %v)", took.Round(time.Millisecond), opts.StartupTimeout)
	if took <= opts.StartupTimeout {
		t.Errorf("the load did not slow the agent's start past the startup timeout (%v): the test proves nothing", took)
	}
}

// TestHungAgentFailsStartUnderLoad: under the same load, an agent that
// never answers still fails CHECK-START: one asleep soon after the startup
// timeout, since it never waits for the CPU; one that computes for ever
// within maxStretch times the timeout more.
func TestHungAgentFailsStartUnderLoad(t *testing.T) {
	cpu := pinnedLoad(t)
	for _, tc := range []struct {
		agent  string
		within time.Duration
	}{
		{"mute", loadWait + 2*time.Second},
		{"spin", (1+maxStretch)*loadWait + 2*time.Second},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			opts := loadOptions(t, tc.agent, cpu)
			opts.CloseGrace = 200 * time.Millisecond
			ws, err := NewWorkspace(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			began := time.Now()
			run := execute(context.Background(), &opts, ws, &Plan{Version: 1})
			took := time.Since(began)
			defer run.Transcript.release()
			if run.Failure == nil || run.Failure.Check != CheckStart || !strings.Contains(run.Failure.Message, "startup timeout") {
				t.Fatalf("a hung agent under load: failure %+v, want %s for the startup timeout", run.Failure, CheckStart)
			}
			t.Logf("%s after %v: %s", CheckStart, took.Round(time.Millisecond), run.Failure.Message)
			if took > tc.within {
				t.Errorf("the run took %v, want at most %v", took.Round(time.Millisecond), tc.within)
			}
		})
	}
}

// TestCloseUnderLoad: a conforming agent whose exit needs agentCPU, on a
// CPU it shares with loadProcs busy processes, exits on its stdin closing
// later than the close grace on the wall clock. The time it waited for
// the CPU does not count against it: the close ladder must not go on to
// SIGTERM (which CHECK-CLOSE fails). An agent that ignores its stdin
// closing still needs SIGKILL, under the same load.
func TestCloseUnderLoad(t *testing.T) {
	cpu := pinnedLoad(t)

	p, err := startProc(pinned(fixture(t, "slowexit"), cpu), &Transcript{}, DefaultMaxLine)
	if err != nil {
		t.Fatal(err)
	}
	// Once it answered, it has started: what the close ladder waits for is
	// its exit alone.
	if _, _, err := p.send([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`), 0); err != nil {
		t.Fatal(err)
	}
	if f, ok := <-p.frames; ok {
		p.received(f)
	}
	step, waited := p.shutdown(loadWait, loadWait, nil, nil)
	p.stop()
	if step != ClosedOnStdin && waited == (1+maxStretch)*loadWait {
		t.Skipf("the machine is busier than the check stretches the close grace for: the agent did not exit within %v", waited)
	}
	if step != ClosedOnStdin {
		t.Errorf("a conforming agent slowed down by the load closed on %q, want %q", step, ClosedOnStdin)
	}
	t.Logf("the stdin rung waited up to %v under the load (close grace %v)", waited.Round(time.Millisecond), loadWait)
	if step == ClosedOnStdin && waited <= loadWait {
		t.Errorf("the agent exited within the close grace of %v: the load did not slow it, the test proves nothing", loadWait)
	}

	p, err = startProc(pinned(fixture(t, "stubborn"), cpu), &Transcript{}, DefaultMaxLine)
	if err != nil {
		t.Fatal(err)
	}
	<-p.frames // it ignores SIGTERM from now on
	began := time.Now()
	step, waited = p.shutdown(loadWait, loadWait, nil, nil)
	p.stop()
	if step != ClosedOnKill {
		t.Errorf("an agent that ignores its stdin closing and SIGTERM closed on %q under the load, want %q", step, ClosedOnKill)
	}
	if took, within := time.Since(began), 2*loadWait+2*time.Second; took > within {
		t.Errorf("closing it took %v (stdin rung up to %v), want at most %v: it waits for no CPU", took.Round(time.Millisecond), waited, within)
	}
}
