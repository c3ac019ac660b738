package conformance

import (
	"bytes"
	"context"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/acplint/acplint/conformance/agents"
	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/transcript"
)

// The fixture agents are this test binary, started again with
// ACPLINT_FIXTURE_AGENT naming the agent: no build step, and the agents
// run exactly the code under test.
const fixtureEnv = "ACPLINT_FIXTURE_AGENT"

func init() {
	name, ok := os.LookupEnv(fixtureEnv)
	if !ok {
		return
	}
	switch name {
	case "stubborn":
		// Ignores stdin closing and SIGTERM: only SIGKILL ends it.
		signal.Ignore(syscall.SIGTERM)
		os.Stdout.WriteString("ready\n")
		time.Sleep(time.Hour)
		os.Exit(0)
	case "mute":
		// Starts, but never says a word.
		time.Sleep(time.Hour)
		os.Exit(0)
	case "stalling":
		stallingAgent(300*time.Millisecond, 0)
		os.Exit(0)
	case "slow":
		// Its hello turn (slow+stall, 300 ms) outlasts the configured cancel
		// grace of TestCancelGraceScalesWithLoad and stays 100 ms inside the
		// grace its replies earn (4x100 ms): with a turn of 400 ms, a few
		// milliseconds of load failed it.
		stallingAgent(200*time.Millisecond, 100*time.Millisecond)
		os.Exit(0)
	case "hasty":
		hastyAgent()
		os.Exit(0)
	case "slowstart", "slowexit", "spin", "slowanswer", "spinanswer", "latecancel", "spinthreads":
		os.Exit(loadAgent(name))
	case "reference":
		name = ""
	}
	os.Exit(agents.Main([]string{"-defect", name, "-delay", "1ms"}, os.Stdin, os.Stdout, os.Stderr))
}

func fixture(t testing.TB, name string) AgentCommand {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A race-enabled binary sleeps a second at exit (GORACE atexit_sleep_ms)
	// so that late reports can be printed; the harness starts hundreds.
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	return AgentCommand{Path: exe, Env: []string{fixtureEnv + "=" + name, "GORACE=" + gorace}}
}

// testOptions are fast settings for fixture agents, which answer in
// microseconds.
func testOptions(t testing.TB, agent string) Options {
	return Options{
		Agent:           fixture(t, agent),
		Runs:            15,
		Steps:           4,
		Seed:            1,
		Caps:            AllCapabilities,
		StartupTimeout:  10 * time.Second,
		ResponseTimeout: 5 * time.Second,
		RunTimeout:      20 * time.Second,
		Settle:          15 * time.Millisecond,
		CloseGrace:      5 * time.Second,
		ShrinkTime:      time.Second,
		MaxShrinks:      2,
		// Tests run checks side by side: each runs few agents at once.
		Parallel: 2,
	}
}

// newTestChecker is a checker of opts, with the defaults filled in, in a
// workspace of its own; its runs' transcripts go when the test ends.
func newTestChecker(t testing.TB, opts Options) *checker {
	t.Helper()
	opts.defaults()
	ws, err := NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	k := &checker{ctx: context.Background(), opts: opts, ws: ws, pace: newPace(&opts)}
	t.Cleanup(k.releaseTranscripts)
	return k
}

// runPlan runs plan once with opts, the defaults filled in, on a fresh
// agent in a workspace of its own; the run's transcript goes when the
// test ends.
func runPlan(t testing.TB, opts Options, plan *Plan) *Run {
	t.Helper()
	opts.defaults()
	ws, err := NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	run := execute(context.Background(), &opts, ws, plan)
	t.Cleanup(run.Transcript.release)
	return run
}

func TestReferenceAgentConforms(t *testing.T) {
	t.Parallel()
	opts := testOptions(t, "reference")
	opts.Runs = 40 // enough to reach every feature the assertions below name
	v, err := Check(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	_ = v.Write(&text, FormatText)
	if !v.Conformant || len(v.Failed()) > 0 {
		t.Errorf("the reference agent is not conformant: failed %v\n%s", v.Failed(), text.String())
	}
	for _, p := range v.HarnessProblems {
		t.Errorf("the harness's own messages have findings (a bug in the client): run %d: %s %s", p.Run, p.Finding.RuleID, p.Finding.Message)
	}
	// The sequences must reach the features the verdict is about.
	for _, id := range []string{"ACP-CXL-001", "ACP-CAP-001", "ACP-CAP-003", "ACP-TOOL-002", "ACP-SEQ-007", "ACP-SES-011", "ACP-TERM-001", "ACP-VER-002", "ACP-VER-007", "ACP-EXTN-003", "ACP-CAP-023"} {
		r := v.rule(id)
		if r == nil || r.Exercised == 0 {
			t.Errorf("%s was never exercised in %d runs", id, v.Runs)
		}
	}
	if t.Failed() {
		t.Log(text.String())
	}
}

// TestDefectAgents runs check against each fixture agent with one bug:
// it must fail exactly the rules of that bug, and each failure must come
// with a shrunk transcript that `acplint lint` reproduces it from.
func TestDefectAgents(t *testing.T) {
	t.Parallel()
	cases := []struct {
		defect agents.Defect
		want   []string
	}{
		{agents.EndTurnAfterCancel, []string{"ACP-CXL-001"}},
		// The pending tool call it leaves is ACP-TURN-004 (a SHOULD).
		{agents.QuietEndTurn, []string{"ACP-CXL-001", "ACP-TURN-004"}},
		{agents.UpdateAfterCancel, []string{"ACP-CXL-002"}},
		{agents.UnknownToolCallUpdate, []string{"ACP-TOOL-002"}},
		{agents.FSWithoutCapability, []string{"ACP-CAP-001"}},
		{agents.EchoVersion, []string{"ACP-VER-007"}},
		{agents.NonJSONStdout, []string{"ACP-WIRE-001"}},
		{agents.NeverAnswer, []string{CheckTimeout, "ACP-RPC-013"}},
		{agents.CrashMidTurn, []string{CheckCrash, "ACP-RPC-013"}},
	}
	// The checks mostly wait on their agents: run them all at once rather
	// than -parallel at a time.
	verdicts := make([]*Verdict, len(cases))
	errs := make([]error, len(cases))
	var wg sync.WaitGroup
	for i, tc := range cases {
		opts := testOptions(t, string(tc.defect))
		opts.Runs = 10
		opts.Parallel = 1 // nine checks at once already
		opts.ShrinkTime = 600 * time.Millisecond
		opts.OutDir = t.TempDir()
		if tc.defect == agents.NeverAnswer {
			opts.ResponseTimeout = 100 * time.Millisecond
		}
		wg.Go(func() { verdicts[i], errs[i] = Check(context.Background(), opts) })
	}
	wg.Wait()
	for i, tc := range cases {
		t.Run(string(tc.defect), func(t *testing.T) {
			v, err := verdicts[i], errs[i]
			if err != nil {
				t.Fatal(err)
			}
			var text bytes.Buffer
			_ = v.Write(&text, FormatText)
			defer func() {
				if t.Failed() {
					t.Log(text.String())
				}
			}()
			if v.Conformant {
				t.Errorf("the agent passed")
			}
			want := slices.Sorted(slices.Values(tc.want))
			if got := v.Failed(); !slices.Equal(got, want) {
				t.Errorf("failed %v, want %v", got, want)
			}
			for _, p := range v.HarnessProblems {
				t.Errorf("harness problem: run %d: %s %s", p.Run, p.Finding.RuleID, p.Finding.Message)
			}
			for _, id := range want {
				rep := v.rule(id).Reproduction
				if rep == nil {
					t.Errorf("%s: no reproduction", id)
					continue
				}
				if !rep.Shrunk {
					t.Errorf("%s: not shrunk: %s", id, rep.Note)
				}
				if len(reproducingRules(id)) == 0 {
					continue
				}
				if !rep.Reproduced {
					t.Errorf("%s: lint of %s does not reproduce it (lint says %v)", id, rep.File, rep.LintRules)
					continue
				}
				// Check the file again, independently of the harness.
				data, err := os.ReadFile(rep.File)
				if err != nil {
					t.Fatal(err)
				}
				res, err := lint.Transcript(bytes.NewReader(data), lint.Options{File: rep.File, CleanEnd: true})
				if err != nil {
					t.Fatal(err)
				}
				found := false
				for _, f := range res.Findings {
					found = found || slices.Contains(reproducingRules(id), f.RuleID)
				}
				if !found {
					t.Errorf("%s: acplint lint --clean-end %s does not report it", id, rep.File)
				}
				if _, err := os.Stat(strings.TrimSuffix(rep.File, ".jsonl") + ".txt"); err != nil {
					t.Errorf("%s: no notes file: %v", id, err)
				}
			}
		})
	}
}

func TestAgentThatWillNotStart(t *testing.T) {
	t.Parallel()
	opts := testOptions(t, "mute")
	opts.StartupTimeout = 300 * time.Millisecond
	opts.CloseGrace = 200 * time.Millisecond
	v, err := Check(context.Background(), opts)
	if err != nil || !v.NotStarted || v.Conformant || !slices.Contains(v.Failed(), CheckStart) || !strings.Contains(v.Summary, "startup timeout") {
		t.Errorf("a mute agent: got %v, %+v; want a verdict that fails %s naming the startup timeout", err, v, CheckStart)
	}
	opts.Agent = AgentCommand{Path: filepath.Join(t.TempDir(), "no-such-agent")}
	_, err = Check(context.Background(), opts)
	if !IsStartError(err) {
		t.Errorf("a missing program: got %v, want a start error", err)
	}
}

// TestCloseLadder: an agent that ignores both stdin closing and SIGTERM is
// killed, and the harness says which rung it took.
func TestCloseLadder(t *testing.T) {
	t.Parallel()
	rec := &Transcript{}
	p, err := startProc(fixture(t, "stubborn"), rec, DefaultMaxLine)
	if err != nil {
		t.Fatal(err)
	}
	<-p.frames // it ignores SIGTERM from now on
	if step, _ := p.shutdown(200*time.Millisecond, 200*time.Millisecond, nil, nil); step != ClosedOnKill {
		t.Errorf("stubborn agent closed on %q, want %q", step, ClosedOnKill)
	}
	rec2 := &Transcript{}
	p, err = startProc(fixture(t, "reference"), rec2, DefaultMaxLine)
	if err != nil {
		t.Fatal(err)
	}
	if step, _ := p.shutdown(2*time.Second, 2*time.Second, nil, nil); step != ClosedOnStdin {
		t.Errorf("reference agent closed on %q, want %q", step, ClosedOnStdin)
	}
}

func TestTranscriptJSONL(t *testing.T) {
	tr := &Transcript{}
	tr.add(domain.FromClient, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`+"\n"))
	tr.add(domain.FromAgent, []byte("starting up…\n"))
	tr.add(domain.FromAgent, []byte(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}`+"\r\n"))
	tr.add(domain.FromAgent, []byte(`{"jsonrpc": "2.0"}`))
	lines := strings.Split(strings.TrimSuffix(string(tr.JSONL()), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("got %d lines, want 4:\n%s", len(lines), tr.JSONL())
	}
	for i, want := range []string{
		`"dir":"client->agent","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}}`,
		`"dir":"agent->client","msg":"starting up…\n"}`,
		`"dir":"agent->client","msg":"{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":1}}\r\n"}`,
		`"dir":"agent->client","msg":"{\"jsonrpc\": \"2.0\"}"}`,
	} {
		if !strings.HasSuffix(lines[i], want) {
			t.Errorf("line %d = %s\nwant suffix %s", i+1, lines[i], want)
		}
	}
	// lint reads it back with the directions and verbatim lines.
	res, err := lint.Transcript(bytes.NewReader(tr.JSONL()), lint.Options{Format: transcript.FormatJSONL})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		if f.RuleID == findings.LINTBadWrapper.ID || f.RuleID == findings.LINTDirectionUnknown.ID {
			t.Errorf("lint cannot read the harness transcript: %s", f.Message)
		}
	}
}

func TestParseCapabilities(t *testing.T) {
	for in, want := range map[string][]Capability{
		"all":                   AllCapabilities,
		"none":                  nil,
		"terminal,fs.read":      {CapTerminal, CapReadTextFile},
		"fs.writeTextFile":      {CapWriteTextFile},
		"terminal, terminal":    {CapTerminal},
		"fs.readTextFile,write": {CapReadTextFile, CapWriteTextFile},
	} {
		got, err := ParseCapabilities(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseCapabilities(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseCapabilities("fs.execute"); err == nil {
		t.Error("an unknown capability was accepted")
	}
}

func TestSliceLinesAndTruncation(t *testing.T) {
	content := "a\nb\nc\nd\n"
	for _, tc := range []struct {
		line, limit int
		want        string
	}{{0, 0, content}, {2, 0, "b\nc\nd\n"}, {2, 2, "b\nc\n"}, {9, 1, ""}, {1, 1, "a\n"}} {
		if got := sliceLines(content, tc.line, tc.limit); got != tc.want {
			t.Errorf("sliceLines(line %d, limit %d) = %q, want %q", tc.line, tc.limit, got, tc.want)
		}
	}
	// The cut keeps the end and never splits a character.
	if got, cut := truncateFront("héllo", 4); got != "llo" || !cut {
		t.Errorf("truncateFront = %q, %v", got, cut)
	}
	if got, cut := truncateFront("abc", 3); got != "abc" || cut {
		t.Errorf("truncateFront at the limit = %q, %v", got, cut)
	}
}

// BenchmarkReferenceRuns measures how many generated sequences per second
// the harness drives against the reference agent (one fresh process each).
func BenchmarkReferenceRuns(b *testing.B) {
	opts := testOptions(b, "reference")
	opts.Steps = DefaultSteps
	opts.defaults()
	ws, err := NewWorkspace(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	plans := planGenerator(opts.Caps, nil, opts.Steps)
	lines, i := 0, 0
	for b.Loop() {
		i++
		run := execute(context.Background(), &opts, ws, plans.Example(i))
		if run.Failure != nil {
			b.Fatalf("run failed: %s", run.Failure.Message)
		}
		lines += run.Transcript.Len()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "runs/s")
	b.ReportMetric(float64(lines)/float64(b.N), "lines/run")
}

// BenchmarkCheckThroughput measures the sequences per second of a whole
// check against the reference agent (preflight, tour and 50 generated
// runs, no failure to shrink), as `acplint check` makes them: "fresh"
// starts a process per sequence, one at a time (as before processes were
// shared and run side by side); "default" shares them where that pays and
// runs DefaultParallel at once.
func BenchmarkCheckThroughput(b *testing.B) {
	for _, bc := range []struct {
		name          string
		parallel, per int
	}{{"fresh", 1, 1}, {"default", 0, 0}} {
		b.Run(bc.name, func(b *testing.B) {
			opts := testOptions(b, "reference")
			opts.Runs = 50
			opts.Steps = DefaultSteps
			opts.Settle = DefaultSettle
			opts.Parallel, opts.SequencesPerAgent = bc.parallel, bc.per
			var seqs, secs float64
			seed := uint64(0)
			for b.Loop() {
				seed++
				opts.Seed = seed
				v, err := Check(context.Background(), opts)
				if err != nil {
					b.Fatal(err)
				}
				if !v.Conformant {
					b.Fatalf("seed %d: the reference agent fails %v", seed, v.Failed())
				}
				seqs += v.RunsPerSecond * v.Duration.Seconds()
				secs += v.Duration.Seconds()
			}
			b.ReportMetric(seqs/secs, "seq/s")
		})
	}
}

// TestTimeoutsScaleDown: once an agent let a request time out, later runs
// wait a multiple of its slowest answer instead of the full response
// timeout, so a check of an agent that never answers a prompt costs one
// timeout, not one per run.
func TestTimeoutsScaleDown(t *testing.T) {
	t.Parallel()
	opts := testOptions(t, string(agents.NeverAnswer))
	opts.ResponseTimeout = 4 * time.Second
	opts.IdleCancel = -1
	k := newTestChecker(t, opts)
	first := k.execute(preflightPlan())
	if first.Failure == nil || first.Failure.Check != CheckTimeout || first.Duration < opts.ResponseTimeout {
		t.Fatalf("the first run: %+v after %v, want %s after the full timeout", first.Failure, first.Duration, CheckTimeout)
	}
	second := k.execute(preflightPlan())
	if second.Failure == nil || second.Failure.Check != CheckTimeout {
		t.Fatalf("the second run: %+v, want %s", second.Failure, CheckTimeout)
	}
	// The scaled wait is minScaledWait here (the agent answers the rest at
	// once); starting and closing the agent add to the run.
	if second.Duration > opts.ResponseTimeout/2 {
		t.Errorf("the second run took %v, want well under the timeout of %v", second.Duration.Round(time.Millisecond), opts.ResponseTimeout)
	}
}

// TestBudget: --budget ends the check in time with a verdict of the runs
// made, which says that the budget ran out.
func TestBudget(t *testing.T) {
	t.Parallel()
	opts := testOptions(t, "reference")
	opts.Runs = 100000
	opts.Budget = 1500 * time.Millisecond
	start := time.Now()
	v, err := Check(context.Background(), opts)
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	// The margin covers ending the run in progress and closing the agent
	// under the race detector on a busy machine (3.8 s was seen in CI);
	// without the budget, 100,000 runs take many minutes.
	if took > opts.Budget+6*time.Second {
		t.Errorf("the check took %v with a budget of %v", took.Round(time.Millisecond), opts.Budget)
	}
	// How many runs fit in the budget depends on the machine's load; that
	// the check stopped short of the runs asked for does not.
	if !v.BudgetSpent || v.Runs >= opts.Runs || !strings.Contains(v.Note, "budget") {
		t.Errorf("verdict: budget spent %v, %d runs, note %q; want the budget spent, the runs made, and a note", v.BudgetSpent, v.Runs, v.Note)
	}
	for _, r := range v.Rules {
		if r.Status == StatusFailed {
			t.Errorf("%s failed: the runs cut short by the budget must not count", r.ID)
		}
	}
}

// TestFaults: with every fault injected (an editor that answers late and
// twice, fails file reads, dismisses permission requests, quits in
// mid-turn, sends a second prompt while one runs and writes in pieces) the
// reference agent stays conformant and the harness stays clean; an agent
// that dies on a duplicate answer passes a fault-free check and fails
// CHECK-CRASH under --faults duplicate-answer.
func TestFaults(t *testing.T) {
	t.Parallel()
	opts := testOptions(t, "reference")
	opts.Runs = 25
	opts.Faults = AllFaults
	opts.MaxShrinks = -1
	v, err := Check(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	_ = v.Write(&text, FormatText)
	if !v.Conformant || len(v.Failed()) > 0 || len(v.HarnessProblems) > 0 {
		t.Errorf("the reference agent under every fault: failed %v, %d harness problems\n%s", v.Failed(), len(v.HarnessProblems), text.String())
	}

	intolerant := testOptions(t, string(agents.CrashOnDuplicateAnswer))
	intolerant.Runs = 6
	intolerant.MaxShrinks = -1
	v, err = Check(context.Background(), intolerant)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Conformant {
		t.Errorf("without faults the agent that dies on a duplicate answer fails %v", v.Failed())
	}
	intolerant.Faults = []Fault{FaultDuplicate}
	v, err = Check(context.Background(), intolerant)
	if err != nil {
		t.Fatal(err)
	}
	if v.Conformant || !slices.Contains(v.Failed(), CheckCrash) {
		t.Errorf("with duplicate answers it fails %v, want %s among them", v.Failed(), CheckCrash)
	}
}

func TestParseFaults(t *testing.T) {
	for in, want := range map[string][]Fault{
		"all":                              AllFaults,
		"none":                             nil,
		"late-answer, chunked-write":       {FaultLate, FaultChunked},
		"disconnect,disconnect":            {FaultDisconnect},
		"overlap-prompt,cancel-permission": {FaultOverlap, FaultCancelPermission},
	} {
		got, err := ParseFaults(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseFaults(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseFaults("crash"); err == nil {
		t.Error("an unknown fault was accepted")
	}
}
