package codec_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/acplint/acplint/codec"
)

// reencodeKeeps are lines whose re-encoding would say something else than
// the line: Reencode must refuse each, so that fmt copies it unchanged.
var reencodeKeeps = map[string]string{
	"mistyped members": `{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":5,"prompt":"hello"}}`,
	"string version":   `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"1"}}`,
	"huge number":      `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1e999999}}`,
	"integer as 1.0":   `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1.0}}`,
	"missing required": `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/tmp"}}`,
	"lone high surrogate": `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":` +
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a\ud800b"}}}}`,
	"lone low surrogate": `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":` +
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"\udc00"}}}}`,
	"high surrogate at the end of a string": `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":` +
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"\ud83d"}}}}`,
	"lone surrogate in a member name": `{"jsonrpc":"2.0","method":"_x","params":{"\ud800":1}}`,
	"invalid UTF-8":                   "{\"jsonrpc\":\"2.0\",\"method\":\"_x\",\"params\":{\"a\":\"\xff\"}}",
	"duplicate member":                `{"jsonrpc":"2.0","method":"_x","params":{"a":1,"a":2}}`,
	"a batch":                         `[{"jsonrpc":"2.0","method":"_x"}]`,
	"not JSON":                        `{"jsonrpc":"2.0",`,
}

func TestReencodeKeepsWhatItCannotProve(t *testing.T) {
	for name, line := range reencodeKeeps {
		d := codec.DecodeLine(codec.Line{Num: 1, Bytes: []byte(line)})
		if out, ok := codec.Reencode(d); ok {
			t.Errorf("%s: %s\nre-encoded as\n%s", name, line, out)
		}
	}
}

// TestReencodeNormalises: lines that say the same once re-encoded are
// re-encoded, compactly, with strings and numbers as they were.
func TestReencodeNormalises(t *testing.T) {
	tests := map[string]struct{ in, want string }{
		"white space and member order": {
			`{ "params" : {"mcpServers":[],"cwd":"/tmp"}, "method":"session/new", "id":3, "jsonrpc":"2.0" }`,
			`{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`,
		},
		"a surrogate pair and HTML characters": {
			`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"\ud83d\ude00 <&>"}}}}`,
			`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"😀 <&>"}}}}`,
		},
		"an escaped backslash before u": {
			`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"\\ud800"}}}}`,
			`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"\\ud800"}}}}`,
		},
	}
	for name, tc := range tests {
		d := codec.DecodeLine(codec.Line{Num: 1, Bytes: []byte(tc.in)})
		out, ok := codec.Reencode(d)
		if !ok || string(out) != tc.want {
			t.Errorf("%s: Reencode(%s) = %s, %v; want %s", name, tc.in, out, ok, tc.want)
		}
	}
}

// FuzzReencode: whatever Reencode accepts is the same JSON value as the
// line by an independent reading (encoding/json, numbers as written) and
// is a fixed point: re-encoding it again changes nothing.
func FuzzReencode(f *testing.F) {
	for _, l := range seedLines(f) {
		f.Add(l)
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1e2,"method":"_x","params":{"a":[1.50,-0,"\u00e9\/"]}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		d := codec.DecodeLine(codec.Line{Num: 1, Bytes: line})
		out, ok := codec.Reencode(d)
		if !ok {
			return
		}
		if !reflect.DeepEqual(parsed(t, line), parsed(t, out)) {
			t.Fatalf("%s\nre-encoded as a different value:\n%s", line, out)
		}
		again, ok := codec.Reencode(codec.DecodeLine(codec.Line{Num: 1, Bytes: out}))
		if !ok || !bytes.Equal(again, out) {
			t.Fatalf("%s\nre-encodes as\n%s\nand then as\n%s (%v)", line, out, again, ok)
		}
	})
}
