package main

import (
	"os"

	"github.com/acplint/acplint/conformance/agents"
)

// The check scripts need an ACP agent to test. `acplint __agent [flags]`
// makes the test binary (which the scripts run as acplint) the fixture
// agent of package agents; the released binary has no such command.
func init() {
	if len(os.Args) > 1 && os.Args[1] == "__agent" {
		os.Exit(agents.Main(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
}
