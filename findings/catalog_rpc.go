package findings

// RPC: the JSON-RPC 2.0 envelope and request/response correlation (spec §c.2).

var RPCVersion = &Rule{
	ID:       "ACP-RPC-001",
	Title:    "jsonrpc member is missing or not \"2.0\"",
	Severity: SeverityError,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	Doc: "Every ACP message is a JSON-RPC 2.0 object and the schema requires \"jsonrpc\": \"2.0\" on each one. " +
		"Peers that check the member reject the message outright, and a missing member usually means the sender built the envelope by hand and got other parts wrong too.",
}

var RPCNoEnvelope = &Rule{
	ID:       "ACP-RPC-002",
	Title:    "message is not a request, notification or response",
	Severity: SeverityError,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/overview",
	TCK:      []string{"ACP-JSONRPC-002"},
	Doc: "A request has a method and an id, a notification has a method and no id, and a response has an id plus exactly one of result or error and no method. " +
		"Anything else, such as a response with both result and error or with neither, cannot be routed by the receiver. " +
		"The overview page describes successful responses as carrying result and failures as carrying an error object with code and message.",
}

var RPCUnknownResponseID = &Rule{
	ID:       "ACP-RPC-003",
	Title:    "response id matches no pending request",
	Severity: SeverityError,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	TCK:      []string{"ACP-JSONRPC-001"},
	Doc: "A response must answer a request the other side sent and has not had answered yet, echoing its id exactly: 1 and \"1\" are different ids. " +
		"The schema says the receiver \"MUST reply with the same value\" as the request id. " +
		"Unknown ids, ids of the responder's own requests and second answers to one request leave the peer unable to match results. " +
		"An error response with a null id is allowed for parse and invalid-request failures. In a raw transcript a response whose id is pending on neither side is reported whoever sent it.",
}

var RPCDuplicateID = &Rule{
	ID:       "ACP-RPC-004",
	Title:    "request id reused while an earlier request is pending",
	Severity: SeverityError,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	Doc: "JSON-RPC uses the id to correlate a response with its request, so two outstanding requests from one sender with the same id make the answers ambiguous. " +
		"Each direction has its own id space, so both sides starting at 0 is fine. " +
		"Reusing an id after its request completed is legal and reported only as info.",
}

var RPCIDShape = &Rule{
	ID:       "ACP-RPC-005",
	Title:    "request id is null or a fractional number",
	Severity: SeverityWarning,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	Doc: "Following JSON-RPC, the schema says a request id \"SHOULD normally not be Null\" and numeric ids \"SHOULD NOT contain fractional parts\". " +
		"A null id is indistinguishable from the id of an error about an unparseable request, and fractional ids lose precision in some decoders; use strings or integers.",
}

var RPCResponseToNotification = &Rule{
	ID:       "ACP-RPC-006",
	Title:    "response sent to a notification",
	Severity: SeverityError,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/overview",
	TCK:      []string{"ACP-JSONRPC-003"},
	Doc: "Notifications carry no id and \"never receive responses\", neither results nor errors. " +
		"Since such a response cannot name its trigger, acplint reports it when a response that correlates with nothing (ACP-RPC-003) directly follows a notification from the other side, such as session/cancel, session/update, elicitation/complete, $/cancel_request or an extension notification. " +
		"It confuses the peer's bookkeeping and is reported alongside ACP-RPC-003.",
}

var RPCMalformedError = &Rule{
	ID:       "ACP-RPC-007",
	Title:    "error object lacks an integer code or a string message",
	Severity: SeverityError,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	TCK:      []string{"ACP-JSONRPC-002"},
	Doc: "The schema requires both code and message on an error object, and the code \"must be an integer\". " +
		"Receivers branch on the code (auth required, resource not found, cancelled), so a missing or non-integer code turns a specific failure into an unreadable one.",
}

var RPCErrorMessage = &Rule{
	ID:       "ACP-RPC-008",
	Title:    "error message is empty or spans several lines",
	Severity: SeverityWarning,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	TCK:      []string{"ACP-ERROR-001"},
	Doc: "The error message \"should be limited to a concise single sentence\"; clients show it to users as is. " +
		"Stack traces and multi-line dumps belong in the error's data member, where tools can read them without cluttering the UI.",
}

var RPCReservedCode = &Rule{
	ID:       "ACP-RPC-009",
	Title:    "custom error code inside the reserved range",
	Severity: SeverityWarning,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/error",
	Doc: "Codes from -32768 to -32000 belong to JSON-RPC and ACP, and implementation-specific errors \"SHOULD use codes outside\" that range. " +
		"Only -32700, -32600, -32601, -32602, -32603, -32000 and -32002 (plus -32800, which lies outside it) have an ACP meaning. " +
		"Another code in the range may collide with one a future protocol version defines. Every error response is checked, answered request or not.",
}

var RPCMethodNotFoundCode = &Rule{
	ID:       "ACP-RPC-010",
	Title:    "unknown or unadvertised method not refused with -32601",
	Severity: SeverityWarning,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/error",
	TCK:      []string{"ACP-JSONRPC-004"},
	Doc: "A receiver that does not implement a method, or gets a capability-gated method it never advertised, \"SHOULD respond with -32601\". " +
		"Callers use that code to fall back gracefully; any other code reads as a real failure of a supported method. " +
		"acplint checks methods outside ACP v1 and these gated methods: session/load, session/list, session/delete, session/resume, session/close and logout (agent capabilities), fs/*, terminal/* and elicitation/create (client capabilities). " +
		"-32600 before initialize completed and -32800 for a cancelled request are not reported.",
}

var RPCInvalidParamsCode = &Rule{
	ID:       "ACP-RPC-011",
	Title:    "invalid params not refused with -32602",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/error",
	Doc: "The error page assigns -32602 to malformed parameters and unsupported values, such as a bad session/list cursor or an unknown modeId or configId. " +
		"Using that code lets the client tell its own mistake apart from a failure of the receiver (-32603). " +
		"acplint knows params are invalid when they break the method's schema, when session/set_mode names a mode the session did not list, and when session/set_config_option names an option the session does not have. Any error code other than -32602 is reported, except -32601 and -32800.",
}

var RPCAfterMalformed = &Rule{
	ID:       "ACP-RPC-012",
	Title:    "how the peer reacted to a malformed line",
	Severity: SeverityInfo,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/transports",
	TCK:      []string{"ACP-INFO-PARSE-001", "ACP-INFO-INVALIDREQ-001", "ACP-JSONRPC-005"},
	Doc: "The spec does not say what a receiver does after a line that is not JSON or not a JSON-RPC envelope, and SDKs differ: " +
		"the Rust and TypeScript SDKs reply -32700 or -32600 with a null id, while the Python SDK drops the line. " +
		"acplint records, at the malformed line, whether the receiver answered with a null-id error and whether it sent anything afterwards, i.e. whether the connection stayed usable; it is observation only. " +
		"When the sender of the line is unknown (raw transcripts), only a parse-error reply that follows soon is recorded.",
}

var RPCUnanswered = &Rule{
	ID:       "ACP-RPC-013",
	Title:    "request never answered",
	Severity: SeverityWarning,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/overview",
	Doc: "Every JSON-RPC request expects exactly one response, and a caller waiting for it may hang forever. " +
		"A request still pending when the transcript ends is an error if the connection closed cleanly afterwards; " +
		"if the recording simply stops, the transcript may be truncated and the finding is softer.",
}
