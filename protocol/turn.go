package protocol

import (
	"fmt"
	"sort"
	"strings"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
)

// Prompt turns and stop reasons (ACP-TURN-*). An unknown stopReason
// (ACP-TURN-001) is a codec problem (stopReasonProblem). What
// happens after a cancelled turn is the CXL area's (cancel.go); the checks
// here leave it alone.

// checkTurnEnd judges the stop reason against the turn: cancelled needs a
// cancel (ACP-TURN-002), end_turn needs finished tool calls (ACP-TURN-004).
func checkTurnEnd(p *Phase, c *ctx, req Pending) {
	res, ok := resultOf[domain.PromptResponse](c.m)
	if !ok || !c.succeeded() || c.m.Dir != domain.FromAgent {
		return
	}
	s, ok := p.Session(req.Session)
	if !ok || s.PromptKey != req.ID.Key() {
		return // not the turn the session is running (ACP-SEQ-006)
	}
	switch res.StopReason {
	case domain.StopCancelled:
		if s.CancelLine == 0 && req.CancelLine == 0 {
			f := c.add(findings.TURNUnrequestedCancel, "/result/stopReason",
				"the turn ends with stopReason \"cancelled\", but the client sent no session/cancel or session/close for it; clients show a turn the user stopped, hiding whatever made the agent give up (report an error or another stop reason)")
			c.related(f, req.Line, "the session/prompt")
		}
	case domain.StopEndTurn:
		if s.OpenToolCalls.Len() == 0 {
			return
		}
		type open struct {
			id   domain.ToolCallID
			line int
		}
		var calls []open
		for id, line := range s.OpenToolCalls.All() {
			calls = append(calls, open{id, line})
		}
		sort.Slice(calls, func(i, j int) bool { return calls[i].line < calls[j].line })
		names := make([]string, len(calls))
		for i, call := range calls {
			status := domain.ToolCallPending
			if tc, ok := s.ToolCalls.Get(call.id); ok {
				status = tc.Status
			}
			names[i] = fmt.Sprintf("%q (%s)", call.id, status)
		}
		f := c.add(findings.TURNEndWithOpenToolCalls, "/result/stopReason",
			"the turn ends with end_turn while tool calls are unfinished: %s; no update will follow for them, so the client keeps showing them as running", strings.Join(names, ", "))
		for i, call := range calls {
			if i == 3 {
				break
			}
			c.related(f, call.line, "tool call %q", call.id)
		}
	}
}

// checkTurnUpdate applies the turn rules to one session/update:
// conversation content outside a turn (ACP-TURN-003), messageId grouping
// (ACP-TURN-005) and usage numbers (ACP-TURN-006).
func checkTurnUpdate(p *Phase, c *ctx) {
	n, ok := paramsOf[domain.SessionNotification](c.m)
	if !ok || c.m.Dir != domain.FromAgent {
		return
	}
	s, ok := p.ActiveSession(n.SessionID)
	if !ok {
		return
	}
	checkOutOfTurn(p, c, s, n.Update)
	switch u := n.Update.(type) {
	case domain.UserMessageChunk:
		checkMessageID(p, c, s, "user_message_chunk", u.MessageID)
	case domain.AgentMessageChunk:
		checkMessageID(p, c, s, "agent_message_chunk", u.MessageID)
	case domain.AgentThoughtChunk:
		checkMessageID(p, c, s, "agent_thought_chunk", u.MessageID)
	case domain.UsageUpdate:
		if !c.ev.ParamsInvalid { // missing numbers are ACP-UPD-006's
			checkUsage(p, c, s, u)
		}
	}
}

// checkOutOfTurn reports conversation content while no turn runs
// (ACP-TURN-003), once per stretch between turns. A load replays history
// before its response, which is its purpose; updates after a cancelled
// turn are ACP-CXL-002's.
func checkOutOfTurn(p *Phase, c *ctx, s *Session, u domain.SessionUpdate) {
	if !conversationUpdate(u) || s.PromptKey != "" || s.CancelledEndLine > 0 {
		return
	}
	// Replay has rules of its own: during a load it is expected, and during
	// a resume or after the load's response it is ACP-SEQ-009 / ACP-SEQ-007.
	// Updates after a cancelled turn are ACP-CXL-002. One finding per mistake.
	if s.State == SessionLoading || s.State == SessionResuming || p.LateLoadReplay(s) {
		return
	}
	if s.OutOfTurnReported {
		return
	}
	p.withSession(s.ID, func(s *Session) { s.OutOfTurnReported = true })
	when := "before the first session/prompt"
	if s.Turn > 0 {
		when = "after the turn ended"
	}
	f := c.add(findings.TURNOutOfTurnUpdate, "/params/update/sessionUpdate",
		"%s arrives %s, while no prompt turn runs; clients attach it to no turn, so they drop it or show it under the wrong exchange (more such updates before the next turn are not reported)", updateKind(u), when)
	if s.Turn > 0 {
		c.related(f, s.PromptLine, "the latest session/prompt")
	}
}

// messageRole tells user chunks from agent chunks: a thought and a message
// of the agent may share one messageId, a user and an agent chunk may not.
func messageRole(kind string) string {
	if kind == "user_message_chunk" {
		return "user"
	}
	return "agent"
}

// checkMessageID keeps the messageId grouping of chunks (ACP-TURN-005): a
// changed messageId starts a new message, so an earlier one cannot
// continue later, and one id names either a user or an agent message.
func checkMessageID(p *Phase, c *ctx, s *Session, kind string, opt domain.Opt[domain.MessageID]) {
	id, ok := opt.Get()
	if !ok || id == "" {
		return
	}
	var use MessageUse
	var seen bool
	if s.currentKept && id == s.CurrentMessage {
		use, seen = s.currentUse, true
	} else {
		use, seen = s.Messages.Get(id)
	}
	reported := false
	switch {
	case seen && messageRole(use.Kind) != messageRole(kind):
		if !use.RoleReported {
			f := c.add(findings.TURNInterleavedMessageID, "/params/update/messageId",
				"%s uses messageId %q, which already names a message from the %s; clients group chunks by id and merge the two speakers' text into one message", kind, id, messageRole(use.Kind))
			c.related(f, use.Line, "the first chunk with this messageId")
			use.RoleReported, reported = true, true
		}
	case seen && use.Closed:
		f := c.add(findings.TURNInterleavedMessageID, "/params/update/messageId",
			"%s continues message %q after message %q began; a changed messageId starts a new message, so clients append this text to the wrong message or start a duplicate", kind, id, s.CurrentMessage)
		c.related(f, use.Line, "the first chunk of message %q", id)
	}
	if seen && !use.Closed && s.CurrentMessage == id && !reported {
		// Another chunk of the current message: the bookkeeping below
		// would store what is already there. Most updates of a turn are
		// such chunks.
		return
	}
	p.withSession(s.ID, func(s *Session) {
		if cur := s.CurrentMessage; cur != "" && cur != id {
			if prev, ok := s.Messages.Get(cur); ok {
				prev.Closed = true
				store(p, &s.Messages, cur, prev)
			}
		}
		if !seen {
			use = MessageUse{Kind: kind, Line: c.line()}
		}
		use.Closed = false
		store(p, &s.Messages, id, use)
		s.CurrentMessage = id
		s.currentUse, s.currentKept = s.Messages.Get(id) // the map's copy of the text
	})
	if !seen {
		p.noteItem(s.ID, itemMessage, string(id), use.Line)
	}
}

// checkUsage reports implausible usage numbers (ACP-TURN-006), once per
// session and kind of mistake since every later update repeats them.
func checkUsage(p *Phase, c *ctx, s *Session, u domain.UsageUpdate) {
	var first bool
	if u.Used > u.Size {
		if first = p.firstReport(findings.TURNUsageValues, s.ID, "used"); first {
			c.add(findings.TURNUsageValues, "/params/update/used",
				"usage_update reports %d tokens used of a context window of %d; used cannot exceed size, so the two are probably swapped or size is not the window's size, and clients show a meter beyond 100%%", u.Used, u.Size)
		}
	}
	if cost, ok := u.Cost.Get(); ok && !isCurrencyCode(cost.Currency) {
		if first = p.firstReport(findings.TURNUsageValues, s.ID, "currency\x00"+cost.Currency); first {
			c.add(findings.TURNUsageValues, "/params/update/cost/currency",
				"usage_update gives the cost in currency %q, which is not a three-letter ISO 4217 code such as \"USD\"; clients format the amount with it and may show it wrongly or not at all", cost.Currency)
		}
	}
}

// isCurrencyCode reports whether s has the form of an ISO 4217 code.
func isCurrencyCode(s string) bool {
	if len(s) != 3 {
		return false
	}
	for _, r := range s {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

// stopReasonProblem reports a stopReason v1 does not define (ACP-TURN-001),
// a codec problem.
func stopReasonProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.TURNStopReason, pr.Pointer, "%s", pr.withDrop("stopReason "+pr.Detail))
}
