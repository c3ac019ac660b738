package findings

// TOOL: tool calls (spec §c.12).

var TOOLDuplicateID = &Rule{
	ID:       "ACP-TOOL-001",
	Title:    "toolCallId reused for a new tool call",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/tool-calls",
	Doc: "A toolCallId is unique \"within the session\", across turns and including ids replayed by session/load. " +
		"A second tool_call with a known id overwrites the earlier call in the client and makes later updates ambiguous. " +
		"Limit: acplint remembers every tool call, messageId and compaction of a running turn and, of the rest, the latest 2,048 to 4,096 of the connection, so that memory does not grow with the number of turns; an id reused after its call was forgotten is not reported.",
}

var TOOLUpdateUnknown = &Rule{
	ID:       "ACP-TOOL-002",
	Title:    "tool_call_update for a tool call never announced",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	Doc: "In v1 a tool_call_update modifies an existing tool call, which must have been introduced by a tool_call in the same session. " +
		"v2 lets the first update create the call, so agents written with v2 habits trip this rule on v1 connections. " +
		"Derived from the schema's definition of the update. " +
		"Limit: acplint remembers every tool call, messageId and compaction of a running turn and, of the rest, the latest 2,048 to 4,096 of the connection, so that memory does not grow with the number of turns; an update to a call older than that is reported here as if the call had never been announced (it is out of its turn as well, ACP-TURN-003).",
}

var TOOLPermissionUnknownCall = &Rule{
	ID:       "ACP-TOOL-003",
	Title:    "permission request for an unknown, untitled tool call",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/tool-calls",
	Doc: "A permission request embeds a tool call update describing the operation to approve. " +
		"It should either refer to a tool call already reported in the session or carry the details itself; with neither, the user is asked to approve something that has no title.",
}

var TOOLShape = &Rule{
	ID:       "ACP-TOOL-004",
	Title:    "tool_call lacks a title or has an invalid kind or status",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	Doc: "A tool_call requires toolCallId and title; kind must be a ToolKind (read, edit, delete, move, search, execute, think, fetch, switch_mode, other) and status a ToolCallStatus (pending, in_progress, completed, failed). " +
		"cancelled is not a v1 tool status: marking calls cancelled after session/cancel is client-side UI state only.",
}

var TOOLStatusRegression = &Rule{
	ID:       "ACP-TOOL-005",
	Title:    "tool call status moves back after it finished",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/tool-calls",
	Doc: "Tool calls progress through their statuses toward completed or failed. " +
		"Going from a terminal status back to pending or in_progress reopens a call the client already finished rendering. " +
		"Derived from the lifecycle, hence a warning.",
}

var TOOLRelativePath = &Rule{
	ID:       "ACP-TOOL-006",
	Title:    "tool call diff or location path is not absolute",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/tool-calls",
	Doc: "Diff paths and locations name \"The absolute file path\" affected, and ACP requires absolute paths throughout. " +
		"Clients use them to open files and follow the agent, which a relative path cannot reliably do.",
}

var TOOLZeroLine = &Rule{
	ID:       "ACP-TOOL-007",
	Title:    "tool call location line is 0",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/overview",
	Doc: "Line numbers in ACP are 1-based, so 0 is most likely an off-by-one from a 0-based editor API. " +
		"The schema permits 0, which keeps this a warning.",
}

var TOOLUnknownTerminal = &Rule{
	ID:       "ACP-TOOL-008",
	Title:    "tool call embeds an unknown or released terminal",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	Doc: "Terminal content in a tool call shows the live output of a terminal the agent created with terminal/create in the same session. " +
		"It \"must be added before calling terminal/release\"; after release, or for an id never created, the client has no output to show. " +
		"Limit: acplint remembers the latest 512 to 1,024 released terminals; one released earlier is reported as never created.",
}

var TOOLAppendedContent = &Rule{
	ID:       "ACP-TOOL-009",
	Title:    "tool_call_update resends earlier content as a prefix",
	Severity: SeverityInfo,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	Doc: "content and locations in a tool_call_update replace the stored collections rather than extending them. " +
		"The catalogued heuristic (an update that repeats the earlier content before new items) is not checked: that is exactly what a conforming agent sends under replace semantics, while an agent assuming append semantics sends only the new items, which looks like a legitimate replacement. " +
		"acplint applies replace semantics in its own state model.",
}

var TOOLNameChanged = &Rule{
	ID:       "ACP-TOOL-010",
	Title:    "tool call name changes after the first report",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/tool-calls",
	Doc: "Agents \"SHOULD include\" a tool's name in its first report and \"SHOULD NOT change it later except to correct metadata\". " +
		"Clients key permission memory and icons on it. " +
		"A name supplied only in a later update is reported as info.",
}

var TOOLNullMeansUnchanged = &Rule{
	ID:       "ACP-TOOL-011",
	Title:    "null in a tool_call_update leaves the value unchanged",
	Severity: SeverityInfo,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/tool-calls",
	Doc: "In an update, omitting name, rawInput or rawOutput and sending null both mean \"unchanged\"; v1 has no way to clear a name. " +
		"The same holds for null kind, status and title. " +
		"acplint's state model applies these semantics; the entry documents them rather than checking anything.",
	Undecidable: "codec semantics that acplint applies, not a condition a transcript can break",
}
