package domain

import (
	"encoding/json"
	"reflect"
	"strings"
)

// Conventions beyond those in doc.go, for codec and the schema generator.
//
// Inline unions. A struct field whose type is a union interface and whose
// tag is `json:",inline"` holds a union flattened into the enclosing
// object: upstream writes it as a oneOf/anyOf beside the object's own
// properties (SessionConfigOption.Kind, SetSessionConfigOptionRequest.Value,
// CreateElicitationRequest.Mode and .Scope, CreateElicitationResponse.Action).
// The discriminator and the chosen arm's members are members of the
// enclosing object. Decoding picks the arm from the enclosing object as for
// a standalone union (tag, Default, or Guess over its member names); the
// arm's declared members go into the arm, members that neither the
// enclosing struct nor the arm declare go into the enclosing struct's
// Unknown (the arm's own Unknown stays empty). An unrecognised tag yields
// the Unknown arm with Raw holding the tag's value (e.g. "custom"), the
// other members going to the enclosing Unknown; an absent tag with no
// Default, or an untagged union whose Guess returns nil, leaves the field
// nil. Encoding writes the tag (unless the arm is the Default) and the
// arm's members where the field stands.
//
// Array-shaped unions. A union whose variants are slice types
// (SessionConfigSelectOptions) is told apart by Guess, where has(name)
// answers for the members of the array's first element; an empty array
// takes the arm Guess returns when has is false for every name.
//
// Verbatim types. A struct type with exactly one field, Raw
// json.RawMessage, holds a JSON value of any kind exactly as written:
// the Unknown arm of every union, RequestID and ElicitationContentValue.
// See IsVerbatim.
//
// Not-null optionals. An Opt field tagged `jsonschema:"notnull"` is
// optional but upstream does not allow null for it (arrays and capability
// objects that default when absent); other Opt fields accept null. See
// IsNotNull.
//
// Shared shapes. Types in SharedShapes differ from an upstream $def only
// to carry their own union tag; the schema describes them by that $def.

// IsInline reports whether f holds an inline union (`json:",inline"`).
func IsInline(f reflect.StructField) bool { return InlineTag(f.Tag.Get("json")) }

// InlineTag is IsInline of a field whose json tag is json: the codec
// reads each tag once while it plans a type (StructTag.Get unquotes).
func InlineTag(json string) bool {
	name, opts, _ := strings.Cut(json, ",")
	return name == "" && hasTagOption(opts, "inline")
}

// IsNotNull reports whether optional field f must not be null on the wire.
func IsNotNull(f reflect.StructField) bool { return NotNullTag(f.Tag.Get("jsonschema")) }

// NotNullTag is IsNotNull of a field whose jsonschema tag is jsonschema.
func NotNullTag(jsonschema string) bool { return hasTagOption(jsonschema, "notnull") }

// hasTagOption reports whether the comma-separated list holds option.
func hasTagOption(list, option string) bool {
	for list != "" {
		var item string
		item, list, _ = strings.Cut(list, ",")
		if item == option {
			return true
		}
	}
	return false
}

// IsVerbatim reports whether t keeps a JSON value exactly as written: a
// struct whose only field is Raw json.RawMessage.
func IsVerbatim(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.NumField() == 1 &&
		t.Field(0).Name == "Raw" && t.Field(0).Type == reflect.TypeFor[json.RawMessage]()
}

// SharedShapes maps each type that exists only to carry a union tag of its
// own to the upstream $def type whose fields it shares.
var SharedShapes = map[reflect.Type]reflect.Type{
	reflect.TypeFor[UserMessageChunk]():  reflect.TypeFor[ContentChunk](),
	reflect.TypeFor[AgentMessageChunk](): reflect.TypeFor[ContentChunk](),
	reflect.TypeFor[AgentThoughtChunk](): reflect.TypeFor[ContentChunk](),
}

// AllTypes lists every exported struct type of the package that models
// JSON, so that tests can check conventions over all of them. A test
// parses the package source and fails when a struct type is missing.
var AllTypes = []reflect.Type{
	// message.go, errors.go
	reflect.TypeFor[RequestID](),
	reflect.TypeFor[Error](),

	// content.go
	reflect.TypeFor[TextContent](),
	reflect.TypeFor[ImageContent](),
	reflect.TypeFor[AudioContent](),
	reflect.TypeFor[ResourceLink](),
	reflect.TypeFor[EmbeddedResource](),
	reflect.TypeFor[UnknownContentBlock](),
	reflect.TypeFor[TextResourceContents](),
	reflect.TypeFor[BlobResourceContents](),
	reflect.TypeFor[UnknownEmbeddedResourceResource](),
	reflect.TypeFor[Annotations](),

	// initialize.go
	reflect.TypeFor[InitializeRequest](),
	reflect.TypeFor[InitializeResponse](),
	reflect.TypeFor[Implementation](),
	reflect.TypeFor[ClientCapabilities](),
	reflect.TypeFor[FileSystemCapabilities](),
	reflect.TypeFor[ClientSessionCapabilities](),
	reflect.TypeFor[CompactionCapabilities](),
	reflect.TypeFor[NoticeCapabilities](),
	reflect.TypeFor[SessionConfigOptionsCapabilities](),
	reflect.TypeFor[BooleanConfigOptionCapabilities](),
	reflect.TypeFor[AuthCapabilities](),
	reflect.TypeFor[ElicitationCapabilities](),
	reflect.TypeFor[ElicitationFormCapabilities](),
	reflect.TypeFor[ElicitationUrlCapabilities](),
	reflect.TypeFor[AgentCapabilities](),
	reflect.TypeFor[PromptCapabilities](),
	reflect.TypeFor[McpCapabilities](),
	reflect.TypeFor[SessionCapabilities](),
	reflect.TypeFor[SessionListCapabilities](),
	reflect.TypeFor[SessionDeleteCapabilities](),
	reflect.TypeFor[SessionAdditionalDirectoriesCapabilities](),
	reflect.TypeFor[SessionResumeCapabilities](),
	reflect.TypeFor[SessionCloseCapabilities](),
	reflect.TypeFor[AgentAuthCapabilities](),
	reflect.TypeFor[LogoutCapabilities](),
	reflect.TypeFor[AuthMethodTerminal](),
	reflect.TypeFor[AuthMethodAgent](),
	reflect.TypeFor[UnknownAuthMethod](),

	// auth.go
	reflect.TypeFor[AuthenticateRequest](),
	reflect.TypeFor[AuthenticateResponse](),
	reflect.TypeFor[LogoutRequest](),
	reflect.TypeFor[LogoutResponse](),

	// session.go
	reflect.TypeFor[NewSessionRequest](),
	reflect.TypeFor[NewSessionResponse](),
	reflect.TypeFor[LoadSessionRequest](),
	reflect.TypeFor[LoadSessionResponse](),
	reflect.TypeFor[ResumeSessionRequest](),
	reflect.TypeFor[ResumeSessionResponse](),
	reflect.TypeFor[CloseSessionRequest](),
	reflect.TypeFor[CloseSessionResponse](),
	reflect.TypeFor[ListSessionsRequest](),
	reflect.TypeFor[ListSessionsResponse](),
	reflect.TypeFor[SessionInfo](),
	reflect.TypeFor[DeleteSessionRequest](),
	reflect.TypeFor[DeleteSessionResponse](),
	reflect.TypeFor[McpServerHttp](),
	reflect.TypeFor[McpServerSse](),
	reflect.TypeFor[McpServerStdio](),
	reflect.TypeFor[UnknownMcpServer](),
	reflect.TypeFor[HttpHeader](),
	reflect.TypeFor[SessionModeState](),
	reflect.TypeFor[SessionMode](),
	reflect.TypeFor[SetSessionModeRequest](),
	reflect.TypeFor[SetSessionModeResponse](),
	reflect.TypeFor[SessionConfigOption](),
	reflect.TypeFor[SessionConfigSelect](),
	reflect.TypeFor[SessionConfigBoolean](),
	reflect.TypeFor[UnknownSessionConfigKind](),
	reflect.TypeFor[UnknownSessionConfigSelectOptions](),
	reflect.TypeFor[SessionConfigSelectOption](),
	reflect.TypeFor[SessionConfigSelectGroup](),
	reflect.TypeFor[SetSessionConfigOptionRequest](),
	reflect.TypeFor[SessionConfigOptionValueBoolean](),
	reflect.TypeFor[SessionConfigOptionValueID](),
	reflect.TypeFor[UnknownSessionConfigOptionValue](),
	reflect.TypeFor[SetSessionConfigOptionResponse](),

	// prompt.go, cancel.go
	reflect.TypeFor[PromptRequest](),
	reflect.TypeFor[PromptResponse](),
	reflect.TypeFor[CancelNotification](),
	reflect.TypeFor[CancelRequestNotification](),

	// update.go
	reflect.TypeFor[SessionNotification](),
	reflect.TypeFor[ContentChunk](),
	reflect.TypeFor[UserMessageChunk](),
	reflect.TypeFor[AgentMessageChunk](),
	reflect.TypeFor[AgentThoughtChunk](),
	reflect.TypeFor[Plan](),
	reflect.TypeFor[PlanEntry](),
	reflect.TypeFor[AvailableCommandsUpdate](),
	reflect.TypeFor[AvailableCommand](),
	reflect.TypeFor[UnstructuredCommandInput](),
	reflect.TypeFor[UnknownAvailableCommandInput](),
	reflect.TypeFor[CurrentModeUpdate](),
	reflect.TypeFor[ConfigOptionUpdate](),
	reflect.TypeFor[SessionInfoUpdate](),
	reflect.TypeFor[UsageUpdate](),
	reflect.TypeFor[Cost](),
	reflect.TypeFor[Notice](),
	reflect.TypeFor[CompactionUpdate](),
	reflect.TypeFor[CompactionSummaryChunk](),
	reflect.TypeFor[UnknownSessionUpdate](),

	// toolcall.go
	reflect.TypeFor[ToolCall](),
	reflect.TypeFor[ToolCallUpdate](),
	reflect.TypeFor[Content](),
	reflect.TypeFor[Diff](),
	reflect.TypeFor[Terminal](),
	reflect.TypeFor[UnknownToolCallContent](),
	reflect.TypeFor[ToolCallLocation](),

	// permission.go
	reflect.TypeFor[RequestPermissionRequest](),
	reflect.TypeFor[PermissionOption](),
	reflect.TypeFor[RequestPermissionResponse](),
	reflect.TypeFor[CancelledPermissionOutcome](),
	reflect.TypeFor[SelectedPermissionOutcome](),
	reflect.TypeFor[UnknownRequestPermissionOutcome](),

	// fs.go
	reflect.TypeFor[ReadTextFileRequest](),
	reflect.TypeFor[ReadTextFileResponse](),
	reflect.TypeFor[WriteTextFileRequest](),
	reflect.TypeFor[WriteTextFileResponse](),

	// terminal.go
	reflect.TypeFor[CreateTerminalRequest](),
	reflect.TypeFor[EnvVariable](),
	reflect.TypeFor[CreateTerminalResponse](),
	reflect.TypeFor[TerminalOutputRequest](),
	reflect.TypeFor[TerminalOutputResponse](),
	reflect.TypeFor[TerminalExitStatus](),
	reflect.TypeFor[ReleaseTerminalRequest](),
	reflect.TypeFor[ReleaseTerminalResponse](),
	reflect.TypeFor[WaitForTerminalExitRequest](),
	reflect.TypeFor[WaitForTerminalExitResponse](),
	reflect.TypeFor[KillTerminalRequest](),
	reflect.TypeFor[KillTerminalResponse](),

	// elicitation.go
	reflect.TypeFor[CreateElicitationRequest](),
	reflect.TypeFor[ElicitationFormMode](),
	reflect.TypeFor[ElicitationUrlMode](),
	reflect.TypeFor[UnknownElicitationMode](),
	reflect.TypeFor[ElicitationSessionScope](),
	reflect.TypeFor[ElicitationRequestScope](),
	reflect.TypeFor[UnknownElicitationScope](),
	reflect.TypeFor[ElicitationSchema](),
	reflect.TypeFor[EnumOption](),
	reflect.TypeFor[StringPropertySchema](),
	reflect.TypeFor[NumberPropertySchema](),
	reflect.TypeFor[IntegerPropertySchema](),
	reflect.TypeFor[BooleanPropertySchema](),
	reflect.TypeFor[MultiSelectPropertySchema](),
	reflect.TypeFor[UnknownElicitationPropertySchema](),
	reflect.TypeFor[StringMultiSelectItems](),
	reflect.TypeFor[TitledMultiSelectItems](),
	reflect.TypeFor[UnknownMultiSelectItems](),
	reflect.TypeFor[CreateElicitationResponse](),
	reflect.TypeFor[ElicitationAcceptAction](),
	reflect.TypeFor[ElicitationDeclineAction](),
	reflect.TypeFor[ElicitationCancelAction](),
	reflect.TypeFor[UnknownElicitationAction](),
	reflect.TypeFor[ElicitationContentValue](),
	reflect.TypeFor[CompleteElicitationNotification](),
}
