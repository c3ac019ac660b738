package findings

// MODE and CFG: session modes and config options (spec §c.17).

var MODEUnknownMode = &Rule{
	ID:       "ACP-MODE-001",
	Title:    "session/set_mode names a mode that is not available",
	Severity: SeverityWarning,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-modes",
	Doc: "The requested modeId \"Must be one of the modes listed in availableModes\" for the session. " +
		"A session that never reported modes has none to switch to. " +
		"The agent is expected to answer -32602 (ACP-RPC-011).",
}

var CFGIncompleteResult = &Rule{
	ID:       "ACP-CFG-001",
	Title:    "set_config_option result omits configuration options",
	Severity: SeverityError,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-config-options",
	TCK:      []string{"ACP-CONFIG-002"},
	Doc: "The agent \"MUST respond with the complete list of all configuration options\" after a change, since other options may depend on it. " +
		"Leaving out the option just changed is an error; leaving out other known options is a warning, because a dependent change may legitimately remove them.",
}

var CFGInvalidValue = &Rule{
	ID:       "ACP-CFG-002",
	Title:    "set_config_option value is not valid for the option",
	Severity: SeverityError,
	Blame:    PartyClient,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-config-options",
	Doc: "For a select option the value must be one of its listed values (flat or grouped); for a boolean option the request needs type boolean and a boolean value. " +
		"Anything else asks the agent for a setting it never offered.",
}

var CFGInvalidCurrentValue = &Rule{
	ID:       "ACP-CFG-003",
	Title:    "config option currentValue is not one of its values",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-config-options",
	TCK:      []string{"ACP-CONFIG-001"},
	Doc: "Agents \"MUST always provide a default value\" for every option, and the current value of a select must be among its options (a bool for boolean options). " +
		"Otherwise the client cannot show which choice is active. " +
		"Derived from the data model, hence a warning. " +
		"Agents repeat the whole option list on every change, so each bad value is reported once per session.",
}

var CFGDuplicateID = &Rule{
	ID:       "ACP-CFG-004",
	Title:    "duplicate config option id or select value",
	Severity: SeverityWarning,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-config-options",
	Doc: "Option ids are unique identifiers, and session/set_config_option and updates refer to options and values by id alone. " +
		"Duplicates make the client's selection ambiguous. " +
		"Each duplicate is reported once per session, not in every later copy of the list.",
}

var CFGReservedCategory = &Rule{
	ID:       "ACP-CFG-005",
	Title:    "config option category is reserved for the spec",
	Severity: SeverityInfo,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-config-options",
	Doc: "Categories without a leading underscore \"are reserved for the ACP spec\"; today those are mode, model, model_config and thought_level. " +
		"Custom categories should start with _ so a future spec category cannot collide with them.",
}

var CFGModeOutOfSync = &Rule{
	ID:       "ACP-CFG-006",
	Title:    "session modes and mode config option disagree",
	Severity: SeverityInfo,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/session-config-options",
	Doc: "An agent offering both the modes API and a config option of category mode \"SHOULD keep both in sync\". " +
		"A mode option without modes, modes next to config options that include no mode option, or two different current modes give clients that read different fields a different picture. " +
		"An agent that offers only modes and no config options uses the older API alone and is not reported. " +
		"Checked on the session/new, session/load and session/resume results.",
}
