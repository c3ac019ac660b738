package findings

// WIRE: stdio framing and encoding (spec §c.1).

var WIREAgentNotJSON = &Rule{
	ID:       "ACP-WIRE-001",
	Title:    "agent stdout line is not a JSON-RPC message",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/transports",
	TCK:      []string{"ACP-TRANSPORT-001"},
	Doc: "On stdio the agent's stdout is reserved for ACP traffic: every line must be exactly one JSON-RPC message. " +
		"The transports page says the agent \"MUST NOT write anything to its stdout that is not a valid ACP message\". " +
		"Log output, start-up banners or JSON that is not a JSON-RPC message break the client's line reader, which typically drops the connection; diagnostics belong on stderr. " +
		"A run of consecutive such lines is reported once. In a raw transcript the sender of a stray line is unknown, so the finding is filed here and blamed on either side.",
}

var WIREClientNotJSON = &Rule{
	ID:       "ACP-WIRE-002",
	Title:    "client stdin line is not a JSON-RPC message",
	Severity: SeverityError,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/transports",
	Doc: "The client-to-agent stream follows the same framing as the agent's output: one JSON-RPC message per line and nothing else. " +
		"The client \"MUST NOT write anything to the agent's stdin that is not a valid ACP message\". " +
		"An agent that meets a stray line may answer a parse error, drop it silently or give up on the connection. " +
		"Only transcripts that record directions can tell this rule from ACP-WIRE-001.",
}

var WIREEmbeddedNewline = &Rule{
	ID:       "ACP-WIRE-003",
	Title:    "message is split across lines by a raw newline",
	Severity: SeverityError,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/transports",
	Doc: "Newline is the message delimiter, so a message itself \"MUST NOT contain embedded newlines\". " +
		"In a recording this shows up as lines that fail to parse on their own but parse once joined, for example a pretty-printed message or a string with a raw line break. " +
		"acplint rebuilds such a message, reports it once at its first line and checks it like any other; pretty-printed JSON that is not a JSON-RPC message is ACP-WIRE-001 instead. " +
		"Newlines inside JSON strings must be escaped as \\n; serialisers in compact mode do this automatically.",
}

var WIREEncoding = &Rule{
	ID:       "ACP-WIRE-004",
	Title:    "byte stream is not valid UTF-8 or starts with a BOM",
	Severity: SeverityError,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/transports",
	TCK:      []string{"ACP-TRANSPORT-002"},
	Doc: "ACP messages \"MUST be UTF-8 encoded\"; invalid byte sequences corrupt strings or make the peer reject the line. " +
		"A leading byte order mark is reported as well, because common JSON decoders (Go's among them) refuse it.",
}

var WIREBatch = &Rule{
	ID:       "ACP-WIRE-005",
	Title:    "batch (a JSON array of messages) sent on a v1 connection",
	Severity: SeverityWarning,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/transports",
	Doc: "v1 describes its stream as individual requests, notifications and responses and never mentions batches. " +
		"The reference SDKs refuse them: the TypeScript SDK answers a JSON array with a single -32600 error, and the Rust SDK removed batch support. " +
		"Batches only become legal in the v2 draft, so a v1 peer should send messages one per line.",
}

var WIREWhitespace = &Rule{
	ID:       "ACP-WIRE-006",
	Title:    "carriage return or blank line in the line stream",
	Severity: SeverityInfo,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/transports",
	Doc: "The framing is one message per \\n-terminated line; carriage returns and empty or whitespace-only lines are not part of it. " +
		"The reference readers tolerate both (they trim a trailing \\r and skip empty lines), so this is recorded, not failed. " +
		"Stricter hand-written readers may still choke on them.",
}

var WIREStderr = &Rule{
	ID:       "ACP-WIRE-007",
	Title:    "agent wrote log output to stderr",
	Severity: SeverityInfo,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/transports",
	TCK:      []string{"ACP-STDERR-001"},
	Doc: "The agent \"MAY write UTF-8 strings to its standard error\" for logging, so stderr content is never a violation. " +
		"The TCK only reports how much was written, as context for other findings.",
	Undecidable: "stderr is not part of a recorded stdin/stdout transcript, and any content there is allowed",
}

var WIRELargeMessage = &Rule{
	ID:       "ACP-WIRE-008",
	Title:    "message larger than the 32 MiB SDK reader limit",
	Severity: SeverityInfo,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/transports",
	Doc: "The spec sets no size limit, but the TypeScript SDK refuses any single message above 32 MiB by default (maxMessageBytes) with MessageTooLargeError. " +
		"A message this large will fail against peers built on that SDK unless they raised the limit; large payloads such as images are better sent as resource links.",
}

var WIRETelemetryOnStdout = &Rule{
	ID:       "ACP-WIRE-009",
	Title:    "agent writes telemetry payloads to stdout",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/draft/observability",
	Doc: "A special case of ACP-WIRE-001 with its own message: trace or metrics exports printed on stdout. " +
		"The observability draft says agents \"MUST NOT write telemetry payloads to stdout\", because on stdio that stream carries only ACP messages. " +
		"acplint recognises telemetry conservatively: OTLP container keys (resourceSpans, resourceMetrics, resourceLogs, scopeSpans and their snake_case forms), a trace id key together with a span or parent id key (console span exporters), or a metric descriptor with data points. " +
		"Anything else that is not a message stays ACP-WIRE-001. Export telemetry through an OpenTelemetry exporter or stderr instead.",
}
