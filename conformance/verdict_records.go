package conformance

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"

	"github.com/acplint/acplint/findings"
)

// A verdict as findings: -f json and -f sarif report check's findings in
// the record shape lint, corpus and schema diff share
// (findings.JSONFinding, docs/json-output.schema.json), so that one reader
// serves every command.
//
// A finding is one rule or harness check that counts against the agent (a
// failure, a MUST rule never exercised) or that it noted, plus each harness
// problem and note. Where it is located:
//
//   - in the minimal transcript written with --out, at the line where
//     'acplint lint --clean-end' shows it, when lint reproduces it there:
//     a file the user can open, with the same fingerprint lint gives;
//   - otherwise in the agent, named by its command line, as a whole (line
//     0): the runs' transcripts are not kept, and a location in one of
//     them would change from seed to seed, and the fingerprint with it.

// CheckRecord is one finding of a verdict as -f json writes it: the shared
// record, and check's detail under "check".
type CheckRecord struct {
	findings.JSONFinding
	Check CheckDetail `json:"check"`
}

// CheckDetail is what check knows of a finding beyond the shared keys.
type CheckDetail struct {
	// Kind is "rule" (a rule or harness check of the verdict), "harness"
	// (a finding against acplint's own client: a bug to report) or "note"
	// (a finding about the run itself).
	Kind string `json:"kind"`
	// Tier, Status, FailedAt, Exercised, Failures and Skipped are the
	// rule's line in the verdict (kind "rule").
	Tier      Tier   `json:"tier,omitempty"`
	Status    Status `json:"status,omitempty"`
	FailedAt  Tier   `json:"failedAt,omitempty"`
	Exercised int    `json:"exercised,omitempty"`
	Failures  int    `json:"failures,omitempty"`
	// Examples are the first occurrences, with their transcript windows.
	Examples     []CheckExample `json:"examples,omitempty"`
	Reproduction *Reproduction  `json:"reproduction,omitempty"`
}

// CheckExample is one occurrence of a finding in one run.
type CheckExample struct {
	Run     int          `json:"run"`
	Line    int          `json:"line,omitempty"` // in the run's transcript
	Message string       `json:"message"`
	Window  []WindowLine `json:"window,omitempty"`
}

// VerdictRecord is the last line of -f json: the check as a whole, with
// every rule's status. Its findings are the records before it.
type VerdictRecord struct {
	Version int      `json:"version"`
	Verdict *Verdict `json:"verdict"`
}

// Records returns the verdict's findings in the order the text verdict
// lists them: rules by tier and ID, then harness problems, then notes.
func (v *Verdict) Records() []CheckRecord {
	var out []CheckRecord
	for _, r := range v.Rules {
		sev, counts := ruleSeverity(r)
		if !counts || (v.NotStarted && r.Status == StatusNotExercised) {
			// An agent that did not start fails CHECK-START; that nothing
			// else was exercised follows and is not news.
			continue
		}
		rule := ruleByID(r.ID)
		f := findings.ValidationFinding{RuleID: r.ID, Rule: rule, Severity: sev, Blame: findings.PartyAgent, Location: findings.Location{File: v.agentName(), Subject: true}}
		if rule != nil {
			f.Blame = rule.Blame
		}
		d := CheckDetail{Kind: "rule", Tier: r.Tier, Status: r.Status, FailedAt: r.FailedAt, Exercised: r.Exercised, Failures: r.Failures + r.Lesser}
		if rep := r.Reproduction; rep != nil {
			// Its finding is the record itself when the transcript is on
			// disk; a second shape of finding would only confuse readers.
			cp := *rep
			cp.Finding = nil
			d.Reproduction = &cp
		}
		for _, o := range r.Examples {
			d.Examples = append(d.Examples, example(o))
		}
		switch {
		case len(d.Examples) > 0:
			f.Message = d.Examples[0].Message
		case r.Status == StatusNotExercised:
			f.Message = "never exercised: no run created the situation this MUST rule judges, so it counts as not passed"
		default:
			f.Message = r.Title
		}
		if rep := r.Reproduction; rep != nil && rep.Reproduced && rep.File != "" && rep.Finding != nil {
			// Where lint shows it in the minimal transcript on disk.
			f.Location, f.Message, f.Related = rep.Finding.Location, rep.Finding.Message, rep.Finding.Related
		}
		out = append(out, CheckRecord{JSONFinding: findings.NewJSONFinding(f), Check: d})
	}
	for _, group := range []struct {
		kind string
		os   []Occurrence
	}{{"harness", v.HarnessProblems}, {"note", v.Notes}} {
		// One record per rule: its examples are the occurrences.
		at := map[string]int{}
		for _, o := range group.os {
			if o.Finding == nil {
				continue
			}
			if i, ok := at[o.Finding.RuleID]; ok {
				out[i].Check.Examples = append(out[i].Check.Examples, example(o))
				continue
			}
			f := *o.Finding
			f.Location, f.Related = findings.Location{File: v.agentName(), Subject: true}, nil
			at[f.RuleID] = len(out)
			out = append(out, CheckRecord{JSONFinding: findings.NewJSONFinding(f), Check: CheckDetail{Kind: group.kind, Examples: []CheckExample{example(o)}}})
		}
	}
	return out
}

// agentName names the agent as its command line, shell-quoted, as the
// location of findings about the agent as a whole.
func (v *Verdict) agentName() string {
	if v.command != "" {
		return v.command
	}
	return v.Agent
}

// ruleSeverity is the severity a rule's finding is reported with, and
// whether it has one: a failure at its tier (or SHOULD), a MUST never
// exercised (which counts as not passed), or a noted informational rule.
func ruleSeverity(r *RuleResult) (findings.Severity, bool) {
	switch {
	case r.Status == StatusFailed && r.FailedAt == TierShould:
		return findings.SeverityWarning, true
	case r.Status == StatusFailed && r.FailedAt == TierInfo:
		return findings.SeverityInfo, true
	case r.Status == StatusFailed:
		return findings.SeverityError, true
	case r.Status == StatusNotExercised && r.Tier == TierMust && r.Skipped == "":
		return findings.SeverityError, true
	case r.Status == StatusNoted:
		return findings.SeverityInfo, true
	}
	return 0, false
}

func example(o Occurrence) CheckExample {
	e := CheckExample{Run: o.Run, Window: o.Window}
	switch {
	case o.Failure != nil:
		e.Line, e.Message = o.Failure.Line, o.Failure.Message
	case o.Finding != nil:
		e.Line, e.Message = o.Finding.Location.Line, o.Finding.Message
	}
	return e
}

// summaryView is the verdict as the verdict record carries it: the rules'
// statuses without their examples and reproductions, which the finding
// records carry, so that a finding has one shape in the output.
func (v *Verdict) summaryView() *Verdict {
	s := *v
	s.Rules = make([]*RuleResult, len(v.Rules))
	for i, r := range v.Rules {
		rr := *r
		rr.Examples, rr.Reproduction = nil, nil
		s.Rules[i] = &rr
	}
	s.Reproductions, s.HarnessProblems, s.Notes = nil, nil, nil
	return &s
}

// writeJSON writes NDJSON: one CheckRecord per finding, then the
// VerdictRecord.
func (v *Verdict) writeJSON(w io.Writer) error {
	v.fillWindows()
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, r := range v.Records() {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	if err := enc.Encode(VerdictRecord{Version: findings.JSONVersion, Verdict: v.summaryView()}); err != nil {
		return err
	}
	return bw.Flush()
}

// writeSARIF writes the verdict's findings as SARIF 2.1.0, with the
// catalog and the harness checks as the rules.
func (v *Verdict) writeSARIF(w io.Writer) error {
	records := v.Records()
	fs := make([]findings.ValidationFinding, len(records))
	for i, r := range records {
		fs[i] = r.ValidationFinding
	}
	rules := append(findings.All(), HarnessChecks()...)
	return findings.Write(w, findings.FormatSARIF, findings.Report{Tool: "acplint", Version: v.ToolVersion, Findings: fs, Rules: rules})
}

// commandLine is the agent's command as a shell would take it.
func (c AgentCommand) commandLine() string {
	words := make([]string, 0, 1+len(c.Args))
	for _, w := range append([]string{c.Path}, c.Args...) {
		words = append(words, shellQuote(w))
	}
	return strings.Join(words, " ")
}
