package findings

// FS: client filesystem methods (spec §c.15).

var FSRelativePath = &Rule{
	ID:       "ACP-FS-001",
	Title:    "fs method path is not absolute",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/file-system",
	Doc: "fs/read_text_file and fs/write_text_file take an absolute path, as \"All file paths in the protocol MUST be absolute\". " +
		"The client resolves paths in its own process, so a relative one reads or writes a file the agent did not mean.",
}

var FSZeroLine = &Rule{
	ID:       "ACP-FS-002",
	Title:    "fs/read_text_file starts at line 0",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/file-system",
	Doc: "The line to start reading from is 1-based, so 0 is most likely an off-by-one. " +
		"The schema allows it, which keeps this a warning; a limit of 0 is reported as info.",
}

var FSNotFoundCode = &Rule{
	ID:       "ACP-FS-003",
	Title:    "missing file not reported with -32002",
	Severity: SeverityWarning,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/error",
	Doc: "Clients \"SHOULD respond with -32002\" when fs/read_text_file names a file that does not exist. " +
		"Agents rely on that code to tell a missing file, which is often expected, from a real read failure. " +
		"Whether a file exists cannot be seen on the wire, so acplint takes the client's own error text as evidence: an error other than -32002 whose message or data says the file is missing (ENOENT, \"no such file\", \"file not found\", or \"not found\" next to the file's name) is reported; a missing file refused with no such wording goes unnoticed.",
}

var FSOutsideRoots = &Rule{
	ID:       "ACP-FS-004",
	Title:    "fs path lies outside the session's directories",
	Severity: SeverityInfo,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-setup",
	Doc: "The session's cwd and additional directories form a root set that \"SHOULD serve as a boundary\" for file operations. " +
		"Access outside it may be legitimate but deserves a look, since users granted only those roots.",
}
