package domain

import (
	"encoding/json"
	"reflect"
)

// ElicitationID names a URL-mode elicitation.
type ElicitationID string

// CreateElicitationRequest (elicitation/create) asks the user for input,
// through a form or by visiting a URL. Mode and Scope are inline unions:
// "mode" and its members, and the scope members, sit in this object.
type CreateElicitationRequest struct {
	Message string           `json:"message" jsonschema:"required"`
	Mode    ElicitationMode  `json:",inline"`
	Scope   ElicitationScope `json:",inline"`
	Meta    json.RawMessage  `json:"_meta"`
	Unknown Members          `json:"-"`
}

// ElicitationMode is the inline union of elicitation modes. Discriminator:
// "mode" (required, open: "_"-prefixed modes are custom).
type ElicitationMode interface{ isElicitationMode() }

// ElicitationFormMode is "form" mode: the client renders RequestedSchema.
type ElicitationFormMode struct {
	RequestedSchema ElicitationSchema `json:"requestedSchema" jsonschema:"required"`
	Unknown         Members           `json:"-"`
}

// ElicitationUrlMode is "url" mode: the user completes a flow at URL; the
// agent later sends elicitation/complete with the same ElicitationID.
type ElicitationUrlMode struct {
	ElicitationID ElicitationID `json:"elicitationId" jsonschema:"required"`
	URL           string        `json:"url" jsonschema:"required,format=uri"`
	Unknown       Members       `json:"-"`
}

// UnknownElicitationMode keeps the "mode" value of a mode acplint does not
// know (see InlineUnion for where the members go).
type UnknownElicitationMode struct{ Raw json.RawMessage }

func (ElicitationFormMode) isElicitationMode()    {}
func (ElicitationUrlMode) isElicitationMode()     {}
func (UnknownElicitationMode) isElicitationMode() {}

// ElicitationScope is the inline, untagged union that ties an elicitation
// to a session (and maybe a tool call) or to a pending request. Upstream
// repeats it inside every mode; acplint lifts it into
// CreateElicitationRequest so that custom modes keep their scope too.
type ElicitationScope interface{ isElicitationScope() }

// ElicitationSessionScope ties an elicitation to a session.
type ElicitationSessionScope struct {
	SessionID  SessionID       `json:"sessionId" jsonschema:"required"`
	ToolCallID Opt[ToolCallID] `json:"toolCallId"`
	Unknown    Members         `json:"-"`
}

// ElicitationRequestScope ties an elicitation to a pending request.
type ElicitationRequestScope struct {
	RequestID RequestID `json:"requestId" jsonschema:"required"`
	Unknown   Members   `json:"-"`
}

// UnknownElicitationScope is never produced for an inline scope (a missing
// scope leaves the field nil); it exists because every union has one.
type UnknownElicitationScope struct{ Raw json.RawMessage }

func (ElicitationSessionScope) isElicitationScope() {}
func (ElicitationRequestScope) isElicitationScope() {}
func (UnknownElicitationScope) isElicitationScope() {}

// ElicitationSchema is the restricted JSON Schema of a form: a flat object
// of primitive properties.
type ElicitationSchema struct {
	Type        Opt[ElicitationSchemaType]                `json:"type" jsonschema:"notnull"`
	Title       Opt[string]                               `json:"title"`
	Properties  Opt[map[string]ElicitationPropertySchema] `json:"properties" jsonschema:"notnull"`
	Required    Opt[[]string]                             `json:"required"`
	Description Opt[string]                               `json:"description"`
	Meta        json.RawMessage                           `json:"_meta"`
	Unknown     Members                                   `json:"-"`
}

// ElicitationSchemaType is the type of a form schema; only "object".
type ElicitationSchemaType string

// ElicitationSchemaObject is the one ElicitationSchemaType.
const ElicitationSchemaObject ElicitationSchemaType = "object"

func (ElicitationSchemaType) EnumValues() ([]string, bool) { return []string{"object"}, false }

// ElicitationPropertySchema is one form field. Discriminator: "type"
// (open: "_"-prefixed types are custom).
type ElicitationPropertySchema interface{ isElicitationPropertySchema() }

// StringFormat is a string field's format (closed).
type StringFormat string

const (
	FormatEmail    StringFormat = "email"
	FormatURI      StringFormat = "uri"
	FormatDate     StringFormat = "date"
	FormatDateTime StringFormat = "date-time"
)

func (StringFormat) EnumValues() ([]string, bool) {
	return []string{"email", "uri", "date", "date-time"}, false
}

// EnumOption is a titled choice, written as JSON Schema's {const, title}.
type EnumOption struct {
	Const       string          `json:"const" jsonschema:"required"`
	Title       string          `json:"title" jsonschema:"required"`
	Description Opt[string]     `json:"description"`
	Meta        json.RawMessage `json:"_meta"`
	Unknown     Members         `json:"-"`
}

// StringPropertySchema is a "string" field, or a single-select one when
// Enum or OneOf is set.
type StringPropertySchema struct {
	Title       Opt[string]       `json:"title"`
	Description Opt[string]       `json:"description"`
	MinLength   Opt[uint32]       `json:"minLength"`
	MaxLength   Opt[uint32]       `json:"maxLength"`
	Pattern     Opt[string]       `json:"pattern"`
	Format      Opt[StringFormat] `json:"format"`
	Default     Opt[string]       `json:"default"`
	Enum        Opt[[]string]     `json:"enum"`
	OneOf       Opt[[]EnumOption] `json:"oneOf"`
	Meta        json.RawMessage   `json:"_meta"`
	Unknown     Members           `json:"-"`
}

// NumberPropertySchema is a "number" field.
type NumberPropertySchema struct {
	Title       Opt[string]     `json:"title"`
	Description Opt[string]     `json:"description"`
	Minimum     Opt[float64]    `json:"minimum"`
	Maximum     Opt[float64]    `json:"maximum"`
	Default     Opt[float64]    `json:"default"`
	Meta        json.RawMessage `json:"_meta"`
	Unknown     Members         `json:"-"`
}

// IntegerPropertySchema is an "integer" field.
type IntegerPropertySchema struct {
	Title       Opt[string]     `json:"title"`
	Description Opt[string]     `json:"description"`
	Minimum     Opt[int64]      `json:"minimum"`
	Maximum     Opt[int64]      `json:"maximum"`
	Default     Opt[int64]      `json:"default"`
	Meta        json.RawMessage `json:"_meta"`
	Unknown     Members         `json:"-"`
}

// BooleanPropertySchema is a "boolean" field.
type BooleanPropertySchema struct {
	Title       Opt[string]     `json:"title"`
	Description Opt[string]     `json:"description"`
	Default     Opt[bool]       `json:"default"`
	Meta        json.RawMessage `json:"_meta"`
	Unknown     Members         `json:"-"`
}

// MultiSelectPropertySchema is an "array" field: several of Items.
type MultiSelectPropertySchema struct {
	Title       Opt[string]      `json:"title"`
	Description Opt[string]      `json:"description"`
	MinItems    Opt[uint64]      `json:"minItems"`
	MaxItems    Opt[uint64]      `json:"maxItems"`
	Items       MultiSelectItems `json:"items" jsonschema:"required"`
	Default     Opt[[]string]    `json:"default"`
	Meta        json.RawMessage  `json:"_meta"`
	Unknown     Members          `json:"-"`
}

// UnknownElicitationPropertySchema keeps a field of a type acplint does
// not know.
type UnknownElicitationPropertySchema struct{ Raw json.RawMessage }

func (StringPropertySchema) isElicitationPropertySchema()             {}
func (NumberPropertySchema) isElicitationPropertySchema()             {}
func (IntegerPropertySchema) isElicitationPropertySchema()            {}
func (BooleanPropertySchema) isElicitationPropertySchema()            {}
func (MultiSelectPropertySchema) isElicitationPropertySchema()        {}
func (UnknownElicitationPropertySchema) isElicitationPropertySchema() {}

// MultiSelectItems are the choices of a multi-select field.
// Discriminator: "type" (open); titled items carry no type (Default).
type MultiSelectItems interface{ isMultiSelectItems() }

// StringMultiSelectItems are "string" items with plain values.
type StringMultiSelectItems struct {
	Enum    []string        `json:"enum" jsonschema:"required"`
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// TitledMultiSelectItems are titled choices; as in MCP they carry no
// "type" and are recognised by "anyOf".
type TitledMultiSelectItems struct {
	AnyOf   []EnumOption    `json:"anyOf" jsonschema:"required"`
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// UnknownMultiSelectItems keeps items of a type acplint does not know.
type UnknownMultiSelectItems struct{ Raw json.RawMessage }

func (StringMultiSelectItems) isMultiSelectItems()  {}
func (TitledMultiSelectItems) isMultiSelectItems()  {}
func (UnknownMultiSelectItems) isMultiSelectItems() {}

// CreateElicitationResponse is the user's answer. Action is an inline
// union: "action" and its members sit in this object.
type CreateElicitationResponse struct {
	Action  ElicitationAction `json:",inline"`
	Meta    json.RawMessage   `json:"_meta"`
	Unknown Members           `json:"-"`
}

// ElicitationAction is the inline union of answers. Discriminator:
// "action" (required, open: "_"-prefixed actions are custom).
type ElicitationAction interface{ isElicitationAction() }

// ElicitationAcceptAction is "accept": the user submitted Content (for
// form mode, one value per schema property).
type ElicitationAcceptAction struct {
	Content Opt[map[string]ElicitationContentValue] `json:"content"`
	Unknown Members                                 `json:"-"`
}

// ElicitationDeclineAction is "decline". Upstream defines it inline, with
// no members besides the discriminator.
type ElicitationDeclineAction struct {
	Unknown Members `json:"-"`
}

// ElicitationCancelAction is "cancel". Upstream defines it inline, with no
// members besides the discriminator.
type ElicitationCancelAction struct {
	Unknown Members `json:"-"`
}

// UnknownElicitationAction keeps the "action" value of an answer acplint
// does not know (see InlineUnion for where the members go).
type UnknownElicitationAction struct{ Raw json.RawMessage }

func (ElicitationAcceptAction) isElicitationAction()  {}
func (ElicitationDeclineAction) isElicitationAction() {}
func (ElicitationCancelAction) isElicitationAction()  {}
func (UnknownElicitationAction) isElicitationAction() {}

// ElicitationContentValue is one submitted form value: a string, an
// integer, a number, a boolean or an array of strings. It is kept exactly
// as written, like RequestID, because which of these it must be depends on
// the requested schema, and 1 and 1.0 are different answers to an
// "integer" field.
type ElicitationContentValue struct{ Raw json.RawMessage }

// CompleteElicitationNotification (elicitation/complete) tells the client
// that the URL-mode elicitation ElicitationID has finished.
type CompleteElicitationNotification struct {
	ElicitationID ElicitationID   `json:"elicitationId" jsonschema:"required"`
	Meta          json.RawMessage `json:"_meta"`
	Unknown       Members         `json:"-"`
}

var elicitationUnions = []*Union{
	{
		Name:      "ElicitationMode",
		Interface: reflect.TypeFor[ElicitationMode](),
		Assign:    assignArm[ElicitationMode],
		Tag:       "mode",
		Variants: []Variant{
			{"form", reflect.TypeFor[ElicitationFormMode]()},
			{"url", reflect.TypeFor[ElicitationUrlMode]()},
		},
		Unknown: reflect.TypeFor[UnknownElicitationMode](),
		Open:    true,
	},
	{
		Name:      "ElicitationScope",
		Interface: reflect.TypeFor[ElicitationScope](),
		Assign:    assignArm[ElicitationScope],
		Variants: []Variant{
			{"", reflect.TypeFor[ElicitationSessionScope]()},
			{"", reflect.TypeFor[ElicitationRequestScope]()},
		},
		Guess: func(has func(string) bool) reflect.Type {
			switch {
			case has("sessionId"):
				return reflect.TypeFor[ElicitationSessionScope]()
			case has("requestId"):
				return reflect.TypeFor[ElicitationRequestScope]()
			}
			return nil
		},
		Unknown: reflect.TypeFor[UnknownElicitationScope](),
	},
	{
		Name:      "ElicitationPropertySchema",
		Interface: reflect.TypeFor[ElicitationPropertySchema](),
		Assign:    assignArm[ElicitationPropertySchema],
		Tag:       "type",
		Variants: []Variant{
			{"string", reflect.TypeFor[StringPropertySchema]()},
			{"number", reflect.TypeFor[NumberPropertySchema]()},
			{"integer", reflect.TypeFor[IntegerPropertySchema]()},
			{"boolean", reflect.TypeFor[BooleanPropertySchema]()},
			{"array", reflect.TypeFor[MultiSelectPropertySchema]()},
		},
		Unknown: reflect.TypeFor[UnknownElicitationPropertySchema](),
		Open:    true,
	},
	{
		Name:      "MultiSelectItems",
		Interface: reflect.TypeFor[MultiSelectItems](),
		Assign:    assignArm[MultiSelectItems],
		Tag:       "type",
		Variants: []Variant{
			{"string", reflect.TypeFor[StringMultiSelectItems]()},
		},
		Default: reflect.TypeFor[TitledMultiSelectItems](),
		Unknown: reflect.TypeFor[UnknownMultiSelectItems](),
		Open:    true,
	},
	{
		Name:      "ElicitationAction",
		Interface: reflect.TypeFor[ElicitationAction](),
		Assign:    assignArm[ElicitationAction],
		Tag:       "action",
		Variants: []Variant{
			{"accept", reflect.TypeFor[ElicitationAcceptAction]()},
			{"decline", reflect.TypeFor[ElicitationDeclineAction]()},
			{"cancel", reflect.TypeFor[ElicitationCancelAction]()},
		},
		Unknown: reflect.TypeFor[UnknownElicitationAction](),
		Open:    true,
	},
}
