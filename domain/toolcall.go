package domain

import (
	"encoding/json"
	"reflect"
)

// ToolCallID names a tool call; it is unique within a session.
type ToolCallID string

// ToolCall is a "tool_call" update: it creates a tool call. RawInput and
// RawOutput are any JSON, kept as written (nil when absent).
type ToolCall struct {
	ToolCallID ToolCallID              `json:"toolCallId" jsonschema:"required"`
	Title      string                  `json:"title" jsonschema:"required"`
	Name       Opt[string]             `json:"name"`
	Kind       Opt[ToolKind]           `json:"kind" jsonschema:"notnull"`
	Status     Opt[ToolCallStatus]     `json:"status" jsonschema:"notnull"`
	Content    Opt[[]ToolCallContent]  `json:"content" jsonschema:"notnull"`
	Locations  Opt[[]ToolCallLocation] `json:"locations" jsonschema:"notnull"`
	RawInput   json.RawMessage         `json:"rawInput"`
	RawOutput  json.RawMessage         `json:"rawOutput"`
	Meta       json.RawMessage         `json:"_meta"`
	Unknown    Members                 `json:"-"`
}

// ToolCallUpdate is a "tool_call_update" update and the toolCall of a
// permission request. It is a patch: an absent member leaves the stored
// value alone; Content and Locations replace the stored lists.
type ToolCallUpdate struct {
	ToolCallID ToolCallID              `json:"toolCallId" jsonschema:"required"`
	Kind       Opt[ToolKind]           `json:"kind"`
	Status     Opt[ToolCallStatus]     `json:"status"`
	Title      Opt[string]             `json:"title"`
	Name       Opt[string]             `json:"name"`
	Content    Opt[[]ToolCallContent]  `json:"content"`
	Locations  Opt[[]ToolCallLocation] `json:"locations"`
	RawInput   json.RawMessage         `json:"rawInput"`
	RawOutput  json.RawMessage         `json:"rawOutput"`
	Meta       json.RawMessage         `json:"_meta"`
	Unknown    Members                 `json:"-"`
}

// ToolKind is the category of a tool call, used for icons (closed).
type ToolKind string

const (
	ToolRead       ToolKind = "read"
	ToolEdit       ToolKind = "edit"
	ToolDelete     ToolKind = "delete"
	ToolMove       ToolKind = "move"
	ToolSearch     ToolKind = "search"
	ToolExecute    ToolKind = "execute"
	ToolThink      ToolKind = "think"
	ToolFetch      ToolKind = "fetch"
	ToolSwitchMode ToolKind = "switch_mode"
	ToolOther      ToolKind = "other"
)

func (ToolKind) EnumValues() ([]string, bool) {
	return []string{"read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"}, false
}

// ToolCallStatus is a tool call's progress (closed; v1 has no "cancelled").
type ToolCallStatus string

const (
	ToolCallPending    ToolCallStatus = "pending"
	ToolCallInProgress ToolCallStatus = "in_progress"
	ToolCallCompleted  ToolCallStatus = "completed"
	ToolCallFailed     ToolCallStatus = "failed"
)

func (ToolCallStatus) EnumValues() ([]string, bool) {
	return []string{"pending", "in_progress", "completed", "failed"}, false
}

// ToolCallContent is something a tool call produced. Discriminator:
// "type" (closed).
type ToolCallContent interface{ isToolCallContent() }

// Content is "content" tool output: a content block.
type Content struct {
	Content ContentBlock    `json:"content" jsonschema:"required"`
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// Diff is a "diff" of the file at Path (absolute); no OldText means a new
// file.
type Diff struct {
	Path    string          `json:"path" jsonschema:"required"`
	OldText Opt[string]     `json:"oldText"`
	NewText string          `json:"newText" jsonschema:"required"`
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// Terminal is a "terminal" embedded in the tool call; it must come from
// terminal/create.
type Terminal struct {
	TerminalID TerminalID      `json:"terminalId" jsonschema:"required"`
	Meta       json.RawMessage `json:"_meta"`
	Unknown    Members         `json:"-"`
}

// UnknownToolCallContent keeps tool output acplint does not recognise.
type UnknownToolCallContent struct{ Raw json.RawMessage }

func (Content) isToolCallContent()                {}
func (Diff) isToolCallContent()                   {}
func (Terminal) isToolCallContent()               {}
func (UnknownToolCallContent) isToolCallContent() {}

// ToolCallLocation is a file (and 1-based line) a tool call works on.
type ToolCallLocation struct {
	Path    string          `json:"path" jsonschema:"required"`
	Line    Opt[uint32]     `json:"line"`
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

var toolCallUnions = []*Union{
	{
		Name:      "ToolCallContent",
		Interface: reflect.TypeFor[ToolCallContent](),
		Assign:    assignArm[ToolCallContent],
		Tag:       "type",
		Variants: []Variant{
			{"content", reflect.TypeFor[Content]()},
			{"diff", reflect.TypeFor[Diff]()},
			{"terminal", reflect.TypeFor[Terminal]()},
		},
		Unknown: reflect.TypeFor[UnknownToolCallContent](),
	},
}
