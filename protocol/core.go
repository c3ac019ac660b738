package protocol

import (
	"strings"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
)

// params returns the typed params of the current message when they decoded
// into T.
func paramsOf[T any](m *domain.Message) (*T, bool) {
	v, ok := m.Params.(*T)
	return v, ok && v != nil
}

// resultOf returns the typed result of the current response.
func resultOf[T any](m *domain.Message) (*T, bool) {
	v, ok := m.Result.(*T)
	return v, ok && v != nil
}

// requestParams returns the typed params of a pending request.
func requestParams[T any](req Pending) (*T, bool) {
	v, ok := req.Params.(*T)
	return v, ok && v != nil
}

// succeeded reports whether the current message is a result (not an error).
func (c *ctx) succeeded() bool { return c.m.Kind == domain.KindResult }

// withSession changes session id where it is stored; it is a no-op when
// the session is unknown. The session moves between the open and the
// done ones as its state says (putSession).
func (p *Phase) withSession(id domain.SessionID, change func(s *Session)) {
	s, ok := p.Session(id)
	if !ok {
		return
	}
	wasDone := s.done()
	change(s)
	switch {
	case s.done() != wasDone:
		p.putSession(s)
	case wasDone:
		s.forgetTurns() // as putSession does for a done session
	}
}

// store sets k to v in *m, a map of the phase being stepped: it is
// m.Set(k, v), kept in the form its callers were written for.
func store[K ~string, V any](_ *Phase, m *Map[K, V], k K, v V) { m.Set(k, v) }

// withTerminal changes terminal id where it is stored; it is a no-op when
// the terminal is unknown.
func (p *Phase) withTerminal(id domain.TerminalID, change func(t *Terminal)) {
	if t, ok := p.Terminals.Get(id); ok {
		change(t)
	}
}

// ActiveSession returns the session id names when it is open (created,
// loaded or resumed, and not closed).
func (p *Phase) ActiveSession(id domain.SessionID) (*Session, bool) {
	s, ok := p.Session(id)
	if !ok || s.State == SessionClosed {
		return nil, false
	}
	return s, true
}

func coreInitialize(p *Phase, c *ctx) {
	if p.Conn != ConnAwaitingInitialize {
		return // a second initialize changes nothing (ACP-SEQ-003)
	}
	p.Conn = ConnInitializing
	p.InitLine = c.line()
	p.RequestedVersion = wireVersion(c.m.RawParams)
	if req, ok := paramsOf[domain.InitializeRequest](c.m); ok {
		caps := req.ClientCapabilities.Or(domain.ClientCapabilities{})
		p.setClientCaps(&caps)
	}
}

func coreInitialized(p *Phase, c *ctx, req Pending) {
	if req.Line != p.InitLine {
		return // the answer to a repeated initialize
	}
	if !c.succeeded() {
		p.Conn = ConnAwaitingInitialize
		return
	}
	res, ok := resultOf[domain.InitializeResponse](c.m)
	if !ok {
		p.Conn = ConnReady
		return
	}
	p.Version = wireVersion(c.m.RawResult)
	caps := res.AgentCapabilities.Or(domain.AgentCapabilities{})
	p.setAgentCaps(&caps)
	methods, _ := res.AuthMethods.Get()
	p.setAuthMethods(methods)
	// Version 0 (pre-release, ACP-VER-004 in ver.go) and 2 or later have
	// other shapes; -1 is an unreadable version (ACP-VER-001), for which v1
	// is the best guess.
	if p.Version == 0 || p.Version >= 2 {
		if p.Version >= 2 {
			c.add(findings.VERUnsupported, "/result/protocolVersion",
				"the agent negotiated protocol version %d; acplint knows ACP v1 only, so the rest of this transcript is not checked against v1 rules", p.Version)
		}
		p.Conn = ConnOtherVersion
		return
	}
	p.Conn = ConnReady
}

func coreSessionCreated(p *Phase, c *ctx, req Pending) {
	res, ok := resultOf[domain.NewSessionResponse](c.m)
	if !ok || !c.succeeded() || res.SessionID == "" {
		return
	}
	if _, reused := p.Issued.Get(res.SessionID); reused {
		return // ACP-SID-003; the old session keeps its state
	}
	var cwd string
	if params, ok := requestParams[domain.NewSessionRequest](req); ok {
		cwd = params.Cwd
	}
	s := newSession(res.SessionID, SessionIdle, c.line(), cwd)
	s.setup(res.Modes, res.ConfigOptions)
	p.putSession(s)
	p.Issued = p.Issued.Set(s.ID, c.line())
	if s.Cwd != "" {
		p.setKnownCwd(s.ID, s.Cwd)
	}
}

// setup keeps the modes and config options of a session-opening result.
func (s *Session) setup(modes domain.Opt[domain.SessionModeState], opts domain.Opt[[]domain.SessionConfigOption]) {
	if m, ok := modes.Get(); ok {
		s.setModes(&m)
	} else {
		s.setModes(nil)
	}
	o, _ := opts.Get()
	s.setConfigOptions(o)
}

// openParams is what the params of session/new, session/load and
// session/resume have in common.
type openParams struct {
	Cwd     string
	Dirs    domain.Opt[[]string]
	Servers []domain.McpServer
	ID      domain.SessionID // "" for session/new, which has no id yet
}

// openParamsOf returns the common params of a session-opening request;
// ok is false for any other params, or ones that did not decode.
func openParamsOf(params any) (o openParams, ok bool) {
	switch req := params.(type) {
	case *domain.NewSessionRequest:
		if req == nil {
			return o, false
		}
		return openParams{Cwd: req.Cwd, Dirs: req.AdditionalDirectories, Servers: req.McpServers}, true
	case *domain.LoadSessionRequest:
		if req == nil {
			return o, false
		}
		return openParams{Cwd: req.Cwd, Dirs: req.AdditionalDirectories, Servers: req.McpServers, ID: req.SessionID}, true
	case *domain.ResumeSessionRequest:
		if req == nil {
			return o, false
		}
		servers, _ := req.McpServers.Get()
		return openParams{Cwd: req.Cwd, Dirs: req.AdditionalDirectories, Servers: servers, ID: req.SessionID}, true
	}
	return o, false
}

// coreSessionReopen starts a session/load or session/resume: the session
// exists from the request on, so the replay that a load streams before its
// response is attributed to it.
func coreSessionReopen(state SessionState) requestCheck {
	return func(p *Phase, c *ctx) {
		id := c.sessionID()
		if id == "" {
			return
		}
		var cwd string
		if o, ok := openParamsOf(c.m.Params); ok {
			cwd = o.Cwd
		}
		s := newSession(id, state, c.line(), cwd)
		if old, ok := p.Session(id); ok {
			s.HadHistory = old.HadHistory
			s.Turn = old.Turn
		}
		p.putSession(s)
	}
}

func coreSessionReopened(p *Phase, c *ctx, req Pending) {
	if req.Session == "" {
		return
	}
	if !c.succeeded() {
		p.dropSession(req.Session)
		return
	}
	_, modes, opts, _ := setupLists(c.m.Result, req.Session)
	p.withSession(req.Session, func(s *Session) {
		s.State = SessionIdle
		s.setup(modes, opts)
	})
	if s, ok := p.Session(req.Session); ok && s.Cwd != "" {
		p.setKnownCwd(req.Session, s.Cwd)
	}
}

func corePrompt(p *Phase, c *ctx) {
	id := c.sessionID()
	s, ok := p.ActiveSession(id)
	if !ok || s.PromptKey != "" {
		return // ACP-SEQ-005 / ACP-SEQ-006 report these
	}
	p.withSession(id, func(s *Session) {
		s.State = SessionPrompting
		// The key may be the message's memory, which the driver reuses.
		s.PromptKey = strings.Clone(c.m.ID.Key())
		s.PromptLine = c.line()
		s.Turn++
		s.CancelLine = 0
		s.CancelledEndLine = 0
		s.OutOfTurnReported = false
		if s.OpenToolCalls.Len() > 0 {
			// Left open by the turn before (ACP-TURN-004). An empty map is
			// kept, so that a turn does not make and grow one again.
			s.OpenToolCalls = Map[domain.ToolCallID, int]{}
		}
		s.HadHistory = true
	})
}

func corePromptEnded(p *Phase, c *ctx, req Pending) {
	s, ok := p.Session(req.Session)
	if !ok || s.PromptKey != req.ID.Key() {
		return
	}
	p.withSession(req.Session, func(s *Session) {
		if s.State != SessionClosed {
			s.State = SessionIdle
		}
		s.PromptKey = ""
		if s.CancelLine > 0 {
			s.CancelledEndLine = c.line()
		}
	})
	p.turnEnded(s)
}

func coreCancel(p *Phase, c *ctx) {
	id := c.sessionID()
	s, ok := p.ActiveSession(id)
	if !ok || s.PromptKey == "" || s.CancelLine > 0 {
		return
	}
	p.withSession(id, func(s *Session) {
		s.State = SessionCancelling
		s.CancelLine = c.line()
	})
}

func coreClose(p *Phase, c *ctx) {
	id := c.sessionID()
	s, ok := p.ActiveSession(id)
	if !ok || s.PromptKey == "" || s.CancelLine > 0 {
		return
	}
	// Closing a session cancels its running turn.
	p.withSession(id, func(s *Session) { s.CancelLine = c.line() })
}

func coreClosed(p *Phase, c *ctx, req Pending) {
	if !c.succeeded() {
		return
	}
	p.withSession(req.Session, func(s *Session) {
		s.State = SessionClosed
		s.Line = c.line()
	})
}

// forgetTurns drops what a done session remembers of its turns: nothing
// may happen in it any more (every later update is reported as such
// without them), and a transcript of thousands of sessions would otherwise
// keep every tool call and message id it ever saw.
func (s *Session) forgetTurns() {
	s.ToolCalls, s.OpenToolCalls = Map[domain.ToolCallID, ToolCall]{}, Map[domain.ToolCallID, int]{}
	s.Messages, s.Compactions = Map[domain.MessageID, MessageUse]{}, Map[domain.CompactionID, Compaction]{}
	s.currentUse, s.currentKept = MessageUse{}, false
}

// done reports whether s is closed with no turn running: what it knew of
// its turns is forgotten, and updates for it break ACP-SID-002 alone.
func (s *Session) done() bool { return s.State == SessionClosed && s.PromptKey == "" }

// coreCancelRequest marks the request a $/cancel_request names. The sender
// of the notification cancels one of its own requests.
func coreCancelRequest(p *Phase, c *ctx) {
	n, ok := paramsOf[domain.CancelRequestNotification](c.m)
	if !ok || c.m.Dir == domain.DirUnknown {
		return
	}
	key := n.RequestID.Key()
	req, pending := p.pending[c.m.Dir].Get(key)
	if !pending {
		if line, done := p.answered[c.m.Dir].Get(key); done {
			f := c.add(findings.CXLUnknownCancelTarget, "/params/requestId",
				"$/cancel_request names request %s, which was already answered; a cancel that crosses the response is harmless but has no effect", n.RequestID)
			f.Severity = findings.SeverityInfo
			c.related(f, line, "the response")
			return
		}
		c.add(findings.CXLUnknownCancelTarget, "/params/requestId",
			"$/cancel_request names request %s, but the %s has no request with that id pending", n.RequestID, c.m.Dir)
		return
	}
	if req.CancelLine == 0 {
		req.CancelLine = c.line()
		p.pending[c.m.Dir].Set(key, req)
	}
}
