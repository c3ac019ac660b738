package findings

// EXTN: extensibility, _meta and extension methods (spec §c.20).

var EXTNUnknownMethod = &Rule{
	ID:       "ACP-EXTN-001",
	Title:    "method is neither an ACP method nor an extension",
	Severity: SeverityError,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/extensibility",
	Doc: "Method names outside the negotiated version's method table must start with an underscore, which the protocol reserves \"for custom extensions\", or with $/ for protocol-level messages. " +
		"Any other name may collide with a method a future version adds. A v1 method sent by the side that should receive it (an agent sending session/prompt) is reported too, as the method is not in the sender's table. " +
		"The unstable methods are reported as ACP-CAP-020 instead.",
}

var EXTNUnansweredExtension = &Rule{
	ID:       "ACP-EXTN-002",
	Title:    "extension request never answered",
	Severity: SeverityError,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/extensibility",
	TCK:      []string{"ACP-EXT-001"},
	Doc: "A receiver of a custom request \"MUST respond accordingly with the provided id\", whether or not it knows the method. " +
		"Any result or error will do, but silence leaves the caller waiting forever.",
}

var EXTNExtensionNotFoundCode = &Rule{
	ID:       "ACP-EXTN-003",
	Title:    "unknown extension request not refused with -32601",
	Severity: SeverityWarning,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/extensibility",
	TCK:      []string{"ACP-JSONRPC-004"},
	Doc: "An extension method the receiver does not recognise \"should\" get the standard Method not found error. " +
		"That code is how callers detect that the peer lacks the extension and fall back; see also ACP-RPC-010. " +
		"A receiver that knows the extension may fail with any code, so acplint reports only errors that say the method is unknown (their message says so, or they use -32600 on a ready connection) with a code other than -32601. " +
		"The one extension acplint knows nobody implements is its own probe, _acplint/no_such_method, which acplint check sends: any answer to it but -32601, a result included, is reported.",
}

var EXTNMetaNotObject = &Rule{
	ID:       "ACP-EXTN-004",
	Title:    "_meta is not a JSON object",
	Severity: SeverityError,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/extensibility",
	Doc: "Every protocol type's _meta is a map from string keys to arbitrary values; null is tolerated as absent. " +
		"Arrays, strings or numbers there fail to decode in typed SDKs and lose whatever metadata was intended.",
}

var EXTNTraceContext = &Rule{
	ID:       "ACP-EXTN-005",
	Title:    "_meta trace context values are malformed",
	Severity: SeverityWarning,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/extensibility",
	Doc: "The root _meta keys traceparent, tracestate and baggage \"SHOULD be reserved\" for W3C trace context. " +
		"A traceparent that is not version-traceid-parentid-flags in lowercase hex (or is all zeros), or a non-string tracestate or baggage, breaks trace propagation across the connection.",
}

var EXTNCapabilityOutsideMeta = &Rule{
	ID:       "ACP-EXTN-006",
	Title:    "extension not advertised under _meta",
	Severity: SeverityInfo,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/extensibility",
	Doc: "Implementations \"SHOULD use the _meta field in capability objects\" to announce extensions and their methods. " +
		"An extension capability outside _meta is reported as ACP-CAP-021. This rule reports a _ method that is used while no _meta in either side's capabilities mentions it, its namespace (zed.dev for _zed.dev/workspace/buffers) or a prefix of it: the peer is left guessing whether it is supported. " +
		"It is reported once per method.",
}

var EXTNUnknownDollarMethod = &Rule{
	ID:       "ACP-EXTN-007",
	Title:    "unknown $/ protocol message",
	Severity: SeverityInfo,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/rfds/request-cancellation",
	Doc: "Methods starting with $/ are implementation-dependent protocol messages; a receiver may ignore such a notification, and acplint notes each unknown one once. " +
		"An unknown $/ request, however, still needs an answer, which should be -32601; an error that refuses it as unknown with another code is reported too.",
}

var EXTNRoundTrip = &Rule{
	ID:       "ACP-EXTN-008",
	Title:    "extension data does not round-trip unchanged",
	Severity: SeverityError,
	Blame:    PartyTool,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	Doc: "Implementations \"MUST NOT make assumptions about values\" under _meta, and tools that store, replay or forward messages must keep _meta, unknown extension params and results, and unknown open-enum values byte-for-byte in meaning. " +
		"That includes number spelling such as 1.0 versus 1 and integers too large for float64. " +
		"This is an invariant of acplint's own codec, enforced by its tests.",
	Undecidable: "an invariant of acplint's codec, checked by its tests rather than by linting a transcript",
}
