package findings

// UPD: session/update payload rules (spec §c.11).

var UPDAsRequest = &Rule{
	ID:       "ACP-UPD-001",
	Title:    "session/update sent with an id",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/overview",
	Doc: "session/update is a notification with no response expected. " +
		"Sent with an id it becomes a request the client must answer, and clients that treat it as unknown reply -32601 for every streamed chunk.",
}

var UPDUnknownVariant = &Rule{
	ID:       "ACP-UPD-002",
	Title:    "sessionUpdate is not a v1 update kind",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	Doc: "The sessionUpdate discriminator selects one of the update kinds the v1 schema lists; the unstable profile adds the unstable ones. " +
		"v1 has no extension mechanism for this value, so even a _-prefixed kind is invalid here. " +
		"Carry custom data in _meta or in a _-prefixed notification.",
}

var UPDModeIDField = &Rule{
	ID:       "ACP-UPD-003",
	Title:    "current_mode_update uses modeId instead of currentModeId",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	TCK:      []string{"ACP-MODES-002"},
	Doc: "The schema and the reference SDKs name the member currentModeId, with no alias. " +
		"An old documentation example used modeId, and agents copied it; clients then fail to decode the update and miss the mode change.",
}

var UPDUnknownCurrentMode = &Rule{
	ID:       "ACP-UPD-004",
	Title:    "current mode is not among the available modes",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	TCK:      []string{"ACP-MODES-001"},
	Doc: "Modes are chosen from the availableModes the session reported when it was created or loaded. " +
		"A currentModeId (in a current_mode_update or in the session's mode state) outside that list has no name or description the client could display.",
}

var UPDPartialConfigOptions = &Rule{
	ID:       "ACP-UPD-005",
	Title:    "config_option_update omits a known option",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-config-options",
	Doc: "Each config_option_update carries \"the complete configuration state\", not a delta. " +
		"Clients replace their list with it, so an option left out disappears from the UI.",
}

var UPDUsageShape = &Rule{
	ID:       "ACP-UPD-006",
	Title:    "usage_update lacks valid used, size or cost fields",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/prompt-turn",
	Doc: "used and size \"are required and non-null token counts\" for the session's context window, and a cost, when present, needs both amount and currency. " +
		"Missing, null or negative values make the update undecodable for typed clients.",
}

var UPDNoticeShape = &Rule{
	ID:       "ACP-UPD-007",
	Title:    "notice lacks a title or severity",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	Doc: "A notice needs a severity and a non-empty plain-text title that \"can stand alone\". " +
		"Clients show the title as the whole message when space is short, so an empty one displays nothing.",
}

var UPDCompactionOrder = &Rule{
	ID:       "ACP-UPD-008",
	Title:    "compaction summary chunk outside its compaction",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/draft/prompt-turn",
	Doc: "Summary chunks for a compactionId belong between its in_progress update and its single terminal update (completed, failed or cancelled). " +
		"Chunks before or after that window, or a second terminal update, leave clients unsure which summary is current. " +
		"Limit: acplint remembers every tool call, messageId and compaction of a running turn and, of the rest, the latest 2,048 to 4,096 of the connection, so that memory does not grow with the number of turns (a compaction under way is never forgotten); a chunk or update for a finished compaction older than that is judged as for a new one.",
}

var UPDPlanShrinks = &Rule{
	ID:       "ACP-UPD-009",
	Title:    "plan update drops unfinished entries",
	Severity: SeverityInfo,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/agent-plan",
	Doc: "Every plan update must contain the complete list of entries, because the client \"MUST replace the current plan completely\". " +
		"A later plan with fewer entries, where the missing ones were not completed, often means the agent sent only the changed part. " +
		"It is a heuristic, so info only.",
}

var UPDDuplicateCommand = &Rule{
	ID:       "ACP-UPD-010",
	Title:    "available_commands_update names a command twice",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/slash-commands",
	Doc: "An available_commands_update replaces the session's list of slash commands, and the user runs one by typing its name in the prompt (\"/web query\"). " +
		"Two entries with the same name make that ambiguous: the client cannot tell which description and input hint belong to what the user typed, and clients differ in whether they show both, keep the first or keep the last. " +
		"The schema does not forbid it, so this is a warning.",
}
