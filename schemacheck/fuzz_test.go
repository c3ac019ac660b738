package schemacheck

import (
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/acplint/acplint/internal/jsonv"
)

// FuzzCheck feeds the checker, a decoder of untrusted input, arbitrary
// bytes as the params or result of every kind of message of the unstable
// reference schema: it must not panic, must agree with the validator it
// replaced wherever that one does not panic itself, must answer the same
// from raw bytes and from a parsed tree, and must stay fast on deep
// nesting.
func FuzzCheck(f *testing.F) {
	p := loadPair(f, "../internal/reference/acp-schema.unstable.json")
	keys := sortedKeys(p.m)
	for _, seed := range []string{
		`{}`, `null`, `[]`, `{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}`,
		`{"sessionId":"s","update":{"sessionUpdate":"nope"}}`, `{"protocolVersion":1e999999999}`, `{"protocolVersion":-1}`,
		`{"a":1,"a":{"b":[1,2,{"c":null}]}}`, "{\"x\":\"\xff\"}", `{"mcpServers":[{"type":"acp","id":"x"}]}`,
		strings.Repeat(`{"a":`, 5000) + strings.Repeat(`}`, 5000),
	} {
		for _, k := range []byte{0, 7, 42, 99} {
			f.Add(k, []byte(seed))
		}
	}
	f.Fuzz(func(t *testing.T, which byte, raw []byte) {
		key := keys[int(which)%len(keys)]
		start := time.Now()
		got := p.ck.Check(key, raw, nil, "/params")
		if d := time.Since(start); d > time.Second+time.Duration(len(raw))*time.Microsecond {
			t.Fatalf("%s: %d bytes took %v", key, len(raw), d)
		}
		if tree, err := jsonv.Parse(raw); err == nil && utf8.Valid(raw) {
			if fromTree := p.ck.Check(key, raw, &tree, "/params"); len(fromTree) != len(got) {
				t.Fatalf("%s: %d problems from the tree, %d from raw", key, len(fromTree), len(got))
			}
		}
		if depth(raw) < 500 && !bigExponent.Match(raw) {
			p.same(t, key, raw)
		}
	})
}

// bigExponent finds number literals that math/big, under the oracle,
// spends seconds on (5^999999): the oracle is spared them.
var bigExponent = regexp.MustCompile(`[eE][+-]?0*[0-9]{4,}`)

// depth is how deep raw nests; the oracle is kept to shallow values, as
// encoding/json refuses deep ones the checker reads.
func depth(raw []byte) int {
	d, most := 0, 0
	for _, c := range raw {
		switch c {
		case '{', '[':
			d++
			most = max(most, d)
		case '}', ']':
			d--
		}
	}
	return most
}
