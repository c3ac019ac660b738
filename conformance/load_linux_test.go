package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/acplint/acplint/conformance/agents"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/internal/proctest"
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
	// lateCPU is the CPU time "latecancel" needs between answering a
	// cancelled prompt and its next message: well within loadSettle on an
	// idle machine, several times it under the load.
	lateCPU = 15 * time.Millisecond
	// loadSettle is the settle time of the settle load test.
	loadSettle = 100 * time.Millisecond
)

// forever is CPU time no agent gets.
const forever = time.Duration(1<<63 - 1)

// loadAgent runs the agents of the load tests: "slowstart" needs agentCPU
// before it serves as the reference agent, "slowexit" after its stdin
// closed before it exits, and "spin" never answers and never stops
// computing. "slowanswer" needs agentCPU to answer session/new, and
// "spinanswer" computes for ever once it read one; "latecancel" has the
// defect update-after-cancel and needs lateCPU before that update, and
// starts sampleAfter late. "spinthreads" computes for ever on
// spinThreads threads once it read session/new, more than the machine has
// CPUs.
func loadAgent(name string) int {
	switch name {
	case "spinthreads":
		runtime.GOMAXPROCS(spinThreads())
		return agents.Main(nil, &spinOnRead{r: os.Stdin}, os.Stdout, os.Stderr)
	case "slowstart":
		burnCPU(agentCPU)
		return agents.Main(nil, os.Stdin, os.Stdout, os.Stderr)
	case "slowexit":
		code := agents.Main(nil, os.Stdin, os.Stdout, os.Stderr)
		burnCPU(cpuTime() + agentCPU)
		return code
	case "spin":
		burnCPU(forever)
	case "slowanswer":
		return agents.Main(nil, &burnOnRead{r: os.Stdin, cpu: agentCPU}, os.Stdout, os.Stderr)
	case "spinanswer":
		return agents.Main(nil, &burnOnRead{r: os.Stdin, cpu: forever}, os.Stdout, os.Stderr)
	case "latecancel":
		// The settle reads no agent younger than sampleAfter.
		time.Sleep(sampleAfter)
		return agents.Main([]string{"-defect", string(agents.UpdateAfterCancel), "-delay", "1ms"}, os.Stdin, &burnAfterCancelled{w: os.Stdout}, os.Stderr)
	}
	return 2
}

// burnOnRead computes for cpu once it read a session/new request, before
// the agent sees it.
type burnOnRead struct {
	r   io.Reader
	cpu time.Duration
}

func (b *burnOnRead) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if bytes.Contains(p[:n], []byte(`"session/new"`)) {
		until := forever
		if b.cpu < forever {
			until = cpuTime() + b.cpu
		}
		burnCPU(until)
	}
	return n, err
}

// spinThreads is how many threads "spinthreads" keeps busy: twice the
// machine's CPUs and more, so that they wait for each other.
func spinThreads() int { return 2*runtime.NumCPU() + 2 }

// spinOnRead keeps spinThreads threads busy for ever once it read a
// session/new request, before the agent sees it.
type spinOnRead struct{ r io.Reader }

func (s *spinOnRead) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if bytes.Contains(p[:n], []byte(`"session/new"`)) {
		for range spinThreads() - 1 {
			go spin()
		}
		spin()
	}
	return n, err
}

// spin computes for ever.
func spin() {
	var sink uint64
	for i := uint64(0); ; i++ {
		sink += i
		if sink == 1 {
			fmt.Fprint(io.Discard, sink)
		}
	}
}

// burnAfterCancelled computes for lateCPU after the agent answered a
// prompt with stopReason cancelled, before it writes its next line.
type burnAfterCancelled struct {
	mu      sync.Mutex
	w       io.Writer
	pending bool
}

func (b *burnAfterCancelled) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pending {
		b.pending = false
		burnCPU(cpuTime() + lateCPU)
	}
	b.pending = bytes.Contains(p, []byte(`"stopReason":"cancelled"`))
	return b.w.Write(p)
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

// answerTook is how long after the first method request of the run its
// response came, read from the run's transcript: answering it took the
// agent at least that.
func answerTook(t *testing.T, run *Run, method string) time.Duration {
	t.Helper()
	var asked time.Time
	var id json.RawMessage
	for line := range strings.Lines(string(run.Transcript.JSONL())) {
		var r struct {
			TS  time.Time `json:"ts"`
			Msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			} `json:"msg"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("transcript line %q: %v", line, err)
		}
		switch {
		case id == nil && r.Msg.Method == method:
			asked, id = r.TS, r.Msg.ID
		case id != nil && r.Msg.Method == "" && bytes.Equal(r.Msg.ID, id):
			return r.TS.Sub(asked)
		}
	}
	t.Fatalf("no %s exchange in\n%s", method, run.Transcript.JSONL())
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
	run := runPlan(t, opts, &Plan{Version: 1})
	if f := run.Failure; f != nil && f.Check == CheckStart && strings.Contains(f.Message, fmt.Sprintf("stretched to %v ", (1+maxStretch)*loadWait)) {
		t.Skipf("the machine is busier than the check stretches the startup timeout for: %s", f.Message)
	}
	if run.Failure != nil {
		t.Fatalf("a conforming agent slowed down by the load fails %s: %s", run.Failure.Check, run.Failure.Message)
	}
	took := answerTook(t, run, "initialize")
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
			began := time.Now()
			run := runPlan(t, opts, &Plan{Version: 1})
			took := time.Since(began)
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

// untestedWaits are the startup timeout and close grace of a load test
// about other waits: the fixtures' (the load tests above test those).
func untestedWaits(t *testing.T) (startup, closeGrace time.Duration) {
	opts := testOptions(t, "")
	return opts.StartupTimeout, opts.CloseGrace
}

// stretchedTo is how a verdict says that a wait of d was stretched to
// its bound (see loadStretch).
func stretchedTo(d time.Duration) string {
	return fmt.Sprintf("stretched to %v ", (1+maxStretch)*d)
}

// TestAnswerUnderLoad: a conforming agent that needs agentCPU to answer
// session/new, on a CPU it shares with loadProcs busy processes, answers
// later than the response timeout, and its run outlasts the run timeout,
// on the wall clock. The time it waited for the CPU does not count
// against it: it must not fail CHECK-TIMEOUT. (Before the two were
// stretched by the load, it did, in every run.)
func TestAnswerUnderLoad(t *testing.T) {
	cpu := pinnedLoad(t)
	for _, tc := range []struct {
		name string
		set  func(*Options)
	}{
		{"response timeout", func(o *Options) { o.ResponseTimeout = loadWait }},
		{"run timeout", func(o *Options) { o.RunTimeout = loadWait }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := loadOptions(t, "slowanswer", cpu)
			opts.StartupTimeout, opts.CloseGrace = untestedWaits(t)
			tc.set(&opts)
			run := runPlan(t, opts, &Plan{Version: 1, Actions: []Action{{Kind: ActNewSession}}})
			if f := run.Failure; f != nil && f.Check == CheckTimeout && strings.Contains(f.Message, stretchedTo(loadWait)) {
				t.Skipf("the machine is busier than the check stretches the %s for: %s", tc.name, f.Message)
			}
			if run.Failure != nil {
				t.Fatalf("a conforming agent slowed down by the load fails %s: %s", run.Failure.Check, run.Failure.Message)
			}
			took := answerTook(t, run, "session/new")
			t.Logf("session/new answered after %v under the load, the run took %v (%s %v)", took.Round(time.Millisecond), run.Duration.Round(time.Millisecond), tc.name, loadWait)
			if took <= loadWait {
				t.Errorf("the load did not slow the agent's answer past %v: the test proves nothing", loadWait)
			}
		})
	}
}

// TestHungAgentTimesOutUnderLoad: under the same load, an agent that
// never answers still fails CHECK-TIMEOUT, for its silence and for the
// run's length: one asleep soon after the timeout, since it never waits
// for the CPU; one that computes for ever within maxStretch times the
// timeout more, and the verdict says the timeout was stretched.
func TestHungAgentTimesOutUnderLoad(t *testing.T) {
	cpu := pinnedLoad(t)
	const long = time.Minute
	for _, tc := range []struct {
		name, agent, want string
		response, run     time.Duration
		stretched         bool
	}{
		{"asleep", string(agents.NeverAnswer), "no other message for", loadWait, long, false},
		{"spinning", "spinanswer", "no other message for", loadWait, long, true},
		{"spinning past the run timeout", "spinanswer", "the run took longer than the run timeout", long, loadWait, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := loadOptions(t, tc.agent, cpu)
			opts.ResponseTimeout, opts.RunTimeout = tc.response, tc.run
			opts.IdleCancel = -1
			opts.StartupTimeout, _ = untestedWaits(t)
			opts.CloseGrace = 200 * time.Millisecond
			began := time.Now()
			run := runPlan(t, opts, preflightPlan())
			took := time.Since(began)
			f := run.Failure
			if f == nil || f.Check != CheckTimeout || !strings.Contains(f.Message, tc.want) {
				t.Fatalf("a hung agent under load: failure %+v, want %s: %s", f, CheckTimeout, tc.want)
			}
			t.Logf("%s after %v: %s", CheckTimeout, took.Round(time.Millisecond), f.Message)
			if tc.response < long {
				// The response timeout runs once the agent has started, which
				// under the load takes what it takes.
				took -= answerTook(t, run, "initialize")
			}
			within := loadWait + 3*time.Second // its close under the load, and some
			if tc.stretched {
				within += maxStretch * loadWait
				if !strings.Contains(f.Message, "stretched to") {
					t.Errorf("the verdict does not say that the load stretched the timeout: %s", f.Message)
				}
			}
			if took > within {
				t.Errorf("the run took %v, want at most %v", took.Round(time.Millisecond), within)
			}
		})
	}
}

// TestSettleUnderLoad: an agent with the defect update-after-cancel,
// which needs lateCPU between its answer to a cancelled prompt and the
// update after it, on a CPU it shares with loadProcs busy processes,
// writes the update later than the settle time on the wall clock. The
// settle is stretched by the time it waited for the CPU, so the update
// lands before the client's next prompt and fails ACP-CXL-002, as it does
// on an idle machine. (Before, the next prompt went out first in every
// run, and the update passed for one of the next turn.)
func TestSettleUnderLoad(t *testing.T) {
	cpu := pinnedLoad(t)
	opts := loadOptions(t, "latecancel", cpu)
	opts.Settle = loadSettle
	opts.StartupTimeout, opts.CloseGrace = untestedWaits(t)
	run := runPlan(t, opts, &Plan{Version: 1, Actions: []Action{{Kind: ActPrompt, Cancel: 3}, {Kind: ActPrompt}}})
	if run.Failure != nil {
		t.Fatalf("failure %s: %s", run.Failure.Check, run.Failure.Message)
	}
	if run.Facts[FactCancelSent] != 1 || run.Facts[FactPrompt] != 2 {
		t.Fatalf("want a prompt cancelled right after it, and a second; steps %q", run.Steps)
	}
	if !bytes.Contains(run.Transcript.JSONL(), []byte(`"stopReason":"cancelled"`)) {
		t.Skipf("the agent ended the cancelled turn before it read the cancel: no late update to wait for")
	}
	if _, ok := run.failing(findings.SeverityError)[findings.CXLUpdateAfterCancel.ID]; ok {
		return
	}
	for _, s := range run.Steps {
		if strings.Contains(s, stretchedTo(loadSettle)) {
			t.Skipf("the machine is busier than the check stretches the settle time for: %s", s)
		}
	}
	t.Errorf("the late update after the cancelled turn is not %s: the settle ended before it came; steps %q\n%s", findings.CXLUpdateAfterCancel.ID, run.Steps, run.Transcript.JSONL())
}

// TestSelfContentionIsNotLoad: an agent that keeps more threads busy than
// the machine has CPUs, and never answers, makes its own threads wait for
// a CPU: a run delay of its own that is not the machine's load. Its
// response timeout is stretched at most by the load from outside it, so
// on an otherwise idle machine it fails CHECK-TIMEOUT about when the
// timeout is over, not maxStretch times the timeout later. (Before the
// run delay counted only as far as the outside load could have caused it,
// it always took (1+maxStretch) times the timeout.)
//
// The machine is not idle (other jobs share it), and the load from
// outside the agent rightly stretches the timeout: the test measures that
// load itself, as the share f of the machine's CPU time that the agent
// did not use over the run, and allows timeout/(1-f) (a wait stretched
// by the share the load took of it) plus selfMargin. A timeout stretched
// for the agent's own threads takes (1+maxStretch)*timeout = 8 s and
// more; when the bound comes within apart of that (f above 2/3), the two
// can no longer be told apart, and the test skips.
func TestSelfContentionIsNotLoad(t *testing.T) {
	if proctest.RaceEnabled {
		t.Skip("timing: the race detector slows the harness several times over")
	}
	const (
		timeout    = 2 * time.Second
		selfMargin = 1500 * time.Millisecond
		apart      = 500 * time.Millisecond
	)
	opts := testOptions(t, "spinthreads")
	opts.ResponseTimeout, opts.RunTimeout = timeout, time.Minute
	opts.IdleCancel = -1
	opts.StartupTimeout, _ = untestedWaits(t)
	opts.CloseGrace = 200 * time.Millisecond
	busy0, cpus := machineBusy(t)
	children0 := childrenCPU()
	began := time.Now()
	run := runPlan(t, opts, &Plan{Version: 1, Actions: []Action{{Kind: ActNewSession}}})
	took := time.Since(began)
	busy1, _ := machineBusy(t)
	// The agent has been waited for: its CPU time is its parent's
	// children's.
	outside := float64(busy1-busy0-(childrenCPU()-children0)) / float64(time.Duration(cpus)*took)
	f := run.Failure
	if f == nil || f.Check != CheckTimeout || !strings.Contains(f.Message, "no other message for") {
		t.Fatalf("an agent that spins %d threads without answering: failure %+v, want %s for its silence", spinThreads(), f, CheckTimeout)
	}
	took -= answerTook(t, run, "initialize")
	t.Logf("%s after %v, load from outside the agent %.0f%% of the machine: %s", CheckTimeout, took.Round(time.Millisecond), 100*outside, f.Message)
	within := time.Duration(float64(timeout)/(1-min(max(outside, 0), 0.99))) + selfMargin
	if within > (1+maxStretch)*timeout-apart {
		t.Skipf("the machine's other load took %.0f%% of it: a stretch for it (up to %v) hides one for the agent's own threads", 100*outside, within.Round(time.Millisecond))
	}
	if took > within {
		t.Errorf("the agent's own threads stretched its response timeout: CHECK-TIMEOUT after %v, want at most %v (timeout %v, %.0f%% outside load)", took.Round(time.Millisecond), within.Round(time.Millisecond), timeout, 100*outside)
	}
}

// machineBusy is the time the machine's CPUs have been busy, as
// /proc/stat counts it, and how many CPUs it has.
func machineBusy(t *testing.T) (time.Duration, int) {
	t.Helper()
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		t.Skip(err)
	}
	var busy time.Duration
	cpus := 0
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		switch {
		case len(f) > 8 && f[0] == "cpu":
			// user nice system idle iowait irq softirq steal
			for _, i := range []int{1, 2, 3, 6, 7, 8} {
				var n int64
				fmt.Sscan(f[i], &n)
				busy += time.Duration(n) * 10 * time.Millisecond
			}
		case strings.HasPrefix(f[0], "cpu"):
			cpus++
		}
	}
	if cpus == 0 {
		t.Skip("no per-CPU lines in /proc/stat")
	}
	return busy, cpus
}

// childrenCPU is the CPU time of the test's children that it waited for.
func childrenCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
