package findings

// CXL: cancellation with session/cancel and $/cancel_request (spec §c.10).

var CXLNotCancelled = &Rule{
	ID:       "ACP-CXL-001",
	Title:    "cancelled turn does not end with stopReason cancelled",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/prompt-turn",
	TCK:      []string{"ACP-CANCEL-001"},
	Doc: "After session/cancel the agent \"MUST respond to the original session/prompt request with the cancelled stop reason\", even when aborting made its model calls fail. " +
		"An error or another stop reason makes the client show a failure for something the user asked for. " +
		"The cancel and the response can cross: when the response is the agent's first message after the cancel, it was most likely written before the cancel arrived, and the finding drops to info as a cancel race. " +
		"Only session/cancel counts here; a turn ended by session/close is ACP-SES-011, and session/cancel sent with an id (ACP-CXL-004) cancels nothing.",
}

var CXLUpdateAfterCancel = &Rule{
	ID:       "ACP-CXL-002",
	Title:    "update arrives after a cancelled turn ended",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/prompt-turn",
	TCK:      []string{"ACP-CANCEL-002"},
	Doc: "A cancelling agent may still flush pending updates, but it \"MUST ensure that it does so before responding\" to session/prompt. " +
		"Conversation updates (message chunks, tool calls, plans) between that response and the next prompt land in a turn the client already closed. " +
		"State updates such as mode, commands, config options, session info, usage, notices and compaction are exempt. " +
		"This cannot race: the response and the update both come from the agent, whose messages keep their order. " +
		"Only the first late update of a turn is reported.",
}

var CXLPermissionAfterCancel = &Rule{
	ID:       "ACP-CXL-003",
	Title:    "permission granted after the turn was cancelled",
	Severity: SeverityError,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/prompt-turn",
	Doc: "Once the client sends session/cancel it \"MUST respond to all pending session/request_permission requests with the cancelled outcome\", including ones that arrive before the prompt ends. " +
		"Selecting an option instead would let a tool run in a turn the user stopped. " +
		"A -32800 error is acceptable only when the agent itself cancelled that request with $/cancel_request. " +
		"This cannot race: the cancel and the answer both come from the client, so an answer written before the cancel comes first in the transcript and is legal, and a request that crossed the cancel still needs the cancelled outcome because the client knows it cancelled. " +
		"A request left unanswered when the turn ends is not reported here (the agent may end the turn before the answer arrives); if it is never answered, ACP-RPC reports it.",
}

var CXLCancelAsRequest = &Rule{
	ID:       "ACP-CXL-004",
	Title:    "session/cancel sent as a request",
	Severity: SeverityError,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/overview",
	Doc: "session/cancel is a notification and expects no response, so it carries no id. " +
		"With an id it is a different, unknown request: a conforming agent answers -32601 and does not cancel anything.",
}

var CXLCancelWithoutTurn = &Rule{
	ID:       "ACP-CXL-005",
	Title:    "session/cancel sent while no prompt is running",
	Severity: SeverityInfo,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/prompt-turn",
	Doc: "Cancelling a session with no pending session/prompt has no defined effect. " +
		"Most agents ignore it, but some cancel the next turn or log an error, so it is worth knowing about. " +
		"A cancel sent just after the turn ended, with the agent's response as its latest message, crossed that response: such races are not reported.",
}

var CXLCancelledUnanswered = &Rule{
	ID:       "ACP-CXL-006",
	Title:    "cancelled request never answered",
	Severity: SeverityError,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/cancellation",
	Doc: "$/cancel_request does not replace the response: the receiver \"MUST send one of these responses\" for the original request, a result or a -32800 error. " +
		"Callers keep the request pending until it is answered. No race is possible: the receiver saw the request, whatever it did with the cancel. " +
		"If the transcript stops early the finding is a warning, since the answer may simply not have been recorded.",
}

var CXLUnknownCancelTarget = &Rule{
	ID:       "ACP-CXL-007",
	Title:    "$/cancel_request names no pending request",
	Severity: SeverityWarning,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/rfds/request-cancellation",
	Doc: "The requestId of $/cancel_request must be a request the sender itself issued and that is still waiting for an answer. " +
		"An unknown id points to a correlation bug; a cancel that arrives just after the response is a harmless race and reported as info. " +
		"Receivers may ignore the notification either way.",
}

var CXLUnexpectedCancelledCode = &Rule{
	ID:       "ACP-CXL-008",
	Title:    "-32800 returned for a request nobody cancelled",
	Severity: SeverityWarning,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/cancellation",
	Doc: "The Cancelled code -32800 normally answers a $/cancel_request or the cascade of a session/cancel. " +
		"A receiver may also use it when it cancelled work internally, so this is only a warning, but callers then see a cancellation they never asked for.",
}
