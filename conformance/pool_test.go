package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/acplint/acplint/conformance/agents"
	"github.com/acplint/acplint/findings"
)

// countedAgent is the fixture agent started through sh, which appends each
// process's pid to the file it returns. It takes 100 ms to start, longer
// than a settle, so that sequences share it (executeOn).
func countedAgent(t *testing.T, name string) (AgentCommand, string) {
	agent := fixture(t, name)
	cmd, pidfile := shAgent(t, `echo $$ >>"$PIDFILE"; sleep 0.1; exec "$AGENT"`)
	cmd.Env = append(cmd.Env, append(agent.Env, "AGENT="+agent.Path)...)
	return cmd, pidfile
}

func processesStarted(t *testing.T, pidfile string) int {
	data, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatal(err)
	}
	return len(strings.Fields(string(data)))
}

// TestSequencesShareAnAgent: the second sequence runs on the process of
// the first, its record starts with the initialize exchange of that
// process's start, its request ids go on from the first's, and lint of
// its transcript (what --out writes) finds what the live lint found:
// nothing against the reference agent.
func TestSequencesShareAnAgent(t *testing.T) {
	t.Parallel()
	opts := testOptions(t, "reference")
	agent, pidfile := countedAgent(t, "reference")
	opts.Agent = agent
	k := newTestChecker(t, opts)
	plan := tourPlans(AllCapabilities)[0]
	first, cn := k.executeOn(plan, nil, true)
	if first.Failure != nil || first.Close != ClosedKept || cn == nil {
		t.Fatalf("the first sequence: failure %+v, closed on %q; want it kept for the next", first.Failure, first.Close)
	}
	second, cn := k.executeOn(plan, cn, false)
	if second.Failure != nil || second.Close != ClosedOnStdin || cn != nil {
		t.Fatalf("the second sequence: failure %+v, closed on %q; want the close ladder's first rung", second.Failure, second.Close)
	}
	if n := processesStarted(t, pidfile); n != 1 {
		t.Errorf("%d agent processes for two sequences, want 1", n)
	}
	firstLines := strings.Split(strings.TrimSpace(string(first.Transcript.JSONL())), "\n")
	lines := strings.Split(strings.TrimSpace(string(second.Transcript.JSONL())), "\n")
	if len(lines) < 3 || lines[0] != firstLines[0] || lines[1] != firstLines[1] || !strings.Contains(lines[0], `"method":"initialize"`) {
		t.Fatalf("the second sequence does not start with the first's initialize exchange:\n%s\n%s", strings.Join(lines[:min(3, len(lines))], "\n"), strings.Join(firstLines[:2], "\n"))
	}
	if ids := clientIDs(t, firstLines[2:]); len(ids) == 0 || slices.Contains(clientIDs(t, lines[2:]), ids[len(ids)-1]) || clientIDs(t, lines[2:])[0] <= ids[len(ids)-1] {
		t.Errorf("request ids of the second sequence %v do not go on from the first's %v", clientIDs(t, lines[2:]), ids)
	}
	for _, run := range []*Run{first, second} {
		if keys := run.failing(findings.SeverityWarning); len(keys) > 0 {
			t.Errorf("the reference agent fails %v", sortedKeys(keys))
		}
		if got, want := ruleIDs(lintTranscript(bytes.NewReader(run.Transcript.JSONL()), "")), ruleIDs(run.Findings); !slices.Equal(got, want) {
			t.Errorf("lint of the transcript finds %v, the live lint found %v", got, want)
		}
	}
}

func clientIDs(t *testing.T, lines []string) []int {
	var out []int
	for _, l := range lines {
		var r struct {
			Dir string `json:"dir"`
			Msg struct {
				ID     *int   `json:"id"`
				Method string `json:"method"`
			} `json:"msg"`
		}
		if json.Unmarshal([]byte(l), &r) == nil && r.Dir == "client->agent" && r.Msg.ID != nil && r.Msg.Method != "" {
			out = append(out, *r.Msg.ID)
		}
	}
	return out
}

func ruleIDs(fs []findings.ValidationFinding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.RuleID)
	}
	slices.Sort(out)
	return out
}

// TestAgentChains: only plans with the same initialize and no fault share
// a process, at most per of them, each plan runs once, and the chains come
// in the order of their first plans.
func TestAgentChains(t *testing.T) {
	read := []Capability{CapReadTextFile}
	plans := []*Plan{
		{Version: 1, Caps: read},                                       // 0
		{Version: futureVersion, Caps: read},                           // 1: another initialize
		{Version: 1, Caps: read, Faults: []Fault{FaultLate}},           // 2: a fault
		{Version: 1, Caps: read},                                       // 3
		{Version: 1},                                                   // 4: other capabilities
		{Version: 1, Caps: read},                                       // 5
		{Version: 1, Caps: read, Faults: []Fault{FaultOverlap}},        // 6
		{Version: futureVersion, Caps: read},                           // 7
		{Version: 1, Caps: []Capability{CapReadTextFile}},              // 8: a third of 0's
		{Version: 1, Caps: []Capability{CapTerminal, CapReadTextFile}}, // 9
		{Version: 1, Caps: []Capability{CapReadTextFile, CapTerminal}}, // 10: same as 9
	}
	got := agentChains(plans, 3)
	want := [][]int{{0, 3, 5}, {1, 7}, {2}, {4}, {6}, {8}, {9, 10}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("agentChains(…, 3) = %v, want %v", got, want)
	}
	if got := agentChains(plans, 1); len(got) != len(plans) {
		t.Errorf("with one sequence per agent: %d chains for %d plans", len(got), len(plans))
	}
}

// TestSeedVerdictWhateverTheSharing: a --seed rerun gives the same verdict
// whether every sequence has a process of its own, one at a time, or
// processes are shared and run side by side; and sharing starts fewer
// processes.
func TestSeedVerdictWhateverTheSharing(t *testing.T) {
	t.Parallel()
	var verdicts []*Verdict
	var started []int
	for _, mode := range []struct{ parallel, per int }{{1, 1}, {3, DefaultSequencesPerAgent}} {
		opts := testOptions(t, string(agents.UpdateAfterCancel))
		agent, pidfile := countedAgent(t, string(agents.UpdateAfterCancel))
		opts.Agent = agent
		opts.Runs = 20
		opts.Seed = 5
		opts.MaxShrinks = -1
		opts.Parallel, opts.SequencesPerAgent = mode.parallel, mode.per
		v, err := Check(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		verdicts = append(verdicts, v)
		started = append(started, processesStarted(t, pidfile))
	}
	fresh, shared := verdicts[0], verdicts[1]
	if !slices.Equal(fresh.Failed(), shared.Failed()) || fresh.Runs != shared.Runs || !slices.Contains(shared.Failed(), "ACP-CXL-002") {
		t.Errorf("fresh processes: %d runs failing %v; shared: %d runs failing %v; want the same, with ACP-CXL-002", fresh.Runs, fresh.Failed(), shared.Runs, shared.Failed())
	}
	if started[1] >= started[0] {
		t.Errorf("sharing started %d processes, a process per sequence %d", started[1], started[0])
	}
}
