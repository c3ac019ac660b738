package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
the rule. With no FILE, or with "-", it reads standard input (and says so
when that is a terminal). A DIR, DIR/... or ... (the working directory) is
every transcript under it: files ending in .ndjson, .jsonl or .json whose
first line is a JSON-RPC message, a transcript record or a Zed log, outside
node_modules, vendor, .git, .hg and .svn; what is skipped is said on stderr.
Links under DIR are not followed. --exclude GLOB leaves paths out.

Rule selection: --enable and --disable take comma-separated patterns, in
any case: a rule ID (ACP-SES-002), an area (ses or ACP-SES), a glob over IDs
(ACP-SES-00*) or all. Only the rules --enable selects are reported (all by
default), less those --disable selects. --rule-severity PATTERN=SEVERITY
reports the selected rules with another severity; --fail-on and --severity
judge the severity reported.

Configuration: the settings of an acplint.yaml in the working directory or
the nearest directory above it (or --config FILE; --no-config for none)
apply, and each flag given overrides its setting. 'acplint config' prints
the effective configuration and documents the file.

Input formats (--input; auto-detected from the first line):
	ndjson   raw traffic, one JSON-RPC message per line; directions are
	         inferred from the method tables and request ids
	jsonl    direction-tagged lines {"ts":…,"dir":"client|agent","msg":…},
	         including acp-inspector traces {"ts","direction","json"}
	zed      the JSON array Zed's ACP log view copies ("Copy All Messages")

Schema version (--schema FILE): the schema rules (missing or mistyped
members, unknown variants and members, "_meta" that must be an object,
null results) and the method rules (undefined and unstable methods, the
side that sends each) are checked against FILE, an ACP schema in the
upstream format (such as the schema/v1/schema.json of the SDK you upgrade
to), instead of the tables compiled into acplint; the other protocol
rules stay the same. 'acplint corpus' compares two schema versions over a
directory of transcripts.

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
as severe as the worst it stands for. Findings dropped by --enable,
--disable, --severity or --baseline do not count. Memory does not grow with the
number of findings (a JUnit report is assembled in a temporary file);
--write-baseline keeps one entry per distinct finding and writes them all.
Should acplint itself fail on a transcript (a bug that panics), that is an
error finding (ACP-LINT-003) at the line it hit; the rest of that file is
read but not checked, and the other files are linted.

Baselines (--write-baseline FILE, then --baseline FILE) name each file
relative to the baseline's own directory, so the same file matches however
it is spelt and from any working directory. Only entries for the files
linted in the run are judged: one whose finding no longer fires is stale
and fails the run.

Exit codes: 0 no finding at or above --fail-on; 1 findings at or above
--fail-on, or a baseline entry that no longer fires; 2 usage or I/O error.

Examples:
	acplint lint examples/session-without-mcp-servers.ndjson
	acplint lint -f sarif traces/ > acplint.sarif
	acplint lint ./... --disable cap,ACP-LINT-001 --fail-on warning
	some-recorder | acplint lint --fail-on warning -
`

func runLint(_ context.Context, args []string, e *env) int {
	fs := newFlagSet("lint", "acplint lint [flags] [FILE|DIR|DIR/...|-]…", lintDoc, e)
	cfgFlags := addConfigFlags(fs)
	writeBaseline := fs.String("write-baseline", "", "write the findings of this run to a baseline `file` and exit 0")
	cleanEnd := fs.Bool("clean-end", false, "the transcripts end with a clean shutdown: unanswered requests are errors, not truncation")
	minSeverity := fs.String("severity", "info", "report only findings with at least this `severity`")
	maxPerRule := fs.Int("max-per-rule", lint.DefaultMaxPerRule, "report at most `N` findings of one rule per file, then one finding counting the rest; 0 for no limit")
	maxLine := fs.Int("max-line", transcript.DefaultMaxLine, "longest line, in `bytes`, that is read; a longer one is skipped without being held and reported (ACP-LINT-004)")
	redact := fs.Bool("redact", false, "with -f html, replace secret values in the messages and findings the page embeds")
	if code, ok := parseFlags(fs, args, e); !ok {
		return code
	}
	cfg, err := cfgFlags.resolve("lint")
	if err != nil {
		e.errorf("lint: %v", err)
		return exitUsage
	}
	htmlOut := strings.EqualFold(strings.TrimSpace(cfg.Format), "html")
	if *redact && !htmlOut {
		e.errorf("lint: --redact is for -f html (the other formats embed no messages)")
		return exitUsage
	}
	var outFormat findings.Format
	if !htmlOut {
		if outFormat, err = findings.ParseFormat(cfg.Format); err != nil {
			e.errorf("lint: %v", err)
			return exitUsage
		}
	}
	inFormat, err := transcript.ParseFormat(cfg.Input)
	if err != nil {
		e.errorf("lint: %v", err)
		return exitUsage
	}
	threshold, err := findings.ParseSeverity(cfg.FailOn)
	if err != nil {
		e.errorf("lint: --fail-on: %v", err)
		return exitUsage
	}
	floor, err := findings.ParseSeverity(*minSeverity)
	if err != nil {
		e.errorf("lint: --severity: %v", err)
		return exitUsage
	}
	selection, err := selectRules(cfg.Enable, cfg.Disable, cfg.Severity, findings.All())
	if err != nil {
		e.errorf("lint: %v", err)
		return exitUsage
	}
	if *maxPerRule < 0 {
		e.errorf("lint: --max-per-rule: %d is negative; 0 means no limit", *maxPerRule)
		return exitUsage
	}
	var schema *lint.Schema
	if cfg.Schema != "" {
		if schema, err = lint.LoadSchema(cfg.Schema); err != nil {
			e.errorf("lint: --schema: %v", err)
			return exitUsage
		}
	}
	exclude, err := newExcluder(cfg.excludeBase, cfg.Exclude)
	if err != nil {
		e.errorf("lint: %v", err)
		return exitUsage
	}
	args = fs.Args()
	if len(args) == 0 {
		args = []string{"-"}
	}
	files, err := expandInputs(args, exclude, func(why string) { fmt.Fprintf(e.stderr, "acplint: skipping %s\n", why) })
	if err != nil {
		e.errorf("lint: %v", err)
		return exitUsage
	}
	if len(files) == 0 {
		e.errorf("lint: no transcripts (.ndjson, .jsonl, .json) in %s", strings.Join(args, " "))
		return exitUsage
	}
	for _, f := range files {
		if f == "-" && isTerminal(e.stdin) {
			fmt.Fprintln(e.stderr, stdinHint)
		}
	}

	// Findings go to the report as lint produces them: nothing is kept
	// but the baseline (read, or being written) and a count per rule.
	var matcher *findings.BaselineMatcher
	var inBaseline func(string) string // a file as the baseline names it
	if cfg.Baseline != "" {
		b, err := readBaselineFile(cfg.Baseline)
		if err != nil {
			e.errorf("lint: %v", err)
			return exitUsage
		}
		matcher = b.Matcher()
		if inBaseline, err = baselinePaths(cfg.Baseline); err != nil {
			e.errorf("lint: %v", err)
			return exitUsage
		}
	}
	var collect *findings.BaselineWriter
	var report *findings.Stream
	var page *htmlreport.Writer
	if *writeBaseline != "" {
		collect = findings.NewBaselineWriter()
		if inBaseline, err = baselinePaths(*writeBaseline); err != nil {
			e.errorf("lint: %v", err)
			return exitUsage
		}
		// Every finding goes into the baseline: one held back by the cap
		// would be new on the next run.
		*maxPerRule = 0
	} else if htmlOut {
		page = htmlreport.New(e.stdout, htmlreport.Options{Title: pageTitle(files), Version: acplintVersion(), Redact: *redact})
	} else if report, err = findings.NewStream(e.stdout, outFormat, findings.Report{Tool: "acplint", Version: acplintVersion(), FailOn: &threshold}); err != nil {
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
			f, on := selection.apply(f)
			return on && f.Severity >= floor && (matcher == nil || !matcher.Accepts(baselineView(f, inBaseline)))
		},
		OnFinding: func(f findings.ValidationFinding) {
			f, _ = selection.apply(f)
			failed = failed || f.Severity >= threshold
			var err error
			switch {
			case collect != nil:
				err = collect.Add(baselineView(f, inBaseline))
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
	linted := map[string]bool{} // the files of this run, as the baseline names them
	for _, name := range files {
		opts.File = name
		if _, err := lintFile(name, e.stdin, opts, page); err != nil {
			// Like go vet: report the unreadable file, lint the others,
			// and exit 2 at the end so CI cannot mistake it for clean.
			e.errorf("%v", err)
			ioFailed = true
			continue
		}
		if inBaseline != nil {
			linted[inBaseline(name)] = true
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
		// Only the files linted now are judged: an entry for a file this
		// run did not read has not stopped firing.
		stale = matcher.StaleIn(func(file string) bool { return linted[file] })
	}
	for _, s := range stale {
		fmt.Fprintf(e.stderr, "acplint: stale baseline entry: %s in %s (%s) no longer fires; remove it from %s\n", findings.Escape(s.Rule), findings.Escape(s.File), findings.Escape(s.Message), cfg.Baseline)
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

// baselinePaths returns how a baseline at name names a linted file: its
// path relative to the baseline's directory, with forward slashes, so the
// same file is the same entry whatever the working directory and however
// the command line spells it ("./a.ndjson", "a.ndjson", "/abs/a.ndjson",
// "sub/../a.ndjson"). Standard input stays "-".
func baselinePaths(name string) (func(string) string, error) {
	dir, err := filepath.Abs(filepath.Dir(name))
	if err != nil {
		return nil, err
	}
	return func(file string) string {
		if file == "-" || file == "" {
			return "-"
		}
		abs, err := filepath.Abs(file)
		if err != nil {
			return filepath.ToSlash(file)
		}
		rel, err := filepath.Rel(dir, abs)
		if err != nil {
			return filepath.ToSlash(abs)
		}
		return filepath.ToSlash(rel)
	}, nil
}

// baselineView is f as a baseline records it: in the file inBaseline
// names, so that its fingerprint does not depend on the path's spelling.
func baselineView(f findings.ValidationFinding, inBaseline func(string) string) findings.ValidationFinding {
	if inBaseline != nil {
		f.Location.File = inBaseline(f.Location.File)
	}
	return f
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
