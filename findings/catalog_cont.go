package findings

// CONT: content blocks (spec §c.18).

var CONTShape = &Rule{
	ID:       "ACP-CONT-001",
	Title:    "content block has an unknown type or missing fields",
	Severity: SeverityError,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/schema",
	Doc: "A ContentBlock is one of text (needs text), image and audio (need data and mimeType), resource_link (needs uri and name) or resource. " +
		"An embedded resource needs a uri and exactly one of text or blob. " +
		"Blocks that fit none of these cannot be rendered or passed to a model.",
}

var CONTBadBase64 = &Rule{
	ID:       "ACP-CONT-002",
	Title:    "content data is not valid base64",
	Severity: SeverityWarning,
	Blame:    PartyEither,
	Spec:     "https://agentclientprotocol.com/protocol/v1/content",
	Doc: "Image and audio data, and the blob of an embedded resource, are base64-encoded binary, wherever the block appears (prompts, message chunks, tool call content). " +
		"Data that does not decode, such as a data: URL, hex with spaces or the URL-safe alphabet, fails only when the receiver tries to display or forward it. " +
		"Standard base64 with or without padding is accepted.",
}

var CONTEmbeddedInOutput = &Rule{
	ID:       "ACP-CONT-003",
	Title:    "embedded resource in agent output needs no capability",
	Severity: SeverityInfo,
	Blame:    PartyAgent,
	Spec:     "https://agentclientprotocol.com/protocol/v1/content",
	Doc: "The embeddedContext prompt capability gates embedded resources \"when included in prompts\", that is in session/prompt only. " +
		"Agents may send them in their own output whatever the capabilities say. " +
		"The entry exists so that checks do not report this as a false positive.",
	Undecidable: "a guard against false positives: the situation it describes is allowed, so it never fires",
}
