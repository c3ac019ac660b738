package domain

import (
	"encoding/json"
	"reflect"
)

// RequestPermissionRequest asks the user to approve a tool call by
// picking one of Options.
type RequestPermissionRequest struct {
	SessionID SessionID          `json:"sessionId" jsonschema:"required"`
	ToolCall  ToolCallUpdate     `json:"toolCall" jsonschema:"required"`
	Options   []PermissionOption `json:"options" jsonschema:"required"`
	Meta      json.RawMessage    `json:"_meta"`
	Unknown   Members            `json:"-"`
}

// PermissionOptionID names a permission option.
type PermissionOptionID string

// PermissionOption is one answer the user can give.
type PermissionOption struct {
	OptionID PermissionOptionID   `json:"optionId" jsonschema:"required"`
	Name     string               `json:"name" jsonschema:"required"`
	Kind     PermissionOptionKind `json:"kind" jsonschema:"required"`
	Meta     json.RawMessage      `json:"_meta"`
	Unknown  Members              `json:"-"`
}

// PermissionOptionKind is a UI hint for a permission option (closed).
type PermissionOptionKind string

const (
	AllowOnce    PermissionOptionKind = "allow_once"
	AllowAlways  PermissionOptionKind = "allow_always"
	RejectOnce   PermissionOptionKind = "reject_once"
	RejectAlways PermissionOptionKind = "reject_always"
)

func (PermissionOptionKind) EnumValues() ([]string, bool) {
	return []string{"allow_once", "allow_always", "reject_once", "reject_always"}, false
}

// RequestPermissionResponse carries the user's decision.
type RequestPermissionResponse struct {
	Outcome RequestPermissionOutcome `json:"outcome" jsonschema:"required"`
	Meta    json.RawMessage          `json:"_meta"`
	Unknown Members                  `json:"-"`
}

// RequestPermissionOutcome is the decision. Discriminator: "outcome"
// (closed). After session/cancel the client must answer "cancelled".
type RequestPermissionOutcome interface{ isRequestPermissionOutcome() }

// CancelledPermissionOutcome is the "cancelled" outcome. Upstream defines
// it inline, with no members besides the discriminator (not even _meta).
type CancelledPermissionOutcome struct {
	Unknown Members `json:"-"`
}

// SelectedPermissionOutcome is the "selected" outcome: the option picked.
type SelectedPermissionOutcome struct {
	OptionID PermissionOptionID `json:"optionId" jsonschema:"required"`
	Meta     json.RawMessage    `json:"_meta"`
	Unknown  Members            `json:"-"`
}

// UnknownRequestPermissionOutcome keeps an outcome acplint does not know.
type UnknownRequestPermissionOutcome struct{ Raw json.RawMessage }

func (CancelledPermissionOutcome) isRequestPermissionOutcome()      {}
func (SelectedPermissionOutcome) isRequestPermissionOutcome()       {}
func (UnknownRequestPermissionOutcome) isRequestPermissionOutcome() {}

var permissionUnions = []*Union{
	{
		Name:      "RequestPermissionOutcome",
		Interface: reflect.TypeFor[RequestPermissionOutcome](),
		Assign:    assignArm[RequestPermissionOutcome],
		Tag:       "outcome",
		Variants: []Variant{
			{"cancelled", reflect.TypeFor[CancelledPermissionOutcome]()},
			{"selected", reflect.TypeFor[SelectedPermissionOutcome]()},
		},
		Unknown: reflect.TypeFor[UnknownRequestPermissionOutcome](),
	},
}
