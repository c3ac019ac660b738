package conformance

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/internal/safefile"
	"github.com/acplint/acplint/internal/third_party/rapid"
)

// Options configure a check.
type Options struct {
	Agent AgentCommand
	// Runs is how many generated sequences to run (rapid's checks).
	Runs int
	// Steps is the most client actions (prompts, sessions, loads, closes)
	// in one sequence.
	Steps int
	// Seed makes the sequences reproducible; 0 picks one at random.
	Seed uint64
	// Caps are the client capabilities the harness may advertise; each run
	// advertises a drawn subset.
	Caps []Capability

	StartupTimeout  time.Duration // until initialize is answered
	ResponseTimeout time.Duration // silence allowed while a request is pending
	RunTimeout      time.Duration // watchdog for one whole run
	Settle          time.Duration // quiet time awaited after a cancelled turn, for late updates
	// CancelGrace: an agent that answers a cancelled prompt this long after
	// the cancel had time to read it; a quicker answer with no client
	// message in between may have crossed the cancel (a race).
	CancelGrace time.Duration
	CloseGrace  time.Duration // grace at each rung of the close ladder
	ShrinkTime  time.Duration // time allowed to shrink one failure
	// IdleCancel: a prompt turn in which the agent says nothing for this
	// long is cancelled, as a user stops a turn that shows no progress;
	// the check shortens it for an agent whose turns only end when
	// cancelled (see pace). Negative never cancels.
	IdleCancel time.Duration
	// Budget bounds the whole check: once it is spent, no run is started
	// and none shrunk, and the verdict covers the runs made (zero: none).
	Budget time.Duration
	// Faults are what the client may do wrong on purpose (see Fault): each
	// generated run injects a drawn subset, and the tour runs them all.
	Faults []Fault

	// MaxShrinks bounds how many distinct failures are shrunk; negative
	// shrinks none.
	MaxShrinks int
	// OutDir receives the minimal transcript of each failure; none are
	// written when empty.
	OutDir string
	// FailOn is the lowest severity of a rule that makes the agent fail;
	// SeverityError judges MUST and capability-gated rules only.
	FailOn findings.Severity
	// Version is acplint's version, sent as clientInfo.version.
	Version string
	// Progress receives one line per run when set.
	Progress io.Writer
	// MaxLine is the longest agent line kept in full; a longer one is read
	// past and recorded as a gap of its length (ACP-LINT-004 in lint).
	MaxLine int
	// MaxTranscript bounds the bytes of one run's transcript kept on disk
	// (its start); the most recent lines after that are kept in memory and
	// those between are dropped, with a gap record in their place.
	MaxTranscript int64
	// Parallel is how many agent processes run sequences at once
	// (DefaultParallel when zero).
	Parallel int
	// SequencesPerAgent is the most sequences one agent process serves
	// (see pool.go); 1 starts a fresh process for every sequence.
	SequencesPerAgent int
}

// Defaults for the options left zero.
const (
	DefaultRuns            = 50
	DefaultSteps           = 6
	DefaultStartupTimeout  = 30 * time.Second
	DefaultResponseTimeout = 30 * time.Second
	DefaultRunTimeout      = 5 * time.Minute
	DefaultSettle          = 25 * time.Millisecond
	DefaultCancelGrace     = 250 * time.Millisecond
	DefaultCloseGrace      = 3 * time.Second
	DefaultShrinkTime      = 20 * time.Second
	DefaultIdleCancel      = 5 * time.Second
	DefaultMaxShrinks      = 5
	// DefaultMaxLine is the longest agent line kept: the codec's, so that
	// check and lint agree on what a line too long is.
	DefaultMaxLine = codec.DefaultMaxLine
	// DefaultMaxTranscript is the start of a run kept on disk.
	DefaultMaxTranscript = defaultSpillMax
)

// interruptGrace is the grace at each rung of the close ladder once the
// check was interrupted (SIGINT, SIGTERM).
const interruptGrace = 500 * time.Millisecond

func (o *Options) defaults() {
	set := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	if o.Runs <= 0 {
		o.Runs = DefaultRuns
	}
	if o.Steps <= 0 {
		o.Steps = DefaultSteps
	}
	set(&o.StartupTimeout, DefaultStartupTimeout)
	set(&o.ResponseTimeout, DefaultResponseTimeout)
	set(&o.RunTimeout, DefaultRunTimeout)
	set(&o.Settle, DefaultSettle)
	set(&o.CancelGrace, DefaultCancelGrace)
	set(&o.CloseGrace, DefaultCloseGrace)
	set(&o.ShrinkTime, DefaultShrinkTime)
	if o.IdleCancel == 0 {
		o.IdleCancel = DefaultIdleCancel
	}
	if o.MaxLine <= 0 {
		o.MaxLine = DefaultMaxLine
	}
	if o.MaxTranscript <= 0 {
		o.MaxTranscript = DefaultMaxTranscript
	}
	if o.Parallel <= 0 {
		o.Parallel = DefaultParallel()
	}
	if o.SequencesPerAgent <= 0 {
		o.SequencesPerAgent = DefaultSequencesPerAgent
	}
	if o.MaxShrinks == 0 {
		o.MaxShrinks = DefaultMaxShrinks
	}
	if o.Version == "" {
		o.Version = "devel"
	}
}

// StartError says the agent's program could not be run at all. An agent
// that runs but never answers initialize gets a verdict (CHECK-START).
type StartError struct {
	Agent  AgentCommand
	Reason string
	Stderr []byte
}

func (e *StartError) Error() string {
	msg := fmt.Sprintf("the agent %s would not start: %s", e.Agent, e.Reason)
	if tail := lastLines(e.Stderr, 10); tail != "" {
		msg += "\nits stderr ends with:\n" + tail
	}
	return msg
}

// checker is the state of one Check.
type checker struct {
	ctx  context.Context
	opts Options
	ws   *Workspace
	pace *pace

	mu sync.Mutex
	// runs are the exploration runs (the preflight is run 0).
	runs []*Run
	// tourRuns counts the tour runs among runs: with the preflight, they
	// are not the generated runs --runs asks for.
	tourRuns int
	// shrinkRuns counts runs made while shrinking.
	shrinkRuns int
	// examples counts, per rule or check, the runs whose transcript is kept
	// to show it.
	examples map[string]int
	// transcripts are those of every run, released when the check ends.
	transcripts []*Transcript
}

// Check property-tests the agent: a preflight run, then opts.Runs
// generated sequences, then a shrink of each distinct failure. The error
// is a *StartError when the agent would not start, and other errors are
// acplint's own (the output directory cannot be written, …).
func Check(ctx context.Context, opts Options) (*Verdict, error) {
	opts.defaults()
	if opts.Seed == 0 {
		opts.Seed = rand.Uint64()>>1 | 1
	}
	tmp, err := os.MkdirTemp("", "acplint-check-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	ws, err := NewWorkspace(tmp)
	if err != nil {
		return nil, err
	}
	// The budget ends the check as an interrupt does, but the verdict of
	// the runs made is a verdict like any other.
	user := ctx
	if opts.Budget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Budget)
		defer cancel()
	}
	k := &checker{ctx: ctx, opts: opts, ws: ws, pace: newPace(&opts)}
	// Every run's transcript holds a spill file and a ring until the check
	// is over: the verdict's windows are taken before it returns.
	defer k.releaseTranscripts()
	start := time.Now()

	pre := k.execute(preflightPlan())
	switch {
	case pre.NotStarted:
		pre.Transcript.release()
		return nil, &StartError{Agent: opts.Agent, Reason: pre.Failure.Message, Stderr: pre.Stderr}
	case pre.Interrupted && pre.Facts[FactInitialize] == 0 && user.Err() != nil:
		pre.Transcript.release()
		return nil, ErrInterrupted
	case pre.Interrupted && user.Err() == nil:
		pre.Transcript.release()
		return nil, fmt.Errorf("the budget of %v ran out during the first run", opts.Budget)
	}
	k.add(pre)
	started := pre.Facts[FactInitialize] > 0
	if started {
		// The tour reaches every feature once; then the generated runs.
		if err := k.explore(append(tourPlans(opts.Caps), faultTours(opts.Caps, opts.Faults)...)); err != nil {
			return nil, err
		}
	}
	explored := time.Since(start)

	v := k.verdict()
	v.Duration = explored
	if explored > 0 {
		v.RunsPerSecond = float64(len(k.runs)) / explored.Seconds()
	}
	if !started {
		// An agent that runs but never answers initialize (it exits, stays
		// silent or answers another id) fails the preflight, and nothing
		// else can be tried.
		v.NotStarted = true
		v.Stderr = lastLines(pre.Stderr, 10)
		v.Summary = "not conformant: the agent did not start: " + pre.Failure.Message
	}
	for _, key := range k.failingKeys() {
		if len(v.Reproductions) >= opts.MaxShrinks || ctx.Err() != nil {
			break
		}
		// A minimal run of an earlier failure often shows this one too (a
		// timeout leaves an unanswered request): no need to shrink again.
		var shown *Run
		for _, r := range v.Reproductions {
			if r.run != nil && r.Shrunk && r.run.failing(findings.SeverityWarning)[key] {
				shown = r.run
				break
			}
		}
		if !started {
			shown = pre
		}
		rep, err := k.reproduce(key, shown)
		if err != nil {
			return nil, err
		}
		v.Reproductions = append(v.Reproductions, rep)
		if r := v.rule(key); r != nil {
			r.Reproduction = rep
		}
	}
	if opts.Budget > 0 && ctx.Err() != nil && user.Err() == nil {
		v.BudgetSpent = true
		v.Note = fmt.Sprintf("the budget of %v ran out: the verdict covers %d of the %d generated runs asked for, after the preflight and %d tour run(s)", opts.Budget, v.Runs, opts.Runs, k.tourRuns)
	}
	v.fillWindows()
	v.ShrinkRuns = k.shrinkRuns
	v.Total = time.Since(start)
	v.Seconds, v.TotalSeconds = v.Duration.Seconds(), v.Total.Seconds()
	return v, nil
}

// execute runs one sequence on a fresh agent process.
func (k *checker) execute(plan *Plan) *Run {
	run, _ := k.executeOn(plan, nil, false)
	return run
}

// executeOn runs one sequence on cn (see executeOn).
func (k *checker) executeOn(plan *Plan, cn *agentConn, keep bool) (*Run, *agentConn) {
	run, cn := executeOn(k.ctx, &k.opts, k.ws, plan, k.pace, cn, keep)
	k.mu.Lock()
	k.transcripts = append(k.transcripts, run.Transcript)
	k.mu.Unlock()
	return run, cn
}

func (k *checker) releaseTranscripts() {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, t := range k.transcripts {
		t.release()
	}
}

// addRun keeps an exploration run unless the check was stopped while it
// ran (a run cut short has no verdict), and reports whether it kept it.
func (k *checker) addRun(run *Run) bool {
	if run.Interrupted {
		run.Transcript.release()
		return false
	}
	k.add(run)
	return true
}

// add keeps an exploration run. Its transcript is kept only while the
// verdict may show lines of it: for the first maxExamples runs of each
// rule or check it fails (one of them also serves a reproduction that does
// not recur), and for the first run of each harness problem.
func (k *checker) add(run *Run) {
	k.mu.Lock()
	run.N = len(k.runs)
	k.runs = append(k.runs, run)
	if !k.needsTranscript(run) {
		run.Transcript.release()
	}
	k.mu.Unlock()
	if k.opts.Progress != nil {
		keys := sortedKeys(run.failing(k.opts.FailOn))
		status := "ok"
		if len(keys) > 0 {
			status = "FAIL " + strings.Join(keys, " ")
		}
		fmt.Fprintf(k.opts.Progress, "run %d: %d lines, %v: %s\n", run.N, run.Transcript.Len(), run.Duration.Round(time.Millisecond), status)
	}
}

// needsTranscript counts run's examples and reports whether any of them is
// among the first of its kind, which the verdict shows lines of.
func (k *checker) needsTranscript(run *Run) bool {
	if k.examples == nil {
		k.examples = map[string]int{}
	}
	need := false
	note := func(key string) {
		if k.examples[key] < maxExamples {
			k.examples[key]++
			need = true
		}
	}
	if run.Failure != nil {
		note(run.Failure.Check)
	}
	for _, f := range run.Findings {
		switch {
		case f.Blame == findings.PartyClient && f.Severity >= findings.SeverityWarning, strings.HasPrefix(f.RuleID, "ACP-LINT-"):
			note("harness " + f.RuleID)
		case run.isFailure(f):
			note(f.RuleID)
		}
	}
	return need
}

// failing returns the keys (rule ids and harness checks) this run fails
// at or above failOn. A finding whose severity the machine lowered below
// its rule's default (a cancel race, a truncated stream) does not fail.
func (r *Run) failing(failOn findings.Severity) map[string]bool {
	out := map[string]bool{}
	if r.Failure != nil {
		if rule := ruleByID(r.Failure.Check); rule != nil && rule.Severity >= failOn {
			out[r.Failure.Check] = true
		}
	}
	for _, f := range r.Findings {
		if sev, ok := r.judge(f); ok && sev >= failOn && sev >= findings.SeverityWarning {
			out[f.RuleID] = true
		}
	}
	return out
}

// isFailure reports whether f fails the agent in this run.
func (r *Run) isFailure(f findings.ValidationFinding) bool {
	_, ok := r.judge(f)
	return ok
}

// judge returns the severity at which f fails the agent, and false when
// it does not: it blames the client or the tool, or the machine lowered it
// to information (a race, a truncated stream). A finding the machine
// lowered to a warning (the agent may have had a reason) fails at that
// level, in the SHOULD tier.
//
// For a cancelled turn the harness knows more than the transcript shows.
// The machine takes a prompt response that is the agent's first message
// since the cancel for a race; but when the client answered one of the
// agent's requests in between, the agent read the cancel (stdin is read in
// order) before it wrote the response, so the rule applies in full.
// Conversely a response the machine judges that may still have crossed
// the cancel (no client answer in between, and quicker than the cancel
// grace) is a race for the verdict.
func (r *Run) judge(f findings.ValidationFinding) (findings.Severity, bool) {
	if (f.Blame != findings.PartyAgent && f.Blame != findings.PartyEither) || r.excused(f) {
		return 0, false
	}
	rule := ruleByID(f.RuleID)
	switch f.RuleID {
	case findings.CXLNotCancelled.ID, findings.SESCloseDoesNotCancel.ID:
		switch {
		case r.RaceLines[f.Location.Line]:
			return 0, false
		case r.ReadLines[f.Location.Line] != "":
			return rule.Severity, true
		}
	}
	if rule != nil && f.Severity == findings.SeverityInfo && rule.Severity > findings.SeverityInfo {
		// Lowered to information: the machine could not tell (a race, a
		// truncated stream).
		return 0, false
	}
	return f.Severity, true
}

// failingKeys lists every key any exploration run failed at the warning
// level or above, most important first: tier, then first occurrence.
func (k *checker) failingKeys() []string {
	first := map[string]int{}
	for _, run := range k.runs {
		for key := range run.failing(findings.SeverityWarning) {
			if _, ok := first[key]; !ok {
				first[key] = run.N
			}
		}
	}
	var keys []string
	for key := range first {
		keys = append(keys, key)
	}
	sort.Slice(keys, func(i, j int) bool {
		ti, tj := tierRank(tierOf(ruleByID(keys[i]))), tierRank(tierOf(ruleByID(keys[j])))
		if ti != tj {
			return ti < tj
		}
		if first[keys[i]] != first[keys[j]] {
			return first[keys[i]] < first[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}

// firstFailing returns the first exploration run that failed key.
func (k *checker) firstFailing(key string) *Run {
	for _, run := range k.runs {
		if run.failing(findings.SeverityWarning)[key] {
			return run
		}
	}
	return nil
}

// reproduce finds the smallest run that still fails key: rapid replays
// the exploration from the same seed until the failure shows up, then
// shrinks its choices. The minimal run is written to the output directory
// and linted again from the file, to prove that `acplint lint` shows the
// same finding.
func (k *checker) reproduce(key string, shown *Run) (*Reproduction, error) {
	if shown != nil {
		return k.writeReproduction(&Reproduction{Key: key, Shrunk: true}, shown)
	}
	var last *Run
	plans := planGenerator(k.opts.Caps, k.opts.Faults, k.opts.Steps)
	failed, _ := runRapid("acplint-check-"+key, rapidSettings{checks: k.opts.Runs, seed: k.opts.Seed, shrinkTime: k.opts.ShrinkTime}, func(t *rapid.T) {
		if k.ctx.Err() != nil {
			return
		}
		run := k.execute(plans.Draw(t, "plan"))
		if run.Interrupted {
			run.Transcript.release()
			return
		}
		k.mu.Lock()
		k.shrinkRuns++
		k.mu.Unlock()
		if run.failing(findings.SeverityWarning)[key] {
			if last != nil {
				last.Transcript.release()
			}
			last = run
			t.Fatalf("the agent breaks %s", key)
		}
		run.Transcript.release()
	})
	rep := &Reproduction{Key: key}
	run := last
	if failed && last != nil {
		rep.Shrunk = true
	} else if first := k.firstFailing(key); first != nil && first.Plan != nil {
		// The generated runs did not show it (a tour run found it) or it
		// did not come back: shrink the run that showed it by its actions.
		run, rep.Shrunk = k.shrinkActions(key, first)
		if !rep.Shrunk {
			rep.Note = "the failure did not recur when replayed, so this is the original run, not shrunk"
		}
	} else {
		run = first
		rep.Note = "the failure did not recur when replayed, so this is the original run, not shrunk"
	}
	if run == nil {
		return rep, nil
	}
	return k.writeReproduction(rep, run)
}

// shrinkActions makes the run of failing's plan that still fails key as
// small as it can within the shrink time: it drops one action at a time,
// then one advertised capability at a time, keeping each drop after which
// a fresh run still fails. It returns failing itself, and false, when the
// failure does not recur at all.
func (k *checker) shrinkActions(key string, failing *Run) (*Run, bool) {
	deadline := time.Now().Add(k.opts.ShrinkTime)
	best := failing
	recurred := false
	try := func(p *Plan) bool {
		if time.Now().After(deadline) || k.ctx.Err() != nil {
			return false
		}
		run := k.execute(p)
		k.mu.Lock()
		k.shrinkRuns++
		k.mu.Unlock()
		if run.Interrupted || !run.failing(findings.SeverityWarning)[key] {
			run.Transcript.release()
			return false
		}
		if best != failing {
			best.Transcript.release()
		}
		best, recurred = run, true
		return true
	}
	plan := failing.Plan
	if !try(plan) {
		return failing, false
	}
	for i := len(plan.Actions) - 1; i >= 0 && len(plan.Actions) > 1; i-- {
		smaller := *plan
		smaller.Actions = append(append([]Action(nil), plan.Actions[:i]...), plan.Actions[i+1:]...)
		if try(&smaller) {
			plan = &smaller
		}
	}
	for i := len(plan.Caps) - 1; i >= 0; i-- {
		fewer := *plan
		fewer.Caps = append(append([]Capability(nil), plan.Caps[:i]...), plan.Caps[i+1:]...)
		if try(&fewer) {
			plan = &fewer
		}
	}
	return best, recurred
}

// writeReproduction writes run as the minimal transcript of rep.Key and
// lints the file.
func (k *checker) writeReproduction(rep *Reproduction, run *Run) (*Reproduction, error) {
	key := rep.Key
	rep.run = run
	rep.Steps = run.Steps
	rep.Lines = run.Transcript.Len()
	rep.Failure = run.Failure
	name := "transcript"
	var file *os.File
	if k.opts.OutDir != "" {
		if err := os.MkdirAll(k.opts.OutDir, 0o755); err != nil {
			return nil, err
		}
		name = filepath.Join(k.opts.OutDir, key+".jsonl")
		f, err := writeTranscriptFile(name, run.Transcript)
		if err != nil {
			return nil, err
		}
		file = f
		defer file.Close()
		if err := safefile.WriteFile(filepath.Join(k.opts.OutDir, key+".txt"), []byte(rep.notes(name, run))); err != nil {
			return nil, err
		}
		rep.File = name
	}
	// Lint what is on disk, not what is in memory: that is what a user will
	// run. Without a file, lint the same bytes through a pipe.
	var jsonl io.Reader = file
	if file == nil {
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(run.Transcript.WriteJSONL(pw)) }()
		defer pr.Close()
		jsonl = pr
	}
	rep.Command = "acplint lint --clean-end " + shellQuote(name)
	if file == nil {
		// No file to name: say how to get one.
		rep.Command = "with --out DIR, acplint lint --clean-end " + shellQuote(filepath.Join("DIR", key+".jsonl"))
	}
	want := reproducingRules(key)
	for _, f := range lintTranscript(jsonl, name) {
		// The file has the run's lines, so the run's knowledge of its
		// cancels applies to it.
		if !run.isFailure(f) {
			continue
		}
		rep.LintRules = appendUnique(rep.LintRules, f.RuleID)
		for _, w := range want {
			if f.RuleID == w && rep.Finding == nil {
				rep.Reproduced = true
				ff := f
				rep.Finding = &ff
				if why := run.ReadLines[f.Location.Line]; why != "" && f.Severity == findings.SeverityInfo {
					rep.Note = fmt.Sprintf("lint reports this at %s severity, taking the response for a possible cancel race; but %s", f.Severity, why)
				}
			}
		}
	}
	sort.Strings(rep.LintRules)
	return rep, nil
}

// writeTranscriptFile writes tr to name (owner-only: a transcript may hold
// secrets) and returns the file, opened for reading.
func writeTranscriptFile(name string, tr *Transcript) (*os.File, error) {
	err := safefile.Replace(name, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 64<<10)
		if err := tr.WriteJSONL(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		return nil, err
	}
	return os.Open(name)
}

// reproducingRules are the catalog rules whose finding in a transcript
// shows key: the rule itself, or for a harness check the trace it leaves
// (a request that was never answered).
func reproducingRules(key string) []string {
	switch key {
	case CheckTimeout, CheckCrash:
		return []string{"ACP-RPC-013"}
	case CheckStart, CheckClose:
		return nil
	}
	return []string{key}
}

// notes is the companion text of a minimal transcript.
func (rep *Reproduction) notes(file string, run *Run) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: minimal run of acplint check\n\n", rep.Key)
	if rep.Note != "" {
		fmt.Fprintf(&b, "Note: %s.\n\n", rep.Note)
	}
	fmt.Fprintf(&b, "Reproduce the finding with:\n\n\tacplint lint --clean-end %s\n\n", shellQuote(file))
	if run.Failure != nil {
		fmt.Fprintf(&b, "Harness: %s: %s\n\n", run.Failure.Check, run.Failure.Message)
	}
	b.WriteString("What the client did:\n")
	for _, s := range run.Steps {
		fmt.Fprintf(&b, "\t%s\n", s)
	}
	if run.Close == ClosedKept {
		b.WriteString("\nThe agent's process went on to serve the next sequence.\n")
	} else {
		fmt.Fprintf(&b, "\nThe agent %s (closed on: %s).\n", run.Exit, run.Close)
	}
	if len(run.Stderr) > 0 {
		fmt.Fprintf(&b, "\nIts stderr (never judged):\n%s\n", indent(string(run.Stderr)))
	}
	return b.String()
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return "\t" + strings.Join(lines, "\n\t")
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

func appendUnique(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ErrInterrupted says the check was stopped (ctx cancelled) before the
// agent had answered initialize, so there is no verdict to give.
var ErrInterrupted = errors.New("interrupted before the agent answered initialize")

// IsStartError reports whether err says the agent would not start.
func IsStartError(err error) bool {
	var se *StartError
	return errors.As(err, &se)
}
