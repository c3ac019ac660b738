package findings

// SES: session setup parameters and lifecycle methods (spec §c.8).

var SESRelativeCwd = &Rule{
	ID:       "ACP-SES-001",
	Title:    "session cwd is not an absolute path",
	Severity: SeverityError,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-setup",
	Doc: "The working directory of session/new, session/load, session/resume (and the session/list cwd filter) \"MUST be an absolute path\", like every path in ACP. " +
		"The agent runs in its own process with its own current directory, so a relative path would resolve somewhere the user did not mean.",
}

var SESMissingMcpServers = &Rule{
	ID:       "ACP-SES-002",
	Title:    "session/new or session/load lacks mcpServers",
	Severity: SeverityError,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-setup",
	Doc: "The schema makes mcpServers a required member of session/new and session/load params; an empty array is the way to say there are none. " +
		"SDK-based agents reject the request with -32602 when it is missing. " +
		"For session/resume the member is optional, so omitting it there is only a warning.",
}

var SESRelativeAdditionalDirectory = &Rule{
	ID:       "ACP-SES-003",
	Title:    "additionalDirectories entry is not absolute",
	Severity: SeverityError,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-setup",
	Doc: "Each extra workspace root \"MUST be an absolute path\", for the same reason as cwd: the agent cannot know what a relative path is relative to. " +
		"The roots also bound the files the agent may touch (ACP-FS-004), so a misresolved one widens or shifts that boundary.",
}

var SESListRelativePath = &Rule{
	ID:       "ACP-SES-004",
	Title:    "session/list reports a relative cwd or directory",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-list",
	Doc: "A listed session's cwd is documented as \"Always an absolute path\", and so are its additional directories. " +
		"Clients pass these values back in session/load, where relative paths are an error (ACP-SES-001).",
}

var SESMcpServerShape = &Rule{
	ID:       "ACP-SES-005",
	Title:    "mcpServers entry has the wrong shape",
	Severity: SeverityError,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	Doc: "HTTP and SSE servers need type, name, url and a headers array; stdio servers need name, command and args and env arrays and carry no type. " +
		"Empty arrays are fine but the members must be present. " +
		"Any other type value is unknown to stable v1, so the agent cannot start the server.",
}

var SESStdioType = &Rule{
	ID:       "ACP-SES-006",
	Title:    "stdio MCP server carries an explicit type",
	Severity: SeverityInfo,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	Doc: "In v1 a stdio server is the untagged variant of McpServer; \"type\": \"stdio\" is not canonical, though reference receivers accept it. " +
		"v2 requires the tag on every server, so this is recorded for information only.",
}

var SESRelativeMcpCommand = &Rule{
	ID:       "ACP-SES-007",
	Title:    "stdio MCP server command is not an absolute path",
	Severity: SeverityWarning,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-setup",
	Doc: "The command field is described as \"The absolute path to the MCP server executable\". " +
		"A bare name such as npx depends on the agent's PATH, which may differ from the editor's. " +
		"It is a warning because the requirement sits in a field description rather than a MUST.",
}

var SESCwdMismatch = &Rule{
	ID:       "ACP-SES-008",
	Title:    "session reopened with a different cwd",
	Severity: SeverityWarning,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-setup",
	Doc: "session/load and session/resume may change the additional directories, but only while the request cwd \"matches the session's cwd\". " +
		"Reopening with another cwd makes stored relative context (file references, tool history) point at the wrong tree.",
}

var SESListMissingSessions = &Rule{
	ID:       "ACP-SES-009",
	Title:    "session/list result lacks a sessions array",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-list",
	TCK:      []string{"ACP-LIST-001", "ACP-LIST-002"},
	Doc: "A session/list result always carries sessions; when nothing matches, the agent \"MUST return an empty sessions array\". " +
		"A missing or null member, or an error for a filter that simply matched nothing, breaks clients that page through results. " +
		"acplint takes an error as such when its code is -32002 or its text says nothing was found.",
}

var SESForeignCursor = &Rule{
	ID:       "ACP-SES-010",
	Title:    "session/list cursor was never returned by the agent",
	Severity: SeverityInfo,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-list",
	Doc: "Cursors are opaque: clients must not \"parse, modify, or persist them\". " +
		"A cursor that did not come from an earlier nextCursor in this transcript was built or stored by the client; it may have been persisted legitimately in an earlier run, hence info.",
}

var SESCloseDoesNotCancel = &Rule{
	ID:       "ACP-SES-011",
	Title:    "session/close does not cancel the running turn",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-setup",
	TCK:      []string{"ACP-CLOSE-002"},
	Doc: "Closing a session stops its work: the agent \"MUST cancel any ongoing work for that session as if session/cancel had been called\". " +
		"A prompt pending when session/close arrives should therefore end with stopReason cancelled. " +
		"This is derived with medium confidence, as in the TCK. " +
		"When the prompt response is the agent's first message after the close, it may have crossed the close, and the finding is only info.",
}

var SESInfoUpdateFields = &Rule{
	ID:       "ACP-SES-012",
	Title:    "session_info_update carries identity fields",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-list",
	Doc: "A session_info_update changes display metadata such as the title; sessionId, cwd and additionalDirectories \"are not included in the update\". " +
		"The session is identified by the enclosing notification, and its directories cannot change mid-session.",
}
