package protocol

import (
	"slices"

	"github.com/acplint/acplint/domain"
)

// A session may run any number of turns. What it remembers of them, its
// tool calls, message ids and compactions (Session.ToolCalls, Messages,
// Compactions), serves the rules that look back: a toolCallId or
// messageId used again (ACP-TOOL-001, ACP-TURN-005), an update to a tool
// call (ACP-TOOL-002, -005) or a compaction (ACP-UPD-008). They look at
// the running turn or one shortly before, so the machine keeps every item
// of a running turn, and of the rest the latest turnWindow/2 to turnWindow
// items of the connection, all sessions together; memory then follows
// the open sessions and their running turns, not the number of turns. An
// item forgotten this way is judged as never seen: an update to a tool
// call that old is reported as naming an unknown call (ACP-TOOL-002), and
// a toolCallId or messageId that old used again is not reported.
const turnWindow = 4096

// turnItemKind tells which map of its session an item is in.
type turnItemKind uint8

const (
	itemToolCall turnItemKind = iota
	itemMessage
	itemCompaction
)

// turnItem is a tool call, message id or compaction that a session
// stored, with the Line of the value stored: a later value under the same
// id (a tool_call that reuses an id) is another item.
type turnItem struct {
	session domain.SessionID
	id      string // the decoder's copy, as for every id the machine keeps
	kind    turnItemKind
	line    int
}

// turnItems lists the items sessions stored, oldest first. When the list
// reaches its limit, the older half is forgotten but for the items of
// running turns, and the limit becomes twice what is left (turnWindow at
// least), so that a turn of thousands of tool calls costs amortised
// constant time per item, as any turn does. When such a turn ends, its
// items are forgotten then (turnEnded), not when the list next fills.
type turnItems struct {
	log   []turnItem
	limit int
}

// clone returns a copy of t that shares no memory with it but text.
func (t turnItems) clone() turnItems {
	t.log = slices.Clone(t.log)
	return t
}

// noteItem records that session sid stored a new value under id, with
// line as its Line, and forgets older items when the window is full.
func (p *Phase) noteItem(sid domain.SessionID, kind turnItemKind, id string, line int) {
	t := &p.items
	if len(t.log) >= max(t.limit, turnWindow) {
		p.forgetItems(len(t.log) / 2)
	}
	t.log = append(t.log, turnItem{session: sid, id: id, kind: kind, line: line})
}

// turnEnded forgets the items of the turn session s ended when it was one
// of the turns that raised the limit: they make up most of the list.
func (p *Phase) turnEnded(s *Session) {
	t := &p.items
	if t.limit <= turnWindow || 2*(s.ToolCalls.Len()+s.Messages.Len()+s.Compactions.Len()) < len(t.log) {
		return
	}
	p.forgetItems(min(len(t.log), turnWindow/2))
}

// forgetItems forgets the items but the newest ones and those of running
// turns, which move to the front of the newest.
func (p *Phase) forgetItems(newest int) {
	t := &p.items
	older := len(t.log) - newest
	kept := 0
	for _, it := range t.log[:older] {
		if p.itemKept(it) {
			t.log[kept] = it
			kept++
		}
	}
	n := kept + copy(t.log[kept:], t.log[older:])
	clear(t.log[n:]) // the strings of the dropped items
	t.log = t.log[:n]
	t.limit = max(turnWindow, 2*n)
}

// itemKept reports whether item it is still needed and, when it is not,
// removes it from its session. An item that its session no longer holds
// (the session is done or forgotten, or stored another value under the
// id) is not needed.
func (p *Phase) itemKept(it turnItem) bool {
	s, ok := p.Sessions.Get(it.session)
	if !ok {
		return false // done sessions forgot their turns (putSession)
	}
	running := s.PromptKey != "" && it.line > s.PromptLine
	switch it.kind {
	case itemToolCall:
		id := domain.ToolCallID(it.id)
		if call, ok := s.ToolCalls.Get(id); !ok || call.Line != it.line {
			return false
		}
		if running {
			return true
		}
		s.ToolCalls = s.ToolCalls.Delete(id)
		s.OpenToolCalls = s.OpenToolCalls.Delete(id)
		if p.flow.tool.inline.Len() > 0 {
			p.flow.tool.inline = p.flow.tool.inline.Delete(toolCallKey(s.ID, id))
		}
	case itemMessage:
		id := domain.MessageID(it.id)
		if use, ok := s.Messages.Get(id); !ok || use.Line != it.line {
			return false
		}
		if running || id == s.CurrentMessage {
			return true
		}
		s.Messages = s.Messages.Delete(id)
	case itemCompaction:
		id := domain.CompactionID(it.id)
		comp, ok := s.Compactions.Get(id)
		if !ok || comp.Line != it.line {
			return false
		}
		if running || (comp.Started && !comp.Terminal) {
			return true // a compaction under way may outlast its turn
		}
		s.Compactions = s.Compactions.Delete(id)
	}
	return false
}
