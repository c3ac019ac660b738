package protocol

import (
	"fmt"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
)

// Capability gating (ACP-CAP-*). Each side may use an optional feature
// only when the other side advertised it in initialize. The capabilities
// are those of Phase.ClientCaps and Phase.AgentCaps; when initialize was
// not seen (a transcript cut at the start) they are nil and nothing is
// judged, since an unknown capability set proves nothing.
//
// ACP-CAP-006 (boolean config options) lives with the other config option
// checks in config.go, ACP-CAP-020 (unstable methods) with the method
// names in extn.go; the capability objects themselves (ACP-CAP-021, -022)
// are codec problems (capabilityKeyProblem, capabilityKindProblem).

// methodGateRules maps the methods capabilityFor gates to the rule a call
// without the capability breaks.
var methodGateRules = map[domain.Method]*findings.Rule{
	domain.MethodFSReadTextFile:      findings.CAPReadWithoutCapability,
	domain.MethodFSWriteTextFile:     findings.CAPWriteWithoutCapability,
	domain.MethodTerminalCreate:      findings.CAPTerminalWithoutCapability,
	domain.MethodTerminalOutput:      findings.CAPTerminalWithoutCapability,
	domain.MethodTerminalRelease:     findings.CAPTerminalWithoutCapability,
	domain.MethodTerminalWaitForExit: findings.CAPTerminalWithoutCapability,
	domain.MethodTerminalKill:        findings.CAPTerminalWithoutCapability,
	domain.MethodSessionLoad:         findings.CAPLoadWithoutCapability,
	domain.MethodSessionResume:       findings.CAPResumeWithoutCapability,
	domain.MethodSessionClose:        findings.CAPCloseWithoutCapability,
	domain.MethodSessionList:         findings.CAPListWithoutCapability,
	domain.MethodSessionDelete:       findings.CAPDeleteWithoutCapability,
	domain.MethodLogout:              findings.CAPLogoutWithoutCapability,
}

// checkMethodGate reports a call of a method the receiver did not
// advertise (ACP-CAP-001…003, ACP-CAP-010…015).
func checkMethodGate(p *Phase, c *ctx) {
	mi, ok := c.method()
	if !ok || c.m.Dir != mi.Receiver.Sender() {
		return // a call from the wrong side is ACP-EXTN-001's
	}
	gate, advertised := capabilityFor(p, c.m.Method)
	if gate == "" || advertised {
		return
	}
	receiver := c.m.Dir.Opposite()
	f := c.add(methodGateRules[c.m.Method], "/method",
		"the %s calls %s although the %s did not advertise %s in initialize; %s",
		c.m.Dir, c.m.Method, receiver, gate, gateConsequence(c.m.Method))
	c.related(f, p.InitLine, "the initialize request")
}

// gateConsequence says what an unadvertised call leads to in practice.
func gateConsequence(m domain.Method) string {
	switch m {
	case domain.MethodFSReadTextFile, domain.MethodFSWriteTextFile:
		return "a client without it answers -32601 and the agent's file tool fails mid-turn"
	case domain.MethodSessionLoad:
		return "the agent cannot restore the conversation and refuses the call"
	case domain.MethodSessionResume:
		return "the agent refuses the call; fall back to session/load or session/new"
	}
	if methodGateRules[m] == findings.CAPTerminalWithoutCapability {
		return "a client without it answers -32601, so commands must run some other way"
	}
	return "an agent without it answers -32601"
}

// checkElicitationModeGate reports an elicitation in a mode the client did
// not advertise (ACP-CAP-004). "elicitation": {} advertises no mode.
func checkElicitationModeGate(p *Phase, c *ctx) {
	req, ok := paramsOf[domain.CreateElicitationRequest](c.m)
	if !ok || p.ClientCaps == nil || c.m.Dir != domain.FromAgent {
		return
	}
	caps, _ := p.ClientCaps.Elicitation.Get()
	var mode string
	switch req.Mode.(type) {
	case domain.ElicitationFormMode:
		if caps.Form.IsSet() {
			return
		}
		mode = "form"
	case domain.ElicitationUrlMode:
		if caps.URL.IsSet() {
			return
		}
		mode = "url"
	default:
		return // an unknown mode is a schema matter
	}
	f := c.add(findings.CAPElicitationMode, "/params/mode",
		"elicitation/create uses mode %q, but the client advertised no elicitation.%s capability; the client cannot show this kind of request and refuses it, so the tool waiting on the answer fails", mode, mode)
	c.related(f, p.InitLine, "the initialize request")
}

// checkTerminalAuthGate reports terminal auth methods offered to a client
// that did not set auth.terminal (ACP-CAP-005).
func checkTerminalAuthGate(p *Phase, c *ctx, req Pending) {
	res, ok := resultOf[domain.InitializeResponse](c.m)
	if !ok || !c.succeeded() || req.Line != p.InitLine || p.ClientCaps == nil {
		return
	}
	auth, _ := p.ClientCaps.Auth.Get()
	if auth.Terminal.Or(false) {
		return
	}
	methods, _ := res.AuthMethods.Get()
	for i, m := range methods {
		if t, ok := m.(domain.AuthMethodTerminal); ok {
			f := c.add(findings.CAPTerminalAuthMethod, fmt.Sprintf("/result/authMethods/%d/type", i),
				"auth method %q is a terminal login, but the client did not set auth.terminal to true; it cannot run the interactive login, so users of this client may be left without a working way to sign in", t.ID)
			c.related(f, req.Line, "the initialize request")
		}
	}
}

// checkAuthenticateOffered reports authenticate when the agent offered no
// auth method to choose from (ACP-CAP-019).
func checkAuthenticateOffered(p *Phase, c *ctx) {
	if p.AgentCaps == nil || len(p.AuthMethods) > 0 || c.m.Dir != domain.FromClient {
		return // AgentCaps is set exactly when the initialize result was read
	}
	methodID := ""
	if req, ok := paramsOf[domain.AuthenticateRequest](c.m); ok {
		methodID = string(req.MethodID)
	}
	f := c.add(findings.CAPAuthenticateWithoutMethods, "/params/methodId",
		"authenticate names method %q, but the initialize result offered no authMethods; there is no valid methodId, so the agent can only refuse the call", methodID)
	c.related(f, p.InitLine, "the initialize exchange")
}

// checkSessionSetupGates applies the agent capabilities that govern
// session/new, session/load and session/resume params: additional
// directories (ACP-CAP-016) and MCP transports (ACP-CAP-018).
func checkSessionSetupGates(p *Phase, c *ctx) {
	if p.AgentCaps == nil || c.m.Dir != domain.FromClient {
		return
	}
	open, ok := openParamsOf(c.m.Params)
	if !ok {
		return
	}
	dirs, servers := open.Dirs, open.Servers
	sc, _ := p.AgentCaps.SessionCapabilities.Get()
	if list, _ := dirs.Get(); len(list) > 0 && !sc.AdditionalDirectories.IsSet() {
		f := c.add(findings.CAPAdditionalDirectories, "/params/additionalDirectories",
			"%s sends %d additionalDirectories, but the agent did not advertise sessionCapabilities.additionalDirectories; it ignores them, so the agent works with only cwd as its root", c.m.Method, len(list))
		c.related(f, p.InitLine, "the initialize exchange")
	}
	mcp, _ := p.AgentCaps.McpCapabilities.Get()
	for i, s := range servers {
		var transport, name string
		switch s := s.(type) {
		case domain.McpServerHttp:
			if mcp.HTTP.Or(false) {
				continue
			}
			transport, name = "http", s.Name
		case domain.McpServerSse:
			if mcp.SSE.Or(false) {
				continue
			}
			transport, name = "sse", s.Name
		default:
			continue // stdio is always allowed
		}
		f := c.add(findings.CAPMcpTransport, fmt.Sprintf("/params/mcpServers/%d/type", i),
			"MCP server %q uses the %s transport, but the agent did not set mcpCapabilities.%s to true; it cannot connect to the server, and the server's tools are silently missing", name, transport, transport)
		c.related(f, p.InitLine, "the initialize exchange")
	}
}

// checkPromptContentGate reports prompt content blocks of a type the
// agent's promptCapabilities do not admit (ACP-CAP-017). Each type is
// reported once per prompt, at its first block.
func checkPromptContentGate(p *Phase, c *ctx) {
	req, ok := paramsOf[domain.PromptRequest](c.m)
	if !ok || p.AgentCaps == nil || c.m.Dir != domain.FromClient {
		return
	}
	pc, _ := p.AgentCaps.PromptCapabilities.Get()
	reported := map[string]bool{}
	for i, block := range req.Prompt {
		var kind, what, gate string
		var allowed bool
		switch block.(type) {
		case domain.ImageContent:
			kind, what, gate, allowed = "image", "an image", "image", pc.Image.Or(false)
		case domain.AudioContent:
			kind, what, gate, allowed = "audio", "an audio", "audio", pc.Audio.Or(false)
		case domain.EmbeddedResource:
			kind, what, gate, allowed = "resource", "an embedded resource", "embeddedContext", pc.EmbeddedContext.Or(false)
		default:
			continue // text and resource_link are always allowed
		}
		if allowed || reported[kind] {
			continue
		}
		reported[kind] = true
		hint := ""
		if kind == "resource" {
			hint = "; send a resource_link instead"
		}
		f := c.add(findings.CAPPromptContent, fmt.Sprintf("/params/prompt/%d/type", i),
			"the prompt contains %s block, but the agent did not set promptCapabilities.%s to true; the agent may reject the prompt or drop the block, so the model never sees it%s", what, gate, hint)
		c.related(f, p.InitLine, "the initialize exchange")
	}
}

// checkUpdateGates reports session updates of kinds the client did not
// opt into: notices (ACP-CAP-007) and compaction (ACP-CAP-008, reported
// once per compaction). Boolean options in config_option_update are
// checked with the other config option rules (config.go).
func checkUpdateGates(p *Phase, c *ctx) {
	n, ok := paramsOf[domain.SessionNotification](c.m)
	if !ok || p.ClientCaps == nil || c.m.Dir != domain.FromAgent {
		return
	}
	// The capabilities are read only for the kinds they gate: copying
	// them out of their Opt cost more than the rest of the check for every
	// other update.
	switch u := n.Update.(type) {
	case domain.Notice:
		if sc, _ := p.ClientCaps.Session.Get(); sc.Notices.IsSet() {
			return
		}
		f := c.add(findings.CAPNoticeWithoutCapability, "/params/update/sessionUpdate",
			"the agent sends a notice (%q) although the client did not advertise session.notices; such a client fails to decode the update kind or drops it, and the user never sees the message", u.Title)
		c.related(f, p.InitLine, "the initialize request")
	case domain.CompactionUpdate, domain.CompactionSummaryChunk:
		if sc, _ := p.ClientCaps.Session.Get(); sc.Compaction.IsSet() {
			return
		}
		id, kind := compactionOf(u)
		var first bool
		if first = p.firstReport(findings.CAPCompactionWithoutCapability, n.SessionID, string(id)); !first {
			return
		}
		f := c.add(findings.CAPCompactionWithoutCapability, "/params/update/sessionUpdate",
			"the agent sends %s for compaction %q although the client did not advertise session.compaction; clients that never opted in do not know the update kind and drop or reject it (further updates of this compaction are not reported)", kind, id)
		c.related(f, p.InitLine, "the initialize request")
	}
}

func compactionOf(u domain.SessionUpdate) (domain.CompactionID, string) {
	switch u := u.(type) {
	case domain.CompactionUpdate:
		return u.CompactionID, "compaction_update"
	case domain.CompactionSummaryChunk:
		return u.CompactionID, "compaction_summary_chunk"
	}
	return "", ""
}

// The capability objects themselves (codec problems): unknown keys
// (ACP-CAP-021) and values of the wrong type (ACP-CAP-022).

func capabilityKeyProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.CAPUnknownKey, pr.Pointer, "capability key %q is not defined by ACP v1; custom capabilities belong under \"_meta\"", pr.Member)
}

// capabilityKindProblem says what receivers make of a capability of the
// wrong type; its text says so already, so no drop sentence is added.
func capabilityKindProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.CAPMarkerKind, pr.Pointer, "%s; receivers that default invalid capabilities treat it as unsupported", pr.Detail)
}
