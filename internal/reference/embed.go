// Package reference embeds the upstream ACP v1 schema files, unmodified
// (see README.md for their provenance). Generators and tests read them from
// here; nothing reads them from disk.
package reference

import _ "embed"

// StableSchema is the stable ACP v1 JSON Schema (acp-schema.json).
//
//go:embed acp-schema.json
var StableSchema []byte

// UnstableSchema is the unstable ACP v1 superset (acp-schema.unstable.json).
//
//go:embed acp-schema.unstable.json
var UnstableSchema []byte

// Meta is the stable v1 method-name map (acp-meta.json).
//
//go:embed acp-meta.json
var Meta []byte
