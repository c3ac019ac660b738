package findings

// ELIC: elicitation, stable since schema 1.21.0 (spec §c.19).

var ELICRequestShape = &Rule{
	ID:       "ACP-ELIC-001",
	Title:    "elicitation/create lacks its mode, mode fields or scope",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/elicitation",
	Doc: "ACP \"requires mode explicitly\" and does not fall back to MCP's form default. " +
		"Form mode needs requestedSchema, URL mode needs elicitationId and url, and the request is scoped either to a session (optionally a tool call) or to a request, never both. " +
		"Without these the client cannot show the right UI in the right place.",
}

var ELICDuplicateID = &Rule{
	ID:       "ACP-ELIC-002",
	Title:    "elicitationId of a URL elicitation reused while outstanding",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/elicitation",
	Doc: "The agent \"MUST keep each elicitationId unique among outstanding URL elicitations\" on a connection. " +
		"The id is how elicitation/complete tells the client which browser flow finished, so a duplicate could close the wrong one.",
}

var ELICUnknownComplete = &Rule{
	ID:       "ACP-ELIC-003",
	Title:    "elicitation/complete names an unknown elicitationId",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/elicitation",
	Doc: "elicitation/complete goes to the client that received the URL elicitation and must \"include the original elicitationId\". " +
		"An id no earlier URL-mode elicitation/create on this connection carried completes nothing.",
}

var ELICUnadvertisedModeCode = &Rule{
	ID:       "ACP-ELIC-004",
	Title:    "unadvertised elicitation mode not refused with -32602",
	Severity: SeverityWarning,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/elicitation",
	Doc: "A request in a mode the client did not advertise is answered with -32602 (Invalid params). " +
		"The agent's own violation is ACP-CAP-004; this rule checks that the client reports it with the documented code.",
}

var ELICContentMismatch = &Rule{
	ID:       "ACP-ELIC-005",
	Title:    "elicitation answer content is stray or off-schema",
	Severity: SeverityWarning,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/elicitation",
	Doc: "content belongs only to accepted answers; with decline or cancel receivers ignore it (the schema check reports such content as a member those answers do not have). " +
		"For an accepted form elicitation it \"SHOULD conform to the requested schema\", or the agent has to re-validate and may fail. " +
		"acplint checks required fields, fields the schema lacks, value types, enum choices and length, range and item-count bounds; string patterns are not checked, since JSON Schema patterns are not Go regular expressions.",
}

var ELICCredentialField = &Rule{
	ID:       "ACP-ELIC-006",
	Title:    "form elicitation appears to ask for a secret",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/elicitation",
	Doc: "Form mode \"MUST NOT be used to request secrets or credentials\"; such input goes through URL mode, where the user deals with the service directly. " +
		"acplint flags properties named like password, api key, token or secret, or with format password. " +
		"It is a heuristic, hence a warning.",
}
