package protocol

import (
	"reflect"
	"strings"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
)

// sessionSetupMethods must wait for a successful initialize (ACP-SEQ-004).
var sessionSetupMethods = map[domain.Method]bool{
	domain.MethodSessionNew: true, domain.MethodSessionLoad: true, domain.MethodSessionResume: true,
	domain.MethodSessionList: true, domain.MethodSessionDelete: true, domain.MethodLogout: true,
}

func onRequest(p Phase, c *ctx) Phase {
	m := c.m
	p = checkMethodName(p, c)
	p = checkOrdering(p, c)
	if mi, ok := domain.LookupMethod(m.Method); ok && mi.Notification {
		switch m.Method {
		case domain.MethodSessionCancel:
			c.add(findings.CXLCancelAsRequest, "/id", "session/cancel is sent with an id; it is a notification, and agents answer the request form with -32601")
		case domain.MethodSessionUpdate:
			c.add(findings.UPDAsRequest, "/id", "session/update is sent with an id; it is a notification and gets no response")
		default:
			c.add(findings.RPCNoEnvelope, "/id", "%s is a notification but is sent with an id", m.Method)
		}
	}
	if m.Dir == domain.DirUnknown {
		return p
	}
	key := m.ID.Key()
	if old, dup := p.pending[m.Dir].Get(key); dup {
		f := c.add(findings.RPCDuplicateID, "/id", "request id %s is reused while the %s request with that id is still pending; responses can no longer be told apart", m.ID, old.Method)
		c.related(f, old.Line, "the pending request with id %s", m.ID)
	} else if line, done := p.answered[m.Dir].Get(key); done {
		f := c.add(findings.RPCDuplicateID, "/id", "request id %s is reused after an earlier request with that id completed; legal, but logs and tools that key on ids get confused", m.ID)
		f.Severity = findings.SeverityInfo
		c.related(f, line, "the earlier request")
	}
	p = runRequestChecks(p, c)
	p.pending[m.Dir] = p.pending[m.Dir].Set(key, Pending{
		Method: m.Method, Line: c.line(), ID: m.ID, Session: sessionOf(m.Params), Params: m.Params,
		ParamsInvalid: c.ev.ParamsInvalid,
	})
	return p
}

func onNotification(p Phase, c *ctx) Phase {
	m := c.m
	p = checkMethodName(p, c)
	p = checkOrdering(p, c)
	if mi, ok := domain.LookupMethod(m.Method); ok && !mi.Notification {
		c.add(findings.RPCNoEnvelope, "", "%s is a request but is sent without an id, so it can never be answered", m.Method)
		return p
	}
	return runRequestChecks(p, c)
}

// runRequestChecks runs the area checks and then the core transition of a
// request or notification.
func runRequestChecks(p Phase, c *ctx) Phase {
	for _, f := range anyRequestChecks {
		p = f(p, c)
	}
	for _, f := range requestChecks[c.m.Method] {
		p = f(p, c)
	}
	if f := coreRequest[c.m.Method]; f != nil {
		p = f(p, c)
	}
	return p
}

// runResponseChecks runs the area checks and then the core transition of a
// response to req.
func runResponseChecks(p Phase, c *ctx, req Pending) Phase {
	for _, f := range anyResponseChecks {
		p = f(p, c, req)
	}
	for _, f := range responseChecks[req.Method] {
		p = f(p, c, req)
	}
	if f := coreResponse[req.Method]; f != nil {
		p = f(p, c, req)
	}
	return p
}

// checkMethodName reports method names v1 does not define and methods
// sent by the side that should receive them.
func checkMethodName(p Phase, c *ctx) Phase {
	m := c.m
	if mi, ok := domain.LookupMethod(m.Method); ok {
		if want := mi.Receiver.Sender(); want != domain.DirUnknown && m.Dir != domain.DirUnknown && m.Dir != want {
			c.add(findings.EXTNUnknownMethod, "/method", "the %s sent %s, a method only the %s may send", m.Dir, m.Method, want)
		}
		return p
	}
	switch {
	case m.Method.IsExtension(), m.Method.IsProtocolLevel():
	case domain.UnstableMethods[m.Method] != 0 || isUnstable(m.Method):
		c.add(findings.CAPUnstable, "/method", "%s is an unstable ACP method, not part of the stable v1 protocol; peers without the unstable feature answer -32601", m.Method)
	default:
		c.add(findings.EXTNUnknownMethod, "/method", "method %q is not an ACP v1 method; custom methods must start with \"_\"", m.Method)
	}
	return p
}

func isUnstable(m domain.Method) bool {
	_, ok := domain.UnstableMethods[m]
	return ok
}

// checkOrdering applies the connection-phase rules (ACP-SEQ-001…004).
func checkOrdering(p Phase, c *ctx) Phase {
	m := c.m
	switch m.Dir {
	case domain.FromClient:
		if m.Method == domain.MethodInitialize {
			if p.Conn != ConnAwaitingInitialize {
				f := c.add(findings.SEQInitializeTwice, "/method", "initialize is sent again; it opens a connection once")
				c.related(f, p.InitLine, "the first initialize")
			}
			return p
		}
		if p.Conn == ConnReady || m.Kind != domain.KindRequest {
			return p
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
	return p
}

func onResponse(p Phase, c *ctx) Phase {
	m := c.m
	if m.Dir == domain.DirUnknown {
		return p
	}
	sender := m.Dir.Opposite() // who sent the request
	key := m.ID.Key()
	req, ok := p.pending[sender].Get(key)
	if !ok {
		if m.Kind == domain.KindError && m.ID.Kind() == domain.IDNull && m.Error != nil &&
			(domain.ErrorCode(m.Error.Code) == domain.CodeParseError || domain.ErrorCode(m.Error.Code) == domain.CodeInvalidRequest) {
			return p // the allowed answer to a line that could not be read
		}
		if line, done := p.answered[sender].Get(key); done {
			f := c.add(findings.RPCUnknownResponseID, "/id", "second response to request id %s, which was already answered", m.ID)
			c.related(f, line, "the first response")
			return p
		}
		c.add(findings.RPCUnknownResponseID, "/id", "response id %s matches no pending %s request%s", m.ID, sender, pendingHint(p, sender))
		return p
	}
	p.pending[sender] = p.pending[sender].Delete(key)
	p.answered[sender] = p.answered[sender].Set(key, c.line())
	if m.Kind == domain.KindError && m.Error != nil {
		p = checkError(p, c, req)
	}
	return runResponseChecks(p, c, req)
}

func pendingHint(p Phase, sender domain.Direction) string {
	keys := p.pending[sender].Keys()
	switch {
	case len(keys) == 0:
		return " (none is pending)"
	case len(keys) > 5:
		keys = append(keys[:5], "…")
	}
	return " (pending ids: " + strings.Join(keys, ", ") + ")"
}

// checkError applies the rules about error responses in general.
func checkError(p Phase, c *ctx, req Pending) Phase {
	e := c.m.Error
	code := domain.ErrorCode(e.Code)
	if strings.TrimSpace(e.Message) == "" || strings.ContainsAny(e.Message, "\n\r") {
		c.add(findings.RPCErrorMessage, "/error/message", "error message %q is not one concise sentence", e.Message)
	}
	if code.Reserved() && code.Name() == "" {
		c.add(findings.RPCReservedCode, "/error/code", "error code %d lies in the range JSON-RPC and ACP reserve (-32768 to -32000) but ACP does not define it; use a code outside that range", e.Code)
	}
	_, known := domain.LookupMethod(req.Method)
	switch {
	case req.Method.IsExtension() && code != domain.CodeMethodNotFound && code == domain.CodeInvalidRequest:
		c.add(findings.EXTNExtensionNotFoundCode, "/error/code", "extension request %s is refused with %d; an unrecognised extension method gets -32601", req.Method, e.Code)
	case !known && !req.Method.IsExtension() && code != domain.CodeMethodNotFound:
		c.add(findings.RPCMethodNotFoundCode, "/error/code", "unknown method %s is answered with %d; the code for a method the receiver lacks is -32601", req.Method, e.Code)
	}
	if code == domain.CodeRequestCancelled && req.CancelLine == 0 && !cancelCascade(p, req) {
		c.add(findings.CXLUnexpectedCancelledCode, "/error/code", "%s is answered with -32800 although no $/cancel_request or session/cancel covered it", req.Method)
	}
	return p
}

// cancelCascade reports whether req belongs to a session whose turn the
// client cancelled.
func cancelCascade(p Phase, req Pending) bool {
	if req.Session == "" {
		return false
	}
	s, ok := p.Sessions.Get(req.Session)
	return ok && s.CancelLine > 0
}

func finish(p Phase, r *report, ev Event) Phase {
	c := &ctx{r: r, ev: ev, m: &domain.Message{}}
	for _, dir := range []domain.Direction{domain.FromClient, domain.FromAgent} {
		for key, req := range p.pending[dir].All() {
			at := findings.Location{File: ev.Loc.File, Line: req.Line}
			switch {
			case req.CancelLine > 0:
				f := r.add(findings.CXLCancelledUnanswered, at, "%s request %s was cancelled with $/cancel_request but never answered; the receiver must still answer it", req.Method, key)
				if ev.Truncated {
					f.Severity = findings.SeverityWarning
					f.Message += " (the transcript may be truncated)"
				}
				setBlame(f, dir.Opposite())
			case req.Method.IsExtension() && !ev.Truncated:
				f := r.add(findings.EXTNUnansweredExtension, at, "extension request %s (id %s) never gets a response; unknown extension requests must still be answered, with -32601", req.Method, key)
				setBlame(f, dir.Opposite())
			default:
				f := r.add(findings.RPCUnanswered, at, "%s request (id %s) from the %s is never answered", req.Method, key, dir)
				if ev.Truncated {
					f.Severity = findings.SeverityInfo
					f.Message += "; the transcript ends first (it may be truncated)"
				} else {
					f.Severity = findings.SeverityError
				}
				setBlame(f, dir.Opposite())
			}
		}
	}
	p = finishTerminals(p, c)
	for _, f := range endChecks {
		p = f(p, c)
	}
	return p
}

func setBlame(f *findings.ValidationFinding, d domain.Direction) {
	switch d {
	case domain.FromClient:
		f.Blame = findings.PartyClient
	case domain.FromAgent:
		f.Blame = findings.PartyAgent
	}
}

// sessionOf returns the sessionId a request's params name, or "" when the
// params are not session-scoped. Every session-scoped params struct in
// package domain has a SessionID field, so one reflective lookup serves all
// of them and new methods need no registration here.
func sessionOf(params any) domain.SessionID {
	v := reflect.ValueOf(params)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return ""
	}
	f := v.FieldByName("SessionID")
	if !f.IsValid() || f.Type() != reflect.TypeFor[domain.SessionID]() {
		return ""
	}
	return f.Interface().(domain.SessionID)
}
