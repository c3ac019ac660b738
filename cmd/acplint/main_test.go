package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/acplint/acplint/internal/gcpolicy"
	"github.com/acplint/acplint/internal/proctest"
	"github.com/acplint/acplint/tap"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the scripts run acplint as a command of its own, in a
// separate process, exactly as a user or a CI job runs it.
func TestMain(m *testing.M) {
	proctest.ChildrenExitAtOnce()
	tap.Supervise() // the tap's agent supervisor is this binary too
	if os.Getenv(liveLintTestEnv) == "normal-priority" {
		// A test of something else than the linter's priority, on a
		// machine kept busy.
		liveLintPriority = func() {}
	}
	fakeLiveLintChild()
	liveLintChild() // and so is its live linter
	switch kind := os.Getenv("ACPLINT_FIXTURE_AGENT"); kind {
	case "":
	case "1":
		fixtureAgent()
		os.Exit(0)
	case "replay":
		replayAgent()
		os.Exit(0)
	case "relay":
		relayProcess()
		os.Exit(0)
	default:
		faultAgent(kind)
		os.Exit(0)
	}
	if os.Getenv("ACPLINT_AS_COMMAND") != "" {
		// The test binary as the acplint command, for tests that must
		// signal, starve or kill it as a separate process; "main" also
		// sets the collector as main does, for benchmarks of the command.
		if os.Getenv("ACPLINT_AS_COMMAND") == "main" {
			gcpolicy.Apply()
		}
		os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	testscript.Main(m, map[string]func(){
		"acplint": func() {
			os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

// TestScripts runs the command-line scenarios in testdata/script: exit
// codes, output formats, baselines, help text and bad input.
func TestScripts(t *testing.T) {
	mcpDir := buildMCPServer(t)
	// testscript.Main put the acplint command in a directory of its own,
	// first in PATH.
	acplintInPath, err := exec.LookPath("acplint")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			// The shipped examples, so scripts test what README shows.
			env.Setenv("EXAMPLES", mustAbs(t, "../../examples"))
			// acplint mcp runs acplint-mcp from PATH; PATH_WITHOUT_MCP
			// holds acplint alone, for the scripts that go without.
			env.Setenv("PATH_WITHOUT_MCP", filepath.Dir(acplintInPath))
			env.Setenv("PATH", mcpDir+string(os.PathListSeparator)+env.Getenv("PATH"))
			return nil
		},
		Cmds:      reportCmds,      // sarifvalidate, junitvalidate
		Condition: scriptCondition, // [sarif-multitool]
	})
}

func mustAbs(t *testing.T, rel string) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd + "/" + rel
}
