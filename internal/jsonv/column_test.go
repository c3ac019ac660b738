package jsonv

import "testing"

func TestOffset(t *testing.T) {
	src := []byte(`{"jsonrpc":"2.0", "params" : {"a\"b":1,"list":[10, {"x":true}]}}`)
	for _, tc := range []struct {
		pointer string
		want    string // src from the offset on starts with this
	}{
		{"", `{"jsonrpc"`},
		{"/jsonrpc", `"jsonrpc"`},
		{"/params", `"params" :`},
		{"/params/a\"b", `"a\"b":1`},
		{"/params/list/1", `{"x":true}`},
		{"/params/list/1/x", `"x":true`},
		{"/params/missing", `"params" :`},   // the object it belongs in
		{"/params/list/7", `"list":[`},      // past the end: the array
		{"/params/a\"b/deeper", `"a\"b":1`}, // inside a number: the number's member
	} {
		at, ok := Offset(src, tc.pointer)
		if !ok {
			t.Errorf("Offset(%q): not ok", tc.pointer)
			continue
		}
		if got := string(src[at:]); len(got) < len(tc.want) || got[:len(tc.want)] != tc.want {
			t.Errorf("Offset(%q) = %d, at %q; want it at %q", tc.pointer, at, got, tc.want)
		}
	}
	if _, ok := Offset([]byte(`{"a":`), "/a"); ok {
		t.Error("Offset of broken JSON: ok")
	}
}
