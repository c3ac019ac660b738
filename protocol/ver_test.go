package protocol

import (
	"encoding/json"
	"testing"
)

// TestWireVersion pins which spellings of protocolVersion count as a
// version: only integers from 0 to 65535, as written on the wire.
func TestWireVersion(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want int
	}{
		{`{"protocolVersion":1}`, 1},
		{`{"protocolVersion":0}`, 0},
		{`{"protocolVersion":65535}`, 65535},
		{`{"protocolVersion":65536}`, -1},
		{`{"protocolVersion":-1}`, -1},
		{`{"protocolVersion":1.0}`, -1},
		{`{"protocolVersion":1e0}`, -1},
		{`{"protocolVersion":"1"}`, -1},
		{`{"protocolVersion":null}`, -1},
		{`{}`, -1},
		{`[1]`, -1},
		{``, -1},
	} {
		if got := wireVersion(json.RawMessage(tc.raw)); got != tc.want {
			t.Errorf("wireVersion(%s) = %d, want %d", tc.raw, got, tc.want)
		}
	}
}
