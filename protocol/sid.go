package protocol

import (
	"fmt"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/internal/jsonv"
)

// Session identity (ACP-SID-*). A session is active on a connection from
// the successful session/new that issued its id, or the successful
// session/load or session/resume that named it, until session/close
// succeeds. The client may name only active sessions; the agent may also
// name a session while it is being loaded or resumed.

// sidState is the bookkeeping of the SID checks.
type sidState struct {
	// unknown maps the id key of a client request that named an inactive
	// session to that session, so its answer can be judged (ACP-SID-004).
	unknown Map[string, domain.SessionID]
	// deleted maps a session to the session/delete response that removed it.
	deleted Map[domain.SessionID, int]
}

// clientSessionMethods are the client methods that act on an active
// session (ACP-SID-001). session/load and session/resume make a session
// active; session/delete works on stored sessions (ACP-SID-005).
var clientSessionMethods = map[domain.Method]bool{
	domain.MethodSessionPrompt: true, domain.MethodSessionCancel: true, domain.MethodSessionSetMode: true,
	domain.MethodSessionSetConfigOption: true, domain.MethodSessionClose: true,
}

// checkSessionNamed reports a client request naming a session that is not
// active (ACP-SID-001) and an agent message naming a session that is
// neither active nor being opened (ACP-SID-002).
func checkSessionNamed(p *Phase, c *ctx) {
	if p.Conn != ConnReady {
		return // before initialize the SEQ rules speak
	}
	switch c.m.Dir {
	case domain.FromClient:
		if !clientSessionMethods[c.m.Method] {
			return
		}
		checkClientSession(p, c, c.sessionID())
	case domain.FromAgent:
		checkAgentSession(p, c, agentSessionOf(c))
	}
}

// agentSessionOf is the session an agent request or notification names:
// its sessionId, or the session scope of an elicitation.
func agentSessionOf(c *ctx) domain.SessionID {
	if req, ok := c.m.Params.(*domain.CreateElicitationRequest); ok && req != nil {
		if scope, ok := req.Scope.(domain.ElicitationSessionScope); ok {
			return scope.SessionID
		}
		return ""
	}
	return c.sessionID()
}

func checkClientSession(p *Phase, c *ctx, id domain.SessionID) {
	if id == "" {
		return // missing or undecodable: a schema problem
	}
	s, ok := p.Session(id)
	var why, fix string
	switch {
	case !ok && p.sessionsCut():
		return // it may name a session the machine dropped
	case !ok:
		why = "which was never created, loaded or resumed on this connection"
		if _, listed := p.life.ses.listed.Get(id); listed {
			why = "which session/list reported but which was never loaded or resumed on this connection"
		}
		fix = "session ids do not carry over between connections, so the client must load or resume the session first"
	case s.State == SessionClosed:
		why = fmt.Sprintf("which was closed at line %d", s.Line)
		fix = "a closed session must be loaded or resumed again before it is used"
	case s.State == SessionLoading || s.State == SessionResuming:
		if c.m.Method == domain.MethodSessionPrompt {
			return // ACP-SEQ-005
		}
		opener := map[SessionState]string{SessionLoading: "session/load", SessionResuming: "session/resume"}[s.State]
		why = fmt.Sprintf("whose %s at line %d has not succeeded yet", opener, s.Line)
		fix = "the session is usable only once that request succeeded"
	default:
		return
	}
	f := c.add(findings.SIDUnknownSession, "/params/sessionId",
		"%s names session %q, %s; %s, and agents answer -32002", c.m.Method, id, why, fix)
	if ok {
		c.related(f, s.Line, "where the session was last opened or closed")
	}
	if c.m.Kind == domain.KindRequest {
		p.life.sid.unknown = p.life.sid.unknown.Set(c.m.ID.Key(), id)
	}
}

func checkAgentSession(p *Phase, c *ctx, id domain.SessionID) {
	if id == "" {
		return
	}
	s, ok := p.Session(id)
	if ok && s.State != SessionClosed {
		return // active, or being loaded or resumed
	}
	if !ok && p.sessionsCut() {
		return // it may name a session the machine dropped
	}
	// An elicitation's session scope is inline, so the pointer is the same.
	const ptr = "/params/sessionId"
	var (
		first bool
		f     *findings.ValidationFinding
	)
	switch {
	case ok:
		if first = p.firstReport(findings.SIDUnknownSessionFromAgent, id, fmt.Sprintf("closed %d", s.Line)); !first {
			return
		}
		f = c.add(findings.SIDUnknownSessionFromAgent, ptr,
			"the agent sends %s for session %q, which was closed at line %d; clients drop messages for sessions they closed (later ones for this session are not reported)", c.m.Method, id, s.Line)
		c.related(f, s.Line, "the session/close response")
	case newSessionPending(p):
		if first = p.firstReport(findings.SIDUnknownSessionFromAgent, id, "creating"); !first {
			return
		}
		f = c.add(findings.SIDUnknownSessionFromAgent, ptr,
			"the agent sends %s for session %q before its session/new response issued that id; the client cannot map it to a session yet and may drop it (send it after the response)", c.m.Method, id)
		f.Severity = findings.SeverityWarning
	default:
		if first = p.firstReport(findings.SIDUnknownSessionFromAgent, id, "unknown"); !first {
			return
		}
		f = c.add(findings.SIDUnknownSessionFromAgent, ptr,
			"the agent sends %s for session %q, which is not active on this connection (it was never created, loaded or resumed here); the client has nowhere to show it and drops it (later ones for this session are not reported)", c.m.Method, id)
	}
}

// newSessionPending reports whether a session/new of the client awaits
// its response.
func newSessionPending(p *Phase) bool { return p.pending[domain.FromClient].newSessions > 0 }

// checkUnknownSessionAnswer judges how the agent refuses a request for a
// session it does not have (ACP-SID-004): -32002 with data.sessionId set
// to the requested id lets the client recover by reopening the session.
// Requests the client sent for an inactive session are judged by their
// error; session/load and session/resume of a session the agent cannot
// find are judged when the error says so.
func checkUnknownSessionAnswer(p *Phase, c *ctx, req Pending) {
	if c.m.Dir != domain.FromAgent {
		return
	}
	id, flagged := p.life.sid.unknown.Get(req.ID.Key())
	if flagged {
		p.life.sid.unknown = p.life.sid.unknown.Delete(req.ID.Key())
	}
	e := c.m.Error
	if c.succeeded() || e == nil {
		return
	}
	code := domain.ErrorCode(e.Code)
	switch req.Method {
	case domain.MethodSessionLoad, domain.MethodSessionResume:
		if !sessionNotFound(e) {
			return // a failure for another reason
		}
		id = req.Session
	default:
		if !flagged {
			return
		}
	}
	if id == "" {
		return
	}
	var f *findings.ValidationFinding
	switch {
	case code != domain.CodeResourceNotFound:
		f = c.add(findings.SIDWrongErrorCode, "/error/code",
			"%s for unknown session %q is refused with %d; the code for an unknown or inactive session is -32002 (Resource not found) with data.sessionId, which lets the client reopen the session instead of showing a generic failure", req.Method, id, e.Code)
	case errorDataSession(e) != string(id):
		f = c.add(findings.SIDWrongErrorCode, "/error",
			"%s for unknown session %q is refused with -32002 but without data.sessionId naming it; clients read data.sessionId to tell which session to reopen", req.Method, id)
	default:
		return
	}
	c.related(f, req.Line, "the %s", req.Method)
}

// errorDataSession returns data.sessionId of an error, or "" when there is
// none.
func errorDataSession(e *domain.Error) string {
	if len(e.Data) == 0 {
		return ""
	}
	v, err := jsonv.Parse(e.Data)
	if err != nil || v.Kind != jsonv.Object {
		return ""
	}
	sid, ok := v.Get("sessionId")
	if !ok || sid.Kind != jsonv.String {
		return ""
	}
	return sid.Str()
}

// checkIssuedSessionID reports a session/new result whose sessionId is
// empty or was issued before on this connection (ACP-SID-003). core.go
// ignores such a result, so the earlier session keeps its state.
func checkIssuedSessionID(p *Phase, c *ctx, req Pending) {
	if !c.succeeded() || c.m.Dir != domain.FromAgent {
		return
	}
	res, ok := resultOf[domain.NewSessionResponse](c.m)
	if !ok {
		return
	}
	id := res.SessionID
	if id == "" {
		if emptyStringMember(c.m.RawResult, "sessionId") {
			c.add(findings.SIDDuplicateSessionID, "/result/sessionId",
				"session/new returns an empty sessionId; the client cannot name the session in any later request, and a second empty id would merge two conversations")
		}
		return
	}
	if line, issued := p.Issued.Get(id); issued {
		f := c.add(findings.SIDDuplicateSessionID, "/result/sessionId",
			"session/new returns sessionId %q, which session/new already issued at line %d; the client merges the two conversations or drops one of them", id, line)
		c.related(f, line, "the first session/new result with this id")
		return
	}
	if s, open := p.ActiveSession(id); open {
		f := c.add(findings.SIDDuplicateSessionID, "/result/sessionId",
			"session/new returns sessionId %q, the id of a session already open on this connection; the client merges the new conversation into the loaded one", id)
		c.related(f, s.Line, "where that session was opened")
	}
}

// emptyStringMember reports whether member of the raw object is the empty
// string, as opposed to missing or of another type (schema problems).
func emptyStringMember(raw []byte, member string) bool {
	v, err := jsonv.Parse(raw)
	if err != nil || v.Kind != jsonv.Object {
		return false
	}
	m, ok := v.Get(member)
	return ok && m.Kind == jsonv.String && m.Str() == ""
}

// checkDeleteAnswer judges session/delete: deleting a session that is gone
// or never existed should succeed silently (ACP-SID-005). Whether a
// session exists in the agent's storage is unknown to a transcript, so an
// error counts only when the session was deleted earlier in the transcript
// or the agent itself says it does not know the session.
func checkDeleteAnswer(p *Phase, c *ctx, req Pending) {
	if c.m.Dir != domain.FromAgent || req.Session == "" {
		return
	}
	if c.succeeded() {
		p.life.sid.deleted = p.life.sid.deleted.Set(req.Session, c.line())
		return
	}
	e := c.m.Error
	if e == nil {
		return
	}
	if line, gone := p.life.sid.deleted.Get(req.Session); gone {
		f := c.add(findings.SIDDeleteUnknownFails, "/error",
			"session/delete of session %q fails with %d, but the session was already deleted at line %d; deleting it again should succeed silently, since clients retry deletes after lost connections", req.Session, e.Code, line)
		c.related(f, line, "the first successful session/delete")
		return
	}
	if sessionNotFound(e) {
		f := c.add(findings.SIDDeleteUnknownFails, "/error",
			"session/delete of session %q fails with %d (%q) because the agent does not know the session; deleting a session that never existed should succeed silently, or clients report a failure that did not happen", req.Session, e.Code, e.Message)
		c.related(f, req.Line, "the session/delete")
	}
}
