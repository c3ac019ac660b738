package conformance

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestCheckNpmSDKAgent runs check against an agent nobody here wrote the
// protocol code of: conformance/sdkpeer/agent.mjs, built on the published
// @agentclientprotocol/sdk. The test proves that a run completes with a
// verdict and that the harness itself stays clean; the agent's own
// findings are logged and reported on the issue, not tuned away.
func TestCheckNpmSDKAgent(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("SKIPPED LOUDLY: node is not installed, so the npm SDK agent cannot run; install Node.js 20+ and run scripts/install-test-deps")
	}
	dir, _ := filepath.Abs("sdkpeer")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@agentclientprotocol", "sdk")); err != nil {
		t.Skip("SKIPPED LOUDLY: conformance/sdkpeer/node_modules is missing; run scripts/install-test-deps")
	}
	opts := Options{
		Agent:           AgentCommand{Path: node, Args: []string{filepath.Join(dir, "agent.mjs")}, Dir: t.TempDir()},
		Runs:            3,
		Steps:           3,
		Seed:            1,
		Caps:            AllCapabilities,
		StartupTimeout:  30 * time.Second,
		ResponseTimeout: 15 * time.Second,
		RunTimeout:      60 * time.Second,
		Settle:          50 * time.Millisecond,
		CloseGrace:      5 * time.Second,
		ShrinkTime:      5 * time.Second,
		MaxShrinks:      1,
	}
	v, err := Check(context.Background(), opts)
	if err != nil {
		t.Fatalf("check did not complete against the npm SDK agent: %v", err)
	}
	var text bytes.Buffer
	_ = v.Write(&text, FormatText)
	t.Logf("verdict against the npm SDK agent:\n%s", text.String())
	for _, p := range v.HarnessProblems {
		t.Errorf("the harness's own messages have findings (a bug in the client): run %d: %s %s", p.Run, p.Finding.RuleID, p.Finding.Message)
	}
	if v.Runs == 0 || v.Summary == "" {
		t.Errorf("no verdict: %d runs, summary %q", v.Runs, v.Summary)
	}
}
