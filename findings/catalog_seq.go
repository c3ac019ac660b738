package findings

// SEQ: connection phases and message ordering (spec §c.4).

var SEQNotInitialized = &Rule{
	ID:       "ACP-SEQ-001",
	Title:    "client request sent before initialize completed",
	Severity: SeverityError,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/initialization",
	Doc: "A connection starts with initialize: clients \"MUST initialize the connection\" before anything else, and other requests must wait for its response. " +
		"Until then neither side knows the negotiated version or capabilities. " +
		"Agents are expected to refuse early requests with -32600; an agent that answers one with a result or another code gets a warning of this rule, since the client then never learns it skipped initialization.",
}

var SEQAgentBeforeInit = &Rule{
	ID:       "ACP-SEQ-002",
	Title:    "agent sends a message before answering initialize",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-setup",
	Doc: "Every agent-to-client method is scoped to a session, and no session can exist before initialization is complete. " +
		"An agent that sends requests or notifications first is therefore talking about something the client cannot know yet. " +
		"Derived from the ordering the session setup page lays down.",
}

var SEQInitializeTwice = &Rule{
	ID:       "ACP-SEQ-003",
	Title:    "initialize sent more than once",
	Severity: SeverityWarning,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	Doc: "The schema describes initialize as called \"once at the beginning of the connection\". " +
		"A second call may renegotiate version and capabilities under a running session, and agents handle it inconsistently; open a new connection instead.",
}

var SEQSessionBeforeInit = &Rule{
	ID:       "ACP-SEQ-004",
	Title:    "session method sent before initialize succeeded",
	Severity: SeverityError,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-setup",
	Doc: "session/new, session/load, session/resume, session/list, session/delete and logout all depend on the negotiated capabilities, " +
		"and clients \"MUST first complete the initialization phase\" before calling them. " +
		"A request sent before a successful initialize response is refused by conforming agents with -32600; an agent that serves it instead gets a warning of this rule.",
}

var SEQPromptBeforeSession = &Rule{
	ID:       "ACP-SEQ-005",
	Title:    "prompt sent before its session was set up",
	Severity: SeverityError,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/prompt-turn",
	Doc: "A session/prompt may only name a session whose session/new, session/load or session/resume has already succeeded. " +
		"Clients \"MUST first complete the initialization phase and session setup\"; until then the agent has no session to run the turn in.",
}

var SEQOverlappingPrompts = &Rule{
	ID:       "ACP-SEQ-006",
	Title:    "second prompt sent while a turn is still running",
	Severity: SeverityWarning,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/prompt-turn",
	Doc: "v1 describes turns as strictly sequential: the client sends the next prompt once the previous one has completed. " +
		"Overlapping prompts get different treatment from different agents (some refuse, some queue), so the outcome is unpredictable. " +
		"This is derived, not stated, hence a warning; a strict profile may raise it.",
}

var SEQReplayAfterLoad = &Rule{
	ID:       "ACP-SEQ-007",
	Title:    "history replay arrives after the session/load response",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-setup",
	TCK:      []string{"ACP-LOAD-002"},
	Doc: "When loading a session the agent streams the stored conversation as session/update notifications and only then answers: " +
		"it \"MUST respond to the original session/load request\" once all entries have been streamed. " +
		"Clients treat the response as the end of the replay, so late history updates get lost or shown as new activity. " +
		"acplint counts message chunks, tool calls, tool call updates and plans that arrive after the response and before the session's next prompt as late replay, and reports the first of each load.",
}

var SEQNoReplay = &Rule{
	ID:       "ACP-SEQ-008",
	Title:    "session/load of a session with history replays nothing",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-setup",
	Doc: "On session/load the agent \"MUST replay the entire conversation\" to the client. " +
		"If the transcript shows the session had history (it was used earlier, or session/list reported it) but the load produced no updates, the client ends up with an empty view. " +
		"A transcript cannot prove what history exists, so this is a warning.",
}

var SEQReplayOnResume = &Rule{
	ID:       "ACP-SEQ-009",
	Title:    "session/resume replays history before responding",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-setup",
	TCK:      []string{"ACP-RESUME-002"},
	Doc: "Resume differs from load precisely in that the agent \"MUST NOT replay the conversation history\" before it responds. " +
		"A client that chose resume already holds the history and would show every message twice. " +
		"User, agent and thought message chunks before the response count; the first of each resume is reported.",
}

var SEQNoticeDuringReplay = &Rule{
	ID:       "ACP-SEQ-010",
	Title:    "notice sent during a session/load replay",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/draft/session-setup",
	Doc: "Notices are live status messages, not part of the conversation, and \"SHOULD NOT be replayed\". " +
		"Replaying them on load shows users stale warnings as if they were current.",
}

var SEQIgnoredVersionMismatch = &Rule{
	ID:       "ACP-SEQ-011",
	Title:    "client keeps going after an unsupported protocol version",
	Severity: SeverityWarning,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/initialization",
	Doc: "When the agent answers initialize with a version the client cannot speak, the client \"SHOULD close the connection and inform the user\". " +
		"Carrying on means both sides parse each other's messages against different schemas.",
	Undecidable: "which protocol versions the client supports is not visible on the wire",
}
