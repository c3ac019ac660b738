package jsonv

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// toAny converts a parsed tree into what encoding/json would produce with
// UseNumber, so the two parsers can be compared value for value.
func toAny(v *Value) any {
	switch v.Kind {
	case Null:
		return nil
	case Bool:
		return v.Bool
	case Number:
		return json.Number(v.Str())
	case String:
		return v.Str()
	case Array:
		out := make([]any, len(v.Elems()))
		for i := range v.Elems() {
			out[i] = toAny(&v.Elems()[i])
		}
		return out
	}
	out := map[string]any{}
	for i := range v.Members() {
		out[v.Members()[i].Key] = toAny(&v.Members()[i].Value) // last duplicate wins, as in encoding/json
	}
	return out
}

func checkAgainstStdlib(t *testing.T, src []byte) {
	t.Helper()
	v, err := Parse(src)
	valid := json.Valid(src)
	if (err == nil) != valid {
		t.Fatalf("Parse(%q) err=%v, json.Valid=%v", src, err, valid)
	}
	if err != nil {
		if _, ok := err.(*SyntaxError); !ok {
			t.Fatalf("error of type %T, want *SyntaxError", err)
		}
		return
	}
	if !utf8.Valid(src) {
		// encoding/json replaces invalid UTF-8 with U+FFFD; jsonv keeps the
		// bytes (the codec reports them as ACP-WIRE-004), so values differ.
		return
	}
	d := json.NewDecoder(bytes.NewReader(src))
	d.UseNumber()
	var want any
	if err := d.Decode(&want); err != nil {
		t.Fatalf("stdlib decode: %v", err)
	}
	if diff := cmp.Diff(want, toAny(&v)); diff != "" {
		t.Fatalf("Parse(%q) mismatch (-stdlib +jsonv):\n%s", src, diff)
	}
	if got := string(v.Raw(src)); got != string(bytes.TrimSpace(src)) {
		t.Fatalf("Raw = %q, want %q", got, bytes.TrimSpace(src))
	}
}

var seeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`,
	`[1,2.5,-0,1e10,1E-2,true,false,null,"a\"b\\c\/\b\f\n\r\t\u00e9\ud83d\ude00"]`,
	`{"a":{"b":[{}]},"a":1}`,
	` "x" `, `01`, `1.`, `-`, `{"a":1,}`, `[1,]`, `"\ud800"`, `"\ud800\u0041"`, `{"a" 1}`, `tru`, `"\x"`,
	"\"a\tb\"", `{}`, `[]`, `nul`, `1 2`, `"é"`,
}

func TestParseMatchesStdlib(t *testing.T) {
	for _, s := range seeds {
		checkAgainstStdlib(t, []byte(s))
	}
}

func TestPositions(t *testing.T) {
	src := []byte(`{"a": [1, {"b": "x"}]}`)
	v, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	b, ok := v.Lookup("/a/1/b")
	if !ok {
		t.Fatal("pointer /a/1/b not found")
	}
	if got := string(b.Raw(src)); got != `"x"` {
		t.Errorf("raw at /a/1/b = %s", got)
	}
	if _, ok := v.Lookup("/a/2"); ok {
		t.Error("out of range index found")
	}
}

func TestDepthLimit(t *testing.T) {
	deep := bytes.Repeat([]byte("["), MaxDepth+5)
	if _, err := Parse(deep); err == nil {
		t.Fatal("no error for over-deep input")
	}
}

func TestPointerEscapes(t *testing.T) {
	if got := Pointer("").Key("a/b~c").Index(3); got != "/a~1b~0c/3" {
		t.Errorf("got %q", got)
	}
	// "~01" is a name with "~1" in it, not one with "/": unescaping
	// undoes "~1" before "~0".
	for _, name := range []string{"", "plain", "a/b~c", "~1", "~0/", "//~~"} {
		if got := UnescapeToken(EscapeToken(name)); got != name {
			t.Errorf("UnescapeToken(EscapeToken(%q)) = %q", name, got)
		}
	}
	if got := UnescapeToken("~01"); got != "~1" {
		t.Errorf(`UnescapeToken("~01") = %q, want "~1"`, got)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkAgainstStdlib(t, src)
		// An arena, with a tree already in it, builds the same tree.
		want, wantErr := Parse(src)
		var a Arena
		if _, err := a.ParseNext([]byte(`{"before":["x\ty",1,{}]}`)); err != nil {
			t.Fatal(err)
		}
		got, gotErr := a.ParseNext(bytes.Clone(src))
		if (wantErr == nil) != (gotErr == nil) || (wantErr == nil && !sameTree(&got, &want)) {
			t.Fatalf("%q: the arena parse differs from Parse (errors %v, %v)", src, gotErr, wantErr)
		}
	})
}

// An arena gives the same trees as Parse, line after line, however the
// lines' sizes vary: its reused memory must never leak one tree into
// another.
func TestArenaMatchesParse(t *testing.T) {
	lines := []string{
		`{"a":[1,2,{"b":"c"}],"d":{}}`,
		`[]`,
		`{"jsonrpc":"2.0","id":7,"method":"x","params":{"list":[` + strings.Repeat(`{"k":"v","n":[1,2,3]},`, 300) + `{}]}}`,
		`{"e":"\u00e9\n","f":[[],[[]],{"g":null}]}`,
		`[{"a":1},{"b":2}]`,
		`{"broken":`,
		`{"x":true}`,
	}
	var a Arena
	for round := 0; round < 2; round++ {
		for _, line := range lines {
			want, wantErr := Parse([]byte(line))
			a.Reset()
			got, gotErr := a.ParseNext([]byte(line))
			if (wantErr == nil) != (gotErr == nil) {
				t.Fatalf("%s: error %v, want %v", line, gotErr, wantErr)
			}
			if !sameTree(&got, &want) {
				t.Fatalf("%s: arena tree differs from Parse's", line)
			}
		}
	}
}

// ParseNext keeps every tree since the last Reset intact while it parses
// more, and Reset lets the next batch reuse the memory.
func TestArenaParseNextKeepsBatch(t *testing.T) {
	lines := []string{
		`{"a":[1,2,{"b":"c"}],"d":{}}`,
		`{"list":[` + strings.Repeat(`{"k":"v","n":[1,2,3]},`, 300) + `{}]}`,
		`[{"a":1},{"b":2}]`,
		`{"x":true}`,
	}
	var a Arena
	for round := 0; round < 3; round++ {
		a.Reset()
		var got []Value
		for _, line := range lines {
			v, err := a.ParseNext([]byte(line))
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			got = append(got, v)
		}
		for i, line := range lines {
			want, _ := Parse([]byte(line))
			if !sameTree(&got[i], &want) {
				t.Fatalf("round %d: tree of line %d changed while later lines were parsed", round, i)
			}
		}
	}
}

// specialMask finds a quote, a backslash or a control character at any of
// the eight positions, and nothing else; with two in a word, its lowest
// bit marks the first, whatever the bytes around them (the string parser
// stops there).
func TestSpecialBytes(t *testing.T) {
	isSpecial := func(b byte) bool { return b == '"' || b == '\\' || b < 0x20 }
	for b := 0; b < 256; b++ {
		for pos := 0; pos < 8; pos++ {
			word := []byte("abcdefgh")
			word[pos] = byte(b)
			want := isSpecial(byte(b))
			m := specialMask(binary.LittleEndian.Uint64(word))
			if got := m != 0; got != want {
				t.Errorf("byte 0x%02x at %d: special = %v, want %v", b, pos, got, want)
			}
			if want && bits.TrailingZeros64(m)>>3 != pos {
				t.Errorf("byte 0x%02x at %d: mask %#x marks byte %d first", b, pos, m, bits.TrailingZeros64(m)>>3)
			}
		}
	}
	for _, first := range []byte{'"', '\\', 0, 0x1f} {
		for pos := 0; pos < 7; pos++ {
			for b := 0; b < 256; b++ {
				word := []byte{0x20, 0x7f, 0x80, 0xff, 0x21, 0x5c + 1, 0x22 + 1, 'a'}
				word[pos] = first
				word[pos+1] = byte(b)
				if at := bits.TrailingZeros64(specialMask(binary.LittleEndian.Uint64(word))) >> 3; at != pos {
					t.Fatalf("% x: first special byte found at %d, want %d", word, at, pos)
				}
			}
		}
	}
}

// sameTree reports whether two trees hold the same values at the same
// byte ranges (their memory differs, so == and reflect.DeepEqual cannot
// tell).
func sameTree(a, b *Value) bool {
	if a.Kind != b.Kind || a.Bool != b.Bool || a.Start() != b.Start() || a.End() != b.End() || a.Str() != b.Str() {
		return false
	}
	ae, be := a.Elems(), b.Elems()
	am, bm := a.Members(), b.Members()
	if len(ae) != len(be) || len(am) != len(bm) {
		return false
	}
	for i := range ae {
		if !sameTree(&ae[i], &be[i]) {
			return false
		}
	}
	for i := range am {
		if am[i].Key != bm[i].Key || !sameTree(&am[i].Value, &bm[i].Value) {
			return false
		}
	}
	return true
}

// TestValueSize: a tree's size is most of what parsing writes and lint
// reads back (see Value); a field added carelessly would grow every one.
func TestValueSize(t *testing.T) {
	if v, m := unsafe.Sizeof(Value{}), unsafe.Sizeof(Member{}); v != 24 || m != 40 {
		t.Errorf("a Value is %d bytes and a Member %d, want 24 and 40", v, m)
	}
	// The parser writes trees through rawMember and rawValue: their bytes
	// must be a Member's and a Value's.
	if unsafe.Sizeof(rawMember{}) != unsafe.Sizeof(Member{}) || unsafe.Sizeof(rawValue{}) != unsafe.Sizeof(Value{}) ||
		unsafe.Offsetof(rawMember{}.keyLen) != unsafe.Sizeof("")/2 || unsafe.Offsetof(rawMember{}.value) != unsafe.Offsetof(Member{}.Value) ||
		unsafe.Offsetof(rawValue{}.Bool) != unsafe.Offsetof(Value{}.Bool) || unsafe.Offsetof(rawValue{}.span) != unsafe.Offsetof(Value{}.span) ||
		unsafe.Offsetof(rawValue{}.ptr) != unsafe.Offsetof(Value{}.ptr) {
		t.Error("rawMember or rawValue is laid out unlike Member or Value")
	}
	// More than four fields, counting a nested struct as one, and the
	// compiler keeps a Value in memory instead of registers (see Value).
	if n := reflect.TypeFor[Value]().NumField(); n > 4 {
		t.Errorf("a Value has %d fields, want at most 4", n)
	}
}

// nextSpecial finds the first quote, backslash or control character from
// any start in inputs of every length around the word size, wherever the
// byte sits: in the first word, a later one or the bytes after the last
// whole word; and len(src) when there is none.
func TestNextSpecialEveryOffset(t *testing.T) {
	for n := 0; n <= 40; n++ {
		for _, special := range []byte{'"', '\\', 0x00, 0x1f} {
			for at := -1; at < n; at++ {
				src := bytes.Repeat([]byte{'a'}, n)
				for i := range src {
					src[i] = "a\x7f\x80\xffz "[i%6]
				}
				if at >= 0 {
					src[at] = special
				}
				for start := 0; start <= n; start++ {
					want := start
					for want < n && src[want] != '"' && src[want] != '\\' && src[want] >= 0x20 {
						want++
					}
					p := parser{src: src}
					if got := p.nextSpecial(start); got != want {
						t.Fatalf("nextSpecial(%d) in %q = %d, want %d", start, src, got, want)
					}
				}
			}
		}
	}
}

// The parser's stacks hide their pointers from the collector (see
// rawMember): a container or decoded string that only they point to must
// be kept alive by something else until the tree holds it. Trees parsed
// while the collector runs, and checked after the memory it freed has
// been handed out again, find one that was not.
func TestTreesSurviveCollections(t *testing.T) {
	var doc strings.Builder
	doc.WriteString(`{"list":[`)
	for i := range 5000 {
		if i > 0 {
			doc.WriteByte(',')
		}
		fmt.Fprintf(&doc, `{"k\n%d":"v\t%d","n":[[%d],{"e\"":"\u00e9%d"}]}`, i, i, i, i)
	}
	doc.WriteString(`]}`)
	src := []byte(doc.String())
	want, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	wantText := dump(&want)

	stop := make(chan struct{})
	var collecting sync.WaitGroup
	collecting.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
			}
		}
	})
	defer func() { close(stop); collecting.Wait() }()
	var a Arena
	for round := range 10 {
		got, err := Parse(bytes.Clone(src))
		if err != nil {
			t.Fatal(err)
		}
		a.Reset()
		inArena, err := a.ParseNext(bytes.Clone(src))
		if err != nil {
			t.Fatal(err)
		}
		// Reuse freed memory, so that a tree pointing into it reads
		// something else.
		var garbage [][]byte
		for range 2000 {
			garbage = append(garbage, bytes.Repeat([]byte{0xA5}, 48))
		}
		runtime.KeepAlive(garbage)
		if got := dump(&got); got != wantText {
			t.Fatalf("round %d: a tree parsed during collections changed", round)
		}
		if got := dump(&inArena); got != wantText {
			t.Fatalf("round %d: an arena's tree parsed during collections changed", round)
		}
	}
	runtime.KeepAlive(&a)
}

// dump renders v with every string, number and byte range in it.
func dump(v *Value) string {
	var b strings.Builder
	var walk func(v *Value)
	walk = func(v *Value) {
		fmt.Fprintf(&b, "%s@%d-%d:%q", v.Kind, v.Start(), v.End(), v.Str())
		for i := range v.Elems() {
			walk(&v.Elems()[i])
		}
		for i := range v.Members() {
			fmt.Fprintf(&b, "%q=", v.Members()[i].Key)
			walk(&v.Members()[i].Value)
		}
		b.WriteByte(';')
	}
	walk(v)
	return b.String()
}

// A parse allowed n elements and members takes input with exactly n and
// stops at the first past them, wherever they sit; an arena's bound holds
// for every parse until changed, and a parse after a stopped one starts
// with its whole allowance.
func TestParseMaxValues(t *testing.T) {
	for _, tc := range []struct {
		src string
		n   int // elements and members in src
	}{
		{`1`, 0},
		{`[]`, 0},
		{`[1,2,3]`, 3},
		{`{"a":1,"b":[true,null]}`, 4},
		{`[{"a":{}},[[]],"x"]`, 5},
	} {
		if _, err := ParseMax([]byte(tc.src), tc.n); err != nil {
			t.Errorf("ParseMax(%s, %d): %v", tc.src, tc.n, err)
		}
		var a Arena
		a.SetMaxValues(tc.n)
		if _, err := a.ParseNext([]byte(tc.src)); tc.n > 0 && err != nil {
			t.Errorf("ParseNext(%s) with %d allowed: %v", tc.src, tc.n, err)
		}
		if tc.n == 0 {
			continue
		}
		_, err := ParseMax([]byte(tc.src), tc.n-1)
		if tme, ok := err.(*TooManyValuesError); !ok || tme.Max != tc.n-1 {
			t.Errorf("ParseMax(%s, %d) = %v, want a TooManyValuesError", tc.src, tc.n-1, err)
		}
		a.SetMaxValues(tc.n - 1)
		if _, err := a.ParseNext([]byte(tc.src)); tc.n > 1 {
			if _, ok := err.(*TooManyValuesError); !ok {
				t.Errorf("arena ParseNext(%s) with %d allowed = %v, want a TooManyValuesError", tc.src, tc.n-1, err)
			}
		}
		a.SetMaxValues(0)
		if _, err := a.ParseNext([]byte(tc.src)); err != nil {
			t.Errorf("arena ParseNext(%s) unbounded again: %v", tc.src, err)
		}
	}
	// Without a bound, and after bounded parses on the pool's parsers.
	if _, err := Parse([]byte(`[1,2,3]`)); err != nil {
		t.Error(err)
	}
	// A syntax error before the limit is still a syntax error.
	if _, err := ParseMax([]byte(`[1,2,`), 10); err == nil {
		t.Error("no error for a cut array")
	} else if _, ok := err.(*SyntaxError); !ok {
		t.Errorf("cut array: %v, want a SyntaxError", err)
	}
}

// Containers larger than a stack segment (maxKeptStack bytes), nested so
// that inner ones start in one segment and close in another and outer
// ones close after their segments were popped and reused, parse as
// encoding/json reads them, with and without an arena.
func TestContainersAcrossStackSegments(t *testing.T) {
	perSegment := int(maxKeptStack / unsafe.Sizeof(rawValue{}))
	var b strings.Builder
	b.WriteString(`{"head":[`)
	for i := range perSegment + 7 {
		fmt.Fprintf(&b, "%d,", i%10)
	}
	b.WriteString(`[`)
	for i := range 2*perSegment + 3 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `[%d,{"k%d":%d}]`, i%7, i, i%3)
	}
	b.WriteString(`],"tail"],"members":{`)
	for i := range 3 * int(maxKeptStack/unsafe.Sizeof(rawMember{})) {
		fmt.Fprintf(&b, `"m%d":[%d],`, i, i%5)
	}
	b.WriteString(`"last":[1,[2,[3]]]},"after":[4,5]}`)
	src := []byte(b.String())
	want, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(src))
	d.UseNumber()
	var std any
	if err := d.Decode(&std); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(toAny(&want), std) {
		t.Fatal("Parse's tree differs from encoding/json's")
	}
	var a Arena
	for range 2 {
		a.Reset()
		got, err := a.ParseNext(src)
		if err != nil || !sameTree(&got, &want) {
			t.Fatalf("arena parse differs from Parse's (err %v)", err)
		}
	}
}
