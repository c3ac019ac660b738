// Command acplint checks Agent Client Protocol (ACP) traffic against the
// protocol: it lints recorded transcripts and reports every rule a message
// breaks, with the line, the party at fault and the spec page behind it.
package main

import (
	"context"
	"os"

	"github.com/acplint/acplint/internal/gcpolicy"
	"github.com/acplint/acplint/tap"
)

func main() {
	tap.Supervise() // when this process is the tap's agent supervisor
	liveLintChild() // when this process is the tap's live linter
	gcpolicy.Apply()
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
