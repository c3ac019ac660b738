package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/lint"
)

const lintDoc = `
Lint reads recorded ACP traffic and reports every protocol rule a message
breaks, in both directions, with the party at fault and the spec page behind
the rule. With no FILE, or with "-", it reads standard input.

Input formats (--input; auto-detected from the first line):
	ndjson   raw traffic, one JSON-RPC message per line; directions are
	         inferred from the method tables and request ids
	jsonl    direction-tagged lines {"ts":…,"dir":"client|agent","msg":…},
	         including acp-inspector traces {"ts","direction","json"}
	zed      the JSON array Zed's ACP log view copies ("Copy All Messages")

Schema version (--schema FILE): the schema rules (missing or mistyped
members, unknown variants and members, undefined methods) are checked
against FILE, an ACP schema in the upstream format (such as the
schema/v1/schema.json of the SDK you upgrade to), instead of the schema
compiled into acplint; the protocol rules stay the same. 'acplint corpus'
compares two schema versions over a directory of transcripts.

Output formats (-f): text (file:line: severity: message (RULE-ID)), json
(one finding per line), sarif (SARIF 2.1.0 for code scanning), github
(workflow annotations), junit.

Exit codes: 0 no finding at or above --fail-on; 1 findings at or above
--fail-on, or a baseline entry that no longer fires; 2 usage or I/O error.

Examples:
	acplint lint examples/session-without-mcp-servers.ndjson
	acplint lint -f sarif traces/*.jsonl > acplint.sarif
	some-recorder | acplint lint --fail-on warning -
`

func runLint(_ context.Context, args []string, e *env) int {
	fs := newFlagSet("lint", "acplint lint [flags] [FILE…]", lintDoc, e)
	format := fs.String("f", "text", "output `format`: text, json, sarif, github or junit")
	fs.StringVar(format, "format", "text", "same as -f")
	input := fs.String("input", "auto", "input `format`: auto, ndjson, jsonl or zed")
	failOn := fs.String("fail-on", "error", "exit 1 when a finding has at least this `severity`: error, warning or info")
	baseline := fs.String("baseline", "", "accept the findings listed in this baseline `file`; entries that no longer fire fail the run")
	writeBaseline := fs.String("write-baseline", "", "write the findings of this run to a baseline `file` and exit 0")
	cleanEnd := fs.Bool("clean-end", false, "the transcripts end with a clean shutdown: unanswered requests are errors, not truncation")
	disable := fs.String("disable", "", "comma-separated rule `IDs` to drop from the report")
	minSeverity := fs.String("severity", "info", "report only findings with at least this `severity`")
	schemaFile := fs.String("schema", "", "check params and results against this ACP schema `file` (upstream format) instead of the compiled-in schema")
	if code, ok := parseFlags(fs, args, e); !ok {
		return code
	}
	outFormat, err := findings.ParseFormat(*format)
	if err != nil {
		e.errorf("lint: %v", err)
		return exitUsage
	}
	inFormat, err := lint.ParseFormat(*input)
	if err != nil {
		e.errorf("lint: %v", err)
		return exitUsage
	}
	threshold, err := findings.ParseSeverity(*failOn)
	if err != nil {
		e.errorf("lint: --fail-on: %v", err)
		return exitUsage
	}
	floor, err := findings.ParseSeverity(*minSeverity)
	if err != nil {
		e.errorf("lint: --severity: %v", err)
		return exitUsage
	}
	disabled := map[string]bool{}
	for _, id := range strings.Split(*disable, ",") {
		if id = strings.TrimSpace(id); id == "" {
			continue
		}
		if _, ok := findings.ByID(id); !ok {
			e.errorf("lint: --disable: unknown rule %q; run 'acplint rules' for the list", id)
			return exitUsage
		}
		disabled[id] = true
	}
	var schema *lint.Schema
	if *schemaFile != "" {
		if schema, err = lint.LoadSchema(*schemaFile); err != nil {
			e.errorf("lint: --schema: %v", err)
			return exitUsage
		}
	}
	files := fs.Args()
	if len(files) == 0 {
		files = []string{"-"}
	}

	var all []findings.ValidationFinding
	ioFailed := false
	for _, name := range files {
		res, err := lintFile(name, e.stdin, lint.Options{Format: inFormat, File: name, CleanEnd: *cleanEnd, Schema: schema})
		if err != nil {
			// Like go vet: report the unreadable file, lint the others,
			// and exit 2 at the end so CI cannot mistake it for clean.
			e.errorf("%v", err)
			ioFailed = true
			continue
		}
		for _, f := range res.Findings {
			if !disabled[f.RuleID] && f.Severity >= floor {
				all = append(all, f)
			}
		}
	}

	if *writeBaseline != "" {
		if ioFailed {
			return exitUsage
		}
		if err := writeBaselineFile(*writeBaseline, all); err != nil {
			e.errorf("lint: %v", err)
			return exitUsage
		}
		fmt.Fprintf(e.stderr, "acplint: wrote %d findings to %s\n", len(all), *writeBaseline)
		return exitClean
	}
	var stale []findings.BaselineEntry
	if *baseline != "" {
		b, err := readBaselineFile(*baseline)
		if err != nil {
			e.errorf("lint: %v", err)
			return exitUsage
		}
		all, stale = b.Filter(all)
	}
	if err := findings.Write(e.stdout, outFormat, findings.Report{Tool: "acplint", Version: version, Files: files, Findings: all}); err != nil {
		e.errorf("lint: writing the report: %v", err)
		return exitUsage
	}
	for _, s := range stale {
		fmt.Fprintf(e.stderr, "acplint: stale baseline entry: %s in %s (%s) no longer fires; remove it from %s\n", s.Rule, s.File, s.Message, *baseline)
	}
	code := exitClean
	for _, f := range all {
		if f.Severity >= threshold {
			code = exitFindings
			break
		}
	}
	if len(stale) > 0 {
		code = exitFindings
	}
	if ioFailed {
		code = exitUsage
	}
	return code
}

func lintFile(name string, stdin io.Reader, opts lint.Options) (*lint.Result, error) {
	in, done, err := openInput(name, stdin)
	if err != nil {
		return nil, err
	}
	defer done()
	return lint.Transcript(in, opts)
}

func readBaselineFile(name string) (*findings.Baseline, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := findings.ReadBaseline(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return b, nil
}

func writeBaselineFile(name string, fs []findings.ValidationFinding) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := findings.WriteBaseline(f, fs); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
