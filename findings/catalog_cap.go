package findings

// CAP: capability gating (spec §c.6). CAP-001…009 are agent-to-client
// methods and payloads gated by client capabilities; CAP-010…019 are
// client-to-agent ones gated by agent capabilities; CAP-020…022 are about
// the capability objects themselves.

var CAPReadWithoutCapability = &Rule{
	ID:       "ACP-CAP-001",
	Title:    "fs/read_text_file without the readTextFile capability",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/file-system",
	TCK:      []string{"ACP-CLIENTCAP-001"},
	Doc: "Filesystem access is opt-in: unless the client advertised fs.readTextFile as true, the agent \"MUST NOT attempt to call\" fs/read_text_file. " +
		"Clients without the capability typically answer -32601, and the agent's tool then fails in the middle of a turn.",
}

var CAPWriteWithoutCapability = &Rule{
	ID:       "ACP-CAP-002",
	Title:    "fs/write_text_file without the writeTextFile capability",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/file-system",
	TCK:      []string{"ACP-CLIENTCAP-001"},
	Doc: "The write half of ACP-CAP-001: fs/write_text_file may only be called when the client advertised fs.writeTextFile as true. " +
		"A client that did not may have no editor buffer model to apply the write to.",
}

var CAPTerminalWithoutCapability = &Rule{
	ID:       "ACP-CAP-003",
	Title:    "terminal method called without the terminal capability",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/terminals",
	TCK:      []string{"ACP-CLIENTCAP-002"},
	Doc: "If the client did not set terminal to true, the agent \"MUST NOT attempt to call any terminal methods\". " +
		"Running commands needs its own strategy in that case, such as the agent's own process execution. " +
		"Terminal content inside tool calls is checked by ACP-TOOL-008.",
}

var CAPElicitationMode = &Rule{
	ID:       "ACP-CAP-004",
	Title:    "elicitation in a mode the client did not advertise",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/elicitation",
	TCK:      []string{"ACP-CLIENTCAP-003"},
	Doc: "Agents \"MUST NOT request a mode the Client has not advertised\": form needs elicitation.form and url needs elicitation.url in the client capabilities. " +
		"An empty elicitation object advertises no mode at all, so it permits neither.",
}

var CAPTerminalAuthMethod = &Rule{
	ID:       "ACP-CAP-005",
	Title:    "terminal auth method without client terminal auth support",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/authentication",
	TCK:      []string{"ACP-AUTH-002"},
	Doc: "A terminal-type entry in authMethods may be advertised \"only when\" the client set auth.terminal to true. " +
		"Clients without that capability cannot run the interactive login, so offering it leaves users without a working way in.",
}

var CAPBooleanConfigOption = &Rule{
	ID:       "ACP-CAP-006",
	Title:    "boolean config option sent without client support",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-config-options",
	TCK:      []string{"ACP-CONFIG-003"},
	Doc: "Boolean options are a later addition, so agents \"MUST NOT include\" them unless the client advertised session.configOptions.boolean. " +
		"This applies to configOptions in session/new, session/load, session/resume and session/set_config_option results and to config_option_update. " +
		"Older clients would reject or silently drop the whole option list. " +
		"Each boolean option is reported once per session, where it first appears.",
}

var CAPNoticeWithoutCapability = &Rule{
	ID:       "ACP-CAP-007",
	Title:    "notice update without the session.notices capability",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	Doc: "Agents may send notice updates \"only\" to clients that advertised session.notices. " +
		"A client that did not will fail to decode the unknown update kind or drop it, losing the message.",
}

var CAPCompactionWithoutCapability = &Rule{
	ID:       "ACP-CAP-008",
	Title:    "compaction update without the session.compaction capability",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/draft/prompt-turn",
	Doc: "compaction_update and compaction_summary_chunk are gated on session.compaction: the agent \"MUST NOT send\" them otherwise. " +
		"Clients that never opted in do not know these update kinds. " +
		"Reported once per compaction, at its first update.",
}

var CAPPlanWithoutCapability = &Rule{
	ID:       "ACP-CAP-009",
	Title:    "plan_update or plan_removed without the plan capability",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/draft/agent-plan",
	Doc: "In the unstable profile, the newer plan update kinds may only be sent to clients that advertised plan. " +
		"Clients without it understand only the classic plan update and would drop these.",
}

var CAPLoadWithoutCapability = &Rule{
	ID:       "ACP-CAP-010",
	Title:    "session/load without the loadSession capability",
	Severity: SeverityError,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-setup",
	Doc: "Loading sessions is optional for agents; when loadSession is false or absent, clients \"MUST NOT attempt to call session/load\". " +
		"Such an agent cannot restore the conversation and will refuse the call.",
}

var CAPResumeWithoutCapability = &Rule{
	ID:       "ACP-CAP-011",
	Title:    "session/resume without the resume capability",
	Severity: SeverityError,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-setup",
	Doc: "session/resume is available only when the agent advertised sessionCapabilities.resume; otherwise clients \"MUST NOT attempt to call\" it. " +
		"Fall back to session/load or a new session.",
}

var CAPCloseWithoutCapability = &Rule{
	ID:       "ACP-CAP-012",
	Title:    "session/close without the close capability",
	Severity: SeverityError,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-setup",
	Doc: "session/close requires sessionCapabilities.close in the agent's capabilities; without it clients \"MUST NOT attempt to call\" the method. " +
		"Agents lacking it expect sessions to end with the connection.",
}

var CAPListWithoutCapability = &Rule{
	ID:       "ACP-CAP-013",
	Title:    "session/list without the list capability",
	Severity: SeverityError,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-list",
	Doc: "Listing sessions is gated on sessionCapabilities.list; if it is absent or null, clients \"MUST NOT attempt to call\" session/list. " +
		"The agent may keep no session index at all.",
}

var CAPDeleteWithoutCapability = &Rule{
	ID:       "ACP-CAP-014",
	Title:    "session/delete without the delete capability",
	Severity: SeverityError,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-delete",
	Doc: "session/delete requires sessionCapabilities.delete; without it clients \"MUST NOT attempt to call\" the method. " +
		"Agents that do not advertise it may not persist sessions in a form they can remove.",
}

var CAPLogoutWithoutCapability = &Rule{
	ID:       "ACP-CAP-015",
	Title:    "logout without the auth.logout capability",
	Severity: SeverityError,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/authentication",
	Doc: "When agentCapabilities.auth.logout is omitted or null the agent does not support logout and clients \"MUST NOT call it\". " +
		"Offer users another way to drop credentials in that case.",
}

var CAPAdditionalDirectories = &Rule{
	ID:       "ACP-CAP-016",
	Title:    "additionalDirectories sent without agent support",
	Severity: SeverityError,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-setup",
	Doc: "Extra workspace roots may be sent on session/new, session/load or session/resume \"only\" when the agent advertises sessionCapabilities.additionalDirectories. " +
		"An agent without it ignores the list and would work outside the roots the user meant to grant.",
}

var CAPPromptContent = &Rule{
	ID:       "ACP-CAP-017",
	Title:    "prompt content type the agent did not advertise",
	Severity: SeverityError,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/prompt-turn",
	Doc: "Clients \"MUST restrict types of content\" in session/prompt to the agent's prompt capabilities: images need image, audio needs audio and embedded resources need embeddedContext. " +
		"Text and resource links are always allowed. " +
		"The gate applies to the prompt array only, not to what the agent sends back.",
}

var CAPMcpTransport = &Rule{
	ID:       "ACP-CAP-018",
	Title:    "http or sse MCP server without agent support",
	Severity: SeverityError,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-setup",
	Doc: "Every agent supports stdio MCP servers, but HTTP and SSE ones require mcpCapabilities.http or .sse; clients \"MUST verify\" these before using those transports. " +
		"An agent without the capability cannot connect to the server, and its tools silently go missing.",
}

var CAPAuthenticateWithoutMethods = &Rule{
	ID:       "ACP-CAP-019",
	Title:    "authenticate sent though no auth methods were offered",
	Severity: SeverityError,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	Doc: "authenticate names a methodId that \"Must be one of the methods advertised\" in the initialize response. " +
		"When authMethods was absent or empty there is no valid choice, so the call cannot be correct.",
}

var CAPUnstable = &Rule{
	ID:       "ACP-CAP-020",
	Title:    "unstable method or field used under the stable profile",
	Severity: SeverityWarning,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	Doc: "The unstable schema carries proposals such as session/fork, providers/* or prompt usage that \"may be removed or changed at any point\". " +
		"Peers that implement only stable v1 answer -32601 or ignore the fields. " +
		"With the unstable profile on, acplint checks the feature's own capability instead.",
}

var CAPUnknownKey = &Rule{
	ID:       "ACP-CAP-021",
	Title:    "capability object carries an undefined key",
	Severity: SeverityWarning,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/initialization",
	Doc: "A capability key the negotiated version does not define is an extension and \"belongs under _meta\". " +
		"Keys at the root may clash with capabilities a later version introduces under the same name but with different meaning.",
}

var CAPMarkerKind = &Rule{
	ID:       "ACP-CAP-022",
	Title:    "capability value has the wrong kind of marker",
	Severity: SeverityInfo,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	Doc: "Some capabilities are booleans (loadSession) and others are object markers (sessionCapabilities.list: {}). " +
		"Reference receivers treat a value of the wrong kind as unsupported without complaint, which quietly disables the feature. " +
		"acplint reports it together with ACP-SCH-004.",
}

var CAPAdvertisedNotFound = &Rule{
	ID:       "ACP-CAP-023",
	Title:    "advertised method refused as not found",
	Severity: SeverityError,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/initialization",
	TCK:      []string{"ACP-LOAD-001", "ACP-RESUME-001", "ACP-DELETE-001", "ACP-CLOSE-001"},
	Doc: "A capability is a promise: an agent that advertises loadSession, or a sessionCapabilities marker, or auth.logout, says it implements the method, and a client that advertises fs or terminal says the same of those methods. " +
		"Answering such a method with -32601 (Method not found) breaks the promise after the peer built its UI on it: a session the user picks from history cannot be loaded, a file cannot be read. " +
		"acplint reports -32601 only; another error may be a real failure of a supported method.",
}
