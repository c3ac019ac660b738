package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/acplint/acplint/mcpserver"
)

const mcpDoc = `
Mcp serves acplint to coding assistants over the Model Context Protocol
(MCP), on standard input and output: an MCP client (Claude Code, Zed,
VS Code, the MCP Inspector) starts 'acplint mcp' and calls its tools.

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

func runMCP(ctx context.Context, args []string, e *env) int {
	fs := newFlagSet("mcp", "acplint mcp [flags]", mcpDoc, e)
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
	if code, ok := parseFlags(fs, args, e); !ok {
		return code
	}
	if fs.NArg() > 0 {
		e.errorf("mcp: unexpected argument %q; the server takes flags only (--root DIR for each directory)", fs.Arg(0))
		return exitUsage
	}
	if *maxFile <= 0 || *timeout <= 0 || *maxFindings <= 0 || *maxOutput <= 0 || *checkTimeout <= 0 || *maxRuns <= 0 || *maxSteps <= 0 {
		e.errorf("mcp: --max-file-size, --timeout, --max-findings, --max-output, --check-timeout, --max-runs and --max-steps must be positive")
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := mcpserver.Serve(ctx, mcpserver.Options{
		Roots: roots, MaxFileSize: *maxFile, Timeout: *timeout, MaxFindings: *maxFindings, MaxOutput: *maxOutput,
		CheckTimeout: *checkTimeout, MaxRuns: *maxRuns, MaxSteps: *maxSteps, Version: acplintVersion(),
	}, e.stdin, e.stdout)
	if err != nil && ctx.Err() == nil {
		e.errorf("mcp: %v", err)
		return exitUsage
	}
	return exitClean
}
