package protocol

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sync"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/internal/jsonv"
)

// Session setup parameters and lifecycle methods (ACP-SES-*). Missing
// mcpServers in session/new and session/load (ACP-SES-002), malformed MCP
// server entries (ACP-SES-005), a tagged stdio server (ACP-SES-006), a
// session/list result without sessions (ACP-SES-009) and identity fields in
// session_info_update (ACP-SES-012) are codec problems, taken by the
// OnProblem hooks at the end of this file. The other checks here need the
// connection's state or look at values the schema cannot judge, such as
// whether a path is absolute.

// lifecycleState is the bookkeeping of the connection and session
// lifecycle checks: ordering (seq.go), authentication (auth.go), session
// setup (session.go) and session identity (sid.go).
type lifecycleState struct {
	seq  seqState
	auth authState
	ses  sesState
	sid  sidState
}

// sesState is the bookkeeping of the SES checks.
type sesState struct {
	// listed maps the sessions session/list reported to the line of that
	// result: they exist and, being listed, have a conversation to replay.
	// It holds at most MaxKeptEntries (keepListed); cutLine is the latest
	// result that listed more, and cutEntry its first session not kept.
	listed            Map[domain.SessionID, int]
	cutLine, cutEntry int
	// cursorsCut is the first session/list result whose nextCursor the
	// machine did not keep (Phase.ListCursors holds MaxKeptEntries), 0
	// when none: from there on, a cursor it does not know is not judged.
	cursorsCut int
	// historyAt is the latest line that showed a session carries a
	// conversation: a prompt, or a load that replayed history.
	historyAt Map[domain.SessionID, int]
	// closing maps a session to the session/close sent while one of its
	// prompts was pending: that prompt must end cancelled (ACP-SES-011).
	closing Map[domain.SessionID, int]
}

// checkSessionSetupParams judges the parameters of session/new,
// session/load and session/resume: absolute cwd (ACP-SES-001) and
// additional directories (ACP-SES-003), absolute stdio MCP commands
// (ACP-SES-007), mcpServers on resume (ACP-SES-002) and an unchanged cwd
// when a known session is reopened (ACP-SES-008).
func checkSessionSetupParams(p *Phase, c *ctx) {
	if c.m.Dir != domain.FromClient {
		return
	}
	open, ok := openParamsOf(c.m.Params)
	if !ok {
		return
	}
	dirs, servers, id := open.Dirs, open.Servers, open.ID
	if req, resume := c.m.Params.(*domain.ResumeSessionRequest); resume && req.McpServers.State == domain.Absent {
		c.add(findings.SESMissingMcpServers, "/params",
			`session/resume params lack "mcpServers"; the schema makes it optional, but the session setup docs list the MCP servers among what a resume must pass, so the resumed session may run without the user's MCP servers (send [] when there are none)`).Severity = findings.SeverityWarning
	}
	// The params are parsed once: a lookup per directory or server that
	// parsed them again would make one line with n directories cost n
	// times its length.
	wire, _ := jsonv.Parse(c.m.RawParams)
	cwd, cwdOK := stringAt(&wire, "cwd")
	if cwdOK && !isAbsoluteFilePath(cwd) {
		c.add(findings.SESRelativeCwd, "/params/cwd",
			"%s cwd %q is not an absolute path; the agent runs in its own process, so it would resolve the path against its own working directory instead of the user's project", c.m.Method, cwd)
	}
	list, _ := dirs.Get()
	wireDirs := elemsAt(&wire, "additionalDirectories")
	for i := range min(len(list), len(wireDirs)) {
		if d, ok := stringAt(&wireDirs[i], ""); ok && !isAbsoluteFilePath(d) {
			c.add(findings.SESRelativeAdditionalDirectory, fmt.Sprintf("/params/additionalDirectories/%d", i),
				"%s additional directory %q is not an absolute path; the agent cannot tell what it is relative to, so the workspace root it grants lands in the wrong place", c.m.Method, d)
		}
	}
	wireServers := elemsAt(&wire, "mcpServers")
	for i, s := range servers {
		stdio, ok := s.(domain.McpServerStdio)
		if !ok || i >= len(wireServers) {
			continue
		}
		if cmd, ok := stringAt(&wireServers[i], "command"); !ok || cmd == "" || isAbsoluteFilePath(cmd) {
			continue
		}
		c.add(findings.SESRelativeMcpCommand, fmt.Sprintf("/params/mcpServers/%d/command", i),
			"MCP server %q is started with command %q, which is not an absolute path; the agent looks it up on its own PATH, which may differ from the editor's, so the server may fail to start", stdio.Name, stdio.Command)
	}
	if id != "" {
		if known, ok := p.KnownCwd.Get(id); ok && known != "" && cwdOK && cwd != "" && !p.isKnownCwd(id, cwd) {
			c.add(findings.SESCwdMismatch, "/params/cwd",
				"%s of session %q uses cwd %q, but the session's cwd is %q; the directories may change on reopening but the cwd must match, or file references and tool history of the session point into another tree", c.m.Method, id, cwd, clipListed(known))
		}
	}
}

// wireString returns the string at pointer ptr of raw params or result.
// ok is false when the value is absent or not a string: a schema problem
// the codec reports, whose typed value would wrongly read as "".
func wireString(raw json.RawMessage, ptr string) (string, bool) {
	root, err := jsonv.Parse(raw)
	if err != nil {
		return "", false
	}
	v, ok := root.Lookup(ptr)
	if !ok || v.Kind != jsonv.String {
		return "", false
	}
	return v.Str(), true
}

// stringAt returns the string of v's member key, or of v itself when key
// is ""; ok is false when it is absent or not a string, as for wireString.
func stringAt(v *jsonv.Value, key string) (string, bool) {
	if key != "" {
		var ok bool
		if v, ok = v.Get(key); !ok {
			return "", false
		}
	}
	if v.Kind != jsonv.String {
		return "", false
	}
	return v.Str(), true
}

// elemsAt returns the elements of v's member key, nil when it is absent or
// not an array.
func elemsAt(v *jsonv.Value, key string) []jsonv.Value {
	if e, ok := v.Get(key); ok {
		return e.Elems()
	}
	return nil
}

// setKnownCwd records cwd as the cwd of session id.
func (p *Phase) setKnownCwd(id domain.SessionID, cwd string) {
	p.KnownCwd = p.KnownCwd.Set(id, cwd)
	if isAbsoluteFilePath(cwd) {
		p.cleanKnownCwd = p.cleanKnownCwd.Set(id, cleanFilePath(cwd))
	} else {
		p.cleanKnownCwd = p.cleanKnownCwd.Delete(id)
	}
}

// isKnownCwd reports whether cwd is the known cwd of session id, compared
// the way a file system would see them when both are absolute (ignoring
// trailing slashes and "." segments), as written otherwise.
func (p *Phase) isKnownCwd(id domain.SessionID, cwd string) bool {
	if clean, ok := p.cleanKnownCwd.Get(id); ok && isAbsoluteFilePath(cwd) {
		return clean == cleanFilePath(cwd)
	}
	known, _ := p.KnownCwd.Get(id)
	return known == cwd
}

// checkListRequest judges the session/list filter (ACP-SES-001) and the
// cursor (ACP-SES-010).
func checkListRequest(p *Phase, c *ctx) {
	req, ok := paramsOf[domain.ListSessionsRequest](c.m)
	if !ok || c.m.Dir != domain.FromClient {
		return
	}
	if cwd, ok := wireString(c.m.RawParams, "/cwd"); ok && req.Cwd.IsSet() && !isAbsoluteFilePath(cwd) {
		c.add(findings.SESRelativeCwd, "/params/cwd",
			"session/list filters by cwd %q, which is not an absolute path; session cwds are absolute, so the filter can never match as meant", cwd)
	}
	if cursor, ok := req.Cursor.Get(); ok {
		if _, returned := p.ListCursors.Get(cursor); !returned && p.life.ses.cursorsCut == 0 {
			c.add(findings.SESForeignCursor, "/params/cursor",
				"session/list cursor %q was not returned as nextCursor earlier in this transcript; cursors are opaque tokens that clients must not build, modify or persist, and an agent may reject a stale one", cursor)
		}
	}
}

// notFoundSessionText matches error messages saying there is no such
// session (or no session matching a list filter).
var notFoundSessionText = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)not found|no such session|unknown session|does not exist|doesn't exist|no (matching )?sessions?\b`)
})

// sessionNotFound reports whether error e says the session does not exist.
// -32601 never does: its standard message "Method not found" is about the
// method (unadvertised or unimplemented, ACP-RPC-010), not the session.
func sessionNotFound(e *domain.Error) bool {
	code := domain.ErrorCode(e.Code)
	if code == domain.CodeMethodNotFound {
		return false
	}
	return code == domain.CodeResourceNotFound || notFoundSessionText().MatchString(e.Message)
}

// checkListResult judges a session/list answer: paths in the entries
// (ACP-SES-004), an error for a filter that matched nothing (ACP-SES-009),
// and records the listed sessions, their cwd and the next cursor.
func checkListResult(p *Phase, c *ctx, req Pending) {
	if c.m.Dir != domain.FromAgent {
		return
	}
	if !c.succeeded() {
		if e := c.m.Error; e != nil && sessionNotFound(e) {
			f := c.add(findings.SESListMissingSessions, "/error",
				"session/list is refused with error %d (%q) for a query that matched nothing; when no session matches, the agent must return an empty sessions array", e.Code, e.Message)
			c.related(f, req.Line, "the session/list")
		}
		return
	}
	// The wire form is walked rather than the typed sessions: receivers
	// skip invalid entries, and members of the wrong type are the codec's.
	root, err := jsonv.Parse(c.m.RawResult)
	if err != nil {
		return
	}
	sessions, ok := root.Get("sessions")
	if !ok || sessions.Kind != jsonv.Array {
		return // ACP-SES-009, from the codec
	}
	entries := sessions.Elems()
	for i := range entries {
		entry := &entries[i]
		id, _ := stringMember(entry, "sessionId")
		cwd, hasCwd := stringMember(entry, "cwd")
		if hasCwd && !isAbsoluteFilePath(cwd) {
			c.add(findings.SESListRelativePath, fmt.Sprintf("/result/sessions/%d/cwd", i),
				"session/list reports session %q with cwd %q, which is not an absolute path; clients pass it back in session/load, where a relative cwd is an error", id, cwd)
		}
		if dirs, ok := entry.Get("additionalDirectories"); ok && dirs.Kind == jsonv.Array {
			for j, d := range dirs.Elems() {
				if d.Kind == jsonv.String && !isAbsoluteFilePath(d.Str()) {
					c.add(findings.SESListRelativePath, fmt.Sprintf("/result/sessions/%d/additionalDirectories/%d", i, j),
						"session/list reports session %q with additional directory %q, which is not an absolute path; clients pass it back when they reopen the session, where it must be absolute", id, d.Str())
				}
			}
		}
		if id == "" {
			continue
		}
		if !keepListed(p, c, domain.SessionID(id), i) {
			continue
		}
		p.life.ses.listed = p.life.ses.listed.Set(domain.SessionID(id), c.line())
		if hasCwd && cwd != "" {
			p.setKnownCwd(domain.SessionID(id), cwd)
		}
	}
	if next, ok := root.Get("nextCursor"); ok && next.Kind == jsonv.String {
		// Every page returns a cursor: the machine keeps MaxKeptEntries of
		// them, and judges no cursor once it dropped one.
		if p.ListCursors.Len() < MaxKeptEntries || p.ListCursors.Has(next.Str()) {
			p.ListCursors = p.ListCursors.Set(next.Str(), c.line())
		} else if ses := &p.life.ses; ses.cursorsCut == 0 {
			ses.cursorsCut = c.line()
		}
	}
}

// stringMember returns member name of object v when it is a string.
func stringMember(v *jsonv.Value, name string) (string, bool) {
	if v.Kind != jsonv.Object {
		return "", false
	}
	m, ok := v.Get(name)
	if !ok || m.Kind != jsonv.String {
		return "", false
	}
	return m.Str(), true
}

// notePromptHistory records that the session now carries a conversation.
func notePromptHistory(p *Phase, c *ctx) {
	if c.m.Dir != domain.FromClient {
		return
	}
	if id := c.sessionID(); id != "" {
		if _, ok := p.ActiveSession(id); ok {
			store(p, &p.life.ses.historyAt, id, c.line())
		}
	}
}

// noteCloseDuringTurn records a session/close that arrives while a prompt
// of the session is pending and not yet cancelled, the case in which
// core.go makes the close the turn's cancel.
func noteCloseDuringTurn(p *Phase, c *ctx) {
	if c.m.Dir != domain.FromClient {
		return
	}
	id := c.sessionID()
	s, ok := p.ActiveSession(id)
	if !ok || s.PromptKey == "" || s.CancelLine > 0 {
		return
	}
	p.life.ses.closing = p.life.ses.closing.Set(id, c.line())
}

// closeAnswered forgets a refused close: the session stays open, and its
// turn may end as it likes.
func closeAnswered(p *Phase, c *ctx, req Pending) {
	if !c.succeeded() {
		if line, ok := p.life.ses.closing.Get(req.Session); ok && line == req.Line {
			p.life.ses.closing = p.life.ses.closing.Delete(req.Session)
		}
	}
}

// checkTurnEndAfterClose judges the end of a turn that session/close
// interrupted: closing cancels ongoing work as session/cancel would, so
// the prompt must end with stopReason "cancelled" (ACP-SES-011).
func checkTurnEndAfterClose(p *Phase, c *ctx, req Pending) {
	closeLine, ok := p.life.ses.closing.Get(req.Session)
	if !ok {
		return
	}
	s, known := p.Session(req.Session)
	if !known || s.PromptKey != req.ID.Key() {
		return
	}
	p.life.ses.closing = p.life.ses.closing.Delete(req.Session)
	if s.CancelLine != closeLine || c.m.Dir != domain.FromAgent {
		return
	}
	var ended, at string
	if c.succeeded() {
		res, ok := resultOf[domain.PromptResponse](c.m)
		if !ok || res.StopReason == domain.StopCancelled || !knownStopReason(res.StopReason) {
			return // an unknown stop reason is ACP-TURN-001's
		}
		ended, at = fmt.Sprintf("ends with stopReason %q", res.StopReason), "/result/stopReason"
	} else if c.m.Error != nil {
		ended, at = fmt.Sprintf("fails with error %d", c.m.Error.Code), "/error"
	} else {
		return
	}
	var f *findings.ValidationFinding
	if p.LastAgentLine < closeLine && !cancelRead(p, req.Session, closeLine) {
		// Nothing came from the agent since the close: it most likely
		// wrote this response before it read the close.
		f = c.add(findings.SESCloseDoesNotCancel, at,
			"session/prompt %s although the client closed the session at line %d; it is the agent's first message since the close, so it was most likely written before the close arrived (a race, not a violation)", ended, closeLine)
		f.Severity = findings.SeverityInfo
	} else {
		f = c.add(findings.SESCloseDoesNotCancel, at,
			"session/prompt %s although the client closed the session at line %d while this turn ran; closing must cancel ongoing work as session/cancel does, so the turn should end with stopReason \"cancelled\"", ended, closeLine)
	}
	c.related(f, closeLine, "the session/close")
}

// The shapes of session setup and session/list (codec problems):
// mcpServers missing (ACP-SES-002), MCP server entries (ACP-SES-005,
// ACP-SES-006), a session/list result without sessions (ACP-SES-009) and
// identity fields in session_info_update (ACP-SES-012).

func missingMcpServersProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.SESMissingMcpServers, pr.Pointer, "%s", pr.withDrop(fmt.Sprintf(`%s params lack required "mcpServers"; send [] when there are no MCP servers (SDK-based agents answer -32602 Invalid params)`, c.m.Method)))
}

func listWithoutSessionsProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.SESListMissingSessions, pr.Pointer, "%s", pr.withDrop(fmt.Sprintf("session/list result: %s; the result always carries a sessions array, empty when nothing matches", pr.Detail)))
}

func mcpServerProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.SESMcpServerShape, pr.Pointer, "%s", pr.withDrop("MCP server entry: "+pr.Detail))
}

func stdioTypeProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.SESStdioType, pr.Pointer, `stdio MCP server carries "type"; v1 stdio servers are untagged, and receivers accept it only by tolerance`)
}

func infoUpdateFieldProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.SESInfoUpdateFields, pr.Pointer, "session_info_update carries %q; the update names only title and updatedAt, the session is named by the notification", pr.Member)
}
