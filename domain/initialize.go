package domain

import (
	"encoding/json"
	"reflect"
)

// ProtocolVersion is the ACP major version exchanged in initialize; v1 is 1.
type ProtocolVersion uint16

// InitializeRequest opens the connection: the client states its protocol
// version and what it can do.
type InitializeRequest struct {
	ProtocolVersion    ProtocolVersion         `json:"protocolVersion" jsonschema:"required"`
	ClientCapabilities Opt[ClientCapabilities] `json:"clientCapabilities" jsonschema:"notnull"`
	ClientInfo         Opt[Implementation]     `json:"clientInfo"`
	Meta               json.RawMessage         `json:"_meta"`
	Unknown            Members                 `json:"-"`
}

// InitializeResponse is the agent's answer to initialize: the negotiated
// version, its capabilities and the ways a user can authenticate.
type InitializeResponse struct {
	ProtocolVersion   ProtocolVersion        `json:"protocolVersion" jsonschema:"required"`
	AgentCapabilities Opt[AgentCapabilities] `json:"agentCapabilities" jsonschema:"notnull"`
	AuthMethods       Opt[[]AuthMethod]      `json:"authMethods" jsonschema:"notnull"`
	AgentInfo         Opt[Implementation]    `json:"agentInfo"`
	Meta              json.RawMessage        `json:"_meta"`
	Unknown           Members                `json:"-"`
}

// Implementation names a client or agent program.
type Implementation struct {
	Name    string          `json:"name" jsonschema:"required"`
	Title   Opt[string]     `json:"title"`
	Version string          `json:"version" jsonschema:"required"`
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// ClientCapabilities are the features a client offers the agent. Absent
// members mean "not supported".
type ClientCapabilities struct {
	FS          Opt[FileSystemCapabilities]    `json:"fs" jsonschema:"notnull"`
	Terminal    Opt[bool]                      `json:"terminal" jsonschema:"notnull"`
	Session     Opt[ClientSessionCapabilities] `json:"session"`
	Auth        Opt[AuthCapabilities]          `json:"auth" jsonschema:"notnull"`
	Elicitation Opt[ElicitationCapabilities]   `json:"elicitation"`
	Meta        json.RawMessage                `json:"_meta"`
	Unknown     Members                        `json:"-"`
}

// FileSystemCapabilities say which fs/* methods the client implements.
type FileSystemCapabilities struct {
	ReadTextFile  Opt[bool]       `json:"readTextFile" jsonschema:"notnull"`
	WriteTextFile Opt[bool]       `json:"writeTextFile" jsonschema:"notnull"`
	Meta          json.RawMessage `json:"_meta"`
	Unknown       Members         `json:"-"`
}

// ClientSessionCapabilities gate session/update kinds and config option
// types the client understands.
type ClientSessionCapabilities struct {
	Compaction    Opt[CompactionCapabilities]           `json:"compaction"`
	ConfigOptions Opt[SessionConfigOptionsCapabilities] `json:"configOptions"`
	Notices       Opt[NoticeCapabilities]               `json:"notices"`
	Meta          json.RawMessage                       `json:"_meta"`
	Unknown       Members                               `json:"-"`
}

// CompactionCapabilities, when present, say the client shows compaction
// updates. Upstream declares no members, not even _meta.
type CompactionCapabilities struct {
	Unknown Members `json:"-"`
}

// NoticeCapabilities, when present, say the client shows notice updates.
// Upstream declares no members, not even _meta.
type NoticeCapabilities struct {
	Unknown Members `json:"-"`
}

// SessionConfigOptionsCapabilities list the config option types beyond
// select that the client renders.
type SessionConfigOptionsCapabilities struct {
	Boolean Opt[BooleanConfigOptionCapabilities] `json:"boolean"`
	Meta    json.RawMessage                      `json:"_meta"`
	Unknown Members                              `json:"-"`
}

// BooleanConfigOptionCapabilities, when present, allow boolean config options.
type BooleanConfigOptionCapabilities struct {
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// AuthCapabilities say which authentication flows the client can run.
type AuthCapabilities struct {
	Terminal Opt[bool]       `json:"terminal" jsonschema:"notnull"`
	Meta     json.RawMessage `json:"_meta"`
	Unknown  Members         `json:"-"`
}

// ElicitationCapabilities list the elicitation modes the client supports.
type ElicitationCapabilities struct {
	Form    Opt[ElicitationFormCapabilities] `json:"form"`
	URL     Opt[ElicitationUrlCapabilities]  `json:"url"`
	Meta    json.RawMessage                  `json:"_meta"`
	Unknown Members                          `json:"-"`
}

// ElicitationFormCapabilities, when present, allow form-mode elicitation.
type ElicitationFormCapabilities struct {
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// ElicitationUrlCapabilities, when present, allow URL-mode elicitation.
type ElicitationUrlCapabilities struct {
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// AgentCapabilities are the features an agent offers the client.
type AgentCapabilities struct {
	LoadSession         Opt[bool]                  `json:"loadSession" jsonschema:"notnull"`
	PromptCapabilities  Opt[PromptCapabilities]    `json:"promptCapabilities" jsonschema:"notnull"`
	McpCapabilities     Opt[McpCapabilities]       `json:"mcpCapabilities" jsonschema:"notnull"`
	SessionCapabilities Opt[SessionCapabilities]   `json:"sessionCapabilities" jsonschema:"notnull"`
	Auth                Opt[AgentAuthCapabilities] `json:"auth" jsonschema:"notnull"`
	Meta                json.RawMessage            `json:"_meta"`
	Unknown             Members                    `json:"-"`
}

// PromptCapabilities list the content block types beyond text and
// resource_link that the agent accepts in session/prompt.
type PromptCapabilities struct {
	Image           Opt[bool]       `json:"image" jsonschema:"notnull"`
	Audio           Opt[bool]       `json:"audio" jsonschema:"notnull"`
	EmbeddedContext Opt[bool]       `json:"embeddedContext" jsonschema:"notnull"`
	Meta            json.RawMessage `json:"_meta"`
	Unknown         Members         `json:"-"`
}

// McpCapabilities list the MCP transports beyond stdio the agent supports.
type McpCapabilities struct {
	HTTP    Opt[bool]       `json:"http" jsonschema:"notnull"`
	SSE     Opt[bool]       `json:"sse" jsonschema:"notnull"`
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// SessionCapabilities list the optional session/* methods the agent
// implements; each is on when its member is present.
type SessionCapabilities struct {
	List                  Opt[SessionListCapabilities]                  `json:"list"`
	Delete                Opt[SessionDeleteCapabilities]                `json:"delete"`
	AdditionalDirectories Opt[SessionAdditionalDirectoriesCapabilities] `json:"additionalDirectories"`
	Resume                Opt[SessionResumeCapabilities]                `json:"resume"`
	Close                 Opt[SessionCloseCapabilities]                 `json:"close"`
	Meta                  json.RawMessage                               `json:"_meta"`
	Unknown               Members                                       `json:"-"`
}

// SessionListCapabilities, when present, enable session/list.
type SessionListCapabilities struct {
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// SessionDeleteCapabilities, when present, enable session/delete.
type SessionDeleteCapabilities struct {
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// SessionAdditionalDirectoriesCapabilities, when present, allow
// additionalDirectories in session setup requests.
type SessionAdditionalDirectoriesCapabilities struct {
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// SessionResumeCapabilities, when present, enable session/resume.
type SessionResumeCapabilities struct {
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// SessionCloseCapabilities, when present, enable session/close.
type SessionCloseCapabilities struct {
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// AgentAuthCapabilities list the optional authentication methods the agent
// implements.
type AgentAuthCapabilities struct {
	Logout  Opt[LogoutCapabilities] `json:"logout"`
	Meta    json.RawMessage         `json:"_meta"`
	Unknown Members                 `json:"-"`
}

// LogoutCapabilities, when present, enable logout.
type LogoutCapabilities struct {
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// AuthMethodID names one of the agent's authentication methods.
type AuthMethodID string

// AuthMethod is one way to authenticate. Discriminator: "type"; an absent
// type is the agent method. The type is open: an unknown value is kept as
// UnknownAuthMethod (reference receivers fall back to the agent method).
type AuthMethod interface{ isAuthMethod() }

// AuthMethodTerminal is a "terminal" method: the client runs the agent
// program interactively with Args and Env instead of calling authenticate.
type AuthMethodTerminal struct {
	ID          AuthMethodID           `json:"id" jsonschema:"required"`
	Name        string                 `json:"name" jsonschema:"required"`
	Description Opt[string]            `json:"description"`
	Args        Opt[[]string]          `json:"args" jsonschema:"notnull"`
	Env         Opt[map[string]string] `json:"env" jsonschema:"notnull"`
	Meta        json.RawMessage        `json:"_meta"`
	Unknown     Members                `json:"-"`
}

// AuthMethodAgent is the default method: the agent runs the flow itself
// when the client calls authenticate with its ID. It carries no "type".
type AuthMethodAgent struct {
	ID          AuthMethodID    `json:"id" jsonschema:"required"`
	Name        string          `json:"name" jsonschema:"required"`
	Description Opt[string]     `json:"description"`
	Meta        json.RawMessage `json:"_meta"`
	Unknown     Members         `json:"-"`
}

// UnknownAuthMethod keeps an auth method with a type acplint does not know.
type UnknownAuthMethod struct{ Raw json.RawMessage }

func (AuthMethodTerminal) isAuthMethod() {}
func (AuthMethodAgent) isAuthMethod()    {}
func (UnknownAuthMethod) isAuthMethod()  {}

var initializeUnions = []*Union{
	{
		Name:      "AuthMethod",
		Interface: reflect.TypeFor[AuthMethod](),
		Assign:    assignArm[AuthMethod],
		Tag:       "type",
		Variants: []Variant{
			{"terminal", reflect.TypeFor[AuthMethodTerminal]()},
		},
		Default: reflect.TypeFor[AuthMethodAgent](),
		Unknown: reflect.TypeFor[UnknownAuthMethod](),
		Open:    true,
	},
}
