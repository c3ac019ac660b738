package conformance

import (
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/acplint/acplint/findings"
)

// Status is how a rule fared over all runs.
type Status string

const (
	StatusPassed       Status = "passed"        // exercised, never broken
	StatusFailed       Status = "failed"        // broken at least once
	StatusNotExercised Status = "not exercised" // no run created its situation
	StatusNoted        Status = "noted"         // an informational rule fired
)

// Verdict is the result of a check, in the shape of a conformance kit.
type Verdict struct {
	Agent    string        `json:"agent"`
	Seed     uint64        `json:"seed"`
	Runs     int           `json:"runs"` // generated runs (--runs); the preflight and tour runs are not counted
	Steps    int           `json:"steps"`
	Caps     []Capability  `json:"caps"`
	FailOn   string        `json:"failOn"`
	Duration time.Duration `json:"-"`
	Total    time.Duration `json:"-"`
	// Seconds is the exploration's wall time, TotalSeconds with shrinking.
	Seconds      float64 `json:"seconds"`
	TotalSeconds float64 `json:"totalSeconds"`
	ShrinkRuns   int     `json:"shrinkRuns"`
	// RunsPerSecond is the exploration throughput.
	RunsPerSecond float64 `json:"runsPerSecond"`

	Conformant bool          `json:"conformant"`
	Summary    string        `json:"summary"`
	Rules      []*RuleResult `json:"rules"`
	// Reproductions are the shrunk runs, one per failing rule or check.
	Reproductions []*Reproduction `json:"reproductions,omitempty"`
	// HarnessProblems are findings that blame the client side: each one is
	// a bug in acplint check, not in the agent.
	HarnessProblems []Occurrence `json:"harnessProblems,omitempty"`
	// Notes are findings about the run itself (for example a negotiated
	// version other than 1).
	Notes []Occurrence `json:"notes,omitempty"`
	// NotCovered are agent rules the harness cannot exercise.
	NotCovered []string `json:"notCovered"`
	// Unadvertised counts the agent's calls of methods the client did not
	// advertise, by method.
	Unadvertised map[string]int `json:"unadvertisedCalls,omitempty"`
	// Cancellation says whether the cancellation rules were exercised,
	// and why not when they were not.
	Cancellation *Cancellation `json:"cancellation"`
	// NotStarted: the agent never answered initialize, so nothing but
	// its start was judged; Stderr is the end of what it wrote on stderr.
	NotStarted bool   `json:"notStarted,omitempty"`
	Stderr     string `json:"stderr,omitempty"`
	// BudgetSpent: the --budget ran out before the runs asked for were
	// made; Note says how far the check got.
	BudgetSpent bool   `json:"budgetSpent,omitempty"`
	Note        string `json:"note,omitempty"`
	// ToolVersion is acplint's version (Options.Version).
	ToolVersion string `json:"acplintVersion,omitempty"`
	// command is the agent's command line, shell-quoted.
	command string
}

// Cancellation is the outcome of the cancellation rules (ACP-CXL-001 and
// ACP-CXL-002, MUST). They are exercised only by a cancel the agent
// provably read before it ended the turn. An agent that ends every turn
// before a cancel can reach it gives them no chance: that is its own
// outcome, "not exercised", with the reason, not a failure of the MUST
// tier (the conformance kit skips them too).
type Cancellation struct {
	Exercised bool `json:"exercised"`
	// Sent counts cancels (session/cancel, or session/close of a running
	// turn), Read those the agent provably read before it answered, Raced
	// those it answered before it could have.
	Sent   int    `json:"sent"`
	Read   int    `json:"read"`
	Raced  int    `json:"raced"`
	Reason string `json:"reason,omitempty"`
}

// cancellationRules are the MUST rules that only a read cancel exercises.
var cancellationRules = map[string]bool{"ACP-CXL-001": true, "ACP-CXL-002": true}

// RuleResult is one rule's line in the verdict.
type RuleResult struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Tier   Tier   `json:"tier"`
	Status Status `json:"status"`
	// Exercised is the number of runs that created the rule's situation.
	Exercised int `json:"exercised"`
	// Failures counts failing findings (or harness failures) over all runs;
	// Examples keeps the first few, with their transcript window.
	Failures int          `json:"failures"`
	Examples []Occurrence `json:"examples,omitempty"`
	// Races counts findings the machine lowered to information (cancel
	// races): they neither fail nor exercise the rule. Lesser counts those
	// it lowered to a warning: they fail the rule at the SHOULD level.
	Races  int `json:"races,omitempty"`
	Lesser int `json:"lesser,omitempty"`
	// FailedAt is the tier the rule failed at: its own, or SHOULD when only
	// findings lowered to a warning failed it.
	FailedAt     Tier          `json:"failedAt,omitempty"`
	Reproduction *Reproduction `json:"reproduction,omitempty"`
	Spec         string        `json:"spec,omitempty"`
	// Skipped says why a rule that was not exercised does not count as
	// not passed (cancellation the agent gave no chance).
	Skipped string `json:"skipped,omitempty"`
}

// Occurrence is one finding in one run, with the transcript lines around it.
type Occurrence struct {
	Run     int                         `json:"run"`
	Finding *findings.ValidationFinding `json:"finding,omitempty"`
	Failure *Failure                    `json:"failure,omitempty"`
	Window  []WindowLine                `json:"window,omitempty"`
}

// WindowLine is one transcript line of a failure's context.
type WindowLine struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

// Reproduction is the minimal run of one failure.
type Reproduction struct {
	Key    string `json:"key"`
	Shrunk bool   `json:"shrunk"`
	Note   string `json:"note,omitempty"`
	// File is the transcript written to the output directory.
	File    string   `json:"file,omitempty"`
	Command string   `json:"command"`
	Lines   int      `json:"lines"`
	Steps   []string `json:"steps"`
	Failure *Failure `json:"failure,omitempty"`
	// Reproduced says `acplint lint` of the transcript shows the failure;
	// Finding is that finding and LintRules every agent rule lint reports.
	Reproduced bool                        `json:"reproduced"`
	Finding    *findings.ValidationFinding `json:"finding,omitempty"`
	LintRules  []string                    `json:"lintRules,omitempty"`
	// Window is the minimal transcript, for reports without an output
	// directory.
	Window []WindowLine `json:"window,omitempty"`

	run *Run
}

// maxExamples bounds the examples kept per rule.
const maxExamples = 3

// verdict judges all exploration runs.
func (k *checker) verdict() *Verdict {
	v := &Verdict{
		Agent:        k.opts.Agent.String(),
		ToolVersion:  k.opts.Version,
		command:      k.opts.Agent.commandLine(),
		Seed:         k.opts.Seed,
		Runs:         max(len(k.runs)-1-k.tourRuns, 0), // k.runs[0] is the preflight, then the tours
		Steps:        k.opts.Steps,
		Caps:         k.opts.Caps,
		FailOn:       k.opts.FailOn.String(),
		NotCovered:   notCovered(),
		Unadvertised: map[string]int{},
	}
	results := map[string]*RuleResult{}
	get := func(r *findings.Rule) *RuleResult {
		if res, ok := results[r.ID]; ok {
			return res
		}
		res := &RuleResult{ID: r.ID, Title: r.Title, Tier: tierOf(r), Spec: r.Spec}
		results[r.ID] = res
		return res
	}
	for _, r := range profileRules() {
		get(r)
	}
	harnessSeen := map[string]bool{}
	cx := &Cancellation{}
	for _, run := range k.runs {
		cx.Sent += run.Facts[FactCancelSent] + run.Facts[FactCloseSent]
		cx.Read += run.Facts[FactCancelDecisive] + run.Facts[FactCloseDecisive]
		cx.Raced += run.Facts[FactCancelRace]
		for m, n := range run.Unadvertised {
			v.Unadvertised[m] += n
		}
		fired := map[string]bool{}
		if f := run.Failure; f != nil {
			res := get(ruleByID(f.Check))
			res.Failures++
			fired[f.Check] = true
			if len(res.Examples) < maxExamples {
				res.Examples = append(res.Examples, Occurrence{Run: run.N, Failure: f, Window: window(run, f.Line, nil)})
			}
		}
		for i := range run.Findings {
			f := run.Findings[i]
			rule := ruleByID(f.RuleID)
			switch {
			case rule == nil:
				continue
			case run.excused(f):
				continue
			case (f.Blame == findings.PartyClient && f.Severity >= findings.SeverityWarning) || strings.HasPrefix(f.RuleID, "ACP-LINT-"):
				// After the agent died or stalled, the client cannot answer
				// what it sends; that is the agent's doing, not a harness bug.
				if run.Failure == nil && !harnessSeen[f.RuleID] {
					harnessSeen[f.RuleID] = true
					v.HarnessProblems = append(v.HarnessProblems, Occurrence{Run: run.N, Finding: &f, Window: window(run, f.Location.Line, f.Related)})
				}
				continue
			case f.Blame == findings.PartyTool || f.Blame == findings.PartyClient:
				// Tool findings say something about the run (another
				// protocol version); informational client findings describe
				// how the client reacted, which is not a breach.
				if len(v.Notes) < maxExamples*2 {
					v.Notes = append(v.Notes, Occurrence{Run: run.N, Finding: &f})
				}
				continue
			}
			res := get(rule)
			sev, ok := run.judge(f)
			if !ok {
				res.Races++
				continue
			}
			if sev > f.Severity {
				// Judged in full by the harness (see Run.judge).
				f.Severity = sev
				f.Message += " [acplint check: not a race: " + run.ReadLines[f.Location.Line] + "]"
			}
			if sev < rule.Severity {
				res.Lesser++
			} else {
				res.Failures++
			}
			fired[f.RuleID] = true
			if len(res.Examples) < maxExamples {
				res.Examples = append(res.Examples, Occurrence{Run: run.N, Finding: &f, Window: window(run, f.Location.Line, f.Related)})
			}
		}
		for id, res := range results {
			if fired[id] || ranFacts(run, exercisedBy(id)) {
				res.Exercised++
			}
		}
	}
	cx.Exercised = cx.Read > 0
	if !cx.Exercised {
		cx.Reason = cx.why()
	}
	v.Cancellation = cx
	var failedMust, failedGated, failedShould, unexercisedMust int
	for _, res := range results {
		switch {
		case res.Failures+res.Lesser > 0 && res.Tier == TierInfo:
			res.Status = StatusNoted
		case res.Failures > 0:
			res.Status = StatusFailed
			res.FailedAt = res.Tier
		case res.Lesser > 0:
			res.Status = StatusFailed
			res.FailedAt = TierShould
		case res.Exercised > 0:
			res.Status = StatusPassed
		default:
			res.Status = StatusNotExercised
		}
		if res.Status == StatusNotExercised && cancellationRules[res.ID] {
			res.Skipped = "cancellation not exercised: " + cx.Reason
			v.Rules = append(v.Rules, res)
			continue
		}
		switch {
		case res.Status == StatusFailed && res.FailedAt == TierMust:
			failedMust++
		case res.Status == StatusFailed && res.FailedAt == TierGated:
			failedGated++
		case res.Status == StatusFailed && res.FailedAt == TierShould:
			failedShould++
		case res.Status == StatusNotExercised && res.Tier == TierMust:
			unexercisedMust++
		}
		v.Rules = append(v.Rules, res)
	}
	sort.Slice(v.Rules, func(i, j int) bool {
		a, b := v.Rules[i], v.Rules[j]
		if tierRank(a.Tier) != tierRank(b.Tier) {
			return tierRank(a.Tier) < tierRank(b.Tier)
		}
		return a.ID < b.ID
	})
	v.Conformant = failedMust == 0 && failedGated == 0 && unexercisedMust == 0
	if k.opts.FailOn <= findings.SeverityWarning && failedShould > 0 {
		v.Conformant = false
	}
	var parts []string
	if failedMust > 0 {
		parts = append(parts, fmt.Sprintf("%d MUST failed", failedMust))
	}
	if unexercisedMust > 0 {
		parts = append(parts, fmt.Sprintf("%d MUST never exercised", unexercisedMust))
	}
	if failedGated > 0 {
		parts = append(parts, fmt.Sprintf("%d capability-gated failed", failedGated))
	}
	if failedShould > 0 {
		parts = append(parts, fmt.Sprintf("%d SHOULD failed", failedShould))
	}
	switch {
	case v.Conformant && len(parts) == 0:
		v.Summary = "conformant"
	case v.Conformant:
		v.Summary = "conformant, with " + strings.Join(parts, ", ")
	default:
		v.Summary = "not conformant: " + strings.Join(parts, ", ")
	}
	if !cx.Exercised && len(k.runs) > 0 {
		v.Summary += "; cancellation not exercised"
	}
	if len(v.Unadvertised) == 0 {
		v.Unadvertised = nil
	}
	return v
}

// why says why no cancel was read.
func (cx *Cancellation) why() string {
	switch {
	case cx.Sent == 0:
		return "no cancel was sent: no prompt turn ran"
	case cx.Raced == cx.Sent:
		return fmt.Sprintf("the agent answered the prompt of all %d cancelled turns before it could have read the cancel (it ends turns at once, and was never silent long enough to be cancelled as stuck)", cx.Sent)
	}
	return fmt.Sprintf("none of the %d cancels was provably read before the turn ended (%d crossed the turn's end; the others came too late, or the run failed first)", cx.Sent, cx.Raced)
}

func ranFacts(run *Run, facts []Fact) bool {
	for _, f := range facts {
		if run.Facts[f] > 0 {
			return true
		}
	}
	return false
}

// window returns the transcript lines around line (three before, two
// after) and the related lines.
func window(run *Run, line int, related []findings.Related) []WindowLine {
	want := map[int]bool{}
	if line > 0 {
		for i := line - 3; i <= line+2; i++ {
			want[i] = true
		}
	}
	for _, r := range related {
		want[r.Location.Line] = true
	}
	var nums []int
	for n := range want {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	return run.Transcript.Lines(nums)
}

// rule returns the result of rule id.
func (v *Verdict) rule(id string) *RuleResult {
	for _, r := range v.Rules {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// Failed lists the ids of failed rules and checks, sorted.
func (v *Verdict) Failed() []string {
	var out []string
	for _, r := range v.Rules {
		if r.Status == StatusFailed {
			out = append(out, r.ID)
		}
	}
	sort.Strings(out)
	return out
}

// Format is an output format of a verdict.
type Format string

const (
	FormatText  Format = "text"
	FormatJSON  Format = "json"
	FormatJUnit Format = "junit"
	FormatSARIF Format = "sarif"
)

// ParseFormat accepts a verdict format name.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(s)); f {
	case FormatText, FormatJSON, FormatJUnit, FormatSARIF:
		return f, nil
	}
	return "", fmt.Errorf("unknown output format %q (want text, json, sarif or junit)", s)
}

// Write renders the verdict: json and sarif as the verdict's findings
// (verdict_records.go), text and junit as the tiered verdict.
func (v *Verdict) Write(w io.Writer, f Format) error {
	switch f {
	case FormatJSON:
		return v.writeJSON(w)
	case FormatSARIF:
		return v.writeSARIF(w)
	case FormatJUnit:
		return v.writeJUnit(w)
	}
	return v.writeText(w)
}

// maxReproductionWindow bounds the lines of a minimal transcript put into
// the JSON verdict; the file written with --out has them all.
const maxReproductionWindow = 2000

// fillWindows puts each minimal transcript into its reproduction. Check
// does it before it returns, while the transcripts are still there.
func (v *Verdict) fillWindows() {
	for _, rep := range v.Reproductions {
		if rep.run != nil && rep.Window == nil {
			nums := make([]int, min(rep.run.Transcript.Len(), maxReproductionWindow))
			for i := range nums {
				nums[i] = i + 1
			}
			rep.Window = rep.run.Transcript.Lines(nums)
		}
	}
}

func (v *Verdict) writeText(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("acplint check %s\n", v.Agent)
	ew.printf("seed %d, %d runs of up to %d steps in %v (%.1f runs/s)", v.Seed, v.Runs, v.Steps, v.Duration.Round(time.Millisecond), v.RunsPerSecond)
	if v.ShrinkRuns > 0 {
		ew.printf(", %d more while shrinking", v.ShrinkRuns)
	}
	ew.printf("\n")
	ew.printf("rerun: acplint check --seed %d --runs %d --steps %d -- %s\n", v.Seed, v.Runs, v.Steps, v.Agent)
	for _, t := range Tiers {
		var rs []*RuleResult
		counts := map[Status]int{}
		for _, r := range v.Rules {
			if r.Tier == t {
				rs = append(rs, r)
				counts[r.Status]++
			}
		}
		ew.printf("\n%s: %d passed, %d failed, %d not exercised", t, counts[StatusPassed], counts[StatusFailed], counts[StatusNotExercised])
		if counts[StatusNoted] > 0 {
			ew.printf(", %d noted", counts[StatusNoted])
		}
		ew.printf("\n")
		for _, r := range rs {
			// Passing SHOULD and informational rules are counted, not listed.
			if (t == TierShould || t == TierInfo) && r.Status != StatusFailed && r.Status != StatusNoted {
				continue
			}
			v.writeRule(ew, r)
		}
	}
	if len(v.HarnessProblems) > 0 {
		ew.printf("\nHarness problems (findings against acplint's own client; please report them):\n")
		for _, o := range v.HarnessProblems {
			ew.printf("  run %d, line %d: %s (%s)\n", o.Run, o.Finding.Location.Line, findings.Escape(o.Finding.Message), o.Finding.RuleID)
		}
	}
	for _, o := range v.Notes {
		ew.printf("\nnote: run %d: %s (%s)\n", o.Run, findings.Escape(o.Finding.Message), o.Finding.RuleID)
	}
	if len(v.Unadvertised) > 0 {
		var ms []string
		for m, n := range v.Unadvertised {
			ms = append(ms, fmt.Sprintf("%s ×%d", m, n))
		}
		sort.Strings(ms)
		// The agent names these methods: escaped like every finding.
		ew.printf("\nThe agent called methods the client had not advertised (answered -32601): %s\n", findings.Escape(strings.Join(ms, ", ")))
	}
	if cx := v.Cancellation; cx != nil && !cx.Exercised && !v.NotStarted {
		ew.printf("\ncancellation not exercised: %s; ACP-CXL-001 and ACP-CXL-002 are skipped, not failed.\n", cx.Reason)
	}
	ew.printf("\n%d agent rules are not covered by the harness (see -f json).\n", len(v.NotCovered))
	if v.Note != "" {
		ew.printf("\nnote: %s\n", v.Note)
	}
	if v.NotStarted && v.Stderr != "" {
		ew.printf("\nThe agent's stderr ends with:\n%s\n", indent(findings.Escape(v.Stderr)))
	}
	ew.printf("\nverdict: %s\n", v.Summary)
	return ew.err
}

func (v *Verdict) writeRule(ew *errWriter, r *RuleResult) {
	mark := map[Status]string{StatusPassed: "pass", StatusFailed: "FAIL", StatusNotExercised: "----", StatusNoted: "note"}[r.Status]
	ew.printf("  %s  %-13s %s", mark, r.ID, r.Title)
	switch {
	case r.Skipped != "":
		ew.printf("  [skipped: %s]", r.Skipped)
	case r.Status == StatusNotExercised && r.Tier == TierMust:
		ew.printf("  [never exercised: counts as not passed]")
	case r.Status == StatusNotExercised:
		ew.printf("  [not exercised]")
	case r.Status == StatusFailed && r.FailedAt != r.Tier:
		ew.printf("  [%d failure(s) at %s level in %d exercised run(s)]", r.Lesser, r.FailedAt, r.Exercised)
	case r.Status == StatusFailed || r.Status == StatusNoted:
		ew.printf("  [%d failure(s) in %d exercised run(s)]", r.Failures+r.Lesser, r.Exercised)
	default:
		ew.printf("  [%d run(s)]", r.Exercised)
	}
	if r.Races > 0 {
		ew.printf(" (%d race(s) not counted)", r.Races)
	}
	ew.printf("\n")
	if len(r.Examples) > 0 {
		o := r.Examples[0]
		switch {
		case o.Failure != nil:
			ew.printf("        run %d: %s\n", o.Run, findings.Escape(o.Failure.Message))
		case o.Finding != nil:
			ew.printf("        run %d, line %d: %s\n", o.Run, o.Finding.Location.Line, findings.Escape(o.Finding.Message))
		}
	}
	if rep := r.Reproduction; rep != nil {
		what := "minimal run"
		if !rep.Shrunk {
			what = "run (not shrunk)"
		}
		where := rep.File
		if where == "" {
			where = "(use --out DIR to keep it)"
		}
		ew.printf("        %s: %d lines, %d client steps: %s\n", what, rep.Lines, len(rep.Steps), where)
		if rep.Note != "" {
			ew.printf("        note: %s\n", rep.Note)
		}
		switch {
		case rep.Reproduced:
			ew.printf("        %s reproduces it (line %d)\n", rep.Command, rep.Finding.Location.Line)
		case len(reproducingRules(rep.Key)) > 0:
			ew.printf("        lint does not show %s in it (lint reports: %s)\n", strings.Join(reproducingRules(rep.Key), ", "), orNone(rep.LintRules))
		}
	}
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "nothing"
	}
	return strings.Join(s, ", ")
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"` // the Jenkins schema has no skipped here
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"` // required by the Jenkins schema
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	ClassName string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

// junitSkipped carries its reason as text, not as a message attribute:
// the Jenkins junit-4.xsd declares <skipped> a plain string, so an
// attribute there makes the report invalid for it.
type junitSkipped struct {
	Reason string `xml:",chardata"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

// writeJUnit writes one suite per tier and one case per rule: a failed
// rule (or a MUST never exercised) is a failure, a rule that was not
// exercised otherwise is skipped.
func (v *Verdict) writeJUnit(w io.Writer) error {
	out := junitSuites{Name: "acplint check " + v.Agent}
	for _, t := range Tiers {
		s := junitSuite{Name: string(t)}
		for _, r := range v.Rules {
			if r.Tier != t {
				continue
			}
			c := junitCase{ClassName: "acplint.check." + strings.ReplaceAll(string(t), "-", "_"), Name: r.ID + " " + r.Title}
			switch {
			case r.Status == StatusFailed:
				c.Failure = &junitMessage{Message: fmt.Sprintf("%d failure(s)", r.Failures), Body: ruleDetail(r)}
			case r.Skipped != "":
				c.Skipped = &junitSkipped{Reason: r.Skipped}
			case r.Status == StatusNotExercised && t == TierMust:
				c.Failure = &junitMessage{Message: "never exercised", Body: "no run created the situation this MUST rule judges"}
			case r.Status == StatusNotExercised:
				c.Skipped = &junitSkipped{Reason: "not exercised"}
			case r.Status == StatusNoted:
				c.SystemOut = ruleDetail(r)
			}
			s.Tests++
			if c.Failure != nil {
				s.Failures++
			}
			if c.Skipped != nil {
				s.Skipped++
			}
			s.Cases = append(s.Cases, c)
		}
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Suites = append(out.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func ruleDetail(r *RuleResult) string {
	var b strings.Builder
	for _, o := range r.Examples {
		switch {
		case o.Failure != nil:
			fmt.Fprintf(&b, "run %d: %s\n", o.Run, findings.Escape(o.Failure.Message))
		case o.Finding != nil:
			fmt.Fprintf(&b, "run %d, line %d: %s\n", o.Run, o.Finding.Location.Line, findings.Escape(o.Finding.Message))
		}
		for _, l := range o.Window {
			fmt.Fprintf(&b, "  %4d %s\n", l.Line, findings.Escape(l.Text))
		}
	}
	if rep := r.Reproduction; rep != nil && rep.File != "" {
		fmt.Fprintf(&b, "minimal transcript: %s\n", rep.File)
	}
	return b.String()
}
