package findings

// AUTHN: authentication (spec §c.16).

var AUTHNUnknownMethod = &Rule{
	ID:       "ACP-AUTHN-001",
	Title:    "authenticate names a method that was not advertised",
	Severity: SeverityError,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	Doc: "authenticate.methodId \"Must be one of the methods advertised in the initialize response\". " +
		"An id outside authMethods tells the agent to run a flow it does not offer.",
}

var AUTHNTerminalMethod = &Rule{
	ID:       "ACP-AUTHN-002",
	Title:    "authenticate names a terminal auth method",
	Severity: SeverityError,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/authentication",
	Doc: "A terminal auth method is completed in a terminal the client opens, outside the ACP connection, so clients \"MUST NOT pass a terminal method\" to authenticate. " +
		"The agent has no way to run that flow over the connection.",
}

var AUTHNDuplicateMethodID = &Rule{
	ID:       "ACP-AUTHN-003",
	Title:    "duplicate id in authMethods",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	TCK:      []string{"ACP-AUTH-001"},
	Doc: "Each auth method has a \"Unique identifier\", and authenticate refers to methods by that id alone. " +
		"Duplicates make the client's choice ambiguous.",
}

var AUTHNRequiredWithoutMethods = &Rule{
	ID:       "ACP-AUTHN-004",
	Title:    "auth required although no auth methods were offered",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	TCK:      []string{"ACP-AUTH-005"},
	Doc: "session/new may fail with auth_required (-32000) when the agent needs authentication, but the client can only react by calling authenticate with an advertised method. " +
		"With authMethods empty or absent the client is left with no remedy.",
}

var AUTHNRetryWithoutAuth = &Rule{
	ID:       "ACP-AUTHN-005",
	Title:    "session method retried without authenticating",
	Severity: SeverityInfo,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/authentication",
	Doc: "After a -32000 from a session method, only a successful authentication (or a new connection, for terminal auth) changes the outcome. " +
		"Retrying the same call right away will fail the same way. Each refusal is reported at most once.",
}

var AUTHNTerminalCommand = &Rule{
	ID:       "ACP-AUTHN-006",
	Title:    "terminal auth method provides a command",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/authentication",
	Doc: "A terminal auth method describes the flow only: \"The descriptor cannot provide a command\", and the client works the command out itself. " +
		"A command member is not part of the descriptor, so clients ignore it and whatever the agent intended with it is lost.",
}

var AUTHNUnauthenticatedSession = &Rule{
	ID:       "ACP-AUTHN-007",
	Title:    "session requested without calling authenticate first",
	Severity: SeverityInfo,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/overview",
	Doc: "Not a violation: advertised auth methods do not oblige the client to authenticate up front. " +
		"The agent signals a real need with auth_required (-32000), and the client then authenticates. " +
		"acplint records the unauthenticated attempt, once per connection, when the agent answers it with -32000 and auth methods were offered, so the flow is easy to follow.",
}
