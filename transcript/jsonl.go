package transcript

import (
	"bytes"
	"unicode/utf8"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/internal/jsonv"
)

// AppendJSONLMessage appends the "msg" value of a direction-tagged JSON
// Lines record ({"dir":…,"msg":…}, the jsonl format lint reads) that
// holds line, the bytes of one line as it crossed the wire with its
// terminator ("\n", "\r\n", or none for a last line without one).
//
// A line that is one JSON object, valid UTF-8, ended by a plain "\n" is
// embedded as is, byte for byte, white space inside it included; the
// "\n" is implied. Any other line (not JSON, CRLF-ended, unterminated,
// not UTF-8) is written as a JSON string of all its bytes, terminator
// included, escaping only what JSON requires: acplint's jsonl reader
// takes a final "\n" (or "\r\n") off a string as the terminator and keeps
// every other byte, so it reads back the same line. (Other JSON readers
// may replace bytes that are not UTF-8; there is no JSON string for them.)
func AppendJSONLMessage(b, line []byte) []byte {
	if body, ok := embeddable(line); ok {
		return append(b, body...)
	}
	return codec.AppendString(b, string(line))
}

// embeddable reports whether line can be written as a raw JSON member
// without losing a byte, and returns it without its newline.
func embeddable(line []byte) ([]byte, bool) {
	body, ok := bytes.CutSuffix(line, []byte("\n"))
	if !ok || bytes.ContainsAny(body, "\r\n") || !utf8.Valid(body) {
		return nil, false
	}
	// Leading or trailing blanks would be lost inside the wrapper's member.
	if len(body) == 0 || body[0] != '{' || body[len(body)-1] != '}' {
		return nil, false
	}
	// A line with more values than acplint parses of a line (by default)
	// is written as a string, which loses nothing either, rather than
	// parsed into a tree many times its size.
	v, err := jsonv.ParseMax(body, codec.MaxValues(DefaultMaxLine))
	if err != nil || v.Kind != jsonv.Object {
		return nil, false
	}
	return body, true
}
