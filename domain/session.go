package domain

import (
	"encoding/json"
	"reflect"
)

// SessionID names a session; the agent picks it in session/new.
type SessionID string

// NewSessionRequest creates a session working in Cwd (an absolute path)
// with the given MCP servers (send [] for none: the member is required).
type NewSessionRequest struct {
	Cwd                   string          `json:"cwd" jsonschema:"required"`
	AdditionalDirectories Opt[[]string]   `json:"additionalDirectories" jsonschema:"notnull"`
	McpServers            []McpServer     `json:"mcpServers" jsonschema:"required"`
	Meta                  json.RawMessage `json:"_meta"`
	Unknown               Members         `json:"-"`
}

// NewSessionResponse names the new session and its initial modes and
// config options.
type NewSessionResponse struct {
	SessionID     SessionID                  `json:"sessionId" jsonschema:"required"`
	Modes         Opt[SessionModeState]      `json:"modes"`
	ConfigOptions Opt[[]SessionConfigOption] `json:"configOptions"`
	Meta          json.RawMessage            `json:"_meta"`
	Unknown       Members                    `json:"-"`
}

// LoadSessionRequest reopens a stored session; the agent replays its
// history as session/update notifications before answering.
type LoadSessionRequest struct {
	McpServers            []McpServer     `json:"mcpServers" jsonschema:"required"`
	Cwd                   string          `json:"cwd" jsonschema:"required"`
	AdditionalDirectories Opt[[]string]   `json:"additionalDirectories" jsonschema:"notnull"`
	SessionID             SessionID       `json:"sessionId" jsonschema:"required"`
	Meta                  json.RawMessage `json:"_meta"`
	Unknown               Members         `json:"-"`
}

// LoadSessionResponse ends a session/load replay.
type LoadSessionResponse struct {
	Modes         Opt[SessionModeState]      `json:"modes"`
	ConfigOptions Opt[[]SessionConfigOption] `json:"configOptions"`
	Meta          json.RawMessage            `json:"_meta"`
	Unknown       Members                    `json:"-"`
}

// ResumeSessionRequest reattaches to a session without a history replay.
type ResumeSessionRequest struct {
	SessionID             SessionID        `json:"sessionId" jsonschema:"required"`
	Cwd                   string           `json:"cwd" jsonschema:"required"`
	AdditionalDirectories Opt[[]string]    `json:"additionalDirectories" jsonschema:"notnull"`
	McpServers            Opt[[]McpServer] `json:"mcpServers" jsonschema:"notnull"`
	Meta                  json.RawMessage  `json:"_meta"`
	Unknown               Members          `json:"-"`
}

// ResumeSessionResponse reports a resumed session's modes and options.
type ResumeSessionResponse struct {
	Modes         Opt[SessionModeState]      `json:"modes"`
	ConfigOptions Opt[[]SessionConfigOption] `json:"configOptions"`
	Meta          json.RawMessage            `json:"_meta"`
	Unknown       Members                    `json:"-"`
}

// CloseSessionRequest asks the agent to release an active session.
type CloseSessionRequest struct {
	SessionID SessionID       `json:"sessionId" jsonschema:"required"`
	Meta      json.RawMessage `json:"_meta"`
	Unknown   Members         `json:"-"`
}

// CloseSessionResponse reports a closed session.
type CloseSessionResponse struct {
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// ListSessionsRequest pages through the agent's stored sessions,
// optionally only those for one working directory.
type ListSessionsRequest struct {
	Cwd     Opt[string]     `json:"cwd"`
	Cursor  Opt[string]     `json:"cursor"`
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// ListSessionsResponse is one page of sessions; NextCursor is set when
// more follow.
type ListSessionsResponse struct {
	Sessions   []SessionInfo   `json:"sessions" jsonschema:"required"`
	NextCursor Opt[string]     `json:"nextCursor"`
	Meta       json.RawMessage `json:"_meta"`
	Unknown    Members         `json:"-"`
}

// SessionInfo describes one stored session in a session/list page.
type SessionInfo struct {
	SessionID             SessionID       `json:"sessionId" jsonschema:"required"`
	Cwd                   string          `json:"cwd" jsonschema:"required"`
	AdditionalDirectories Opt[[]string]   `json:"additionalDirectories" jsonschema:"notnull"`
	Title                 Opt[string]     `json:"title"`
	UpdatedAt             Opt[string]     `json:"updatedAt"`
	Meta                  json.RawMessage `json:"_meta"`
	Unknown               Members         `json:"-"`
}

// DeleteSessionRequest asks the agent to delete a stored session.
type DeleteSessionRequest struct {
	SessionID SessionID       `json:"sessionId" jsonschema:"required"`
	Meta      json.RawMessage `json:"_meta"`
	Unknown   Members         `json:"-"`
}

// DeleteSessionResponse reports a deleted session.
type DeleteSessionResponse struct {
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// McpServer is an MCP server the agent should connect to. Discriminator:
// "type"; stdio servers carry no type (Default). An explicit "stdio" is
// tolerated and decodes to McpServerStdio, with the member kept in Unknown
// so that it round-trips; encoders never write it.
type McpServer interface{ isMcpServer() }

// McpServerHttp is an "http" (streamable HTTP) MCP server.
type McpServerHttp struct {
	Name    string          `json:"name" jsonschema:"required"`
	URL     string          `json:"url" jsonschema:"required"`
	Headers []HttpHeader    `json:"headers" jsonschema:"required"`
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// McpServerSse is an "sse" MCP server.
type McpServerSse struct {
	Name    string          `json:"name" jsonschema:"required"`
	URL     string          `json:"url" jsonschema:"required"`
	Headers []HttpHeader    `json:"headers" jsonschema:"required"`
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// McpServerStdio is an MCP server the agent starts as a subprocess.
type McpServerStdio struct {
	Name    string          `json:"name" jsonschema:"required"`
	Command string          `json:"command" jsonschema:"required"`
	Args    []string        `json:"args" jsonschema:"required"`
	Env     []EnvVariable   `json:"env" jsonschema:"required"`
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// UnknownMcpServer keeps an MCP server with a type acplint does not know.
type UnknownMcpServer struct{ Raw json.RawMessage }

func (McpServerHttp) isMcpServer()    {}
func (McpServerSse) isMcpServer()     {}
func (McpServerStdio) isMcpServer()   {}
func (UnknownMcpServer) isMcpServer() {}

// HttpHeader is one HTTP header sent to an MCP server.
type HttpHeader struct {
	Name    string          `json:"name" jsonschema:"required"`
	Value   string          `json:"value" jsonschema:"required"`
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// SessionModeID names a session mode.
type SessionModeID string

// SessionModeState is the current mode and the modes on offer.
type SessionModeState struct {
	CurrentModeID  SessionModeID   `json:"currentModeId" jsonschema:"required"`
	AvailableModes []SessionMode   `json:"availableModes" jsonschema:"required"`
	Meta           json.RawMessage `json:"_meta"`
	Unknown        Members         `json:"-"`
}

// SessionMode is one mode the agent can run in.
type SessionMode struct {
	ID          SessionModeID   `json:"id" jsonschema:"required"`
	Name        string          `json:"name" jsonschema:"required"`
	Description Opt[string]     `json:"description"`
	Meta        json.RawMessage `json:"_meta"`
	Unknown     Members         `json:"-"`
}

// SetSessionModeRequest switches a session to mode ModeID.
type SetSessionModeRequest struct {
	SessionID SessionID       `json:"sessionId" jsonschema:"required"`
	ModeID    SessionModeID   `json:"modeId" jsonschema:"required"`
	Meta      json.RawMessage `json:"_meta"`
	Unknown   Members         `json:"-"`
}

// SetSessionModeResponse reports a mode switch.
type SetSessionModeResponse struct {
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// SessionConfigID names a session config option.
type SessionConfigID string

// SessionConfigValueID names one value of a select config option.
type SessionConfigValueID string

// SessionConfigGroupID names a group of select values.
type SessionConfigGroupID string

// SessionConfigOption is one setting the agent exposes. Its kind (select
// or boolean, with the current value) is an inline union: the "type"
// member and the kind's members sit in this object itself.
type SessionConfigOption struct {
	ID          SessionConfigID                  `json:"id" jsonschema:"required"`
	Name        string                           `json:"name" jsonschema:"required"`
	Description Opt[string]                      `json:"description"`
	Category    Opt[SessionConfigOptionCategory] `json:"category"`
	Kind        SessionConfigKind                `json:",inline"`
	Meta        json.RawMessage                  `json:"_meta"`
	Unknown     Members                          `json:"-"`
}

// SessionConfigOptionCategory is a UX hint for a config option. Open:
// "_"-prefixed values are custom, other unknown values are reserved.
type SessionConfigOptionCategory string

const (
	CategoryMode         SessionConfigOptionCategory = "mode"
	CategoryModel        SessionConfigOptionCategory = "model"
	CategoryModelConfig  SessionConfigOptionCategory = "model_config"
	CategoryThoughtLevel SessionConfigOptionCategory = "thought_level"
)

func (SessionConfigOptionCategory) EnumValues() ([]string, bool) {
	return []string{"mode", "model", "model_config", "thought_level"}, true
}

// SessionConfigKind is the inline union of config option kinds inside
// SessionConfigOption. Discriminator: "type" (required, closed).
type SessionConfigKind interface{ isSessionConfigKind() }

// SessionConfigSelect is a "select" option: one value out of Options.
type SessionConfigSelect struct {
	CurrentValue SessionConfigValueID       `json:"currentValue" jsonschema:"required"`
	Options      SessionConfigSelectOptions `json:"options" jsonschema:"required"`
	Unknown      Members                    `json:"-"`
}

// SessionConfigBoolean is a "boolean" option (an on/off toggle), gated by
// clientCapabilities.session.configOptions.boolean.
type SessionConfigBoolean struct {
	CurrentValue bool    `json:"currentValue" jsonschema:"required"`
	Unknown      Members `json:"-"`
}

// UnknownSessionConfigKind keeps the "type" value of a config option kind
// acplint does not know (see InlineUnion for where the members go).
type UnknownSessionConfigKind struct{ Raw json.RawMessage }

func (SessionConfigSelect) isSessionConfigKind()      {}
func (SessionConfigBoolean) isSessionConfigKind()     {}
func (UnknownSessionConfigKind) isSessionConfigKind() {}

// SessionConfigSelectOptions are the values of a select option: either a
// flat list or a list of groups, never a mix. It is an array-shaped union
// told apart by the members of its first element (see the Union convention
// in types.go); an empty array is a flat list.
type SessionConfigSelectOptions interface{ isSessionConfigSelectOptions() }

// SessionConfigSelectOptionsUngrouped is a flat list of values.
type SessionConfigSelectOptionsUngrouped []SessionConfigSelectOption

// SessionConfigSelectOptionsGrouped is a list of value groups.
type SessionConfigSelectOptionsGrouped []SessionConfigSelectGroup

// UnknownSessionConfigSelectOptions keeps options of neither shape.
type UnknownSessionConfigSelectOptions struct{ Raw json.RawMessage }

func (SessionConfigSelectOptionsUngrouped) isSessionConfigSelectOptions() {}
func (SessionConfigSelectOptionsGrouped) isSessionConfigSelectOptions()   {}
func (UnknownSessionConfigSelectOptions) isSessionConfigSelectOptions()   {}

// SessionConfigSelectOption is one selectable value.
type SessionConfigSelectOption struct {
	Value       SessionConfigValueID `json:"value" jsonschema:"required"`
	Name        string               `json:"name" jsonschema:"required"`
	Description Opt[string]          `json:"description"`
	Meta        json.RawMessage      `json:"_meta"`
	Unknown     Members              `json:"-"`
}

// SessionConfigSelectGroup is a titled group of selectable values.
type SessionConfigSelectGroup struct {
	Group   SessionConfigGroupID        `json:"group" jsonschema:"required"`
	Name    string                      `json:"name" jsonschema:"required"`
	Options []SessionConfigSelectOption `json:"options" jsonschema:"required"`
	Meta    json.RawMessage             `json:"_meta"`
	Unknown Members                     `json:"-"`
}

// SetSessionConfigOptionRequest sets option ConfigID. The new value is an
// inline union: {"value": "id"} for select options (no "type"), or
// {"type": "boolean", "value": true}.
type SetSessionConfigOptionRequest struct {
	SessionID SessionID                `json:"sessionId" jsonschema:"required"`
	ConfigID  SessionConfigID          `json:"configId" jsonschema:"required"`
	Value     SessionConfigOptionValue `json:",inline"`
	Meta      json.RawMessage          `json:"_meta"`
	Unknown   Members                  `json:"-"`
}

// SessionConfigOptionValue is the inline union of values in
// SetSessionConfigOptionRequest. Discriminator: "type"; absent means a
// value ID. Open: reference receivers read an unknown type with a string
// value as a value ID.
type SessionConfigOptionValue interface{ isSessionConfigOptionValue() }

// SessionConfigOptionValueBoolean is a "boolean" value.
type SessionConfigOptionValueBoolean struct {
	Value   bool    `json:"value" jsonschema:"required"`
	Unknown Members `json:"-"`
}

// SessionConfigOptionValueID is the untyped default: the ID of one of a
// select option's values.
type SessionConfigOptionValueID struct {
	Value   SessionConfigValueID `json:"value" jsonschema:"required"`
	Unknown Members              `json:"-"`
}

// UnknownSessionConfigOptionValue keeps the "type" value of a config value
// acplint does not know.
type UnknownSessionConfigOptionValue struct{ Raw json.RawMessage }

func (SessionConfigOptionValueBoolean) isSessionConfigOptionValue() {}
func (SessionConfigOptionValueID) isSessionConfigOptionValue()      {}
func (UnknownSessionConfigOptionValue) isSessionConfigOptionValue() {}

// SetSessionConfigOptionResponse carries the complete config state after
// the change.
type SetSessionConfigOptionResponse struct {
	ConfigOptions []SessionConfigOption `json:"configOptions" jsonschema:"required"`
	Meta          json.RawMessage       `json:"_meta"`
	Unknown       Members               `json:"-"`
}

var sessionUnions = []*Union{
	{
		Name:      "McpServer",
		Interface: reflect.TypeFor[McpServer](),
		Assign:    assignArm[McpServer],
		Tag:       "type",
		Variants: []Variant{
			{"http", reflect.TypeFor[McpServerHttp]()},
			{"sse", reflect.TypeFor[McpServerSse]()},
			{"stdio", reflect.TypeFor[McpServerStdio]()}, // tolerated spelling of the Default
		},
		Default: reflect.TypeFor[McpServerStdio](),
		Unknown: reflect.TypeFor[UnknownMcpServer](),
	},
	{
		Name:      "SessionConfigKind",
		Interface: reflect.TypeFor[SessionConfigKind](),
		Assign:    assignArm[SessionConfigKind],
		Tag:       "type",
		Variants: []Variant{
			{"select", reflect.TypeFor[SessionConfigSelect]()},
			{"boolean", reflect.TypeFor[SessionConfigBoolean]()},
		},
		Unknown: reflect.TypeFor[UnknownSessionConfigKind](),
	},
	{
		Name:      "SessionConfigSelectOptions",
		Interface: reflect.TypeFor[SessionConfigSelectOptions](),
		Assign:    assignArm[SessionConfigSelectOptions],
		Variants: []Variant{
			{"", reflect.TypeFor[SessionConfigSelectOptionsUngrouped]()},
			{"", reflect.TypeFor[SessionConfigSelectOptionsGrouped]()},
		},
		Guess: func(has func(string) bool) reflect.Type {
			// has answers for the first element of the array.
			if has("group") {
				return reflect.TypeFor[SessionConfigSelectOptionsGrouped]()
			}
			return reflect.TypeFor[SessionConfigSelectOptionsUngrouped]()
		},
		Unknown: reflect.TypeFor[UnknownSessionConfigSelectOptions](),
	},
	{
		Name:      "SessionConfigOptionValue",
		Interface: reflect.TypeFor[SessionConfigOptionValue](),
		Assign:    assignArm[SessionConfigOptionValue],
		Tag:       "type",
		Variants: []Variant{
			{"boolean", reflect.TypeFor[SessionConfigOptionValueBoolean]()},
		},
		Default: reflect.TypeFor[SessionConfigOptionValueID](),
		Unknown: reflect.TypeFor[UnknownSessionConfigOptionValue](),
		Open:    true,
	},
}
