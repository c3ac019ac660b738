// Package domain holds the typed Agent Client Protocol (ACP) v1 messages:
// every request, response and notification of the stable schema, the unions
// they are built from, the method tables and the error codes.
//
// The package does no I/O and no validation. Types keep the upstream $defs
// names so that schema, docs and code grep alike; the json tag is the wire
// truth and the jsonschema:"required" tag says which members the schema
// requires. Decoding and encoding live in package codec, which relies on
// these conventions:
//
//   - An optional member is an Opt[T], which tells absent, null and a value
//     apart, so that a decoded message encodes back to the same JSON.
//   - Every object type has Meta (the "_meta" member, kept raw and never
//     interpreted) and Unknown (members the schema does not declare, kept in
//     wire order).
//   - A union is a sealed interface; its variants and discriminator are
//     listed in Unions, and every union has an Unknown… variant that keeps
//     the raw JSON of a value acplint does not recognise.
//   - Values the spec leaves open (rawInput, error data, extension params) are
//     json.RawMessage and are carried verbatim.
package domain
