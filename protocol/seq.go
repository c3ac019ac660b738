package protocol

import (
	"fmt"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
)

// Ordering of the connection and of session setup (ACP-SEQ-*): the rules
// about initialize itself (ACP-SEQ-001 to -004), applied to every message
// as it arrives (checkOrdering), the agent's answer to a request sent too
// early, the prompt ordering rules and the history replay rules of
// session/load and session/resume.

// seqState is the bookkeeping of the SEQ checks.
type seqState struct {
	// early holds the client requests sent before initialize succeeded, by
	// id key, with their line: the agent should refuse them with -32600.
	early Map[string, int]
	// loaded maps a session to the end of its latest successful
	// session/load. History updates after it and before the next prompt
	// are replay that came too late (ACP-SEQ-007).
	loaded Map[domain.SessionID, loadEnd]
}

// loadEnd is where a session/load response ended the replay.
type loadEnd struct {
	Line     int // the session/load response
	Turn     int // the session's turn count then: a new prompt ends the aftermath
	Reported bool
}

// checkOrdering applies the connection-phase rules (ACP-SEQ-001…004).
func checkOrdering(p *Phase, c *ctx) {
	m := c.m
	switch m.Dir {
	case domain.FromClient:
		if m.Method == domain.MethodInitialize {
			if p.Conn != ConnAwaitingInitialize {
				f := c.add(findings.SEQInitializeTwice, "/method", "initialize is sent again; it opens a connection once")
				c.related(f, p.InitLine, "the first initialize")
			}
			return
		}
		if p.Conn == ConnReady || m.Kind != domain.KindRequest {
			return
		}
		if sessionSetupMethods[m.Method] {
			c.add(findings.SEQSessionBeforeInit, "/method", "%s is sent before initialize succeeded; agents answer -32600 until the connection is initialized", m.Method)
		} else {
			c.add(findings.SEQNotInitialized, "/method", "%s is sent before initialize succeeded; the first request must be initialize and agents answer -32600", m.Method)
		}
	case domain.FromAgent:
		if p.Conn != ConnReady && (m.Kind == domain.KindRequest || m.Kind == domain.KindNotification) {
			c.add(findings.SEQAgentBeforeInit, "/method", "the agent sends %s before it answered initialize", m.Method)
		}
	}
}

// noteEarlyRequest remembers a client request that checkOrdering reported
// as sent before initialize succeeded (ACP-SEQ-001, ACP-SEQ-004).
func noteEarlyRequest(p *Phase, c *ctx) {
	if c.m.Dir != domain.FromClient || c.m.Kind != domain.KindRequest ||
		c.m.Method == domain.MethodInitialize || p.Conn == ConnReady {
		return
	}
	p.life.seq.early = p.life.seq.early.Set(c.m.ID.Key(), c.line())
}

// checkEarlyRequestAnswer judges the agent's answer to a request that came
// before initialize succeeded: the catalog expects -32600 (Invalid
// request), so that the client learns its mistake. Anything else is a
// warning against the agent; the client's own finding is on the request.
func checkEarlyRequestAnswer(p *Phase, c *ctx, req Pending) {
	if c.m.Dir != domain.FromAgent {
		return
	}
	key := req.ID.Key()
	line, ok := p.life.seq.early.Get(key)
	if !ok || line != req.Line {
		return
	}
	p.life.seq.early = p.life.seq.early.Delete(key)
	rule := findings.SEQNotInitialized
	if sessionSetupMethods[req.Method] {
		rule = findings.SEQSessionBeforeInit
	}
	var f *findings.ValidationFinding
	switch {
	case c.succeeded():
		f = c.add(rule, "/result", "the agent answers the %s sent before initialize succeeded with a result; it should refuse it with -32600 (Invalid request), or the client never learns that it skipped initialization", req.Method)
	case c.m.Error != nil && domain.ErrorCode(c.m.Error.Code) != domain.CodeInvalidRequest:
		f = c.add(rule, "/error/code", "the agent refuses the %s sent before initialize succeeded with %d; the code for a request before initialization is -32600 (Invalid request)", req.Method, c.m.Error.Code)
	default:
		return
	}
	f.Severity = findings.SeverityWarning
	f.Blame = findings.PartyAgent
	c.related(f, req.Line, "the early %s", req.Method)
}

// checkPromptOrder reports a prompt for a session whose load or resume has
// not been answered yet (ACP-SEQ-005) and a prompt while the session's
// previous turn still runs (ACP-SEQ-006). A session that is not known at
// all is ACP-SID-001's (sid.go).
func checkPromptOrder(p *Phase, c *ctx) {
	if c.m.Dir != domain.FromClient || p.Conn != ConnReady {
		return
	}
	id := c.sessionID()
	s, ok := p.ActiveSession(id)
	if !ok {
		return
	}
	switch {
	case s.State == SessionLoading || s.State == SessionResuming:
		method := domain.MethodSessionLoad
		if s.State == SessionResuming {
			method = domain.MethodSessionResume
		}
		f := c.add(findings.SEQPromptBeforeSession, "/params/sessionId",
			"session/prompt names session %q while its %s is still pending; the session is usable only once that request succeeded, and the agent may refuse the prompt or mix it into the %s", id, method, replayWord(s.State))
		c.related(f, s.Line, "the pending %s", method)
	case s.PromptKey != "":
		f := c.add(findings.SEQOverlappingPrompts, "/params/sessionId",
			"session/prompt for session %q is sent while the turn started at line %d is still running; turns are sequential, and agents either refuse the second prompt or queue it, so the outcome depends on the agent", id, s.PromptLine)
		c.related(f, s.PromptLine, "the running session/prompt")
	}
}

func replayWord(s SessionState) string {
	if s == SessionLoading {
		return "history replay"
	}
	return "restored session"
}

// checkReplayOrder applies the replay rules to one session/update: history
// belongs before the session/load response (ACP-SEQ-007), never before the
// session/resume response (ACP-SEQ-009), and notices are not replayed
// (ACP-SEQ-010). It also counts the replay a load streams, for
// ACP-SEQ-008.
func checkReplayOrder(p *Phase, c *ctx) {
	n, ok := paramsOf[domain.SessionNotification](c.m)
	if !ok || c.m.Dir != domain.FromAgent {
		return
	}
	s, ok := p.ActiveSession(n.SessionID)
	if !ok {
		return // ACP-SID-002
	}
	switch s.State {
	case SessionLoading:
		if _, notice := n.Update.(domain.Notice); notice {
			f := c.add(findings.SEQNoticeDuringReplay, "/params/update/sessionUpdate",
				"a notice for session %q arrives while its session/load replay streams; notices are live status, not history, so a replayed one shows the user a stale message as if it were current", s.ID)
			c.related(f, s.Line, "the session/load")
			return
		}
		if conversationUpdate(n.Update) {
			p.withSession(s.ID, func(s *Session) { s.ReplayUpdates++ })
		}
	case SessionResuming:
		if !messageChunk(n.Update) {
			return
		}
		var first bool
		if first = p.firstReport(findings.SEQReplayOnResume, s.ID, fmt.Sprint(s.Line)); !first {
			return
		}
		f := c.add(findings.SEQReplayOnResume, "/params/update/sessionUpdate",
			"%s for session %q arrives before the session/resume response; resume must not replay history, and the client, which chose resume because it still shows the conversation, displays it twice (later replay of this resume is not reported)", updateKind(n.Update), s.ID)
		c.related(f, s.Line, "the session/resume")
	default:
		end, loaded := p.life.seq.loaded.Get(s.ID)
		if !loaded || end.Reported || end.Turn != s.Turn || s.PromptKey != "" || !conversationUpdate(n.Update) {
			return
		}
		end.Reported = true
		p.life.seq.loaded = p.life.seq.loaded.Set(s.ID, end)
		f := c.add(findings.SEQReplayAfterLoad, "/params/update/sessionUpdate",
			"%s for session %q arrives after the session/load response and before any new prompt, so it is history replayed too late; clients take the response as the end of the replay and drop or misplace it (later ones of this load are not reported)", updateKind(n.Update), s.ID)
		c.related(f, end.Line, "the session/load response")
	}
}

// messageChunk reports whether u is one of the message chunks that make up
// the conversation history a resume must not replay.
func messageChunk(u domain.SessionUpdate) bool {
	switch u.(type) {
	case domain.UserMessageChunk, domain.AgentMessageChunk, domain.AgentThoughtChunk:
		return true
	}
	return false
}

// checkLoadReplay judges a successful session/load: a session known to
// have history should have replayed some (ACP-SEQ-008). It also starts the
// stretch in which history updates are late replay (ACP-SEQ-007).
func checkLoadReplay(p *Phase, c *ctx, req Pending) {
	s, ok := p.Session(req.Session)
	if !ok || !c.succeeded() || s.State != SessionLoading {
		return
	}
	p.life.seq.loaded = p.life.seq.loaded.Set(s.ID, loadEnd{Line: c.line(), Turn: s.Turn})
	if s.ReplayUpdates > 0 {
		p.life.ses.historyAt = p.life.ses.historyAt.Set(s.ID, c.line())
		p.withSession(s.ID, func(s *Session) { s.HadHistory = true })
		return
	}
	var why string
	var where int
	switch listed, inList := p.life.ses.listed.Get(s.ID); {
	case s.HadHistory:
		why = "it carried a conversation earlier in this transcript"
		where, _ = p.life.ses.historyAt.Get(s.ID)
	case inList:
		why, where = "session/list reported it as an existing session", listed
	default:
		return
	}
	f := c.add(findings.SEQNoReplay, "/result",
		"session/load of session %q is answered without replaying any history, although %s; the agent must replay the whole conversation before responding, so the client shows an empty session", s.ID, why)
	c.related(f, req.Line, "the session/load")
	c.related(f, where, "where the history shows")
}

// LateLoadReplay reports whether a conversation update for session s now
// would be history streamed after its session/load response (ACP-SEQ-007).
// Other checks of updates outside a turn use it to leave such updates to
// that stronger rule.
func (p *Phase) LateLoadReplay(s *Session) bool {
	end, ok := p.life.seq.loaded.Get(s.ID)
	return ok && end.Turn == s.Turn && s.PromptKey == ""
}
