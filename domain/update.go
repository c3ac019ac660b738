package domain

import (
	"encoding/json"
	"reflect"
)

// SessionNotification (session/update) streams one change of a session to
// the client.
type SessionNotification struct {
	SessionID SessionID       `json:"sessionId" jsonschema:"required"`
	Update    SessionUpdate   `json:"update" jsonschema:"required"`
	Meta      json.RawMessage `json:"_meta"`
	Unknown   Members         `json:"-"`
}

// SessionUpdate is the payload of session/update. Discriminator:
// "sessionUpdate" (closed).
type SessionUpdate interface{ isSessionUpdate() }

// MessageID groups message chunks into one message.
type MessageID string

// ContentChunk is a piece of a streamed message. The three chunk updates
// share this shape; each has its own Go type so that a type names one tag.
type ContentChunk struct {
	Content   ContentBlock    `json:"content" jsonschema:"required"`
	MessageID Opt[MessageID]  `json:"messageId"`
	Meta      json.RawMessage `json:"_meta"`
	Unknown   Members         `json:"-"`
}

// UserMessageChunk is a "user_message_chunk" update (mostly in replays).
type UserMessageChunk ContentChunk

// AgentMessageChunk is an "agent_message_chunk" update.
type AgentMessageChunk ContentChunk

// AgentThoughtChunk is an "agent_thought_chunk" update (reasoning).
type AgentThoughtChunk ContentChunk

// Plan is a "plan" update; it replaces the whole plan.
type Plan struct {
	Entries []PlanEntry     `json:"entries" jsonschema:"required"`
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// PlanEntry is one step of the agent's plan; entries have no ID.
type PlanEntry struct {
	Content  string            `json:"content" jsonschema:"required"`
	Priority PlanEntryPriority `json:"priority" jsonschema:"required"`
	Status   PlanEntryStatus   `json:"status" jsonschema:"required"`
	Meta     json.RawMessage   `json:"_meta"`
	Unknown  Members           `json:"-"`
}

// PlanEntryPriority ranks a plan entry (closed).
type PlanEntryPriority string

const (
	PriorityHigh   PlanEntryPriority = "high"
	PriorityMedium PlanEntryPriority = "medium"
	PriorityLow    PlanEntryPriority = "low"
)

func (PlanEntryPriority) EnumValues() ([]string, bool) {
	return []string{"high", "medium", "low"}, false
}

// PlanEntryStatus is a plan entry's progress (closed).
type PlanEntryStatus string

const (
	PlanPending    PlanEntryStatus = "pending"
	PlanInProgress PlanEntryStatus = "in_progress"
	PlanCompleted  PlanEntryStatus = "completed"
)

func (PlanEntryStatus) EnumValues() ([]string, bool) {
	return []string{"pending", "in_progress", "completed"}, false
}

// AvailableCommandsUpdate is an "available_commands_update"; it replaces
// the command list.
type AvailableCommandsUpdate struct {
	AvailableCommands []AvailableCommand `json:"availableCommands" jsonschema:"required"`
	Meta              json.RawMessage    `json:"_meta"`
	Unknown           Members            `json:"-"`
}

// AvailableCommand is a slash command the user can type as "/name args".
type AvailableCommand struct {
	Name        string                     `json:"name" jsonschema:"required"`
	Description string                     `json:"description" jsonschema:"required"`
	Input       Opt[AvailableCommandInput] `json:"input"`
	Meta        json.RawMessage            `json:"_meta"`
	Unknown     Members                    `json:"-"`
}

// AvailableCommandInput describes a command's input. It is an untagged
// union with one v1 shape, told apart by its members.
type AvailableCommandInput interface{ isAvailableCommandInput() }

// UnstructuredCommandInput takes all text after the command name.
type UnstructuredCommandInput struct {
	Hint    string          `json:"hint" jsonschema:"required"`
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// UnknownAvailableCommandInput keeps an input of no known shape.
type UnknownAvailableCommandInput struct{ Raw json.RawMessage }

func (UnstructuredCommandInput) isAvailableCommandInput()     {}
func (UnknownAvailableCommandInput) isAvailableCommandInput() {}

// CurrentModeUpdate is a "current_mode_update": the agent switched mode.
type CurrentModeUpdate struct {
	CurrentModeID SessionModeID   `json:"currentModeId" jsonschema:"required"`
	Meta          json.RawMessage `json:"_meta"`
	Unknown       Members         `json:"-"`
}

// ConfigOptionUpdate is a "config_option_update": the complete config state.
type ConfigOptionUpdate struct {
	ConfigOptions []SessionConfigOption `json:"configOptions" jsonschema:"required"`
	Meta          json.RawMessage       `json:"_meta"`
	Unknown       Members               `json:"-"`
}

// SessionInfoUpdate is a "session_info_update", a patch: an absent member
// leaves the value alone and null clears it.
type SessionInfoUpdate struct {
	Title     Opt[string]     `json:"title"`
	UpdatedAt Opt[string]     `json:"updatedAt"`
	Meta      json.RawMessage `json:"_meta"`
	Unknown   Members         `json:"-"`
}

// UsageUpdate is a "usage_update": context window use and total cost.
type UsageUpdate struct {
	Used    uint64          `json:"used" jsonschema:"required"`
	Size    uint64          `json:"size" jsonschema:"required"`
	Cost    Opt[Cost]       `json:"cost"`
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// Cost is an amount of money in an ISO 4217 currency.
type Cost struct {
	Amount   float64         `json:"amount" jsonschema:"required"`
	Currency string          `json:"currency" jsonschema:"required"`
	Meta     json.RawMessage `json:"_meta"`
	Unknown  Members         `json:"-"`
}

// NoticeSeverity is how serious a notice is. Open: "_"-prefixed values
// are custom, other unknown values are reserved.
type NoticeSeverity string

const (
	SeverityInfo    NoticeSeverity = "info"
	SeverityWarning NoticeSeverity = "warning"
	SeverityError   NoticeSeverity = "error"
)

func (NoticeSeverity) EnumValues() ([]string, bool) {
	return []string{"info", "warning", "error"}, true
}

// Notice is a "notice" update: a fire-and-forget message for the user,
// never part of the history.
type Notice struct {
	Severity    NoticeSeverity  `json:"severity" jsonschema:"required"`
	Title       string          `json:"title" jsonschema:"required,minLength=1"`
	Description Opt[string]     `json:"description"`
	Meta        json.RawMessage `json:"_meta"`
	Unknown     Members         `json:"-"`
}

// CompactionID names one context compaction.
type CompactionID string

// CompactionStatus is a compaction's progress. Open: "_"-prefixed values
// are custom, other unknown values are reserved.
type CompactionStatus string

const (
	CompactionInProgress CompactionStatus = "in_progress"
	CompactionCompleted  CompactionStatus = "completed"
	CompactionFailed     CompactionStatus = "failed"
	CompactionCancelled  CompactionStatus = "cancelled"
)

func (CompactionStatus) EnumValues() ([]string, bool) {
	return []string{"in_progress", "completed", "failed", "cancelled"}, true
}

// CompactionUpdate is a "compaction_update", an upsert keyed by
// CompactionID. Summary, Error and Meta are patches: absent keeps the
// stored value, null clears it.
type CompactionUpdate struct {
	CompactionID CompactionID        `json:"compactionId" jsonschema:"required"`
	Status       CompactionStatus    `json:"status" jsonschema:"required"`
	Summary      Opt[[]ContentBlock] `json:"summary"`
	Error        Opt[string]         `json:"error"`
	Meta         json.RawMessage     `json:"_meta"`
	Unknown      Members             `json:"-"`
}

// CompactionSummaryChunk is a "compaction_summary_chunk": a piece appended
// to a compaction's summary.
type CompactionSummaryChunk struct {
	CompactionID CompactionID    `json:"compactionId" jsonschema:"required"`
	Content      ContentBlock    `json:"content" jsonschema:"required"`
	Meta         json.RawMessage `json:"_meta"`
	Unknown      Members         `json:"-"`
}

// UnknownSessionUpdate keeps an update acplint does not recognise.
type UnknownSessionUpdate struct{ Raw json.RawMessage }

func (UserMessageChunk) isSessionUpdate()        {}
func (AgentMessageChunk) isSessionUpdate()       {}
func (AgentThoughtChunk) isSessionUpdate()       {}
func (ToolCall) isSessionUpdate()                {}
func (ToolCallUpdate) isSessionUpdate()          {}
func (Plan) isSessionUpdate()                    {}
func (AvailableCommandsUpdate) isSessionUpdate() {}
func (CurrentModeUpdate) isSessionUpdate()       {}
func (ConfigOptionUpdate) isSessionUpdate()      {}
func (SessionInfoUpdate) isSessionUpdate()       {}
func (UsageUpdate) isSessionUpdate()             {}
func (Notice) isSessionUpdate()                  {}
func (CompactionUpdate) isSessionUpdate()        {}
func (CompactionSummaryChunk) isSessionUpdate()  {}
func (UnknownSessionUpdate) isSessionUpdate()    {}

var updateUnions = []*Union{
	{
		Name:      "SessionUpdate",
		Interface: reflect.TypeFor[SessionUpdate](),
		Assign:    assignArm[SessionUpdate],
		Tag:       "sessionUpdate",
		Variants: []Variant{
			{"user_message_chunk", reflect.TypeFor[UserMessageChunk]()},
			{"agent_message_chunk", reflect.TypeFor[AgentMessageChunk]()},
			{"agent_thought_chunk", reflect.TypeFor[AgentThoughtChunk]()},
			{"tool_call", reflect.TypeFor[ToolCall]()},
			{"tool_call_update", reflect.TypeFor[ToolCallUpdate]()},
			{"plan", reflect.TypeFor[Plan]()},
			{"available_commands_update", reflect.TypeFor[AvailableCommandsUpdate]()},
			{"current_mode_update", reflect.TypeFor[CurrentModeUpdate]()},
			{"config_option_update", reflect.TypeFor[ConfigOptionUpdate]()},
			{"session_info_update", reflect.TypeFor[SessionInfoUpdate]()},
			{"usage_update", reflect.TypeFor[UsageUpdate]()},
			{"notice", reflect.TypeFor[Notice]()},
			{"compaction_update", reflect.TypeFor[CompactionUpdate]()},
			{"compaction_summary_chunk", reflect.TypeFor[CompactionSummaryChunk]()},
		},
		Unknown: reflect.TypeFor[UnknownSessionUpdate](),
	},
	{
		Name:      "AvailableCommandInput",
		Interface: reflect.TypeFor[AvailableCommandInput](),
		Assign:    assignArm[AvailableCommandInput],
		Variants: []Variant{
			{"", reflect.TypeFor[UnstructuredCommandInput]()},
		},
		Guess: func(has func(string) bool) reflect.Type {
			if has("hint") {
				return reflect.TypeFor[UnstructuredCommandInput]()
			}
			return nil
		},
		Unknown: reflect.TypeFor[UnknownAvailableCommandInput](),
	},
}
