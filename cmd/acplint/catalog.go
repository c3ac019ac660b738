package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/acplint/acplint/conformance"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/internal/golden"
	"github.com/acplint/acplint/schemadiff"
)

// allRules is every rule any command reports: lint's catalog, the checks
// of schema diff (ACP-DIFF-*) and those check makes itself (CHECK-*).
func allRules() []*findings.Rule {
	return slices.Concat(findings.All(), schemadiff.Checks(), conformance.HarnessChecks())
}

// anyRuleByID finds id, in any case, among allRules.
func anyRuleByID(id string) (*findings.Rule, bool) {
	for _, r := range allRules() {
		if strings.EqualFold(r.ID, id) {
			return r, true
		}
	}
	return nil, false
}

func runRules(_ context.Context, args []string, e *env) int {
	fs := newFlagSet("rules", "acplint rules [--all] [--tck] [-f text|json]", "List every rule lint checks: ID, default severity, the party it blames and its title. With --all, also the checks of schema diff (ACP-DIFF-*) and the harness checks of check (CHECK-*).\nWith --tck, list instead every requirement of the official conformance kit's v1 registry\n(acp-tck) with the acplint rules or check harness checks that judge it, or why none does.", e)
	format := fs.String("f", "text", "output `format`: text or json")
	all := fs.Bool("all", false, "list every ID any command reports, schema diff's and check's too")
	tck := fs.Bool("tck", false, "map the conformance kit's v1 requirement ids to acplint rules")
	if code, ok := parseFlags(fs, args, e); !ok {
		return code
	}
	if *tck {
		return writeTCK(*format, e)
	}
	rules := findings.All()
	if *all {
		rules = allRules()
	}
	unchecked, err := golden.Unchecked(conformance.Corpus())
	if err != nil {
		e.errorf("rules: reading the corpus: %v", err)
		return exitUsage
	}
	// notYet says why a rule is listed but not checked; "" when it is checked.
	notYet := func(id string) string { return golden.NotChecked(unchecked, id) }
	switch *format {
	case "json":
		type row struct {
			ID          string   `json:"id"`
			Title       string   `json:"title"`
			Severity    string   `json:"severity"`
			Blame       string   `json:"blame"`
			Spec        string   `json:"spec"`
			TCK         []string `json:"tck,omitempty"`
			Undecidable string   `json:"undecidable,omitempty"`
			NotChecked  string   `json:"notChecked,omitempty"`
			Home        string   `json:"home,omitempty"`
		}
		enc := json.NewEncoder(e.stdout)
		homes := conformance.RuleHomes()
		for _, r := range rules {
			if err := enc.Encode(row{r.ID, r.Title, r.Severity.String(), r.Blame.String(), r.Spec, r.TCK, r.Undecidable, notYet(r.ID), homes[r.ID]}); err != nil {
				e.errorf("rules: %v", err)
				return exitUsage
			}
		}
	case "text":
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		for _, r := range rules {
			title := r.Title
			if r.Undecidable != "" {
				title += " (not decidable from a transcript)"
			} else if why := notYet(r.ID); why != "" {
				title += " (not checked: " + why + ")"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Severity, r.Blame, title)
		}
		tw.Flush()
	default:
		e.errorf("rules: unknown format %q (want text or json)", *format)
		return exitUsage
	}
	return exitClean
}

func runExplain(_ context.Context, args []string, e *env) int {
	fs := newFlagSet("explain", "acplint explain RULE-ID", "Describe one rule: what it checks, why, the spec page behind it, and a failing and a passing transcript from acplint's golden corpus.", e)
	if code, ok := parseFlags(fs, args, e); !ok {
		return code
	}
	if fs.NArg() != 1 {
		e.errorf("explain: want exactly one rule ID; run 'acplint rules' for the list")
		return exitUsage
	}
	r, ok := anyRuleByID(fs.Arg(0))
	if !ok {
		e.errorf("explain: unknown rule %q; run 'acplint rules --all' for the list", fs.Arg(0))
		return exitUsage
	}
	w := e.stdout
	fmt.Fprintf(w, "%s: %s\n\n", r.ID, r.Title)
	fmt.Fprintf(w, "Severity: %s    Blame: %s\n", r.Severity, r.Blame)
	if r.Spec != "" {
		fmt.Fprintf(w, "Spec:     %s\n", r.Spec)
	}
	if len(r.TCK) > 0 {
		fmt.Fprintf(w, "TCK:      %s\n", strings.Join(r.TCK, ", "))
	}
	if home := conformance.RuleHomes()[r.ID]; home != "" {
		fmt.Fprintf(w, "Home:     %s\n", home)
	}
	fmt.Fprintf(w, "\n%s\n", wrap(r.Doc, 78))
	if r.Undecidable != "" {
		fmt.Fprintf(w, "\nacplint cannot decide this rule from a transcript: %s\n", r.Undecidable)
	}
	cases, err := golden.LoadCases(conformance.Corpus())
	if err != nil {
		e.errorf("explain: reading the example corpus: %v", err)
		return exitUsage
	}
	failing, passing := golden.Examples(cases, r.ID)
	for _, ex := range []struct {
		title string
		c     *golden.Case
	}{{"Failing example", failing}, {"Passing example", passing}} {
		if ex.c == nil {
			continue
		}
		fmt.Fprintf(w, "\n%s (%s):\n", ex.title, ex.c.Name)
		if ex.c.Comment != "" {
			fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(ex.c.Comment, "\n", "\n  "))
		}
		for i, line := range strings.Split(strings.TrimRight(string(ex.c.Transcript), "\n"), "\n") {
			fmt.Fprintf(w, "  %3d  %s\n", i+1, line)
		}
		for _, wl := range ex.c.Want {
			if wl.Rule == r.ID {
				fmt.Fprintf(w, "  -> line %d: %s\n", wl.Line, r.ID)
			}
		}
	}
	return exitClean
}

// wrap folds text at width columns, keeping blank-line paragraphs.
func wrap(text string, width int) string {
	var out []string
	for _, para := range strings.Split(text, "\n\n") {
		var line string
		var lines []string
		for _, word := range strings.Fields(para) {
			if line != "" && len(line)+1+len(word) > width {
				lines = append(lines, line)
				line = word
				continue
			}
			if line != "" {
				line += " "
			}
			line += word
		}
		if line != "" {
			lines = append(lines, line)
		}
		out = append(out, strings.Join(lines, "\n"))
	}
	return strings.Join(out, "\n\n")
}

// writeTCK lists the conformance kit's v1 requirements and what covers
// each.
func writeTCK(format string, e *env) int {
	type row struct {
		ID         string   `json:"id"`
		Tier       string   `json:"tier"`
		Subject    string   `json:"subject"`
		Rules      []string `json:"rules,omitempty"`
		Harness    string   `json:"harness,omitempty"`
		Partly     string   `json:"partly,omitempty"`
		NotCovered string   `json:"notCovered,omitempty"`
	}
	var rows []row
	for _, req := range findings.TCKV1() {
		r := row{ID: req.ID, Tier: req.Tier, Subject: req.Subject, Harness: req.Harness, Partly: req.Partly, NotCovered: req.NotCovered}
		for _, rule := range findings.RulesForTCK(req.ID) {
			r.Rules = append(r.Rules, rule.ID)
		}
		rows = append(rows, r)
	}
	switch format {
	case "json":
		enc := json.NewEncoder(e.stdout)
		for _, r := range rows {
			if err := enc.Encode(r); err != nil {
				e.errorf("rules: %v", err)
				return exitUsage
			}
		}
	case "text":
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		for _, r := range rows {
			covered := strings.Join(append(r.Rules, r.Harness), " ")
			switch {
			case r.NotCovered != "":
				covered = "not covered: " + r.NotCovered
			case r.Partly != "":
				covered = strings.TrimSpace(covered) + " (partly: " + r.Partly + ")"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", r.ID, r.Tier, strings.TrimSpace(covered))
		}
		tw.Flush()
	default:
		e.errorf("rules: unknown format %q (want text or json)", format)
		return exitUsage
	}
	return exitClean
}
