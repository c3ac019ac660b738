package codec_test

import (
	"testing"

	"github.com/acplint/acplint/codec"
)

// A checker given the codec's tree skips reading the bytes again, so the
// tree of a line that is not UTF-8 (whose strings keep the bad bytes where
// encoding/json reads U+FFFD) must not be offered.
func TestTreesOnlyForUTF8(t *testing.T) {
	const good = `{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}`
	const bad = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/prompt\",\"params\":{\"sessionId\":\"s\xff\",\"prompt\":[]}}"
	if params, _ := codec.DecodeLine(codec.Line{Num: 1, Bytes: []byte(good)}).Trees(0); params == nil {
		t.Fatal("no params tree for a UTF-8 line")
	}
	if params, _ := codec.DecodeLine(codec.Line{Num: 1, Bytes: []byte(bad)}).Trees(0); params != nil {
		t.Fatal("a params tree for a line that is not UTF-8")
	}
}
