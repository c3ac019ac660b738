package protocol

import (
	"fmt"
	"slices"
	"strings"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
)

// checkPermissionRequest applies the rules about a permission request: its
// options (ACP-PERM-003, -004), when it is asked (ACP-PERM-005) and the tool
// call it describes (ACP-TOOL-003, -006, -007, -008).
func checkPermissionRequest(p *Phase, c *ctx) {
	r, ok := paramsOf[domain.RequestPermissionRequest](c.m)
	if !ok || c.m.Dir == domain.FromClient {
		return
	}
	if len(r.Options) == 0 {
		c.add(findings.PERMNoOptions, "/params/options",
			"permission request offers no options; the user has nothing to choose and can only cancel, and the Python SDK 1.0 rejects such requests")
	}
	seen := map[domain.PermissionOptionID]int{}
	for i, o := range r.Options {
		if first, dup := seen[o.OptionID]; dup {
			c.add(findings.PERMDuplicateOption, fmt.Sprintf("/params/options/%d/optionId", i),
				"optionId %q is offered twice (options %d and %d); the answer names only the id, so the agent cannot tell which of them the user chose", o.OptionID, first, i)
			continue
		}
		seen[o.OptionID] = i
	}
	s, ok := p.ActiveSession(r.SessionID)
	if !ok {
		return // an unknown session is an SID matter
	}
	if s.PromptKey == "" && !settingPending(p, r.SessionID) {
		f := c.add(findings.PERMOutsideTurn, "/method",
			"permission is requested for session %s while no session/prompt, session/set_mode or session/set_config_option is running; permission requests come from tool calls inside a turn, and the client may have no place to show this one", r.SessionID)
		if end, ok := p.flow.cxl.turnEnd.Get(r.SessionID); ok {
			c.related(f, end, "the latest turn ended here")
		}
	}
	tc := r.ToolCall
	_, known := s.ToolCalls.Get(tc.ToolCallID)
	title, hasTitle := tc.Title.Get()
	if !known && (!hasTitle || strings.TrimSpace(title) == "") {
		c.add(findings.TOOLPermissionUnknownCall, "/params/toolCall",
			"the permission request's toolCall names %q, which no tool_call of this session reported, and carries no title; the user is asked to approve an operation nobody described", tc.ToolCallID)
	}
	content, _ := tc.Content.Get()
	locations, _ := tc.Locations.Get()
	checkToolCallBody(p, c, s, "/params/toolCall", content, locations)
	if !known && tc.ToolCallID != "" {
		// Clients show a tool call that only a permission request
		// describes; remember it so that its later updates count as known.
		status := tc.Status.Or(domain.ToolCallPending)
		name, hasName := tc.Name.Get()
		p.withSession(s.ID, func(s *Session) {
			s.ToolCalls = s.ToolCalls.Set(tc.ToolCallID, ToolCall{Line: c.line(), Turn: s.Turn, Status: status, Name: name, HasName: hasName})
		})
		p.noteItem(s.ID, itemToolCall, string(tc.ToolCallID), c.line())
		p.flow.tool.inline = p.flow.tool.inline.Set(toolCallKey(s.ID, tc.ToolCallID), c.line())
	}
}

// settingPending reports whether the client has a session/set_mode or
// session/set_config_option pending for session id: applying either may
// need the user's approval too.
func settingPending(p *Phase, id domain.SessionID) bool {
	return p.pending[domain.FromClient].settingPending(id)
}

// checkPermissionAnswer reports a selected option the request did not
// offer (ACP-PERM-001).
func checkPermissionAnswer(p *Phase, c *ctx, req Pending) {
	if !c.succeeded() || c.m.Dir == domain.FromAgent {
		return
	}
	res, ok := resultOf[domain.RequestPermissionResponse](c.m)
	if !ok {
		return
	}
	sel, ok := res.Outcome.(domain.SelectedPermissionOutcome)
	if !ok || sel.OptionID == "" {
		return // a missing optionId is ACP-PERM-002
	}
	ids, ok := req.Params.(offeredOptions)
	if !ok {
		return
	}
	if slices.Contains(ids, sel.OptionID) {
		return
	}
	// Quoted only now: nearly every answer picks an offered option.
	var offered []string
	for _, id := range ids {
		offered = append(offered, fmt.Sprintf("%q", id))
	}
	list := "none"
	if len(offered) > 0 {
		list = strings.Join(offered, ", ")
	}
	f := c.add(findings.PERMUnofferedOption, "/result/outcome/optionId",
		"the client selects optionId %q, which the permission request did not offer (offered: %s); the agent cannot tell whether the user allowed the tool call", sel.OptionID, list)
	c.related(f, req.Line, "the permission request")
}

// outcomeProblem reports a malformed permission outcome (ACP-PERM-002), a
// codec problem.
func outcomeProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.PERMOutcomeShape, pr.Pointer, "%s", pr.withDrop("permission outcome: "+pr.Detail))
}
