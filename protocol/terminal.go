package protocol

import (
	"fmt"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
)

// termState is the bookkeeping of the TERM checks that Phase.Terminals
// does not hold.
type termState struct {
	// exits holds how each terminal's command ended, as terminal/wait_for_exit
	// reported it (ACP-TERM-005).
	exits Map[domain.TerminalID, terminalExit]
	// released lists the terminals released lately, oldest first, with
	// the line of the release, to forget older ones. Every released
	// terminal of Phase.Terminals is in it.
	released []releasedTerminal
	// unreleased counts the terminals of Phase.Terminals not released, by
	// session: a session with one is never forgotten (retire), and
	// counting spares retire a scan of every terminal.
	unreleased Map[domain.SessionID, int]
	// open is the number of terminals of Phase.Terminals not released,
	// all sessions together: at MaxKeptEntries, the oldest are dropped
	// (dropOldestTerminals). cutLine is the first terminal/create answer
	// that made the machine drop some, 0 while it dropped none.
	open, cutLine int
}

// releasedWindow is how many released terminals the machine remembers
// (the latest releasedWindow/2 to releasedWindow). A long session creates
// and releases a terminal for every command it runs; what a released one
// is remembered for, a use after the release (ACP-TERM-002, ACP-TOOL-008),
// comes soon after it. A terminal released longer ago is forgotten, and a
// use of it is reported as a use of a terminal no terminal/create returned
// (ACP-TERM-001, ACP-TOOL-008).
const releasedWindow = 1024

type releasedTerminal struct {
	id   domain.TerminalID
	line int
}

// noteRelease records that terminal id was released at line, and forgets
// the older half of the released terminals when the window is full.
func (p *Phase) noteRelease(id domain.TerminalID, line int) {
	term := &p.flow.term
	if len(term.released) == releasedWindow {
		half := releasedWindow / 2
		for _, r := range term.released[:half] {
			// A terminal created again under the id since is another one.
			if t, ok := p.Terminals.Get(r.id); ok && t.ReleasedLine == r.line {
				p.Terminals = p.Terminals.Delete(r.id)
				term.exits = term.exits.Delete(r.id)
			}
		}
		n := copy(term.released, term.released[half:])
		clear(term.released[n:])
		term.released = term.released[:n]
	}
	term.released = append(term.released, releasedTerminal{id, line})
}

// terminalExit is an exit status and the response that reported it.
type terminalExit struct {
	Line     int
	ExitCode domain.Opt[uint32]
	Signal   domain.Opt[string]
}

func (e terminalExit) String() string {
	code, hasCode := e.ExitCode.Get()
	sig, hasSig := e.Signal.Get()
	switch {
	case hasCode && hasSig:
		return fmt.Sprintf("exit code %d, signal %s", code, sig)
	case hasCode:
		return fmt.Sprintf("exit code %d", code)
	case hasSig:
		return "signal " + sig
	}
	return "no exit code or signal"
}

func (e terminalExit) same(o terminalExit) bool {
	return e.ExitCode.State == o.ExitCode.State && e.ExitCode.Val == o.ExitCode.Val &&
		e.Signal.State == o.Signal.State && e.Signal.Val == o.Signal.Val
}

// checkTerminalCreate reports a relative working directory (ACP-TERM-004).
func checkTerminalCreate(p *Phase, c *ctx) {
	r, ok := paramsOf[domain.CreateTerminalRequest](c.m)
	if !ok || c.m.Dir == domain.FromClient {
		return
	}
	if cwd, ok := r.Cwd.Get(); ok && !isAbsoluteFilePath(cwd) {
		c.add(findings.TERMRelativeCwd, "/params/cwd",
			"terminal/create cwd %q is not absolute; the client resolves it against its own working directory, not the session's, so the command runs in an unexpected place", cwd)
	}
}

// terminalCreated records the terminal a successful terminal/create returns.
func terminalCreated(p *Phase, c *ctx, req Pending) {
	res, ok := resultOf[domain.CreateTerminalResponse](c.m)
	if !ok || !c.succeeded() || res.TerminalID == "" {
		return
	}
	t := &Terminal{Session: req.Session, Line: req.Line}
	if limit, ok := req.Params.(keptOutputLimit); ok {
		t.OutputLimit, t.HasLimit = domain.Opt[uint64](limit).Get()
	}
	if old, ok := p.Terminals.Get(res.TerminalID); ok && old.ReleasedLine == 0 {
		p.countUnreleased(old.Session, -1)
	} else if p.flow.term.open >= MaxKeptEntries {
		p.dropOldestTerminals(c.line())
	}
	p.Terminals = p.Terminals.Set(res.TerminalID, t)
	p.countUnreleased(t.Session, 1)
	p.flow.term.exits = p.flow.term.exits.Delete(res.TerminalID)
}

// dropOldestTerminals forgets the oldest quarter, by the line of their
// terminal/create, of the terminals not released, for one created at
// line that would be one more than MaxKeptEntries: an agent may create
// any number it never releases, each kept until the end. From then on a
// terminal/* request or terminal content naming a terminal the machine
// does not know is not reported (ACP-TERM-001, ACP-TOOL-008), since it
// may name one dropped, and a dropped terminal is not reported as never
// released (ACP-TERM-003); noteCutTerminals says so.
func (p *Phase) dropOldestTerminals(line int) {
	term := &p.flow.term
	unreleased := func(t *Terminal) int {
		if t.ReleasedLine > 0 {
			return -1
		}
		return t.Line
	}
	for _, id := range oldestQuarter(p.Terminals, unreleased) {
		t, _ := p.Terminals.Get(id)
		p.countUnreleased(t.Session, -1)
		p.Terminals = p.Terminals.Delete(id)
		term.exits = term.exits.Delete(id)
	}
	if term.cutLine == 0 {
		term.cutLine = line
	}
}

// terminalsCut reports whether the machine dropped terminals not
// released (dropOldestTerminals): one it does not know may be one of them.
func (p *Phase) terminalsCut() bool { return p.flow.term.cutLine > 0 }

// countUnreleased adds delta to the unreleased terminals of session sid.
func (p *Phase) countUnreleased(sid domain.SessionID, delta int) {
	term := &p.flow.term
	term.open += delta
	if n, _ := term.unreleased.Get(sid); n+delta > 0 {
		term.unreleased.Set(sid, n+delta)
	} else {
		term.unreleased.Delete(sid)
	}
}

// pendingTerminal returns the terminal id a pending terminal/* request
// names (keptParams).
func pendingTerminal(req Pending) (domain.TerminalID, bool) {
	id, ok := req.Params.(keptTerminalID)
	return domain.TerminalID(id), ok
}

// terminalOf returns the terminal id a terminal/* request names.
func terminalOf(params any) (domain.SessionID, domain.TerminalID, bool) {
	switch r := params.(type) {
	case *domain.TerminalOutputRequest:
		if r != nil {
			return r.SessionID, r.TerminalID, true
		}
	case *domain.WaitForTerminalExitRequest:
		if r != nil {
			return r.SessionID, r.TerminalID, true
		}
	case *domain.KillTerminalRequest:
		if r != nil {
			return r.SessionID, r.TerminalID, true
		}
	case *domain.ReleaseTerminalRequest:
		if r != nil {
			return r.SessionID, r.TerminalID, true
		}
	}
	return "", "", false
}

// checkTerminalUse reports terminal/* requests that name an unknown
// terminal (ACP-TERM-001) or a released one (ACP-TERM-002), and records
// releases. The agent learns a terminal id only from the create response
// and releases it itself, so none of this can race.
func checkTerminalUse(p *Phase, c *ctx) {
	if c.m.Dir == domain.FromClient {
		return
	}
	session, id, ok := terminalOf(c.m.Params)
	if !ok || id == "" {
		return
	}
	t, known := p.Terminals.Get(id)
	switch {
	case !known && p.terminalsCut():
		return // it may name a terminal the machine dropped
	case !known:
		c.add(findings.TERMUnknownTerminal, "/params/terminalId",
			"%s names terminal %q, which no successful terminal/create returned; the client runs no such terminal and answers with an error", c.m.Method, id)
		return
	case t.Session != session:
		f := c.add(findings.TERMUnknownTerminal, "/params/terminalId",
			"%s names terminal %q for session %s, but the terminal was created for session %s; terminal ids are valid only in the session that created them", c.m.Method, id, session, t.Session)
		c.related(f, t.Line, "the terminal/create")
		return
	case t.ReleasedLine > 0:
		f := c.add(findings.TERMUseAfterRelease, "/params/terminalId",
			"%s names terminal %q after the agent released it; release invalidates the id for every terminal/* method, and the client no longer holds its process or output", c.m.Method, id)
		c.related(f, t.ReleasedLine, "the terminal/release")
		return
	}
	if c.m.Method == domain.MethodTerminalRelease {
		p.withTerminal(id, func(t *Terminal) { t.ReleasedLine = c.line() })
		p.countUnreleased(t.Session, -1)
		p.noteRelease(id, c.line())
	}
}

// terminalExited records the exit status terminal/wait_for_exit returns.
func terminalExited(p *Phase, c *ctx, req Pending) {
	res, ok := resultOf[domain.WaitForTerminalExitResponse](c.m)
	id, ok2 := pendingTerminal(req)
	if !ok || !ok2 || !c.succeeded() {
		return
	}
	if !p.Terminals.Has(id) {
		return
	}
	p.withTerminal(id, func(t *Terminal) { t.Exited = true })
	p.flow.term.exits = p.flow.term.exits.Set(id, terminalExit{Line: c.line(), ExitCode: res.ExitCode, Signal: res.Signal})
}

// checkTerminalOutput compares a terminal/output result with what
// wait_for_exit reported (ACP-TERM-005) and with the byte limit the agent
// set (ACP-TERM-006).
func checkTerminalOutput(p *Phase, c *ctx, req Pending) {
	res, ok := resultOf[domain.TerminalOutputResponse](c.m)
	id, ok2 := pendingTerminal(req)
	if !ok || !ok2 || !c.succeeded() || c.m.Dir == domain.FromAgent {
		return
	}
	t, known := p.Terminals.Get(id)
	if !known {
		return
	}
	exit, waited := p.flow.term.exits.Get(id)
	status, hasStatus := res.ExitStatus.Get()
	switch {
	case waited && !hasStatus && req.Line > exit.Line:
		// Asked after wait_for_exit had returned: the client knew the
		// command had ended. An output request sent before that may have
		// been answered from a snapshot taken before the exit.
		f := c.add(findings.TERMExitStatusMismatch, "/result",
			"terminal/output for terminal %q has no exitStatus, although terminal/wait_for_exit already reported that its command ended (%s); exitStatus is present once the command has exited, so the agent takes the command for still running", id, exit)
		c.related(f, exit.Line, "the wait_for_exit result")
	case waited && hasStatus:
		got := terminalExit{ExitCode: status.ExitCode, Signal: status.Signal}
		if !got.same(exit) {
			f := c.add(findings.TERMExitStatusMismatch, "/result/exitStatus",
				"terminal/output reports %s for terminal %q, but terminal/wait_for_exit reported %s; one command has one exit status, so the agent cannot tell whether it succeeded", got, id, exit)
			c.related(f, exit.Line, "the wait_for_exit result")
		}
	}
	n := uint64(len(res.Output))
	switch {
	case t.HasLimit && !res.Truncated && n > t.OutputLimit:
		f := c.add(findings.TERMTruncationMismatch, "/result/truncated",
			"terminal/output returns %d bytes of output with truncated false, but terminal/create set outputByteLimit %d; the client is not applying the limit, so the agent gets more output than it can handle", n, t.OutputLimit)
		c.related(f, t.Line, "the terminal/create")
	case !t.HasLimit && res.Truncated:
		f := c.add(findings.TERMTruncationMismatch, "/result/truncated",
			"terminal/output says truncated, but terminal/create set no outputByteLimit; truncation follows the agent's byte limit, so the agent loses output it never asked to drop")
		c.related(f, t.Line, "the terminal/create")
	}
	if hasStatus && !t.Exited {
		p.withTerminal(id, func(t *Terminal) { t.Exited = true })
	}
}

// finishTerminals reports terminals the agent created and never released
// (ACP-TERM-003): the client keeps the process and its output until
// terminal/release, so a forgotten terminal leaks on the client side. A
// terminal whose session was closed gets no truncation allowance: the
// release should have come before the close.
func finishTerminals(p *Phase, c *ctx) {
	for id, t := range p.Terminals.All() {
		if t.ReleasedLine > 0 {
			continue
		}
		loc := findings.Location{File: c.ev.Loc.File, Line: t.Line}
		if s, ok := p.Session(t.Session); ok && s.State == SessionClosed {
			f := c.addAt(findings.TERMNotReleased, loc,
				"terminal %s is created here and never released, and its session was closed at line %d; the agent must release every terminal it creates, or the client keeps its process and output", id, s.Line)
			c.related(f, s.Line, "the session/close result")
			continue
		}
		f := c.addAt(findings.TERMNotReleased, loc,
			"terminal %s is created here and never released with terminal/release; the client keeps its process and output until then", id)
		if c.ev.Truncated {
			f.Message += " (the transcript may be truncated)"
		}
	}
}
