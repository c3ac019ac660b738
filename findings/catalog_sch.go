package findings

// SCH: schema conformance of params and results (spec §c.3).

var SCHInvalid = &Rule{
	ID:       "ACP-SCH-001",
	Title:    "params or result do not match the method's schema",
	Severity: SeverityError,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	TCK:      []string{"ACP-SCHEMA-001", "ACP-INIT-001", "ACP-PROMPT-002", "ACP-LOAD-001", "ACP-RESUME-001", "ACP-DELETE-001", "ACP-CLOSE-001"},
	Doc: "Each known method has its own request, response or notification definition in the ACP schema; results are checked against the method of the request they answer. " +
		"This catches missing required fields, wrong types and bad discriminators that no narrower rule covers. " +
		"Validating against the schema root is not enough, because its extension branches accept almost any object. " +
		"A member that appears more than once in one object is reported here too, as a warning, whether or not the schema declares it: JSON leaves the choice of copy to each receiver, so two peers may read different messages.",
}

var SCHUnknownMember = &Rule{
	ID:       "ACP-SCH-002",
	Title:    "spec-defined object carries an undeclared root key",
	Severity: SeverityWarning,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/extensibility",
	TCK:      []string{"ACP-SCHEMA-002"},
	Doc: "Implementations \"MUST NOT add any custom fields at the root\" of a spec type; custom data goes under _meta. " +
		"It is a warning rather than an error because the check is approximate: the schema does not close its objects, and a newer minor schema may have added the key. " +
		"A strict profile may raise it.",
}

var SCHNullResult = &Rule{
	ID:       "ACP-SCH-003",
	Title:    "null result where the schema requires an object",
	Severity: SeverityWarning,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	TCK:      []string{"ACP-LOAD-003"},
	Doc: "Methods such as session/load, authenticate, session/set_mode, fs/write_text_file and terminal/release return an object whose fields are all optional. " +
		"Older documentation examples showed \"result\": null, and some receivers accept it as {}, but schema-validating peers reject it. " +
		"Send {} instead.",
}

var SCHDroppedValue = &Rule{
	ID:       "ACP-SCH-004",
	Title:    "malformed value that receivers silently drop",
	Severity: SeverityWarning,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	Doc: "Some schema fields are marked so that reference receivers replace a malformed value with its default (x-deserialize-default-on-error), or skip a malformed array item (x-deserialize-skip-invalid-items), instead of failing. " +
		"The message then appears to work while data is lost without any error. " +
		"acplint reads the marks from the upstream schema and reports a schema violation inside such a field under this rule, naming the innermost field or item that would be dropped; a violation that a more specific rule covers keeps that rule and says what is dropped.",
}

var SCHEnumValue = &Rule{
	ID:       "ACP-SCH-005",
	Title:    "enum field carries an unknown value",
	Severity: SeverityError,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	Doc: "Closed v1 enums (stop reasons, tool kinds and statuses, plan priorities and statuses, permission option kinds, roles, and the update, content and outcome discriminators) accept only their listed values. " +
		"Open enums such as notice severity or config option category tolerate unknown values: a _-prefixed one is an extension (info), any other is reserved for future ACP versions (warning).",
}
