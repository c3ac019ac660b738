// Package schema holds schema.json, the JSON Schema of the ACP v1 messages
// as acplint's domain types model them. It is generated from package
// domain by ./gen and checked against the upstream schema in
// internal/reference by parity_test.go.
package schema

import _ "embed"

//go:generate go run ./gen

// JSON is schema.json: one $defs entry per domain type that the params and
// results of domain.Methods reach, named as upstream names it.
//
//go:embed schema.json
var JSON []byte
