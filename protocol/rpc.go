package protocol

import (
	"bytes"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
)

// sessionSetupMethods must wait for a successful initialize (ACP-SEQ-004).
var sessionSetupMethods = map[domain.Method]bool{
	domain.MethodSessionNew: true, domain.MethodSessionLoad: true, domain.MethodSessionResume: true,
	domain.MethodSessionList: true, domain.MethodSessionDelete: true, domain.MethodLogout: true,
}

// rpcState is the JSON-RPC bookkeeping that is not a pending request.
type rpcState struct {
	// last is the latest message each direction sent; prev is the latest
	// message of the transcript whatever its sender. A response that
	// correlates with nothing right after a notification is most likely an
	// answer to that notification (ACP-RPC-006).
	last [3]sentMessage
	prev sentMessage
}

// sentMessage remembers one message for ACP-RPC-006.
type sentMessage struct {
	Line   int
	Kind   domain.Kind
	Method domain.Method
	Dir    domain.Direction
}

// noteSent records the current message as the latest of its sender. It
// runs before the checks of the message: they look at the other side's
// latest message or at an earlier one, never at this one.
func noteSent(p *Phase, c *ctx) {
	s := sentMessage{Line: c.line(), Kind: c.m.Kind, Method: c.m.Method, Dir: c.m.Dir}
	p.rpc.prev = s
	if c.m.Dir != domain.DirUnknown {
		p.rpc.last[c.m.Dir] = s
	}
}

func onRequest(p *Phase, c *ctx) {
	m := c.m
	noteSent(p, c)
	c.runRequestHooks(p, c.d.arrival)
	if mi, ok := c.method(); ok && mi.Notification {
		notificationWithID(c)
	}
	key := m.ID.Key()
	pend := Pending{
		Method: m.Method, Line: c.line(), ID: domain.RequestID{Raw: bytes.Clone(m.ID.Raw)},
		Session: c.sessionID(), Params: keptParams(m.Params),
		ParamsInvalid: c.ev.ParamsInvalid,
	}
	if m.Dir == domain.DirUnknown {
		// The sender is unknown (an extension request in a raw transcript):
		// keep the request so that its response is not taken for one that
		// matches nothing, but run no rule that needs the sender.
		p.pending[domain.DirUnknown].Set(key, pend)
		return
	}
	if old, dup := p.pending[m.Dir].Get(key); dup {
		reusedPendingID(c, old)
	} else if line, done := p.answered[m.Dir].Get(key); done {
		reusedAnsweredID(c, line)
	}
	runRequestChecks(p, c)
	p.pending[m.Dir].Set(key, pend)
}

// keptParams copies, out of params, what the checks of a request's answer
// read from Pending.Params; nil for the methods whose answer no check
// compares with its request. The message's memory is the driver's to
// reuse once the step returns (lint reuses a batch's), so the machine
// keeps copies, and only of what it reads: copying a permission request's
// tool call and diffs, or a prompt, was most of the bytes lint allocated.
// A check that reads another request's params from Pending adds its type
// here; TestKeptParamsServeEveryCheck compares the findings against keeping
// all params whole.
func keptParams(params any) any {
	if r, ok := params.(*domain.RequestPermissionRequest); ok {
		// The answer names an option by id: the request's tool call and
		// diffs, most of its bytes, are never read again. Option ids are
		// the decoder's copies (codec.BatchDecoder).
		if r == nil {
			return nil
		}
		ids := make(offeredOptions, len(r.Options))
		for i, o := range r.Options {
			ids[i] = o.OptionID
		}
		return ids
	}
	switch r := params.(type) {
	// The answers to these read one member, kept alone (in every mode of
	// keepWholeParams: their checks read it in this form).
	case *domain.ReadTextFileRequest:
		if r == nil {
			return nil
		}
		return keptReadPath(strings.Clone(r.Path))
	case *domain.CreateTerminalRequest:
		if r == nil {
			return nil
		}
		return keptOutputLimit(r.OutputByteLimit)
	// Terminal ids are the decoder's copies (codec.BatchDecoder).
	case *domain.TerminalOutputRequest:
		if r == nil {
			return nil
		}
		return keptTerminalID(r.TerminalID)
	case *domain.WaitForTerminalExitRequest:
		if r == nil {
			return nil
		}
		return keptTerminalID(r.TerminalID)
	case *domain.KillTerminalRequest:
		if r == nil {
			return nil
		}
		return keptTerminalID(r.TerminalID)
	case *domain.ReleaseTerminalRequest:
		if r == nil {
			return nil
		}
		return keptTerminalID(r.TerminalID)
	}
	if keepWholeParams {
		return domain.Detach(params)
	}
	switch r := params.(type) {
	case *domain.NewSessionRequest:
		if r == nil {
			return nil
		}
		return &domain.NewSessionRequest{Cwd: strings.Clone(r.Cwd), AdditionalDirectories: domain.Detach(r.AdditionalDirectories)}
	case *domain.SetSessionModeRequest:
		if r == nil {
			return nil
		}
		return &domain.SetSessionModeRequest{SessionID: r.SessionID, ModeID: r.ModeID}
	case *domain.SetSessionConfigOptionRequest:
		if r == nil {
			return nil
		}
		return &domain.SetSessionConfigOptionRequest{SessionID: r.SessionID, ConfigID: r.ConfigID}
	case *domain.CreateElicitationRequest:
		// Rare enough to copy whole.
		return domain.Detach(params)
	}
	return nil
}

// What keptParams keeps of a request whose answer's checks read one
// member: the ids of the options a session/request_permission offers, the
// path fs/read_text_file reads, the output limit of terminal/create, the
// terminal a terminal/* request names.
type (
	offeredOptions  []domain.PermissionOptionID
	keptReadPath    string
	keptOutputLimit domain.Opt[uint64]
	keptTerminalID  domain.TerminalID
)

// keepWholeParams makes keptParams keep every request's params whole (but
// for those it keeps one member of), for
// the test that holds its choice to what the checks read.
var keepWholeParams = false

// The findings of the framing are set apart from the code that runs for
// every message, which they would otherwise spread over more of the
// instruction cache than it takes.

// notificationWithID reports a notification sent with an id.
func notificationWithID(c *ctx) {
	switch c.m.Method {
	case domain.MethodSessionCancel:
		c.add(findings.CXLCancelAsRequest, "/id", "session/cancel is sent with an id; it is a notification, and agents answer the request form with -32601")
	case domain.MethodSessionUpdate:
		c.add(findings.UPDAsRequest, "/id", "session/update is sent with an id; it is a notification and gets no response")
	default:
		c.add(findings.RPCNoEnvelope, "/id", "%s is a notification but is sent with an id", c.m.Method)
	}
}

// reusedPendingID reports a request whose id old, pending, already has.
func reusedPendingID(c *ctx, old Pending) {
	m := c.m
	f := c.add(findings.RPCDuplicateID, "/id", "request id %s is reused while the %s request with that id is still pending; responses can no longer be told apart", m.ID, old.Method)
	c.related(f, old.Line, "the pending request with id %s", m.ID)
}

// reusedAnsweredID reports a request whose id a request answered at line had.
func reusedAnsweredID(c *ctx, line int) {
	f := c.add(findings.RPCDuplicateID, "/id", "request id %s is reused after an earlier request with that id completed; legal, but logs and tools that key on ids get confused", c.m.ID)
	f.Severity = findings.SeverityInfo
	c.related(f, line, "the earlier request")
}

func onNotification(p *Phase, c *ctx) {
	m := c.m
	noteSent(p, c)
	c.runRequestHooks(p, c.d.arrival)
	if mi, ok := c.method(); ok && !mi.Notification {
		c.add(findings.RPCNoEnvelope, "", "%s is a request but is sent without an id, so it can never be answered", m.Method)
		return
	}
	runRequestChecks(p, c)
}

// runRequestChecks runs the hooks of a request or notification, the core
// transition last.
func runRequestChecks(p *Phase, c *ctx) {
	c.runRequestHooks(p, c.d.everyRequest)
	if h := c.d.methods.get(c.m.Method); h != nil {
		c.runRequestHooks(p, h.requestHooks(c.m))
	}
}

// runResponseChecks runs the hooks of a response to req, the core
// transition last.
func runResponseChecks(p *Phase, c *ctx, req Pending) {
	c.runResponseHooks(p, c.d.everyResponse, req)
	if h := c.d.methods.get(req.Method); h != nil {
		c.runResponseHooks(p, h.responses, req)
	}
}

// isUnstable reports whether m is an unstable method of the table the
// event is judged by.
func (c *ctx) isUnstable(m domain.Method) bool {
	_, ok := c.ev.Methods.Unstable(m)
	return ok
}

func onResponse(p *Phase, c *ctx) {
	m := c.m
	if m.Kind == domain.KindError && m.Error != nil {
		checkErrorObject(c)
	}
	if m.Dir == domain.DirUnknown {
		unattributedResponse(p, c)
		noteSent(p, c)
		return
	}
	requester := m.Dir.Opposite()
	lastOfResponder := p.rpc.last[m.Dir].Line // before noteSent makes it this one
	noteSent(p, c)
	key := m.ID.Key()
	req, ok := p.pending[requester].Get(key)
	if !ok {
		unmatchedResponse(p, c, key, lastOfResponder)
		return
	}
	p.pending[requester].remove(key, req)
	p.answered[requester] = p.answered[requester].Set(key, c.line())
	if m.Kind == domain.KindError && m.Error != nil {
		c.runResponseHooks(p, c.d.errorAnswer, req)
		checkErrorCode(p, c, req)
	}
	runResponseChecks(p, c, req)
}

// unmatchedResponse judges a response, with id key, that answers no
// request pending from its requester; lastOfResponder is the line of the
// responder's message before it.
func unmatchedResponse(p *Phase, c *ctx, key string, lastOfResponder int) {
	m := c.m
	requester := m.Dir.Opposite()
	if parseFailureReply(m) {
		return // the allowed answer to a line that could not be read
	}
	if line, done := p.answered[requester].Get(key); done {
		f := c.add(findings.RPCUnknownResponseID, "/id", "second response to request id %s, which was already answered; the %s drops or misroutes it", m.ID, requester)
		c.related(f, line, "the first response")
		return
	}
	if p.pending[requester].cutLine > 0 {
		return // it may answer a request the machine dropped (dropOldest)
	}
	if _, theirs := p.pending[m.Dir].Get(key); theirs {
		c.add(findings.RPCUnknownResponseID, "/id", "response id %s matches a request the %s sent itself, not one from the %s; the %s cannot correlate it", m.ID, m.Dir, requester, requester)
	} else {
		c.add(findings.RPCUnknownResponseID, "/id", "response id %s matches no pending %s request%s; the %s cannot correlate it", m.ID, requester, pendingHint(p, requester), requester)
	}
	// noteSent changed only the responder's latest message.
	if last := p.rpc.last[requester]; last.Kind == domain.KindNotification && lastOfResponder < last.Line {
		// The responder's first message after the notification.
		answersNotification(c, last)
	}
}

// unattributedResponse handles a response whose sender the driver could
// not establish: either its id is pending on both sides (the driver then
// reported ACP-LINT-001 and nothing more can be checked) or on neither, in
// which case it correlates with nothing whoever sent it.
func unattributedResponse(p *Phase, c *ctx) {
	m := c.m
	key := m.ID.Key()
	_, byClient := p.pending[domain.FromClient].Get(key)
	_, byAgent := p.pending[domain.FromAgent].Get(key)
	if byClient || byAgent {
		return
	}
	if _, ok := p.pending[domain.DirUnknown].Get(key); ok {
		p.pending[domain.DirUnknown].Delete(key)
		p.answered[domain.DirUnknown] = p.answered[domain.DirUnknown].Set(key, c.line())
		return
	}
	if parseFailureReply(m) {
		return
	}
	for _, side := range []domain.Direction{domain.FromClient, domain.FromAgent, domain.DirUnknown} {
		if p.pending[side].cutLine > 0 {
			return // it may answer a request the machine dropped (dropOldest)
		}
	}
	for _, side := range []domain.Direction{domain.FromClient, domain.FromAgent, domain.DirUnknown} {
		if line, done := p.answered[side].Get(key); done {
			f := c.add(findings.RPCUnknownResponseID, "/id", "second response to request id %s, which was already answered", m.ID)
			c.related(f, line, "the first response")
			return
		}
	}
	prev := p.rpc.prev
	f := c.add(findings.RPCUnknownResponseID, "/id", "response id %s matches no pending request of either side; no peer can correlate it", m.ID)
	if prev.Kind == domain.KindNotification && prev.Dir != domain.DirUnknown {
		// It follows a notification: most likely the other side answered it.
		setBlame(f, prev.Dir.Opposite())
		answersNotification(c, prev)
	}
}

// answersNotification reports ACP-RPC-006 for a response that follows the
// notification n and correlates with nothing.
func answersNotification(c *ctx, n sentMessage) {
	f := c.add(findings.RPCResponseToNotification, "/id", "this response follows the %s notification, which has no id and must never be answered; the %s has nothing to match it with", n.Method, n.Dir)
	c.related(f, n.Line, "the %s notification", n.Method)
	if c.m.Dir == domain.DirUnknown {
		setBlame(f, n.Dir.Opposite())
	}
}

// parseFailureReply reports whether m is the error with "id": null that
// JSON-RPC prescribes for a line the receiver could not read (-32700) or
// that was not a valid request (-32600).
func parseFailureReply(m *domain.Message) bool {
	if m.Kind != domain.KindError || m.ID.Kind() != domain.IDNull || m.Error == nil {
		return false
	}
	code := domain.ErrorCode(m.Error.Code)
	return code == domain.CodeParseError || code == domain.CodeInvalidRequest
}

func pendingHint(p *Phase, sender domain.Direction) string {
	pending := &p.pending[sender]
	if pending.Len() == 0 {
		return " (none is pending)"
	}
	// The ids as their requests spelled them: the map's keys are the
	// canonical forms (domain.RequestID.Key). A sixth says there are more.
	var ids []string
	for _, req := range pending.lowest(6) {
		if len(ids) == 5 {
			ids = append(ids, "…")
			break
		}
		ids = append(ids, req.ID.String())
	}
	return " (pending ids: " + strings.Join(ids, ", ") + ")"
}

// checkErrorObject applies the rules about any error object, whether or
// not its request is known (ACP-RPC-008, ACP-RPC-009).
func checkErrorObject(c *ctx) {
	e := c.m.Error
	code := domain.ErrorCode(e.Code)
	switch {
	case c.lacksErrorMessage():
		// The codec's ACP-RPC-007 says it already.
	case strings.TrimSpace(e.Message) == "":
		c.add(findings.RPCErrorMessage, "/error/message", "error message is empty; clients show it to the user, so say in one sentence what failed")
	case strings.ContainsAny(e.Message, "\n\r"):
		c.add(findings.RPCErrorMessage, "/error/message", "error message spans %d lines; it should be one concise sentence, with details such as stack traces in error.data", strings.Count(strings.ReplaceAll(e.Message, "\r\n", "\n"), "\n")+1)
	}
	if code.Reserved() && code.Name() == "" {
		c.add(findings.RPCReservedCode, "/error/code", "error code %d lies in the range JSON-RPC and ACP reserve (-32768 to -32000) but ACP does not define it; a future version may give it another meaning, so use a code outside that range", e.Code)
	}
}

// notFoundText matches error messages that say the method is unknown.
var notFoundText = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)((unknown|unrecogni[sz]ed|unsupported|unhandled|unimplemented|invalid) (method|request|extension|notification))|(method|handler)[^.]*\bnot (found|implemented|supported|available)|no (such )?(method|handler)|not implemented`)
})

// refusesAsUnknown reports whether an error answer says "I do not know this
// method" with a code other than -32601: either its message says so, or it
// uses -32600 for a well-formed request on a ready connection (where
// -32600 cannot mean "not initialized yet").
func refusesAsUnknown(p *Phase, e *domain.Error) bool {
	code := domain.ErrorCode(e.Code)
	if code == domain.CodeMethodNotFound {
		return false
	}
	return notFoundText().MatchString(e.Message) || (code == domain.CodeInvalidRequest && p.Conn == ConnReady)
}

// checkErrorCode applies the rules about which code an error answer to req
// should carry; the extension and $/ methods are the extn check's
// (checkExtensionErrorCode).
func checkErrorCode(p *Phase, c *ctx, req Pending) {
	e := c.m.Error
	code := domain.ErrorCode(e.Code)
	cancelled := code == domain.CodeRequestCancelled && (req.CancelLine > 0 || cancelCascade(p, req))
	_, known := c.ev.Methods.Lookup(req.Method)
	switch {
	case req.Method.IsExtension(), req.Method.IsProtocolLevel() && !known:
		// checkExtensionErrorCode's (extn.go)
	case !known && !c.isUnstable(req.Method):
		if code != domain.CodeMethodNotFound && !cancelled && !(code == domain.CodeInvalidRequest && p.Conn != ConnReady) {
			c.add(findings.RPCMethodNotFoundCode, "/error/code", "%s is not an ACP v1 method, yet it is answered with %d; the code for a method the receiver lacks is -32601", req.Method, e.Code)
		}
	case known:
		if gate, advertised := capabilityFor(p, req.Method); gate != "" && advertised && code == domain.CodeMethodNotFound {
			f := c.add(findings.CAPAdvertisedNotFound, "/error/code", "%s is refused with -32601 (Method not found) although the %s advertised the %s capability, which promises the method", req.Method, c.m.Dir, gate)
			c.related(f, req.Line, "the %s request", req.Method)
		} else if gate != "" && !advertised &&
			code != domain.CodeMethodNotFound && !cancelled && !(code == domain.CodeInvalidRequest && p.Conn != ConnReady) {
			c.add(findings.RPCMethodNotFoundCode, "/error/code", "%s needs the %s capability, which the %s did not advertise, yet it is answered with %d; an unadvertised method gets -32601 so the caller knows it is unsupported", req.Method, gate, c.m.Dir, e.Code)
		} else if why := invalidParams(p, req); why != "" && code != domain.CodeInvalidParams &&
			code != domain.CodeMethodNotFound && !cancelled {
			f := c.add(findings.RPCInvalidParamsCode, "/error/code", "the %s request %s, yet it is refused with %d instead of -32602 (Invalid params); the caller cannot tell its own mistake from a failure of the %s", req.Method, why, e.Code, c.m.Dir)
			setBlame(f, c.m.Dir)
			c.related(f, req.Line, "the %s request", req.Method)
		}
	}
	if code == domain.CodeRequestCancelled && req.CancelLine == 0 && !cancelCascade(p, req) {
		c.add(findings.CXLUnexpectedCancelledCode, "/error/code", "%s is answered with -32800 although no $/cancel_request or session/cancel covered it", req.Method)
	}
}

// invalidParams says why req's params are invalid for the receiver, or ""
// when acplint knows of nothing wrong with them.
func invalidParams(p *Phase, req Pending) string {
	if req.ParamsInvalid {
		return "has params that break its schema"
	}
	switch params := req.Params.(type) {
	case *domain.SetSessionModeRequest:
		if params == nil {
			return ""
		}
		s, ok := p.Session(params.SessionID)
		if !ok || s.Modes == nil || s.hasMode(params.ModeID) {
			return ""
		}
		return "names mode " + quote(string(params.ModeID)) + ", which is not among the session's availableModes"
	case *domain.SetSessionConfigOptionRequest:
		if params == nil {
			return ""
		}
		s, ok := p.Session(params.SessionID)
		if !ok || s.ConfigOptions == nil {
			return ""
		}
		if _, known := s.configOption(params.ConfigID); known {
			return ""
		}
		return "names config option " + quote(string(params.ConfigID)) + ", which the session does not have"
	}
	return ""
}

func quote(s string) string { return `"` + s + `"` }

// capabilityFor returns the capability that gates method m and whether its
// receiver advertised it; gate is "" for ungated methods and when the
// capabilities are not known (no initialize was seen).
func capabilityFor(p *Phase, m domain.Method) (gate string, advertised bool) {
	a, cl := p.AgentCaps, p.ClientCaps
	switch m {
	case domain.MethodSessionLoad:
		if a == nil {
			return "", false
		}
		return "loadSession", a.LoadSession.Or(false)
	case domain.MethodSessionList, domain.MethodSessionDelete, domain.MethodSessionResume, domain.MethodSessionClose:
		if a == nil {
			return "", false
		}
		sc, _ := a.SessionCapabilities.Get()
		switch m {
		case domain.MethodSessionList:
			return "sessionCapabilities.list", sc.List.IsSet()
		case domain.MethodSessionDelete:
			return "sessionCapabilities.delete", sc.Delete.IsSet()
		case domain.MethodSessionResume:
			return "sessionCapabilities.resume", sc.Resume.IsSet()
		default:
			return "sessionCapabilities.close", sc.Close.IsSet()
		}
	case domain.MethodLogout:
		if a == nil {
			return "", false
		}
		auth, _ := a.Auth.Get()
		return "auth.logout", auth.Logout.IsSet()
	case domain.MethodFSReadTextFile, domain.MethodFSWriteTextFile:
		if cl == nil {
			return "", false
		}
		fs, _ := cl.FS.Get()
		if m == domain.MethodFSReadTextFile {
			return "fs.readTextFile", fs.ReadTextFile.Or(false)
		}
		return "fs.writeTextFile", fs.WriteTextFile.Or(false)
	case domain.MethodTerminalCreate, domain.MethodTerminalOutput, domain.MethodTerminalRelease,
		domain.MethodTerminalWaitForExit, domain.MethodTerminalKill:
		if cl == nil {
			return "", false
		}
		return "terminal", cl.Terminal.Or(false)
	case domain.MethodElicitationCreate:
		if cl == nil {
			return "", false
		}
		return "elicitation", cl.Elicitation.IsSet()
	}
	return "", false
}

// cancelCascade reports whether req belongs to a session whose turn the
// client cancelled, or may have: a session the machine dropped
// (makeRoomForSession) is not known not to have been.
func cancelCascade(p *Phase, req Pending) bool {
	if req.Session == "" {
		return false
	}
	s, ok := p.Session(req.Session)
	if !ok {
		return p.sessionsCut()
	}
	return s.CancelLine > 0
}

// inIDOrder returns the requests of pending in the order of their ids'
// keys, as domain.IDKeyOrder has them, for the findings that list them.
func inIDOrder(pending Map[string, Pending]) []Pending {
	type keyed struct {
		order string
		req   Pending
	}
	var reqs []keyed
	for k, req := range pending.All() {
		reqs = append(reqs, keyed{domain.IDKeyOrder(k), req})
	}
	slices.SortFunc(reqs, func(a, b keyed) int { return strings.Compare(a.order, b.order) })
	out := make([]Pending, len(reqs))
	for i, r := range reqs {
		out[i] = r.req
	}
	return out
}

func finish(p *Phase, c *ctx) {
	ev := c.ev
	for _, dir := range []domain.Direction{domain.FromClient, domain.FromAgent, domain.DirUnknown} {
		for _, req := range inIDOrder(p.pending[dir].reqs) {
			at := findings.Location{File: ev.Loc.File, Line: req.Line}
			id := req.ID.String() // as spelled; the map's key is canonical
			switch {
			case req.CancelLine > 0:
				f := c.addAt(findings.CXLCancelledUnanswered, at, "%s request %s was cancelled with $/cancel_request but never answered; the receiver must still answer it", req.Method, id)
				if ev.Truncated {
					f.Severity = findings.SeverityWarning
					f.Message += " (the transcript may be truncated)"
				}
				setBlame(f, dir.Opposite())
			case req.Method.IsExtension() && !ev.Truncated:
				f := c.addAt(findings.EXTNUnansweredExtension, at, "extension request %s (id %s) never gets a response; a receiver that does not know it must still answer, with -32601", req.Method, id)
				setBlame(f, dir.Opposite())
			default:
				from := "the " + dir.String()
				if dir == domain.DirUnknown {
					from = "an unknown side"
				}
				f := c.addAt(findings.RPCUnanswered, at, "%s request (id %s) from %s is never answered", req.Method, id, from)
				if ev.Truncated {
					f.Severity = findings.SeverityWarning
					f.Message += "; the transcript ends first (it may be truncated, so the answer may just be missing from the recording)"
				} else {
					f.Severity = findings.SeverityError
					f.Message += " although the connection closed cleanly; the caller waits forever"
				}
				setBlame(f, dir.Opposite())
			}
		}
	}
	for _, h := range c.d.end {
		c.check = h.check
		h.run(p, c)
	}
	c.check = c.d.framing
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
	if n, ok := params.(*domain.SessionNotification); ok {
		// Most messages of a transcript: spare them the reflection.
		if n == nil {
			return ""
		}
		return n.SessionID
	}
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
	index, ok := sessionIDField(v.Type())
	if !ok {
		return ""
	}
	// String, not Interface: boxing the id would allocate on every message.
	return domain.SessionID(v.FieldByIndex(index).String())
}

// sessionIDFields caches, per params type, the index of its SessionID
// field (nil when it has none), sparing a search by name per message.
var sessionIDFields sync.Map // reflect.Type -> []int

func sessionIDField(t reflect.Type) ([]int, bool) {
	if index, ok := sessionIDFields.Load(t); ok {
		return index.([]int), index.([]int) != nil
	}
	var index []int
	if f, ok := t.FieldByName("SessionID"); ok && f.Type == reflect.TypeFor[domain.SessionID]() {
		index = f.Index
	}
	sessionIDFields.Store(t, index)
	return index, index != nil
}

// The JSON-RPC envelope (codec problems): its version (ACP-RPC-002), its
// shape (ACP-RPC-001), ids (ACP-RPC-005) and error objects (ACP-RPC-007).

func jsonrpcProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.RPCVersion, pr.Pointer, "%s; peers that check it reject the message", pr.Detail)
}

func envelopeProblem(p *Phase, c *ctx, pr problem) {
	switch {
	case pr.Kind == domain.ProbNotObject && pr.Pointer == "":
		// A JSON value that is not an object: the line holds no message.
		c.add(findings.RPCNoEnvelope, pr.Pointer, "%s; receivers answer -32600 (Invalid request) or drop it", pr.Detail)
	case !echoedNullID(p, c, pr):
		c.add(findings.RPCNoEnvelope, pr.Pointer, "%s; the receiver cannot route it and answers -32600 (Invalid request) or drops it", pr.Detail)
	}
}

// echoedNullID reports an envelope problem that the context shows is
// none. The codec flags every successful response with "id": null, but
// when the request itself had a null id (ACP-RPC-005), echoing it is what
// JSON-RPC prescribes; the mistake is the request's alone.
func echoedNullID(p *Phase, c *ctx, pr problem) bool {
	m := c.m
	if pr.Kind != domain.ProbEnvelope || m.Kind != domain.KindResult || m.ID.Kind() != domain.IDNull ||
		!strings.HasSuffix(pr.Pointer, "/id") || m.Dir == domain.DirUnknown {
		return false
	}
	_, echoed := p.Pending(m.Dir.Opposite(), m.ID)
	return echoed
}

// envelopeMemberProblem reports a member JSON-RPC does not define.
func envelopeMemberProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.RPCNoEnvelope, pr.Pointer, "%s; JSON-RPC messages have only jsonrpc, id, method, params, result and error", pr.Detail)
}

// envelopeDuplicateProblem reports an envelope member that appears twice.
func envelopeDuplicateProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.RPCNoEnvelope, pr.Pointer, "%s; receivers disagree on which copy wins, so the message is ambiguous", pr.Detail)
}

func idProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.RPCIDShape, pr.Pointer, "%s; JSON-RPC says ids should be strings or integers", pr.Detail)
}

func errorObjectProblem(p *Phase, c *ctx, pr problem) {
	detail := pr.Detail
	if !strings.HasPrefix(detail, `"error"`) {
		detail = "error object: " + detail
	}
	switch {
	case strings.HasSuffix(pr.Pointer, "/error/code"):
		detail += "; receivers branch on the integer code (auth required, not found, cancelled), so they cannot tell what failed"
	case strings.HasSuffix(pr.Pointer, "/error/message"):
		detail += "; clients have no text to show the user"
	default:
		detail += "; receivers cannot read the failure"
	}
	c.add(findings.RPCMalformedError, pr.Pointer, "%s", detail)
}

// lacksErrorMessage reports whether the codec found the current error
// object without a message (ACP-RPC-007): checkErrorObject's empty-message
// finding (ACP-RPC-008) would only repeat it.
func (c *ctx) lacksErrorMessage() bool {
	for _, p := range c.ev.Problems {
		if p.Kind == domain.ProbErrorObject && strings.HasSuffix(p.Pointer, "/error/message") {
			return true
		}
	}
	return false
}
