package findings

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Format names an output format of Write.
type Format string

const (
	FormatText   Format = "text"   // one line per finding plus indented detail, for people
	FormatJSON   Format = "json"   // NDJSON, one ValidationFinding per line, for scripts
	FormatSARIF  Format = "sarif"  // SARIF 2.1.0, for GitHub code scanning and IDEs
	FormatGitHub Format = "github" // GitHub Actions workflow commands (annotations)
	FormatJUnit  Format = "junit"  // JUnit XML, for CI systems that show test reports
)

// Formats lists every format in the order help text shows them.
func Formats() []Format {
	return []Format{FormatText, FormatJSON, FormatSARIF, FormatGitHub, FormatJUnit}
}

// ParseFormat accepts a format name in any case.
func ParseFormat(s string) (Format, error) {
	want := Format(strings.ToLower(strings.TrimSpace(s)))
	for _, f := range Formats() {
		if f == want {
			return f, nil
		}
	}
	names := make([]string, 0, len(Formats()))
	for _, f := range Formats() {
		names = append(names, string(f))
	}
	return "", fmt.Errorf("unknown output format %q (want %s)", s, strings.Join(names, ", "))
}

// Report is everything a reporter needs about one acplint run.
type Report struct {
	Tool     string              // tool name for SARIF and JUnit; "acplint" when empty
	Version  string              // tool version for SARIF
	Files    []string            // every input linted, even clean ones (JUnit lists them)
	Findings []ValidationFinding // in any order; Write sorts and de-duplicates a copy
	Rules    []*Rule             // catalog described in SARIF; nil means All()
	// FailOn is the lowest severity JUnit reports as a failed test case,
	// so that the test report agrees with the command's --fail-on and exit
	// code; a finding below it is a passing case with its detail as
	// output. Nil means warning; NeverFail reports no failures.
	FailOn *Severity
}

// NeverFail is a FailOn above every severity (--fail-on none).
const NeverFail Severity = SeverityError + 1

// Write renders r in format f. Findings are sorted with Less and exact
// duplicates are dropped first, so every format prints the same set in the
// same order whatever order the checks ran in. It needs every finding in
// memory; Stream is the way to report them as they are produced.
func Write(w io.Writer, f Format, r Report) error {
	r.Findings = prepare(r.Findings)
	var extra []sarifRule
	if f == FormatSARIF {
		// All findings are known: describe the rules outside the catalog
		// too, so that every result gets its ruleIndex.
		extra = extraRules(r.Rules, r.Findings)
	}
	s, err := newStream(w, f, r, extra)
	if err != nil {
		return err
	}
	defer s.Close()
	if f == FormatJUnit {
		// JUnit groups by file: suites follow the order files were given;
		// files that appear only in findings (a caller that did not list
		// them) follow, sorted.
		byFile := map[string][]ValidationFinding{}
		for _, x := range r.Findings {
			byFile[x.Location.File] = append(byFile[x.Location.File], x)
		}
		for _, file := range junitFileOrder(r.Files, r.Findings) {
			s.StartFile(file)
			for _, x := range byFile[file] {
				s.Add(x)
			}
		}
		return s.Close()
	}
	for _, x := range r.Findings {
		s.Add(x)
	}
	return s.Close()
}

// prepare returns a normalised, sorted, de-duplicated copy of fs. The
// caller's slice is never modified.
//
// Normalising fills in what a finding built by hand or decoded from JSON
// may lack (the rule's spec URL and TCK ids) and gives unnamed files the
// name "-", so reporters need no special cases.
func prepare(fs []ValidationFinding) []ValidationFinding {
	type keyed struct {
		f   ValidationFinding
		key string
	}
	all := make([]keyed, 0, len(fs))
	for _, f := range fs {
		f = normalize(f)
		all = append(all, keyed{f, identity(f)})
	}
	// Ties under Less (same file, line, rule, pointer and message but, say,
	// a different severity) are broken by the full encoding so the order
	// never depends on the input order.
	slices.SortFunc(all, func(a, b keyed) int {
		switch {
		case Less(a.f, b.f):
			return -1
		case Less(b.f, a.f):
			return 1
		}
		return strings.Compare(a.key, b.key)
	})
	out := make([]ValidationFinding, 0, len(all))
	for i, k := range all {
		// Sorting by identity last makes exact duplicates adjacent.
		if i > 0 && all[i-1].key == k.key {
			continue
		}
		out = append(out, k.f)
	}
	return out
}

func normalize(f ValidationFinding) ValidationFinding {
	if f.Rule == nil && f.RuleID != "" {
		f.Rule, _ = ByID(f.RuleID)
	}
	if f.RuleID == "" && f.Rule != nil {
		f.RuleID = f.Rule.ID
	}
	if f.Rule != nil {
		if f.SpecURL == "" {
			f.SpecURL = f.Rule.Spec
		}
		if len(f.TCK) == 0 {
			f.TCK = f.Rule.TCK
		}
	}
	if f.Location.File == "" {
		f.Location.File = "-"
	}
	if len(f.Related) > 0 {
		rel := make([]Related, len(f.Related))
		copy(rel, f.Related)
		for i := range rel {
			// Related lines without a file are in the finding's own
			// transcript: every check that adds them works on one file.
			if rel[i].Location.File == "" {
				rel[i].Location.File = f.Location.File
			}
		}
		f.Related = rel
	}
	return f
}

// identity is the exact content of a finding as JSON. Two findings with the
// same identity print identically in every format, so one is dropped.
func identity(f ValidationFinding) string {
	b, err := json.Marshal(f)
	if err != nil {
		// Every field marshals; fall back to fmt so a future field that
		// does not still yields a usable key instead of a panic.
		return fmt.Sprintf("%#v", f)
	}
	return string(b)
}

// specLine is the "spec: URL (TCK: …)" detail the text-like formats share.
func specLine(f ValidationFinding) string {
	if f.SpecURL == "" && len(f.TCK) == 0 {
		return ""
	}
	s := "spec: " + f.SpecURL
	if f.SpecURL == "" {
		s = "spec: (none)"
	}
	if len(f.TCK) > 0 {
		s += " (TCK: " + strings.Join(f.TCK, ", ") + ")"
	}
	return s
}

// fileLine prints a location as FILE:LINE, or FILE alone for line 0, which
// means the transcript as a whole. The name is escaped: it starts a line.
func fileLine(l Location) string {
	file := Escape(l.File)
	if file == "" {
		file = "-"
	}
	if l.Line <= 0 {
		return file
	}
	return fmt.Sprintf("%s:%d", file, l.Line)
}
