package findings

// TCKRequirement is one requirement of the official ACP conformance kit's
// v1 registry (acp-tck, src/tck/v1/requirements.py), as acplint covers it.
// The rules that judge it name its ID in Rule.TCK; a requirement no rule
// names says why in NotCovered.
type TCKRequirement struct {
	ID   string
	Tier string // the kit's tier: MANDATORY, CAPABILITY, ADVISORY or INFORMATIONAL
	// Subject is what the requirement is about, in acplint's words.
	Subject string
	// Harness names the check of `acplint check` that judges it, for a
	// requirement about the agent process rather than its messages.
	Harness string
	// Partly says what of the requirement the rules leave out; empty when
	// they judge all of it.
	Partly string
	// NotCovered says why no rule judges the requirement.
	NotCovered string
}

// TCKV1 lists every requirement of the kit's v1 registry, in its order.
func TCKV1() []TCKRequirement {
	return []TCKRequirement{
		{ID: "ACP-TRANSPORT-001", Tier: "MANDATORY", Subject: "every stdout line is one JSON-RPC message"},
		{ID: "ACP-TRANSPORT-002", Tier: "MANDATORY", Subject: "stdout is UTF-8"},
		{ID: "ACP-JSONRPC-001", Tier: "MANDATORY", Subject: "a response echoes its request's id"},
		{ID: "ACP-JSONRPC-002", Tier: "MANDATORY", Subject: "a response has exactly one of result and error, and a well-formed error"},
		{ID: "ACP-JSONRPC-003", Tier: "MANDATORY", Subject: "notifications get no response"},
		{ID: "ACP-JSONRPC-004", Tier: "ADVISORY", Subject: "an unknown method is refused with -32601"},
		{ID: "ACP-JSONRPC-005", Tier: "ADVISORY", Subject: "the connection stays usable after an erroneous request",
			Partly: "acplint records how the peer reacted to a malformed line (info); acplint check never sends one"},
		{ID: "ACP-INIT-001", Tier: "MANDATORY", Subject: "initialize succeeds with a schema-valid result and an integer protocolVersion", Harness: "CHECK-START"},
		{ID: "ACP-INIT-002", Tier: "MANDATORY", Subject: "a request for version 1 is answered with 1"},
		{ID: "ACP-INIT-003", Tier: "MANDATORY", Subject: "a request for an unsupported version gets a successful counter-offer, not an echo"},
		{ID: "ACP-INIT-004", Tier: "ADVISORY", Subject: "agentInfo names the implementation and its version"},
		{ID: "ACP-SCHEMA-001", Tier: "MANDATORY", Subject: "every agent message validates against the v1 schema"},
		{ID: "ACP-SESSION-001", Tier: "MANDATORY", Subject: "session/new returns a non-empty sessionId"},
		{ID: "ACP-SESSION-002", Tier: "MANDATORY", Subject: "session ids are unique on a connection"},
		{ID: "ACP-PROMPT-001", Tier: "MANDATORY", Subject: "a prompt turn ends with a defined stopReason"},
		{ID: "ACP-PROMPT-002", Tier: "MANDATORY", Subject: "a turn's updates name the prompted session"},
		{ID: "ACP-PROMPT-003", Tier: "ADVISORY", Subject: "a prompt with a resource_link block is accepted",
			NotCovered: "refusing a prompt is not a protocol error a transcript can show; acplint check sends resource_link blocks, and a refusal fails no rule"},
		{ID: "ACP-CANCEL-001", Tier: "MANDATORY", Subject: "a cancelled turn ends with stopReason cancelled, not an error"},
		{ID: "ACP-CANCEL-002", Tier: "MANDATORY", Subject: "no update of a cancelled turn follows its response"},
		{ID: "ACP-LOAD-001", Tier: "CAPABILITY", Subject: "session/load succeeds when loadSession is advertised",
			Partly: "acplint judges the result's schema and a -32601 refusal; another error may be a real failure and is not judged"},
		{ID: "ACP-LOAD-002", Tier: "CAPABILITY", Subject: "the load's replay precedes its response"},
		{ID: "ACP-LOAD-003", Tier: "ADVISORY", Subject: "session/load answers {} rather than null"},
		{ID: "ACP-RESUME-001", Tier: "CAPABILITY", Subject: "session/resume succeeds when advertised",
			Partly: "acplint judges the result's schema and a -32601 refusal"},
		{ID: "ACP-RESUME-002", Tier: "CAPABILITY", Subject: "no history is replayed before the resume's response"},
		{ID: "ACP-LIST-001", Tier: "CAPABILITY", Subject: "session/list returns a sessions array"},
		{ID: "ACP-LIST-002", Tier: "CAPABILITY", Subject: "an unmatched session/list filter returns an empty array"},
		{ID: "ACP-DELETE-001", Tier: "CAPABILITY", Subject: "session/delete of a known session succeeds",
			Partly: "acplint judges the result's schema and a -32601 refusal; acplint check never deletes sessions"},
		{ID: "ACP-DELETE-002", Tier: "ADVISORY", Subject: "deleting an unknown session succeeds silently"},
		{ID: "ACP-CLOSE-001", Tier: "CAPABILITY", Subject: "session/close of an idle session succeeds",
			Partly: "acplint judges the result's schema and a -32601 refusal"},
		{ID: "ACP-CLOSE-002", Tier: "CAPABILITY", Subject: "session/close cancels a running turn"},
		{ID: "ACP-ADDDIRS-001", Tier: "CAPABILITY", Subject: "session/new with additionalDirectories is accepted",
			NotCovered: "acceptance is not a protocol error a transcript can show, and acplint check sends no additionalDirectories"},
		{ID: "ACP-MODES-001", Tier: "CAPABILITY", Subject: "the current mode is one of the available modes"},
		{ID: "ACP-MODES-002", Tier: "CAPABILITY", Subject: "current_mode_update names the mode currentModeId"},
		{ID: "ACP-CONFIG-001", Tier: "CAPABILITY", Subject: "each config option's currentValue is valid for its type"},
		{ID: "ACP-CONFIG-002", Tier: "CAPABILITY", Subject: "session/set_config_option answers with the complete option list",
			Partly: "leaving out options other than the changed one is a warning: a change may remove options that depend on it"},
		{ID: "ACP-CONFIG-003", Tier: "MANDATORY", Subject: "no boolean config option for a client that does not support them"},
		{ID: "ACP-PROMPTCAP-001", Tier: "CAPABILITY", Subject: "an image prompt is accepted when advertised",
			NotCovered: "accepting content is not a protocol error a transcript can show; acplint check sends no image blocks"},
		{ID: "ACP-PROMPTCAP-002", Tier: "CAPABILITY", Subject: "an audio prompt is accepted when advertised",
			NotCovered: "accepting content is not a protocol error a transcript can show; acplint check sends no audio blocks"},
		{ID: "ACP-PROMPTCAP-003", Tier: "CAPABILITY", Subject: "an embedded resource prompt is accepted when advertised",
			NotCovered: "accepting content is not a protocol error a transcript can show; acplint check sends embedded resources, and a refusal fails no rule"},
		{ID: "ACP-AUTH-001", Tier: "ADVISORY", Subject: "authMethods ids are unique"},
		{ID: "ACP-AUTH-002", Tier: "MANDATORY", Subject: "no terminal auth method for a client that does not support it"},
		{ID: "ACP-AUTH-003", Tier: "CAPABILITY", Subject: "after authenticate, session/new is not refused for want of it",
			NotCovered: "it needs a valid auth method and credentials; acplint check never authenticates"},
		{ID: "ACP-AUTH-004", Tier: "CAPABILITY", Subject: "logout succeeds when advertised",
			NotCovered: "logout may revoke the user's credentials; acplint check never sends it"},
		{ID: "ACP-AUTH-005", Tier: "ADVISORY", Subject: "no -32000 (auth required) when no auth method is offered"},
		{ID: "ACP-CLIENTCAP-001", Tier: "MANDATORY", Subject: "no fs/* call the client did not advertise"},
		{ID: "ACP-CLIENTCAP-002", Tier: "MANDATORY", Subject: "no terminal/* call the client did not advertise"},
		{ID: "ACP-CLIENTCAP-003", Tier: "MANDATORY", Subject: "no elicitation the client did not advertise"},
		{ID: "ACP-EXT-001", Tier: "MANDATORY", Subject: "an unknown extension request gets a response"},
		{ID: "ACP-META-001", Tier: "ADVISORY", Subject: "a prompt carrying _meta is accepted",
			NotCovered: "accepting a prompt is not a protocol error a transcript can show; acplint judges the shape of _meta (ACP-EXTN-004, ACP-EXTN-005), not its acceptance"},
		{ID: "ACP-ERROR-001", Tier: "ADVISORY", Subject: "error messages are one non-empty line"},
		{ID: "ACP-SHUTDOWN-001", Tier: "ADVISORY", Subject: "the agent exits when its stdin closes", Harness: "CHECK-CLOSE"},
		{ID: "ACP-SCHEMA-002", Tier: "ADVISORY", Subject: "no undeclared root keys in spec objects"},
		{ID: "ACP-STDERR-001", Tier: "INFORMATIONAL", Subject: "stderr volume, reported only"},
		{ID: "ACP-INFO-PARSE-001", Tier: "INFORMATIONAL", Subject: "the reaction to a malformed line, recorded only"},
		{ID: "ACP-INFO-INVALIDREQ-001", Tier: "INFORMATIONAL", Subject: "the reaction to JSON that is no JSON-RPC message, recorded only"},
		{ID: "ACP-INFO-UNKNOWNSESSION-001", Tier: "INFORMATIONAL", Subject: "the answer to a prompt for an unknown session, recorded only"},
	}
}

// RulesForTCK returns the catalog rules that name the kit requirement id,
// sorted by ID.
func RulesForTCK(id string) []*Rule {
	var out []*Rule
	for _, r := range All() {
		for _, t := range r.TCK {
			if t == id {
				out = append(out, r)
				break
			}
		}
	}
	return out
}
