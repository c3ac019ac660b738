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

var LINTFramesLost = &Rule{
	ID:       "ACP-LINT-004",
	Title:    "frames are missing from the transcript",
	Severity: SeverityWarning,
	Blame:    PartyTool,
	Spec:     "https://agentclientprotocol.com/protocol/v1/transports",
	Doc: "A recorder (acplint tap) forwards every byte between editor and agent but keeps its recording and live lint off that path: " +
		"when they fall behind by more than their memory budget, or a line is longer than the longest line they keep, they drop frames rather than slow the connection, and say so at the place of the gap. " +
		"lint likewise skips, and reports, a line over --max-line or one with more JSON values than it parses of a line (one per 32 bytes of --max-line), whose parse tree would take many times the line. " +
		"Findings after a gap may be wrong, because the protocol machine did not see the messages in it (a response to a request it never saw, for example). " +
		"Give the recorder a faster disk or a larger --queue, or raise --max-line, to record and check everything.",
}

var LINTProblemsCapped = &Rule{
	ID:       "ACP-LINT-005",
	Title:    "a message has more problems than acplint reports",
	Severity: SeverityWarning,
	Blame:    PartyTool,
	Spec:     "https://agentclientprotocol.com/protocol/v1/transports",
	Doc: "acplint keeps at most 100 problems of one message while it judges the message, so that a line of a million repeated or mistyped members cannot exhaust memory. " +
		"The first 100 are reported as usual and this finding counts the rest. " +
		"Fix the reported ones and lint again to see the others.",
}

var LINTListCut = &Rule{
	ID:       "ACP-LINT-006",
	Title:    "a list is longer than acplint keeps",
	Severity: SeverityInfo,
	Blame:    PartyTool,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-setup",
	Doc: "acplint keeps at most 4096 entries of each list a connection reports (a session's modes, its config options and their values together, its additional directories, the agent's auth methods, the sessions and cursors of its session/list results, the ids of its URL elicitations, the tool calls, message ids and compactions of running turns, which keep their latest 4096 to 8192, each side's pending requests, the open sessions, the open URL elicitations and the terminals not released, which keep their latest 3072 to 4096), so that one line of millions of entries, or millions of lines, cannot make it keep unbounded state for as long as the session lives. " +
		"A longer list is kept up to the cap, and acplint says so once per list of a session and stops judging membership in it: a mode, a config value, an auth method, a file path, a listed session, a list cursor, an elicitation, a tool call, a message id, a compaction or a request beyond the cap may be one of the entries it dropped. " +
		"The rules named in the finding are not checked for that list from then on.",
}
