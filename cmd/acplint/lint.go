package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/htmlreport"
	"github.com/acplint/acplint/internal/safefile"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/transcript"
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
(workflow annotations), junit, html.

-f html writes one self-contained page (no network, nothing to install)
that shows the transcripts as a timeline of client and agent messages,
requests joined to their responses, grouped by session and prompt turn,
with every finding on its message: the rule, blame, the JSON Pointer
marked in the message, related lines, the spec page and the rule's
explanation; filters, search, next/previous finding and a permalink per
line (#L42). The page embeds the transcripts: --redact replaces secret
values in them first, as 'acplint tap --redact' does in a recording.

Findings are reported as they are found, in transcript order, file after
file; findings known only at the end of a transcript (requests never
answered, a line ending repeated on many lines, the counts below) follow
its other findings. A rule reports at most --max-per-rule findings per file
(default 100): later ones are only counted, and one finding of that rule
at the first of them ends the file's list with "… and N more like this",
as severe as the worst it stands for. Findings dropped by --disable,
--severity or --baseline do not count. Memory does not grow with the
number of findings (a JUnit report is assembled in a temporary file);
--write-baseline keeps one entry per distinct finding and writes them all.
Should acplint itself fail on a transcript (a bug that panics), that is an
error finding (ACP-LINT-003) at the line it hit; the rest of that file is
read but not checked, and the other files are linted.

Exit codes: 0 no finding at or above --fail-on; 1 findings at or above
--fail-on, or a baseline entry that no longer fires; 2 usage or I/O error.

Examples:
	acplint lint examples/session-without-mcp-servers.ndjson
	acplint lint -f sarif traces/*.jsonl > acplint.sarif
	some-recorder | acplint lint --fail-on warning -
`

func runLint(_ context.Context, args []string, e *env) int {
	fs := newFlagSet("lint", "acplint lint [flags] [FILE…]", lintDoc, e)
	format := fs.String("f", "text", "output `format`: text, json, sarif, github, junit or html")
	fs.StringVar(format, "format", "text", "same as -f")
	input := fs.String("input", "auto", "input `format`: auto, ndjson, jsonl or zed")
	failOn := fs.String("fail-on", "error", "exit 1 when a finding has at least this `severity`: error, warning or info")
	baseline := fs.String("baseline", "", "accept the findings listed in this baseline `file`; entries that no longer fire fail the run")
	writeBaseline := fs.String("write-baseline", "", "write the findings of this run to a baseline `file` and exit 0")
	cleanEnd := fs.Bool("clean-end", false, "the transcripts end with a clean shutdown: unanswered requests are errors, not truncation")
	disable := fs.String("disable", "", "comma-separated rule `IDs` to drop from the report")
	minSeverity := fs.String("severity", "info", "report only findings with at least this `severity`")
	maxPerRule := fs.Int("max-per-rule", lint.DefaultMaxPerRule, "report at most `N` findings of one rule per file, then one finding counting the rest; 0 for no limit")
	maxLine := fs.Int("max-line", transcript.DefaultMaxLine, "longest line, in `bytes`, that is read; a longer one is skipped without being held and reported (ACP-LINT-004)")
	redact := fs.Bool("redact", false, "with -f html, replace secret values in the messages and findings the page embeds")
	schemaFile := fs.String("schema", "", "check params and results against this ACP schema `file` (upstream format) instead of the compiled-in schema")
	if code, ok := parseFlags(fs, args, e); !ok {
		return code
	}
	htmlOut := *format == "html"
	var outFormat findings.Format
	var err error
	if !htmlOut {
		if outFormat, err = findings.ParseFormat(*format); err != nil {
			e.errorf("lint: %v", err)
			return exitUsage
		}
	}
	if *redact && !htmlOut {
		e.errorf("lint: --redact is for -f html (the other formats embed no messages)")
		return exitUsage
	}
	inFormat, err := transcript.ParseFormat(*input)
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
	if *maxPerRule < 0 {
		e.errorf("lint: --max-per-rule: %d is negative; 0 means no limit", *maxPerRule)
		return exitUsage
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

	// Findings go to the report as lint produces them: nothing is kept
	// but the baseline (read, or being written) and a count per rule.
	var matcher *findings.BaselineMatcher
	if *baseline != "" {
		b, err := readBaselineFile(*baseline)
		if err != nil {
			e.errorf("lint: %v", err)
			return exitUsage
		}
		matcher = b.Matcher()
	}
	var collect *findings.BaselineWriter
	var report *findings.Stream
	var page *htmlreport.Writer
	if *writeBaseline != "" {
		collect = findings.NewBaselineWriter()
		// Every finding goes into the baseline: one held back by the cap
		// would be new on the next run.
		*maxPerRule = 0
	} else if htmlOut {
		page = htmlreport.New(e.stdout, htmlreport.Options{Title: pageTitle(files), Version: version, Redact: *redact})
	} else if report, err = findings.NewStream(e.stdout, outFormat, findings.Report{Tool: "acplint", Version: version}); err != nil {
		e.errorf("lint: writing the report: %v", err)
		return exitUsage
	}
	perRule := *maxPerRule
	if perRule == 0 {
		perRule = -1 // Options' "no cap"
	}
	var outErr error // the first error writing the report or baseline
	failed := false  // a reported finding is at or above --fail-on
	baselined := 0   // findings written to the baseline
	opts := lint.Options{Format: inFormat, CleanEnd: *cleanEnd, Schema: schema, MaxPerRule: perRule, MaxLine: *maxLine,
		Filter: func(f findings.ValidationFinding) bool {
			return !disabled[f.RuleID] && f.Severity >= floor && (matcher == nil || !matcher.Accepts(f))
		},
		OnFinding: func(f findings.ValidationFinding) {
			failed = failed || f.Severity >= threshold
			var err error
			switch {
			case collect != nil:
				err = collect.Add(f)
				baselined++
			case report != nil:
				err = report.Add(f)
			} // a page has the finding already (htmlreport.Writer.Lint)
			if outErr == nil {
				outErr = err
			}
		},
	}
	ioFailed := false
	for _, name := range files {
		opts.File = name
		if _, err := lintFile(name, e.stdin, opts, page); err != nil {
			// Like go vet: report the unreadable file, lint the others,
			// and exit 2 at the end so CI cannot mistake it for clean.
			e.errorf("%v", err)
			ioFailed = true
			continue
		}
		if report != nil {
			// JUnit lists clean files too (a file with findings has its
			// suite already).
			report.StartFile(name)
		}
	}

	if collect != nil {
		if ioFailed {
			return exitUsage
		}
		if outErr == nil {
			outErr = writeBaselineFile(*writeBaseline, collect)
		}
		if outErr != nil {
			e.errorf("lint: %v", outErr)
			return exitUsage
		}
		fmt.Fprintf(e.stderr, "acplint: wrote %d findings to %s\n", baselined, *writeBaseline)
		return exitClean
	}
	closeReport := report.Close
	if page != nil {
		closeReport = page.Close
	}
	if err := closeReport(); outErr == nil {
		outErr = err
	}
	if outErr != nil {
		e.errorf("lint: writing the report: %v", outErr)
		return exitUsage
	}
	var stale []findings.BaselineEntry
	if matcher != nil {
		stale = matcher.Stale()
	}
	for _, s := range stale {
		fmt.Fprintf(e.stderr, "acplint: stale baseline entry: %s in %s (%s) no longer fires; remove it from %s\n", findings.Escape(s.Rule), findings.Escape(s.File), findings.Escape(s.Message), *baseline)
	}
	code := exitClean
	if failed || len(stale) > 0 {
		code = exitFindings
	}
	if ioFailed {
		code = exitUsage
	}
	return code
}

// lintFile lints one file, into page too when it is not nil.
func lintFile(name string, stdin io.Reader, opts lint.Options, page *htmlreport.Writer) (*lint.Result, error) {
	in, done, err := openInput(name, stdin)
	if err != nil {
		if page != nil {
			// The page says so too: it is often read without the stderr.
			page.StartFile(name)
			page.EndFile(nil, err)
		}
		return nil, err
	}
	defer done()
	if page != nil {
		return page.Lint(in, opts)
	}
	return lint.Transcript(in, opts)
}

// pageTitle titles the HTML report of files.
func pageTitle(files []string) string {
	if len(files) == 1 {
		return files[0]
	}
	return fmt.Sprintf("%s and %d more", files[0], len(files)-1)
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

// writeBaselineFile replaces the baseline atomically, owner-only (see
// package safefile).
func writeBaselineFile(name string, b *findings.BaselineWriter) error {
	return safefile.Replace(name, b.Write)
}
