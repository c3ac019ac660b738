package domain

import "encoding/json"

// PromptRequest starts a turn: the user's message as content blocks.
type PromptRequest struct {
	SessionID SessionID       `json:"sessionId" jsonschema:"required"`
	Prompt    []ContentBlock  `json:"prompt" jsonschema:"required"`
	Meta      json.RawMessage `json:"_meta"`
	Unknown   Members         `json:"-"`
}

// PromptResponse ends a turn and says why it ended.
type PromptResponse struct {
	StopReason StopReason      `json:"stopReason" jsonschema:"required"`
	Meta       json.RawMessage `json:"_meta"`
	Unknown    Members         `json:"-"`
}

// StopReason is why a turn ended (closed).
type StopReason string

const (
	StopEndTurn         StopReason = "end_turn"
	StopMaxTokens       StopReason = "max_tokens"
	StopMaxTurnRequests StopReason = "max_turn_requests"
	StopRefusal         StopReason = "refusal"
	StopCancelled       StopReason = "cancelled"
)

func (StopReason) EnumValues() ([]string, bool) {
	return []string{"end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"}, false
}

// CancelNotification (session/cancel) asks the agent to end the session's
// current turn; the turn then ends with stopReason "cancelled".
type CancelNotification struct {
	SessionID SessionID       `json:"sessionId" jsonschema:"required"`
	Meta      json.RawMessage `json:"_meta"`
	Unknown   Members         `json:"-"`
}
