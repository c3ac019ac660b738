package findings

// PERM: permission requests (spec §c.13).

var PERMUnofferedOption = &Rule{
	ID:       "ACP-PERM-001",
	Title:    "selected optionId was not offered",
	Severity: SeverityError,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/tool-calls",
	Doc: "A selected outcome names the option the user picked, which must be one of the optionIds in that request's options. " +
		"An id the agent did not offer has no defined meaning, so the agent cannot tell whether it was allowed to proceed.",
}

var PERMOutcomeShape = &Rule{
	ID:       "ACP-PERM-002",
	Title:    "permission outcome is malformed",
	Severity: SeverityError,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	Doc: "The result of session/request_permission holds an outcome whose discriminator is selected (with an optionId) or cancelled. " +
		"A missing outcome, another discriminator or a selection without optionId cannot be decoded, and the agent's tool call stalls.",
}

var PERMNoOptions = &Rule{
	ID:       "ACP-PERM-003",
	Title:    "permission request offers no options",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	Doc: "The v1 schema allows an empty options list, but then the user has nothing to choose and can only cancel. " +
		"The v2 draft forbids it and the Python SDK 1.0 already rejects such requests.",
}

var PERMDuplicateOption = &Rule{
	ID:       "ACP-PERM-004",
	Title:    "duplicate optionId in a permission request",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/tool-calls",
	Doc: "Each option carries a \"Unique identifier\", and the selected outcome reports only that id. " +
		"With duplicates the agent cannot tell which of the identically named options, say allow once or allow always, the user chose.",
}

var PERMOutsideTurn = &Rule{
	ID:       "ACP-PERM-005",
	Title:    "permission requested outside a prompt turn",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/prompt-turn",
	Doc: "Permission requests arise from tool calls, which happen inside a prompt turn (or while a mode or config change is being applied). " +
		"A request for a session with nothing pending reaches a client that may have no place to show it. " +
		"Derived from the turn lifecycle, hence a warning.",
}
