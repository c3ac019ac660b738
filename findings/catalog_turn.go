package findings

// TURN: prompt turns and stop reasons (spec §c.9).

var TURNStopReason = &Rule{
	ID:       "ACP-TURN-001",
	Title:    "stopReason is not a v1 stop reason",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/prompt-turn",
	TCK:      []string{"ACP-PROMPT-001"},
	Doc: "A finished turn \"must specify the corresponding StopReason\", one of end_turn, max_tokens, max_turn_requests, refusal or cancelled. " +
		"Clients decide what to show (and whether to offer a retry) from this value, and typed SDKs fail to decode anything else.",
}

var TURNUnrequestedCancel = &Rule{
	ID:       "ACP-TURN-002",
	Title:    "turn reports cancelled without a client cancel",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	Doc: "The cancelled stop reason means the client cancelled the turn via session/cancel (or closed the session). " +
		"Using it for failures on the agent side hides them from the user; report an error or another stop reason instead.",
}

var TURNOutOfTurnUpdate = &Rule{
	ID:       "ACP-TURN-003",
	Title:    "conversation update outside a prompt turn",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/announcements/acp-v2-draft",
	Doc: "v1 does not strictly forbid session/update outside a turn, but message chunks, tool calls and plans sent when no prompt, load replay or cancel race is in progress are dropped or misattributed by real clients. " +
		"State updates (available commands, current mode, config options, session info, usage, notices) may arrive at any time and are exempt. " +
		"The cancelled-turn case is the stronger ACP-CXL-002. " +
		"One finding per stretch between turns: the first such update is reported, the rest of the stream is the same mistake.",
}

var TURNEndWithOpenToolCalls = &Rule{
	ID:       "ACP-TURN-004",
	Title:    "turn ends while its tool calls are unfinished",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/prompt-turn",
	Doc: "The turn ends with a stop reason once no tool calls are left pending. " +
		"Ending with end_turn while tool calls are still pending or in_progress leaves spinners running in the client forever, since no later update will arrive for them.",
}

var TURNInterleavedMessageID = &Rule{
	ID:       "ACP-TURN-005",
	Title:    "message chunks of one messageId are interleaved",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/prompt-turn",
	Doc: "Chunks sharing a messageId form one message and a different messageId starts a new one. " +
		"Returning to an earlier id after another message began, or using one id for both user and agent chunks, breaks that grouping and garbles the rendered conversation. " +
		"Limit: acplint remembers every tool call, messageId and compaction of a running turn and, of the rest, the latest 2,048 to 4,096 of the connection, so that memory does not grow with the number of turns; an id used again after it was forgotten is not reported.",
}

var TURNUsageValues = &Rule{
	ID:       "ACP-TURN-006",
	Title:    "usage_update reports implausible numbers or currency",
	Severity: SeverityInfo,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/prompt-turn",
	Doc: "A context window that reports more tokens used than its size, or a cost currency that is not a three-letter ISO 4217 code such as \"USD\", suggests the fields were mixed up. " +
		"Clients show these numbers to users directly. " +
		"Each kind of mistake is reported once per session, since every later usage update repeats it.",
}
