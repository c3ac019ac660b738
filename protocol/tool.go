package protocol

import (
	"fmt"
	"path"
	"strings"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
)

// toolState is the bookkeeping of the TOOL checks that Session.ToolCalls
// does not hold.
type toolState struct {
	// inline holds the tool calls that only a permission request
	// introduced (key: toolCallKey), with its line. Clients show such a
	// call from the request's details, so later updates to it are fine and
	// a tool_call that reports it properly afterwards is no duplicate.
	inline Map[string, int]
}

func toolCallKey(s domain.SessionID, id domain.ToolCallID) string {
	return string(s) + "\x00" + string(id)
}

// checkToolUpdate applies the tool call rules to tool_call and
// tool_call_update, and keeps Session.ToolCalls and OpenToolCalls.
func checkToolUpdate(p *Phase, c *ctx) {
	n, ok := paramsOf[domain.SessionNotification](c.m)
	if !ok || c.m.Dir == domain.FromClient {
		return
	}
	s, ok := p.Session(n.SessionID)
	if !ok || s.done() {
		return
	}
	switch u := n.Update.(type) {
	case domain.ToolCall:
		toolCallCreated(p, c, s, u)
	case domain.ToolCallUpdate:
		toolCallUpdated(p, c, s, u)
	}
}

func toolCallCreated(p *Phase, c *ctx, s *Session, u domain.ToolCall) {
	var key string
	inline := false
	if p.flow.tool.inline.Len() > 0 { // spares building the key, usually
		key = toolCallKey(s.ID, u.ToolCallID)
		_, inline = p.flow.tool.inline.Get(key)
	}
	if old, dup := s.ToolCalls.Get(u.ToolCallID); dup && !inline {
		f := c.add(findings.TOOLDuplicateID, "/params/update/toolCallId",
			"tool_call reuses toolCallId %q, which the session already used; toolCallIds are unique within a session, so the client overwrites the earlier call and later updates become ambiguous", u.ToolCallID)
		c.related(f, old.Line, "the first tool_call with this id")
	}
	if inline {
		p.flow.tool.inline = p.flow.tool.inline.Delete(key)
	}
	content, _ := u.Content.Get()
	locations, _ := u.Locations.Get()
	checkToolCallBody(p, c, s, "/params/update", content, locations)
	status := u.Status.Or(domain.ToolCallPending)
	name, hasName := u.Name.Get()
	call := ToolCall{Line: c.line(), Turn: s.Turn, Status: status, Name: name, HasName: hasName}
	p.withSession(s.ID, func(s *Session) {
		s.ToolCalls = s.ToolCalls.Set(u.ToolCallID, call)
		if s.PromptKey != "" && !finished(status) {
			s.OpenToolCalls = s.OpenToolCalls.Set(u.ToolCallID, c.line())
		}
	})
	p.noteItem(s.ID, itemToolCall, string(u.ToolCallID), call.Line)
}

func toolCallUpdated(p *Phase, c *ctx, s *Session, u domain.ToolCallUpdate) {
	call, known := s.ToolCalls.Get(u.ToolCallID)
	// A running turn's call the machine dropped (forgetItems) may be the
	// one named: not judged.
	if !known && s.itemsCut&(1<<itemToolCall) == 0 {
		c.add(findings.TOOLUpdateUnknown, "/params/update/toolCallId",
			"tool_call_update names toolCallId %q, which no tool_call of this session introduced; in v1 an update changes an existing call (only v2 lets the first update create it), so v1 clients drop it or show a call without a title", u.ToolCallID)
	}
	if !known {
		// Take the update as the call's first report, as a v2 client
		// would, so its later updates are judged normally.
		call = ToolCall{Line: c.line(), Turn: s.Turn, Status: domain.ToolCallPending}
	}
	content, _ := u.Content.Get()
	locations, _ := u.Locations.Get()
	checkToolCallBody(p, c, s, "/params/update", content, locations)
	if status, ok := u.Status.Get(); ok {
		if known && finished(call.Status) && !finished(status) && validStatus(status) {
			f := c.add(findings.TOOLStatusRegression, "/params/update/status",
				"tool call %q moves from %s back to %s; completed and failed are final, and clients that already rendered the result show a running call again", u.ToolCallID, call.Status, status)
			c.related(f, call.Line, "the tool_call")
		}
		call.Status = status
	}
	if name, ok := u.Name.Get(); ok {
		switch {
		case call.HasName && name != call.Name:
			f := c.add(findings.TOOLNameChanged, "/params/update/name",
				"tool call %q changes its name from %q to %q; the name should stay as first reported, since clients key permission memory and icons on it", u.ToolCallID, call.Name, name)
			c.related(f, call.Line, "the tool_call")
		case !call.HasName && known:
			f := c.add(findings.TOOLNameChanged, "/params/update/name",
				"tool call %q gets its name %q only in an update; the name should come with the first report, which clients have already used for icons and permission memory", u.ToolCallID, name)
			f.Severity = findings.SeverityInfo
			c.related(f, call.Line, "the tool_call without a name")
		}
		call.Name, call.HasName = name, true
	}
	p.withSession(s.ID, func(s *Session) {
		store(p, &s.ToolCalls, u.ToolCallID, call)
		switch {
		case finished(call.Status):
			s.OpenToolCalls = s.OpenToolCalls.Delete(u.ToolCallID)
		case s.PromptKey != "" && known:
			// An update for a call never announced is ACP-TOOL-002; it does
			// not also leave an open call for ACP-TURN-004 at the turn's end.
			if _, open := s.OpenToolCalls.Get(u.ToolCallID); !open {
				s.OpenToolCalls = s.OpenToolCalls.Set(u.ToolCallID, c.line())
			}
		}
	})
	if !known {
		p.noteItem(s.ID, itemToolCall, string(u.ToolCallID), call.Line)
	}
}

func finished(s domain.ToolCallStatus) bool {
	return s == domain.ToolCallCompleted || s == domain.ToolCallFailed
}

func validStatus(s domain.ToolCallStatus) bool {
	switch s {
	case domain.ToolCallPending, domain.ToolCallInProgress, domain.ToolCallCompleted, domain.ToolCallFailed:
		return true
	}
	return false
}

// checkToolCallBody applies the rules about a tool call's content and
// locations (ACP-TOOL-006, -007, -008), wherever a tool call is reported:
// tool_call, tool_call_update and a permission request's toolCall. at is
// the pointer of the tool call object.
func checkToolCallBody(p *Phase, c *ctx, s *Session, at string, content []domain.ToolCallContent, locations []domain.ToolCallLocation) {
	// Pointers are built only for what is reported: most tool calls are fine.
	for i, item := range content {
		switch item := item.(type) {
		case domain.Diff:
			if item.Path != "" && !isAbsoluteFilePath(item.Path) {
				c.add(findings.TOOLRelativePath, fmt.Sprintf("%s/content/%d/path", at, i),
					"diff path %q is not absolute; clients open and patch the file by this path, which a relative path does not name reliably", item.Path)
			}
		case domain.Terminal:
			embedTerminal(p, c, s, fmt.Sprintf("%s/content/%d/terminalId", at, i), item.TerminalID)
		}
	}
	for i, loc := range locations {
		if loc.Path != "" && !isAbsoluteFilePath(loc.Path) {
			c.add(findings.TOOLRelativePath, fmt.Sprintf("%s/locations/%d/path", at, i),
				"location path %q is not absolute; clients follow the agent by opening this path, which a relative path does not name reliably", loc.Path)
		}
		if line, ok := loc.Line.Get(); ok && line == 0 {
			c.add(findings.TOOLZeroLine, fmt.Sprintf("%s/locations/%d/line", at, i),
				"location line is 0; ACP lines are 1-based, so this is most likely a 0-based editor line, and clients jump to the wrong line")
		}
	}
}

// embedTerminal checks terminal content (ACP-TOOL-008) and marks the
// terminal as shown in a tool call.
func embedTerminal(p *Phase, c *ctx, s *Session, ptr string, id domain.TerminalID) {
	if s.State == SessionLoading {
		// A replayed tool call may show a terminal of an earlier
		// connection, which this transcript cannot know.
		return
	}
	t, ok := p.Terminals.Get(id)
	switch {
	case !ok && p.terminalsCut():
		// It may name a terminal the machine dropped (dropOldestTerminals).
	case !ok:
		c.add(findings.TOOLUnknownTerminal, ptr,
			"terminal content names terminal %q, which no successful terminal/create returned; the client has no output to show for it", id)
	case t.Session != s.ID:
		f := c.add(findings.TOOLUnknownTerminal, ptr,
			"terminal content names terminal %q, which was created for session %s, not %s; terminals belong to the session that created them", id, t.Session, s.ID)
		c.related(f, t.Line, "the terminal/create")
	case t.ReleasedLine > 0:
		f := c.add(findings.TOOLUnknownTerminal, ptr,
			"terminal content names terminal %q after the agent released it; terminal content must be added before terminal/release, as the client drops the output on release", id)
		c.related(f, t.ReleasedLine, "the terminal/release")
	case !t.Embedded:
		p.withTerminal(id, func(t *Terminal) { t.Embedded = true })
	}
}

// isAbsoluteFilePath reports whether s is an absolute path on any platform
// a client may run on: POSIX ("/x"), Windows drive ("C:\x", "C:/x") or UNC
// ("\\server\share").
func isAbsoluteFilePath(s string) bool {
	switch {
	case strings.HasPrefix(s, "/"):
		return true
	case strings.HasPrefix(s, `\\`):
		return true
	case len(s) >= 3 && isLetter(s[0]) && s[1] == ':' && (s[2] == '\\' || s[2] == '/'):
		return true
	}
	return false
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// cleanFilePath normalises an absolute path for containment tests:
// backslashes become slashes, "." and ".." are resolved, and Windows drive
// letters are lower-cased.
func cleanFilePath(s string) string {
	if isCleanSlashPath(s) {
		return s // what path.Clean returns, after a longer walk, for most paths
	}
	s = strings.ReplaceAll(s, `\`, "/")
	if len(s) >= 2 && isLetter(s[0]) && s[1] == ':' {
		s = "/" + strings.ToLower(s[:1]) + s[1:]
	}
	return path.Clean(s)
}

// isCleanSlashPath reports whether cleanFilePath leaves s as it is
// because it is a rooted slash path in the form path.Clean gives: no
// backslash, no empty, "." or ".." element, no trailing slash.
func isCleanSlashPath(s string) bool {
	if s == "/" {
		return true
	}
	if len(s) < 2 || s[0] != '/' || s[len(s)-1] == '/' {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			return false
		case '/':
			// s does not end in a slash, so an element follows.
			next := s[i+1:]
			if next[0] == '/' || next[0] == '.' && (len(next) == 1 || next[1] == '/' ||
				next[1] == '.' && (len(next) == 2 || next[2] == '/')) {
				return false
			}
		}
	}
	return true
}

// withinDir reports whether absolute path p lies in directory dir.
func withinDir(p, dir string) bool {
	p, dir = cleanFilePath(p), cleanFilePath(dir)
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}

// toolCallProblem reports a malformed tool call title, kind or status
// (ACP-TOOL-004), a codec problem.
func toolCallProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.TOOLShape, pr.Pointer, "%s", pr.withDrop("tool call: "+pr.Detail))
}
