package proctest

import (
	"os"
	"strings"
)

// ChildrenExitAtOnce has the race-enabled processes this test binary
// starts (itself as the command, an agent, a supervisor, a live linter)
// exit without the race detector's sleep at exit (GORACE atexit_sleep_ms,
// a second by default), which gives goroutines still running at exit time
// to report a race late. Packages whose tests start hundreds of such
// processes spent most of their time in those sleeps (cmd/acplint's
// scripts: 23 s of help.txtar's 25). A race a child meets while it runs is
// still reported on its stderr and makes it exit 66; conformance's harness
// starts its agents so too. The test binary itself still sleeps at its own
// exit. Call it first in TestMain; it leaves the other GORACE options,
// and an atexit_sleep_ms already set, as they are.
func ChildrenExitAtOnce() {
	if !RaceEnabled {
		return
	}
	v := os.Getenv("GORACE")
	if strings.Contains(v, "atexit_sleep_ms=") {
		return
	}
	os.Setenv("GORACE", strings.TrimSpace(v+" atexit_sleep_ms=0"))
}
