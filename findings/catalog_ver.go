package findings

// VER: protocol version negotiation (spec §c.5).

var VERNotInteger = &Rule{
	ID:       "ACP-VER-001",
	Title:    "protocolVersion is not an integer from 0 to 65535",
	Severity: SeverityError,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	TCK:      []string{"ACP-INIT-001"},
	Doc: "The schema types protocolVersion as an unsigned 16-bit integer: the major version only, such as 1. " +
		"Strings like \"1\" or \"1.0.0\", fractions and negative numbers fail to decode in typed SDKs, so negotiation fails before it starts.",
}

var VERHigherThanRequested = &Rule{
	ID:       "ACP-VER-002",
	Title:    "agent answers a higher version than the client asked for",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/initialization",
	TCK:      []string{"ACP-INIT-002"},
	Doc: "If the agent supports the requested version it \"MUST respond with the same version\"; otherwise it answers with the latest one it supports. " +
		"A higher answer is only right when the agent supports nothing at or below the request, which is rare. " +
		"Echoing a request for a version no ACP release defines, such as 65535, is ACP-VER-007. " +
		"A request for the pre-release version 0 may rightly be answered with 1.",
}

var VERErrorOnMismatch = &Rule{
	ID:       "ACP-VER-003",
	Title:    "initialize fails instead of offering a supported version",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/initialization",
	TCK:      []string{"ACP-INIT-003"},
	Doc: "Version negotiation in v1 never fails at the agent: an agent that does not support the requested version \"MUST respond with the latest version it supports\" in a successful result. " +
		"Returning an error takes the decision away from the client, which alone may close the connection. " +
		"acplint takes an error as a version refusal when the client asked for a version other than 1, or when the error's code (v2's -32022) or text names the version.",
}

var VERZero = &Rule{
	ID:       "ACP-VER-004",
	Title:    "negotiated protocol version 0 is pre-release",
	Severity: SeverityInfo,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	Doc: "Version 0 denotes the unstable pre-release protocol that preceded v1. " +
		"acplint treats it as unsupported: its shapes are not those of the v1 schema the rules are written against, so the rest of the connection is not checked.",
}

var VERUnsupported = &Rule{
	ID:       "ACP-VER-005",
	Title:    "protocol version 2 or later, v1 rules not applied",
	Severity: SeverityError,
	Blame:    PartyTool,
	Spec:     "https://agentclientprotocol.com/protocol/v2/migration",
	Doc: "After initialize a connection speaks exactly one negotiated version, and v2 changes the prompt lifecycle, update semantics and capabilities. " +
		"Judging v2 traffic by v1 rules would produce noise, so acplint stops checking the connection and says so.",
}

var VERMissingInfo = &Rule{
	ID:       "ACP-VER-006",
	Title:    "clientInfo or agentInfo missing or incomplete",
	Severity: SeverityWarning,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/initialization",
	TCK:      []string{"ACP-INIT-004"},
	Doc: "Both sides \"SHOULD provide information about their implementation\" in initialize, and when the object is present the schema requires its name and version. " +
		"Peers use it for logs, bug reports and working around known quirks of specific versions. " +
		"This rule reports a missing or null object and empty name or version strings; members that are missing or of the wrong type are schema findings.",
}

var VEREchoUndefined = &Rule{
	ID:       "ACP-VER-007",
	Title:    "agent echoes a protocol version no release defines",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/initialization",
	TCK:      []string{"ACP-INIT-003"},
	Doc: "An agent that does not support the requested version \"MUST respond with the latest version it supports\". " +
		"Echoing a request for a version no ACP release defines, such as 65535, claims support for a protocol that does not exist: the client then speaks that version to an agent that only knows its own. " +
		"The conformance kit's negotiation probe fails such an echo; echoing a version that exists is ACP-VER-002's matter.",
}
