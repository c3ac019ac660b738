package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/acplint/acplint/internal/buildversion"
)

// Exit codes, the same for every output format.
const (
	exitClean    = 0 // nothing at or above --fail-on
	exitFindings = 1 // findings at or above --fail-on (or a stale baseline)
	exitUsage    = 2 // usage, I/O or internal error
)

// version is set by a release build with -ldflags "-X main.version=…";
// otherwise acplintVersion takes it from the build information.
var version = buildversion.Unstamped

// acplintVersion is the version reports and 'acplint version' print. The
// build information is read on the first call, not in init: decoding it
// allocates for every module linked, which a command that prints no
// version need not pay for at start-up.
var acplintVersion = sync.OnceValue(func() string { return buildversion.String(version) })

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, env *env) int
}

// env is the process environment a command may use.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

func (e *env) errorf(format string, args ...any) {
	fmt.Fprintf(e.stderr, "acplint: "+format+"\n", args...)
}

func commands() []command {
	return []command{
		{"lint", "check recorded ACP transcripts against the protocol", runLint},
		{"check", "property-test a live agent over stdio and shrink its failures", runCheck},
		{"fmt", "decode and re-encode a transcript, reporting lines that do not decode", runFmt},
		{"tap", "run an agent for an editor, forwarding its traffic and linting it live", runTap},
		{"convert", "convert a transcript between the formats lint reads", runConvert},
		{"rules", "list the rule catalog", runRules},
		{"config", "print the effective configuration of a command (acplint.yaml and flags)", runConfig},
		{"explain", "describe one rule, with a failing and a passing example", runExplain},
		{"version", "print acplint's version", runVersion},
		{"schema", "diff two ACP schema versions: what breaks for whom (schema diff OLD NEW)", runSchema},
		{"corpus", "re-lint transcripts under an old and a new schema and show what changed", runCorpus},
		{"mcp", "serve acplint's tools to coding assistants over MCP (stdio)", runMCP},
		{"completion", "print a shell completion script (bash, zsh or fish)", runCompletion},
	}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			return run(ctx, []string{args[1], "-h"}, stdin, stdout, stderr)
		}
		usage(stdout)
		return exitClean
	case "-version", "--version":
		name = "version"
	}
	for _, c := range commands() {
		if c.name == name {
			return c.run(ctx, args[1:], e)
		}
	}
	e.errorf("unknown command %q; run 'acplint help' for usage", name)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprint(w, `acplint checks Agent Client Protocol (ACP) traffic against the protocol.

Usage:

	acplint <command> [flags] [arguments]

Commands:
`)
	cs := commands()
	sort.Slice(cs, func(i, j int) bool { return cs[i].name < cs[j].name })
	for _, c := range cs {
		fmt.Fprintf(w, "\t%-8s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Run 'acplint help <command>' for a command's flags.

Exit codes (every command, every output format):
	0  no finding at or above --fail-on
	1  findings at or above --fail-on, or a stale baseline entry
	2  usage error, unreadable input or internal error
`)
}

// newFlagSet returns a flag set that prints its usage to stdout on -h and
// reports parse errors the way the go command does.
func newFlagSet(name, usageLine, doc string, e *env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(e.stdout, "usage: %s\n\n%s\nFlags:\n", usageLine, strings.TrimSpace(doc)+"\n")
		fs.SetOutput(e.stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
}

// takesCommandLine names the commands whose positional arguments are a
// command line of their own (check and tap run AGENT_CMD [ARGS…]): their
// flags end at the first argument that is not one, so that the agent's
// flags stay the agent's.
var takesCommandLine = map[string]bool{"check": true, "tap": true}

// parseFlags parses args; it returns ok=false and the exit code when the
// command should stop (help was asked for, or the flags are wrong).
//
// Flags may come before, between and after the positional arguments
// ("lint FILE -f json"), as in go vet and golangci-lint; "--" ends the
// flags, and every argument after it is positional. fs.Args() returns the
// positional arguments in order. Commands in takesCommandLine stop at the
// first positional argument instead.
func parseFlags(fs *flag.FlagSet, args []string, e *env) (code int, ok bool) {
	var positional []string
	for {
		if code, ok := parseSome(fs, args, e); !ok {
			return code, false
		}
		rest := fs.Args()
		consumed := len(args) - len(rest)
		switch {
		case len(rest) == 0:
		case takesCommandLine[fs.Name()], consumed > 0 && args[consumed-1] == "--":
			positional = append(positional, rest...)
		default:
			positional = append(positional, rest[0])
			args = rest[1:]
			continue
		}
		break
	}
	// Parse again with nothing but a terminator and the positional
	// arguments: no flag changes, and fs.Args() is all of them.
	fs.Parse(append([]string{"--"}, positional...))
	return 0, true
}

// parseSome parses flags up to the first positional argument.
func parseSome(fs *flag.FlagSet, args []string, e *env) (code int, ok bool) {
	// Package flag prints the usage itself on -h and on a bad flag; it is
	// printed here, once, and only when asked for.
	usage := fs.Usage
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.Usage = usage
	switch {
	case err == nil:
		return 0, true
	case errors.Is(err, flag.ErrHelp):
		fs.Usage()
		return exitClean, false
	}
	e.errorf("%s: %v; run 'acplint help %s' for usage", fs.Name(), err, fs.Name())
	return exitUsage, false
}

// openInput opens a command's input: standard input for "-", else the
// named file. The caller calls done when it has read the input.
func openInput(name string, stdin io.Reader) (r io.Reader, done func(), err error) {
	if name == "-" {
		return stdin, func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

func runVersion(_ context.Context, args []string, e *env) int {
	fs := newFlagSet("version", "acplint version", "Print acplint's version.", e)
	if code, ok := parseFlags(fs, args, e); !ok {
		return code
	}
	fmt.Fprintf(e.stdout, "acplint %s (ACP protocol version 1)\n", acplintVersion())
	return exitClean
}
