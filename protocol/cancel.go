package protocol

import (
	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
)

// Cancel races. The transcript is one ordered stream, but the two sides
// write concurrently: a message of one side may have been written before
// the other side's latest message reached it. Only messages of different
// senders can cross; each side's own messages keep their order in any
// recording. So a rule about how the agent reacts to session/cancel can
// race (the agent may have answered before it read the cancel), while a
// rule about what one side does after its own message cannot. The agent is
// taken to have written a message before it read the cancel when nothing
// else came from it in between, as the catalog's race window prescribes,
// unless the client answered one of the agent's requests of that session
// after the cancel: stdin delivers in order, so an agent that goes on
// after reading that answer had read the cancel first, and what it writes
// then is its reaction to the cancel, not a race.

// flowState is the bookkeeping of the cancellation, tool call, permission,
// fs and terminal checks. The elicitation checks keep theirs in
// Phase.Elicitations and Phase.Completed.
type flowState struct {
	cxl  cxlState
	tool toolState
	fs   fsState
	term termState
}

// cxlState is the bookkeeping of the CXL checks.
type cxlState struct {
	// cancelled maps a session to the line of the session/cancel that
	// cancelled its turn. Session.CancelLine also counts session/close,
	// whose effect on the turn is ACP-SES-011's business; an entry is
	// current only while it equals the session's CancelLine.
	cancelled Map[domain.SessionID, int]
	// turnEnd maps a session to the response that ended its latest turn.
	turnEnd Map[domain.SessionID, int]
	// lateReported maps a session to the cancelled turn end whose late
	// updates were already reported (ACP-CXL-002 is reported once per turn).
	lateReported Map[domain.SessionID, int]
	// answered maps a session to the line of the client's latest answer to
	// one of the agent's requests of that session (see cancelRead).
	answered Map[domain.SessionID, int]
}

// noteClientAnswer remembers the client's latest answer to a request of
// the agent, by session, for cancelRead. Only answers during a cancelled
// turn can matter.
func noteClientAnswer(p *Phase, c *ctx, req Pending) {
	if c.m.Dir != domain.FromClient || req.Session == "" {
		return
	}
	if s, ok := p.Session(req.Session); !ok || s.CancelLine == 0 || s.PromptKey == "" {
		return
	}
	store(p, &p.flow.cxl.answered, req.Session, c.line())
}

// cancelRead reports whether the agent provably read the cancel (or close)
// at cancelLine of session id before it wrote its message at the current
// line: the client answered one of the agent's requests of the session in
// between, and the agent reads its stdin in order.
func cancelRead(p *Phase, id domain.SessionID, cancelLine int) bool {
	answered, ok := p.flow.cxl.answered.Get(id)
	return ok && answered > cancelLine
}

// checkSessionCancel notes which turn session/cancel cancels and reports a
// cancel that has no turn to cancel (ACP-CXL-005).
func checkSessionCancel(p *Phase, c *ctx) {
	if c.m.Dir == domain.FromAgent || c.m.Kind == domain.KindRequest {
		// The wrong sender, or the request form (ACP-CXL-004), which a
		// conforming agent refuses as unknown instead of cancelling.
		return
	}
	id := c.sessionID()
	s, ok := p.ActiveSession(id)
	if !ok {
		return // an unknown session is an SID matter
	}
	if s.PromptKey != "" {
		if s.CancelLine == 0 {
			p.flow.cxl.cancelled = p.flow.cxl.cancelled.Set(id, c.line())
		}
		return
	}
	end, ended := p.flow.cxl.turnEnd.Get(id)
	if ended && p.LastAgentLine == end {
		// The turn ended with the agent's latest message: the user pressed
		// stop as the answer arrived. A race, and nothing to fix.
		return
	}
	f := c.add(findings.CXLCancelWithoutTurn, "/params/sessionId",
		"session/cancel names session %s, which has no session/prompt running; the cancel has no defined effect, and some agents log an error or cancel the next turn instead", id)
	if ended {
		c.related(f, end, "the latest turn ended here")
	}
}

// checkCancelledTurnEnd judges the response to a session/prompt whose turn
// the client cancelled with session/cancel (ACP-CXL-001).
func checkCancelledTurnEnd(p *Phase, c *ctx, req Pending) {
	s, ok := p.Session(req.Session)
	if !ok || s.PromptKey != req.ID.Key() {
		return
	}
	store(p, &p.flow.cxl.turnEnd, req.Session, c.line())
	cancelLine, _ := p.flow.cxl.cancelled.Get(req.Session)
	if s.CancelLine == 0 || cancelLine != s.CancelLine {
		return
	}
	// The agent's first message after the cancel may have been written
	// before the cancel reached it, unless it had read the cancel to get at
	// an answer of the client that came after it.
	race := p.LastAgentLine < cancelLine && !cancelRead(p, req.Session, cancelLine)
	var f *findings.ValidationFinding
	if c.succeeded() {
		res, ok := resultOf[domain.PromptResponse](c.m)
		if !ok || res.StopReason == domain.StopCancelled || !knownStopReason(res.StopReason) {
			return // an unknown stop reason is ACP-TURN-001's
		}
		if race {
			f = c.add(findings.CXLNotCancelled, "/result/stopReason",
				"session/prompt ends with stopReason %q although the client cancelled the turn at line %d; it is the agent's first message since the cancel, so it was most likely written before the cancel arrived (a cancel race, not a violation)", res.StopReason, cancelLine)
		} else {
			f = c.add(findings.CXLNotCancelled, "/result/stopReason",
				"the client cancelled this turn with session/cancel at line %d, yet session/prompt ends with stopReason %q; a cancelled turn must end with stopReason \"cancelled\", or the client treats the stopped turn as finished normally", cancelLine, res.StopReason)
		}
	} else {
		code := int64(0)
		if c.m.Error != nil {
			code = c.m.Error.Code
		}
		if race {
			f = c.add(findings.CXLNotCancelled, "/error",
				"session/prompt fails with error %d although the client cancelled the turn at line %d; it is the agent's first message since the cancel, so it was most likely written before the cancel arrived (a cancel race, not a violation)", code, cancelLine)
		} else {
			f = c.add(findings.CXLNotCancelled, "/error",
				"the client cancelled this turn with session/cancel at line %d, yet session/prompt is answered with error %d; agents must catch the failures that aborting causes and answer stopReason \"cancelled\", or the client shows an error for a turn the user stopped", cancelLine, code)
		}
	}
	if race {
		f.Severity = findings.SeverityInfo
	}
	c.related(f, cancelLine, "the session/cancel")
	if answered, ok := p.flow.cxl.answered.Get(req.Session); ok && answered > cancelLine && p.LastAgentLine < cancelLine {
		c.related(f, answered, "the client's answer after the cancel, which the agent read after the cancel")
	}
}

func knownStopReason(r domain.StopReason) bool {
	values, _ := r.EnumValues()
	for _, v := range values {
		if string(r) == v {
			return true
		}
	}
	return false
}

// conversationUpdate reports whether u is turn content (a message, a tool
// call, a plan) rather than session state, which may change at any time.
// Compaction is state too: agents may compact the context after a turn.
func conversationUpdate(u domain.SessionUpdate) bool {
	switch u.(type) {
	case domain.UserMessageChunk, domain.AgentMessageChunk, domain.AgentThoughtChunk,
		domain.ToolCall, domain.ToolCallUpdate, domain.Plan:
		return true
	}
	return false
}

// checkUpdateAfterCancel reports conversation updates that follow the
// response of a cancelled turn (ACP-CXL-002). The response and the update
// both come from the agent, so they cannot race: the agent wrote the update
// after it had ended the turn. Only the first such update of a turn is
// reported.
func checkUpdateAfterCancel(p *Phase, c *ctx) {
	n, ok := paramsOf[domain.SessionNotification](c.m)
	if !ok || c.m.Dir == domain.FromClient || !conversationUpdate(n.Update) {
		return
	}
	s, ok := p.ActiveSession(n.SessionID)
	if !ok || s.CancelledEndLine == 0 || s.PromptKey != "" {
		return
	}
	if done, _ := p.flow.cxl.lateReported.Get(n.SessionID); done == s.CancelledEndLine {
		return
	}
	p.flow.cxl.lateReported = p.flow.cxl.lateReported.Set(n.SessionID, s.CancelledEndLine)
	f := c.add(findings.CXLUpdateAfterCancel, "/params/update/sessionUpdate",
		"%s arrives after the agent ended the cancelled turn (line %d); a cancelling agent must flush its updates before it answers session/prompt, so the client attaches this to a turn it already closed or drops it (later updates before the next prompt are not reported again)",
		updateKind(n.Update), s.CancelledEndLine)
	c.related(f, s.CancelledEndLine, "the response that ended the cancelled turn")
	c.related(f, s.CancelLine, "the cancel")
}

// updateKind returns the sessionUpdate tag of u.
func updateKind(u domain.SessionUpdate) string {
	switch u.(type) {
	case domain.UserMessageChunk:
		return "user_message_chunk"
	case domain.AgentMessageChunk:
		return "agent_message_chunk"
	case domain.AgentThoughtChunk:
		return "agent_thought_chunk"
	case domain.ToolCall:
		return "tool_call"
	case domain.ToolCallUpdate:
		return "tool_call_update"
	case domain.Plan:
		return "plan"
	}
	return "session/update"
}

// checkPermissionAfterCancel reports a permission request of a cancelled
// turn that the client answers with anything but the cancelled outcome
// (ACP-CXL-003). The cancel and the answer both come from the client, so
// they cannot race: an answer written before the cancel is legal and comes
// first in the transcript. A request that crossed the cancel (the agent
// sent it before it read the cancel) still gets the cancelled outcome: the
// client knows it cancelled.
func checkPermissionAfterCancel(p *Phase, c *ctx, req Pending) {
	if c.m.Dir == domain.FromAgent {
		return
	}
	s, ok := p.Session(req.Session)
	if !ok || s.CancelLine == 0 || req.Line < s.PromptLine {
		return
	}
	cancelLine, _ := p.flow.cxl.cancelled.Get(req.Session)
	if cancelLine != s.CancelLine {
		return // not a session/cancel (a close, or an earlier turn)
	}
	if s.CancelledEndLine > 0 && req.Line > s.CancelledEndLine {
		return // asked after the turn ended: ACP-PERM-005's matter
	}
	var f *findings.ValidationFinding
	if c.succeeded() {
		res, ok := resultOf[domain.RequestPermissionResponse](c.m)
		if !ok {
			return
		}
		sel, selected := res.Outcome.(domain.SelectedPermissionOutcome)
		if !selected {
			return // cancelled, or malformed (ACP-PERM-002)
		}
		f = c.add(findings.CXLPermissionAfterCancel, "/result/outcome",
			"the client cancelled the turn at line %d, then answers this permission request by selecting option %q; after session/cancel every pending permission request must get outcome \"cancelled\", so the agent may now run a tool the user stopped", cancelLine, sel.OptionID)
	} else {
		if c.m.Error == nil {
			return
		}
		if domain.ErrorCode(c.m.Error.Code) == domain.CodeRequestCancelled && req.CancelLine > 0 {
			return // the agent withdrew the request with $/cancel_request
		}
		f = c.add(findings.CXLPermissionAfterCancel, "/error",
			"the client cancelled the turn at line %d, then answers this permission request with error %d; the answer after session/cancel is outcome \"cancelled\" (a -32800 error fits only a request the agent withdrew with $/cancel_request), and SDK-based agents turn the error into a failed tool call", cancelLine, c.m.Error.Code)
	}
	c.related(f, cancelLine, "the session/cancel")
	c.related(f, req.Line, "the permission request")
}
