package domain

import "fmt"

// ProblemKind classifies what is wrong with a line or a member.
type ProblemKind uint8

const (
	// Framing and encoding.
	ProbNotUTF8       ProblemKind = iota + 1 // the line is not valid UTF-8
	ProbBOM                                  // the line starts with a UTF-8 byte order mark
	ProbNotJSON                              // the line is not one JSON value
	ProbBlank                                // an empty or white-space-only line
	ProbCRLF                                 // the line ended in "\r\n"
	ProbBatch                                // a JSON array (JSON-RPC batch)
	ProbNotObject                            // a JSON value that is not an object
	ProbTooManyValues                        // more JSON values than a line may hold (codec.MaxValues)
	ProbDuplicate                            // an object repeats a member name

	// JSON-RPC envelope.
	ProbJSONRPC     // "jsonrpc" missing or not "2.0"
	ProbEnvelope    // no valid request/notification/response shape
	ProbIDNull      // a request id that is null
	ProbIDFraction  // a request id that is a number with a fraction
	ProbErrorObject // a malformed error object

	// Schema of params and results.
	ProbMissing        // a required member is absent
	ProbType           // a member has the wrong JSON type
	ProbRange          // a number is not an integer or out of range
	ProbEnum           // a closed enum carries an unknown value
	ProbOpenEnum       // an open enum carries a value the schema does not list
	ProbUnknownVariant // a union value matches no known variant
	ProbUnknownMember  // a member the type does not declare
	ProbMeta           // "_meta" is neither an object nor null
	ProbNullResult     // "result": null for a method whose result is an object

	// ProbTooMany counts the problems of a message past the most a message
	// keeps (MaxProblemsPerMessage); it comes last.
	ProbTooMany
)

var problemNames = map[ProblemKind]string{
	ProbNotUTF8: "not-utf8", ProbBOM: "bom", ProbNotJSON: "not-json", ProbBlank: "blank",
	ProbCRLF: "crlf", ProbBatch: "batch", ProbNotObject: "not-object", ProbTooManyValues: "too-many-values", ProbDuplicate: "duplicate-member",
	ProbJSONRPC: "jsonrpc-version", ProbEnvelope: "envelope", ProbIDNull: "id-null",
	ProbIDFraction: "id-fraction", ProbErrorObject: "error-object", ProbMissing: "missing",
	ProbType: "type", ProbRange: "range", ProbEnum: "enum", ProbOpenEnum: "open-enum",
	ProbUnknownVariant: "unknown-variant", ProbUnknownMember: "unknown-member", ProbMeta: "meta",
	ProbNullResult: "null-result", ProbTooMany: "too-many",
}

func (k ProblemKind) String() string {
	if s, ok := problemNames[k]; ok {
		return s
	}
	return fmt.Sprintf("problem(%d)", int(k))
}

// Problem is one thing the codec found wrong with a line or a message.
// Detail is a lowercase phrase fit to be part of a finding message. The
// lint driver hands a message's problems to the protocol machine, whose
// checks turn them into findings; their strings may point into the
// decoder's buffers, so nothing keeps a Problem past its message.
type Problem struct {
	Kind    ProblemKind
	Pointer string // RFC 6901 pointer into the message; "" for the whole line
	Def     string // the schema definition being decoded, e.g. "NewSessionRequest"
	Member  string // the member concerned, when there is one
	Value   string // the offending value as written (short), when there is one
	Detail  string
	Offset  int // byte offset within the line, for syntax errors
}

func (p Problem) String() string {
	if p.Pointer != "" {
		return fmt.Sprintf("%s at %s: %s", p.Kind, p.Pointer, p.Detail)
	}
	return fmt.Sprintf("%s: %s", p.Kind, p.Detail)
}
