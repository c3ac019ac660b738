package findings

// LINT: problems with the transcript itself or with acplint, not with
// either ACP party. These IDs are acplint's own; the spec has no LINT area.
// They point at the transports page because that is where the framing a
// transcript records is defined.

var LINTDirectionUnknown = &Rule{
	ID:       "ACP-LINT-001",
	Title:    "message direction cannot be inferred",
	Severity: SeverityWarning,
	Blame:    PartyTool,
	Spec:     "https://agentclientprotocol.com/protocol/v1/transports",
	Doc: "A raw transcript interleaves both directions without saying who sent each line. " +
		"acplint infers the sender from the method tables and pending requests, but some messages fit either side. " +
		"Rules that depend on the sender are skipped for such a message; record transcripts with directions to check everything.",
}

var LINTBadWrapper = &Rule{
	ID:       "ACP-LINT-002",
	Title:    "input line is not in the declared transcript format",
	Severity: SeverityError,
	Blame:    PartyTool,
	Spec:     "https://agentclientprotocol.com/protocol/v1/transports",
	Doc: "Transcript formats wrap each ACP message in a record, for example a JSONL object with dir and msg members. " +
		"A line that does not fit the declared format cannot be attributed or checked, so it is reported and skipped. " +
		"Check the input format option and the recorder that wrote the file.",
}

var LINTInternal = &Rule{
	ID:       "ACP-LINT-003",
	Title:    "internal error in acplint",
	Severity: SeverityError,
	Blame:    PartyTool,
	Spec:     "https://agentclientprotocol.com/protocol/v1/transports",
	Doc: "acplint's protocol machine hit a state it does not expect. " +
		"The finding is reported rather than dropped so that a bug in acplint never passes as a clean run; please report it with the transcript.",
	Undecidable: "reports a bug in acplint itself, not a property of the transcript",
}
