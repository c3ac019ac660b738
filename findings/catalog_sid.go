package findings

// SID: session identity (spec §c.7). A session is active from a successful
// session/new, session/load or session/resume until session/close succeeds.

var SIDUnknownSession = &Rule{
	ID:       "ACP-SID-001",
	Title:    "client names a session that is not active",
	Severity: SeverityError,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/error",
	TCK:      []string{"ACP-INFO-UNKNOWNSESSION-001"},
	Doc: "session/prompt, session/cancel, session/set_mode, session/set_config_option and session/close must name a session that is active on this connection: " +
		"created, loaded or resumed here and not yet closed. " +
		"Session ids do not carry over between connections; reopen the session with session/load or session/resume first.",
}

var SIDUnknownSessionFromAgent = &Rule{
	ID:       "ACP-SID-002",
	Title:    "agent names a session that is not active",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	TCK:      []string{"ACP-PROMPT-002"},
	Doc: "Updates, permission requests, file and terminal calls and session-scoped elicitations all name the session they belong to. " +
		"A session id that is neither active nor being loaded or resumed cannot be shown anywhere: the client drops the message or, worse, attributes it to the wrong conversation. " +
		"A message naming a session before the session/new response that issues its id is a warning: the client cannot know the id yet. " +
		"Only the first message for each unknown session is reported.",
}

var SIDDuplicateSessionID = &Rule{
	ID:       "ACP-SID-003",
	Title:    "session/new returns a reused or empty sessionId",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-setup",
	TCK:      []string{"ACP-SESSION-001", "ACP-SESSION-002"},
	Doc: "The agent \"MUST respond with a unique Session ID\" for each new conversation. " +
		"An id already issued on the connection merges two sessions in the client, and an empty id cannot be referred to at all.",
}

var SIDWrongErrorCode = &Rule{
	ID:       "ACP-SID-004",
	Title:    "unknown session not refused with -32002",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/error",
	TCK:      []string{"ACP-INFO-UNKNOWNSESSION-001"},
	Doc: "For a session-scoped request naming an unknown or inactive session, the agent \"SHOULD respond with -32002\" and set data.sessionId to the requested id. " +
		"That lets clients recover by reloading the session instead of reporting a generic failure. " +
		"acplint judges the errors to requests that named an inactive session, and errors to session/load or session/resume that say the session was not found; an agent that serves such a request is not reported.",
}

var SIDDeleteUnknownFails = &Rule{
	ID:       "ACP-SID-005",
	Title:    "deleting an unknown session returns an error",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-delete",
	TCK:      []string{"ACP-DELETE-002"},
	Doc: "Deletion is idempotent: removing a session that is already gone or never existed \"SHOULD succeed silently\". " +
		"Clients retry deletes after connection loss, and an error there reports a failure that did not happen. " +
		"A transcript cannot see the agent's storage, so an error counts when the session was deleted earlier in the transcript or the error itself (-32002, or its text) says the session is unknown.",
}
