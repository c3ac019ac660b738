package protocol

import (
	"fmt"
	"slices"
	"sync"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
)

// ACP is the ACP v1 phase machine.
var ACP = Spec[Phase, Event]{Initial: newPhase(), Step: step}

// step is pure: it steps a clone of the caller's phase in place, so the
// caller's phase stays as it was.
func step(in Phase, ev Event) (Phase, error) {
	p := in.Clone()
	err := StepInPlace(&p, ev)
	return p, err
}

// StepInPlace advances *p by ev: it makes the change ACP.Step(*p, ev)
// would return, and returns the same error. It is for a driver that keeps
// no earlier phase, as lint reading a transcript forward: Step clones the
// phase for every message. *p must share no maps or sessions with a
// phase still in use: start from ACP.Initial (whose maps are empty and
// not yet made), or from a phase nobody else keeps, such as a Clone.
func StepInPlace(p *Phase, ev Event) error {
	s := scratches.Get().(*stepScratch)
	defer func() {
		s.r = report{}
		s.c = ctx{}
		scratches.Put(s)
	}()
	return s.step(p, ev)
}

// A Stepper is StepInPlace for a driver that steps one phase message
// after message, as lint does: it keeps the memory a step works in for
// the next step, which StepInPlace takes from a pool and clears for the
// next user of the pool at a cost, on a session/update, of one more hook.
// The zero Stepper is ready to use. It must not step two phases at once.
type Stepper struct{ s *stepScratch }

// Step is StepInPlace(p, ev).
func (st *Stepper) Step(p *Phase, ev Event) error {
	if st.s == nil {
		st.s = &stepScratch{d: dispatchTables()}
	}
	return st.s.step(p, ev)
}

// step runs the checks of ev on p in s, which may hold what an earlier
// step left: the findings of this one start afresh, and advance sets the
// whole context.
func (s *stepScratch) step(p *Phase, ev Event) error {
	p.looked = sessionLookup{on: true}
	defer func() { p.looked = sessionLookup{} }()
	// errors.Join copies the findings out: the array is free again.
	s.r.errs = s.r.errs[:0]
	return s.advance(p, ev)
}

// advance runs the checks of ev on p, changing it in place.
func (s *stepScratch) advance(p *Phase, ev Event) error {
	// The report and the context live in pooled memory: the checks are
	// called through function values, so a copy on the stack would escape
	// to the heap on every message. Nothing keeps them once the step
	// returns (findings live in their own allocations, and the error joins
	// copies of them).
	r, d := &s.r, s.d
	if ev.End {
		c := &s.c
		c.reset(r, ev, &domain.Message{}, d)
		finish(p, c)
		return r.err()
	}
	m := ev.Msg
	if m == nil {
		if len(ev.Problems) == 0 {
			return fmt.Errorf("protocol: event at %s has no message", ev.Loc)
		}
		// A line that holds no message: its problems are all there is.
		c := &s.c
		c.reset(r, ev, &domain.Message{Dir: ev.Dir}, d)
		raiseProblems(p, c)
		return r.err()
	}
	c := &s.c
	c.reset(r, ev, m, d)
	if len(ev.Problems) > 0 {
		raiseProblems(p, c)
	}
	if p.Conn != ConnOtherVersion {
		// (v1 rules do not apply to a connection that negotiated another
		// version; ACP-VER-005 was reported once when it happened. The
		// driver hands over no schema problems for such a connection.)
		switch m.Kind {
		case domain.KindRequest:
			onRequest(p, c)
		case domain.KindNotification:
			onNotification(p, c)
		case domain.KindResult, domain.KindError:
			onResponse(p, c)
		}
	}
	if m.Dir == domain.FromAgent {
		p.LastAgentLine = ev.Loc.Line
	}
	return r.err()
}

// stepScratch is the memory one step works in, with the dispatch tables
// at hand: asking dispatchTables on every step cost as much as a hook.
type stepScratch struct {
	r report
	c ctx
	d *dispatch
}

var scratches = sync.Pool{New: func() any { return &stepScratch{d: dispatchTables()} }}

// ctx carries what every check needs while one message is stepped.
type ctx struct {
	r  *report
	ev Event
	m  *domain.Message
	// d is the machine's dispatch tables, and check the check whose code
	// runs: the framing's, or the hook's.
	d     *dispatch
	check checkID
	// scans caches what the raw filters found in the message's params
	// and result (content.go).
	scans [2]rawScan
	// info caches the method table entry of m's method (method).
	info      *domain.MethodInfo
	infoKnown bool
	// session caches the session id m's params name (sessionID).
	session      domain.SessionID
	sessionKnown bool
}

// reset makes c the context of message m of event ev: what
// ctx{r: r, ev: ev, m: m, d: d, check: d.framing} is, without clearing
// the caches that their flags say are empty (info, session, scans),
// which cost writing the whole context afresh on every message.
func (c *ctx) reset(r *report, ev Event, m *domain.Message, d *dispatch) {
	c.r, c.ev, c.m, c.d, c.check = r, ev, m, d, d.framing
	c.scans[0].done, c.scans[1].done = false, false
	c.infoKnown, c.sessionKnown = false, false
}

// method returns the stable method table entry of c.m.Method, which
// several checks of a request or notification need: looked up once per
// step.
func (c *ctx) method() (*domain.MethodInfo, bool) {
	if !c.infoKnown {
		c.info, _ = c.ev.Methods.Lookup(c.m.Method)
		c.infoKnown = true
	}
	return c.info, c.info != nil
}

// sessionID returns the session id the params of c.m name, "" when they
// name none (sessionOf): the framing and several checks of a request ask,
// and for most params the answer takes reflection.
func (c *ctx) sessionID() domain.SessionID {
	if !c.sessionKnown {
		c.session = sessionOf(c.m.Params)
		c.sessionKnown = true
	}
	return c.session
}

// add reports rule at pointer ptr of the current message.
func (c *ctx) add(rule *findings.Rule, ptr string, format string, args ...any) *findings.ValidationFinding {
	f := c.addAt(rule, c.ev.Loc.At(ptr), format, args...)
	if f.Blame == findings.PartyEither {
		switch c.m.Dir {
		case domain.FromClient:
			f.Blame = findings.PartyClient
		case domain.FromAgent:
			f.Blame = findings.PartyAgent
		}
	}
	return f
}

// addAt reports rule at loc. A check raises only the rules it declares:
// any other is a bug in acplint, reported as an error that is not a
// Violation (the lint driver turns it into ACP-LINT-003) instead of the
// finding. Findings are rare, so the search costs nothing that matters.
func (c *ctx) addAt(rule *findings.Rule, loc findings.Location, format string, args ...any) *findings.ValidationFinding {
	if check := c.d.checks[c.check]; !slices.Contains(check.Rules, rule) {
		c.r.errs = append(c.r.errs, &undeclaredRule{check: check, rule: rule, at: loc, text: fmt.Sprintf(format, args...)})
		return new(findings.ValidationFinding) // for the caller to adjust, then dropped
	}
	return c.r.add(rule, loc, format, args...)
}

// undeclaredRule is a check raising a rule it does not declare.
type undeclaredRule struct {
	check *Check
	rule  *findings.Rule
	at    findings.Location
	text  string
}

func (e *undeclaredRule) Error() string {
	return fmt.Sprintf("check %q raised %s, which it does not declare, at %s: %s", e.check.Name, e.rule.ID, e.at, e.text)
}

// related adds a line that helps prove f.
func (c *ctx) related(f *findings.ValidationFinding, line int, format string, args ...any) {
	if line <= 0 {
		return
	}
	f.Related = append(f.Related, findings.Related{
		Location: findings.Location{File: c.ev.Loc.File, Line: line},
		Message:  fmt.Sprintf(format, args...),
	})
}

func (c *ctx) line() int { return c.ev.Loc.Line }
