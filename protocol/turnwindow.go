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
// the running turn or one shortly before, so the machine keeps the items
// of running turns, and of the rest the latest turnWindow/2 to turnWindow
// items of the connection, all sessions together; memory then follows
// the open sessions, not the number of turns. An item forgotten this way
// is judged as never seen: an update to a tool call that old is reported
// as naming an unknown call (ACP-TOOL-002), and a toolCallId or messageId
// that old used again is not reported. A turn that never ends may stream
// any number of items: running turns, all together, keep their latest
// MaxKeptEntries to 2*MaxKeptEntries items, and a session whose running
// items were dropped judges no lookup that misses (Session.itemsCut),
// which ACP-LINT-006 says once (noteCutTurnItems).
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
	// cut lists the sessions whose running items the latest forgetItems
	// dropped, and cutLine is the line of the message that made it, for
	// noteCutTurnItems.
	cut     []domain.SessionID
	cutLine int
}

// clone returns a copy of t that shares no memory with it but text.
func (t turnItems) clone() turnItems {
	t.log, t.cut = slices.Clone(t.log), slices.Clone(t.cut)
	return t
}

// noteItem records that session sid stored a new value under id, with
// line as its Line, and forgets older items when the window is full.
func (p *Phase) noteItem(sid domain.SessionID, kind turnItemKind, id string, line int) {
	t := &p.items
	if len(t.log) >= max(t.limit, turnWindow) {
		t.cut = t.cut[:0]
		newest := len(t.log) / 2
		p.forgetItems(newest, max(0, MaxKeptEntries-newest))
		if len(t.cut) > 0 {
			t.cutLine = line
		}
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
	// What is left of the list was within the cap before: this only
	// shrinks it, and cuts no running turn.
	p.forgetItems(min(len(t.log), turnWindow/2), len(t.log))
}

// forgetItems forgets the items but the newest ones and those of running
// turns, which move to the front of the newest. Of those, it keeps at
// most budget, the latest (noteItem's is MaxKeptEntries less newest): one turn that never ends
// may stream any number of tool calls, and without the cap the machine
// would keep them all. A session whose running items it drops is marked
// (Session.itemsCut), its judgements that need them are skipped, and
// noteCutTurnItems says so.
func (p *Phase) forgetItems(newest, budget int) {
	t := &p.items
	older := len(t.log) - newest
	needed := 0
	for _, it := range t.log[:older] {
		if _, held, need := p.itemNeed(it); held && need {
			needed++
		}
	}
	drop := max(0, needed-budget)
	kept := 0
	for _, it := range t.log[:older] {
		s, held, need := p.itemNeed(it)
		if !held {
			continue
		}
		if need && drop > 0 && !(it.kind == itemMessage && domain.MessageID(it.id) == s.CurrentMessage) {
			drop--
			s.itemsCut |= 1 << it.kind
			if len(t.cut) == 0 || t.cut[len(t.cut)-1] != s.ID {
				t.cut = append(t.cut, s.ID)
			}
			need = false
		}
		if need {
			t.log[kept] = it
			kept++
			continue
		}
		p.forgetItem(s, it)
	}
	n := kept + copy(t.log[kept:], t.log[older:])
	clear(t.log[n:]) // the strings of the dropped items
	t.log = t.log[:n]
	t.limit = max(turnWindow, 2*n)
}

// itemNeed returns the session of item it, whether the session still
// holds it (a session done or forgotten, or that stored another value
// under the id, does not), and whether it is still needed: it belongs to
// a running turn, or is the current message, or a compaction under way.
func (p *Phase) itemNeed(it turnItem) (s *Session, held, needed bool) {
	s, ok := p.Sessions.Get(it.session)
	if !ok {
		return nil, false, false // done sessions forgot their turns (putSession)
	}
	running := s.PromptKey != "" && it.line > s.PromptLine
	switch it.kind {
	case itemToolCall:
		call, ok := s.ToolCalls.Get(domain.ToolCallID(it.id))
		return s, ok && call.Line == it.line, running
	case itemMessage:
		id := domain.MessageID(it.id)
		use, ok := s.Messages.Get(id)
		return s, ok && use.Line == it.line, running || id == s.CurrentMessage
	case itemCompaction:
		comp, ok := s.Compactions.Get(domain.CompactionID(it.id))
		// A compaction under way may outlast its turn.
		return s, ok && comp.Line == it.line, running || (comp.Started && !comp.Terminal)
	}
	return s, false, false
}

// forgetItem removes item it, which session s holds, from s.
func (p *Phase) forgetItem(s *Session, it turnItem) {
	switch it.kind {
	case itemToolCall:
		id := domain.ToolCallID(it.id)
		s.ToolCalls = s.ToolCalls.Delete(id)
		s.OpenToolCalls = s.OpenToolCalls.Delete(id)
		if p.flow.tool.inline.Len() > 0 {
			p.flow.tool.inline = p.flow.tool.inline.Delete(toolCallKey(s.ID, id))
		}
	case itemMessage:
		s.Messages = s.Messages.Delete(domain.MessageID(it.id))
	case itemCompaction:
		s.Compactions = s.Compactions.Delete(domain.CompactionID(it.id))
	}
}
