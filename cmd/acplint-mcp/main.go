// Command acplint-mcp serves acplint to coding assistants over the Model
// Context Protocol (MCP), on standard input and output. 'acplint mcp'
// starts it: it is a binary of its own so that the MCP SDK and what it
// links (net/http, crypto/tls, …) stay out of every other acplint
// process's start-up (issue 16).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/acplint/acplint/internal/buildversion"
	"github.com/acplint/acplint/internal/gcpolicy"
	"github.com/acplint/acplint/mcpserver"
)

// version is set by a release build with -ldflags "-X main.version=…", as
// acplint's is; otherwise it comes from the build information.
var version = buildversion.Unstamped

// Exit codes, as acplint's.
const (
	exitClean = 0
	exitUsage = 2
)

const doc = `
Mcp serves acplint to coding assistants over the Model Context Protocol
(MCP), on standard input and output: an MCP client (Claude Code, Zed,
VS Code, the MCP Inspector) starts 'acplint mcp' and calls its tools.
'acplint mcp' runs acplint-mcp, a binary of its own (go install
github.com/acplint/acplint/cmd/acplint-mcp@latest), with the same flags.

Tools (input schemas in tools/list; results as structured content):
	lint_transcript     lint a transcript file or inline content; findings
	                    with the fields of 'acplint lint -f json'
	explain_rule        one rule with a failing and a passing example
	list_rules          the rule catalog, by area or severity
	schema_diff         classify the changes between two ACP schema files
	convert_transcript  convert a transcript between formats
	check_agent         property-test an agent: a dry run (the plan) by
	                    default; it starts the agent only with dry_run
	                    false and confirm true
Resources: acplint://rules, acplint://rules/{id}, acplint://spec.

Files are read only under the --root directories (any number; with none,
the working directory), after resolving symbolic links; relative paths
are taken from the first root, which is also check_agent's working
directory. A file larger than --max-file-size is refused, every call but
check_agent ends after --timeout, at most --max-findings findings (or
schema changes) are returned with the total counted, and a converted
transcript is cut at --max-output bytes. check_agent runs one at a time,
bounded by --max-runs, --max-steps and --check-timeout, and writes its
shrunk transcripts (owner-only) to a new temporary directory or to an
out_dir under a root. acplint opens no network connection.

Nothing but MCP messages is written to standard output; the server ends
when its standard input closes.

Example (Claude Code):
	claude mcp add acplint -- acplint mcp --root /path/to/project
`

func main() {
	gcpolicy.Apply()
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	errorf := func(format string, args ...any) {
		fmt.Fprintf(stderr, "acplint: mcp: "+format+"\n", args...)
	}
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	// Package flag would print the usage on a bad flag too; it is printed
	// on -h only, as acplint's commands do.
	fs.Usage = func() {}
	usage := func() {
		fmt.Fprintf(stdout, "usage: acplint mcp [flags]\n\n%s\nFlags:\n", strings.TrimSpace(doc)+"\n")
		fs.SetOutput(stdout)
		fs.PrintDefaults()
	}
	var roots []string
	fs.Func("root", "read files under `DIR` (repeatable; default: the working directory)", func(dir string) error {
		roots = append(roots, dir)
		return nil
	})
	maxFile := fs.Int64("max-file-size", mcpserver.DefaultMaxFileSize, "largest file or inline transcript read, in `bytes`")
	timeout := fs.Duration("timeout", mcpserver.DefaultTimeout, "`time` allowed to one tool call (check_agent has --check-timeout)")
	maxFindings := fs.Int("max-findings", mcpserver.DefaultMaxFindings, "most findings or schema changes one call returns (the rest are counted)")
	maxOutput := fs.Int("max-output", mcpserver.DefaultMaxOutput, "most `bytes` of converted transcript returned")
	checkTimeout := fs.Duration("check-timeout", mcpserver.DefaultCheckTimeout, "longest `time` a check_agent call may ask for")
	maxRuns := fs.Int("max-runs", mcpserver.DefaultMaxRuns, "most runs a check_agent call may ask for")
	maxSteps := fs.Int("max-steps", mcpserver.DefaultMaxSteps, "most steps per run a check_agent call may ask for")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage()
			return exitClean
		}
		errorf("%v; run 'acplint help mcp' for usage", err)
		return exitUsage
	}
	if fs.NArg() > 0 {
		errorf("unexpected argument %q; the server takes flags only (--root DIR for each directory)", fs.Arg(0))
		return exitUsage
	}
	if *maxFile <= 0 || *timeout <= 0 || *maxFindings <= 0 || *maxOutput <= 0 || *checkTimeout <= 0 || *maxRuns <= 0 || *maxSteps <= 0 {
		errorf("--max-file-size, --timeout, --max-findings, --max-output, --check-timeout, --max-runs and --max-steps must be positive")
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := mcpserver.Serve(ctx, mcpserver.Options{
		Roots: roots, MaxFileSize: *maxFile, Timeout: *timeout, MaxFindings: *maxFindings, MaxOutput: *maxOutput,
		CheckTimeout: *checkTimeout, MaxRuns: *maxRuns, MaxSteps: *maxSteps, Version: buildversion.String(version),
	}, stdin, stdout)
	if err != nil && ctx.Err() == nil {
		errorf("%v", err)
		return exitUsage
	}
	return exitClean
}
