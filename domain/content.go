package domain

import (
	"encoding/json"
	"reflect"
)

// ContentBlock is a piece of content in prompts, message chunks and tool
// output. Discriminator: "type".
type ContentBlock interface{ isContentBlock() }

// TextContent is a "text" content block.
type TextContent struct {
	Text        string           `json:"text" jsonschema:"required"`
	Annotations Opt[Annotations] `json:"annotations"`
	Meta        json.RawMessage  `json:"_meta"`
	Unknown     Members          `json:"-"`
}

// ImageContent is an "image" content block; Data is base64.
type ImageContent struct {
	Data        string           `json:"data" jsonschema:"required"`
	MimeType    string           `json:"mimeType" jsonschema:"required"`
	URI         Opt[string]      `json:"uri"`
	Annotations Opt[Annotations] `json:"annotations"`
	Meta        json.RawMessage  `json:"_meta"`
	Unknown     Members          `json:"-"`
}

// AudioContent is an "audio" content block; Data is base64.
type AudioContent struct {
	Data        string           `json:"data" jsonschema:"required"`
	MimeType    string           `json:"mimeType" jsonschema:"required"`
	Annotations Opt[Annotations] `json:"annotations"`
	Meta        json.RawMessage  `json:"_meta"`
	Unknown     Members          `json:"-"`
}

// ResourceLink is a "resource_link" content block.
type ResourceLink struct {
	URI         string           `json:"uri" jsonschema:"required"`
	Name        string           `json:"name" jsonschema:"required"`
	MimeType    Opt[string]      `json:"mimeType"`
	Title       Opt[string]      `json:"title"`
	Description Opt[string]      `json:"description"`
	Size        Opt[int64]       `json:"size"`
	Annotations Opt[Annotations] `json:"annotations"`
	Meta        json.RawMessage  `json:"_meta"`
	Unknown     Members          `json:"-"`
}

// EmbeddedResource is a "resource" content block.
type EmbeddedResource struct {
	Resource    EmbeddedResourceResource `json:"resource" jsonschema:"required"`
	Annotations Opt[Annotations]         `json:"annotations"`
	Meta        json.RawMessage          `json:"_meta"`
	Unknown     Members                  `json:"-"`
}

// UnknownContentBlock keeps a content block acplint does not recognise.
type UnknownContentBlock struct{ Raw json.RawMessage }

func (TextContent) isContentBlock()         {}
func (ImageContent) isContentBlock()        {}
func (AudioContent) isContentBlock()        {}
func (ResourceLink) isContentBlock()        {}
func (EmbeddedResource) isContentBlock()    {}
func (UnknownContentBlock) isContentBlock() {}

// EmbeddedResourceResource is the untagged union of text and blob resource
// contents, told apart by the "text" or "blob" member.
type EmbeddedResourceResource interface{ isEmbeddedResourceResource() }

// TextResourceContents is a resource given as text.
type TextResourceContents struct {
	URI      string          `json:"uri" jsonschema:"required"`
	Text     string          `json:"text" jsonschema:"required"`
	MimeType Opt[string]     `json:"mimeType"`
	Meta     json.RawMessage `json:"_meta"`
	Unknown  Members         `json:"-"`
}

// BlobResourceContents is a resource given as base64 bytes.
type BlobResourceContents struct {
	URI      string          `json:"uri" jsonschema:"required"`
	Blob     string          `json:"blob" jsonschema:"required"`
	MimeType Opt[string]     `json:"mimeType"`
	Meta     json.RawMessage `json:"_meta"`
	Unknown  Members         `json:"-"`
}

// UnknownEmbeddedResourceResource keeps resource contents with neither text nor blob.
type UnknownEmbeddedResourceResource struct{ Raw json.RawMessage }

func (TextResourceContents) isEmbeddedResourceResource()            {}
func (BlobResourceContents) isEmbeddedResourceResource()            {}
func (UnknownEmbeddedResourceResource) isEmbeddedResourceResource() {}

// Annotations tell the client how to use or show content.
type Annotations struct {
	Audience     Opt[[]Role]     `json:"audience"`
	LastModified Opt[string]     `json:"lastModified"`
	Priority     Opt[float64]    `json:"priority"`
	Meta         json.RawMessage `json:"_meta"`
	Unknown      Members         `json:"-"`
}

// Role is who a piece of content is meant for.
type Role string

const (
	RoleAssistant Role = "assistant"
	RoleUser      Role = "user"
)

func (Role) EnumValues() ([]string, bool) { return []string{"assistant", "user"}, false }

var contentUnions = []*Union{
	{
		Name:      "ContentBlock",
		Interface: reflect.TypeFor[ContentBlock](),
		Assign:    assignArm[ContentBlock],
		Tag:       "type",
		Variants: []Variant{
			{"text", reflect.TypeFor[TextContent]()},
			{"image", reflect.TypeFor[ImageContent]()},
			{"audio", reflect.TypeFor[AudioContent]()},
			{"resource_link", reflect.TypeFor[ResourceLink]()},
			{"resource", reflect.TypeFor[EmbeddedResource]()},
		},
		Unknown: reflect.TypeFor[UnknownContentBlock](),
	},
	{
		Name:      "EmbeddedResourceResource",
		Interface: reflect.TypeFor[EmbeddedResourceResource](),
		Assign:    assignArm[EmbeddedResourceResource],
		Variants: []Variant{
			{"", reflect.TypeFor[TextResourceContents]()},
			{"", reflect.TypeFor[BlobResourceContents]()},
		},
		Guess: func(has func(string) bool) reflect.Type {
			switch {
			case has("text"):
				return reflect.TypeFor[TextResourceContents]()
			case has("blob"):
				return reflect.TypeFor[BlobResourceContents]()
			}
			return nil
		},
		Unknown: reflect.TypeFor[UnknownEmbeddedResourceResource](),
	},
}
