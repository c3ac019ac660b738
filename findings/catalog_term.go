package findings

// TERM: client terminals (spec §c.14).

var TERMUnknownTerminal = &Rule{
	ID:       "ACP-TERM-001",
	Title:    "terminal method names an unknown terminal",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	Doc: "terminal/output, terminal/wait_for_exit, terminal/kill and terminal/release take a terminalId returned by a successful terminal/create in the same session. " +
		"Any other id, including one from a different session, refers to nothing the client is running.",
}

var TERMUseAfterRelease = &Rule{
	ID:       "ACP-TERM-002",
	Title:    "terminal used after it was released",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/terminals",
	Doc: "Releasing a terminal frees it on the client: \"the terminal ID becomes invalid for all other terminal/* methods\". " +
		"Later calls naming it fail, because the client no longer holds its output. " +
		"Terminal content embedded after the release is reported as ACP-TOOL-008. " +
		"Limit: acplint remembers the latest 512 to 1,024 released terminals, so that memory does not grow with the number of commands a session runs; a use of one released earlier is reported as ACP-TERM-001.",
}

var TERMNotReleased = &Rule{
	ID:       "ACP-TERM-003",
	Title:    "terminal never released",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/terminals",
	Doc: "The agent \"MUST release the terminal\" once it no longer needs it, and a killed terminal still has to be released. " +
		"Unreleased terminals keep processes and buffers alive in the client. " +
		"When the terminal stops being needed is not observable, so acplint checks at the end of the transcript and reports a warning. " +
		"A terminal whose session was closed is reported even when the transcript may be truncated, since the release belonged before the close.",
}

var TERMRelativeCwd = &Rule{
	ID:       "ACP-TERM-004",
	Title:    "terminal/create cwd is not absolute",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/terminals",
	Doc: "The working directory of a new terminal \"Must be an absolute path\" when given. " +
		"The client's own current directory is unrelated to the session, so a relative path runs the command in an unexpected place.",
}

var TERMExitStatusMismatch = &Rule{
	ID:       "ACP-TERM-005",
	Title:    "terminal/output exit status contradicts wait_for_exit",
	Severity: SeverityWarning,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/terminals",
	Doc: "exitStatus in a terminal/output result is \"Present only if the command has exited\". " +
		"It must therefore appear in output requested after wait_for_exit returned, and name the same exit code and signal. " +
		"Output requested before wait_for_exit returned may have been taken before the exit and is not judged. " +
		"That an exitStatus appears while a wait_for_exit still blocks cannot be seen on the wire, which has no timing.",
}

var TERMTruncationMismatch = &Rule{
	ID:       "ACP-TERM-006",
	Title:    "terminal/output truncated flag contradicts the byte limit",
	Severity: SeverityWarning,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/terminals",
	Doc: "truncated says whether output was cut to honour outputByteLimit. " +
		"Output longer than the limit with truncated false, or truncated true without any limit, means the client is not applying the limit the agent asked for.",
}

var TERMNullArgs = &Rule{
	ID:       "ACP-TERM-007",
	Title:    "null args or env in terminal/create mean empty",
	Severity: SeverityInfo,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	Doc: "The schema lets args and env be omitted or null, and both read as an empty list. " +
		"acplint's decoder applies this so neither form is reported; the entry documents the rule for implementers.",
	Undecidable: "codec semantics that acplint applies, not a condition a transcript can break",
}
