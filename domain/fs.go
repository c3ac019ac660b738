package domain

import "encoding/json"

// ReadTextFileRequest reads a text file through the client, which sees
// unsaved editor buffers. Line is 1-based; Limit counts lines.
type ReadTextFileRequest struct {
	SessionID SessionID       `json:"sessionId" jsonschema:"required"`
	Path      string          `json:"path" jsonschema:"required"`
	Line      Opt[uint32]     `json:"line"`
	Limit     Opt[uint32]     `json:"limit"`
	Meta      json.RawMessage `json:"_meta"`
	Unknown   Members         `json:"-"`
}

// ReadTextFileResponse carries the file's text.
type ReadTextFileResponse struct {
	Content string          `json:"content" jsonschema:"required"`
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// WriteTextFileRequest writes a text file through the client.
type WriteTextFileRequest struct {
	SessionID SessionID       `json:"sessionId" jsonschema:"required"`
	Path      string          `json:"path" jsonschema:"required"`
	Content   string          `json:"content" jsonschema:"required"`
	Meta      json.RawMessage `json:"_meta"`
	Unknown   Members         `json:"-"`
}

// WriteTextFileResponse reports a written file.
type WriteTextFileResponse struct {
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}
