package codec_test

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/internal/jsonv"
	"github.com/acplint/acplint/internal/third_party/rapid"
)

// tb is what the helpers need from *testing.T and *rapid.T.
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
}

// parsed is a JSON text as encoding/json sees it, numbers kept as written.
func parsed(t tb, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
	return v
}

// numericEquality compares numbers by value rather than spelling. Typed
// numbers are Go integers and float64s: an integer member written 1.0 or
// -0 re-encodes as 1 or 0, and a float64 member re-encodes as the
// shortest text of the same double. Integer literals must match exactly
// (so a wrapped or rounded integer still fails); a literal with a fraction
// or exponent may differ in spelling when it denotes the same double.
var numericEquality = cmp.Comparer(func(a, b json.Number) bool {
	if a == b {
		return true
	}
	ra, oka := new(big.Rat).SetString(string(a))
	rb, okb := new(big.Rat).SetString(string(b))
	if oka && okb && ra.Cmp(rb) == 0 {
		return true
	}
	if !strings.ContainsAny(string(a)+string(b), ".eE") {
		return false
	}
	fa, erra := a.Float64()
	fb, errb := b.Float64()
	return erra == nil && errb == nil && fa == fb && !math.IsInf(fa, 0)
})

// decodeOne decodes a line that must hold exactly one message.
func decodeOne(t tb, line []byte) (*codec.Decoded, *domain.Message) {
	t.Helper()
	d := codec.DecodeLine(codec.Line{Num: 1, Bytes: line})
	if len(d.Msgs) != 1 {
		t.Fatalf("%d messages in %s (problems %v)", len(d.Msgs), line, d.Problems)
	}
	return d, d.Msgs[0]
}

// readLines reads a testdata transcript.
func readLines(t *testing.T, name string) [][]byte {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines [][]byte
	lr := codec.NewLineReader(f)
	for {
		l, err := lr.Next()
		if err != nil {
			break
		}
		lines = append(lines, l.Bytes)
	}
	return lines
}

// transcript decodes a transcript and types each result by the method of
// the request it answers. Request ids are matched without directions, so
// the transcript must never have the same id pending twice.
type transcript struct {
	t       *testing.T
	pending map[string]domain.Method
}

func (tr *transcript) decode(n int, line []byte) (*codec.Decoded, []codec.Problem) {
	d := codec.DecodeLine(codec.Line{Num: n, Bytes: line})
	probs := append([]codec.Problem(nil), d.Problems...)
	for i, m := range d.Msgs {
		switch m.Kind {
		case domain.KindRequest:
			if prev, dup := tr.pending[m.ID.Key()]; dup {
				tr.t.Fatalf("line %d: id %s is already pending for %s", n, m.ID, prev)
			}
			tr.pending[m.ID.Key()] = m.Method
		case domain.KindResult, domain.KindError:
			method, ok := tr.pending[m.ID.Key()]
			if !ok {
				tr.t.Fatalf("line %d: response to id %s, which is not pending", n, m.ID)
			}
			delete(tr.pending, m.ID.Key())
			m.Method = method
			if mi, known := domain.LookupMethod(method); known && m.Kind == domain.KindResult {
				probs = append(probs, d.DecodeResult(i, mi)...)
				if m.Result == nil {
					tr.t.Errorf("line %d: %s result was not typed", n, method)
				}
			}
		}
	}
	return d, probs
}

// TestFullSession decodes a transcript that uses every stable method,
// every session update and every content block, checks that it has no
// problem, and that every line re-encodes to the same JSON.
func TestFullSession(t *testing.T) {
	lines := readLines(t, "testdata/full-session.ndjson")
	tr := &transcript{t: t, pending: map[string]domain.Method{}}
	methods := map[domain.Method]bool{}
	updates := map[reflect.Type]bool{}
	blocks := map[reflect.Type]bool{}
	kinds := map[domain.Kind]int{}
	for n, line := range lines {
		d, probs := tr.decode(n+1, line)
		for _, p := range probs {
			t.Errorf("line %d: %s", n+1, p)
		}
		for _, m := range d.Msgs {
			kinds[m.Kind]++
			methods[m.Method] = true
			if m.Params == nil && m.Result == nil && m.Kind != domain.KindError && !m.Method.IsExtension() {
				t.Errorf("line %d: %s %s was not typed", n+1, m.Kind, m.Method)
			}
			if sn, ok := m.Params.(*domain.SessionNotification); ok {
				updates[reflect.TypeOf(sn.Update)] = true
			}
			collectBlocks(reflect.ValueOf(m.Params), blocks)
			collectBlocks(reflect.ValueOf(m.Result), blocks)
			got := codec.Encode(m)
			if diff := cmp.Diff(parsed(t, line), parsed(t, got)); diff != "" {
				t.Errorf("line %d does not round-trip (-in +out):\n%s", n+1, diff)
			}
		}
	}
	for _, mi := range domain.Methods {
		if !methods[mi.Name] {
			t.Errorf("the transcript never uses %s", mi.Name)
		}
	}
	u, _ := domain.UnionOf(reflect.TypeFor[domain.SessionUpdate]())
	for _, v := range u.Variants {
		if !updates[v.Type] {
			t.Errorf("the transcript has no %q update", v.Tag)
		}
	}
	cb, _ := domain.UnionOf(reflect.TypeFor[domain.ContentBlock]())
	for _, v := range cb.Variants {
		if !blocks[v.Type] {
			t.Errorf("the transcript has no %q content block", v.Tag)
		}
	}
	if kinds[domain.KindError] == 0 || kinds[domain.KindNotification] == 0 {
		t.Errorf("the transcript lacks errors or notifications: %v", kinds)
	}
	if len(tr.pending) != 0 {
		t.Errorf("requests left unanswered: %v", tr.pending)
	}
}

var contentBlockType = reflect.TypeFor[domain.ContentBlock]()

// collectBlocks records the dynamic type of every ContentBlock inside v.
func collectBlocks(v reflect.Value, into map[reflect.Type]bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return
		}
		if v.Kind() == reflect.Interface && v.Type() == contentBlockType {
			into[v.Elem().Type()] = true
		}
		collectBlocks(v.Elem(), into)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			collectBlocks(v.Field(i), into)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		for i := 0; i < v.Len(); i++ {
			collectBlocks(v.Index(i), into)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			collectBlocks(v.MapIndex(k), into)
		}
	}
}

// TestExtensionsRoundTrip decodes traffic full of what a newer or
// extended peer sends: undeclared members, custom enum values and union
// variants, explicit "type":"stdio". Every line must re-encode to the
// same JSON, and the only problems are the expected ones.
func TestExtensionsRoundTrip(t *testing.T) {
	lines := readLines(t, "testdata/extensions.ndjson")
	tr := &transcript{t: t, pending: map[string]domain.Method{}}
	allowed := map[codec.ProblemKind]bool{
		codec.ProbUnknownMember: true, codec.ProbOpenEnum: true, codec.ProbUnknownVariant: true,
	}
	seen := map[codec.ProblemKind]int{}
	for n, line := range lines {
		d, probs := tr.decode(n+1, line)
		for _, p := range probs {
			seen[p.Kind]++
			if !allowed[p.Kind] {
				t.Errorf("line %d: unexpected %s", n+1, p)
			}
		}
		for _, m := range d.Msgs {
			if diff := cmp.Diff(parsed(t, line), parsed(t, codec.Encode(m))); diff != "" {
				t.Errorf("line %d does not round-trip (-in +out):\n%s", n+1, diff)
			}
		}
	}
	for k := range allowed {
		if seen[k] == 0 {
			t.Errorf("no %s problem in the file: it no longer tests that", k)
		}
	}
}

// TestEveryTypeRoundTrips encodes a generated value of every domain type
// and decodes it back.
func TestEveryTypeRoundTrips(t *testing.T) {
	for _, typ := range domain.AllTypes {
		t.Run(typ.Name(), func(t *testing.T) {
			gen := valueOf(typ)
			for seed := 0; seed < 20; seed++ {
				want := gen.Example(seed)
				b := codec.EncodeValue(want.Interface())
				got := reflect.New(typ)
				codec.DecodeValue(b, got.Interface())
				if diff := cmp.Diff(want.Interface(), got.Elem().Interface()); diff != "" {
					t.Fatalf("seed %d: %s decodes to a different value (-want +got):\n%s", seed, b, diff)
				}
				// Re-encoding gives the same bytes: encoding is deterministic.
				if again := codec.EncodeValue(got.Interface()); !bytes.Equal(again, b) {
					t.Fatalf("seed %d: re-encoding changed\n%s\nto\n%s", seed, b, again)
				}
			}
		})
	}
}

// TestMessagesRoundTrip: decode(encode(x)) == x for the params and the
// result of every method.
func TestMessagesRoundTrip(t *testing.T) {
	for _, mi := range domain.Methods {
		t.Run(string(mi.Name)+"/params", func(t *testing.T) {
			gen := valueOf(reflect.TypeOf(mi.NewParams()).Elem())
			rapid.Check(t, func(rt *rapid.T) {
				params := ptrTo(gen.Draw(rt, "params"))
				m := &domain.Message{Kind: domain.KindNotification, Method: mi.Name, Params: params, JSONRPC: json.RawMessage(`"2.0"`)}
				if !mi.Notification {
					m.Kind, m.ID = domain.KindRequest, domain.IDOf(7)
				}
				line := codec.Encode(m)
				_, got := decodeOne(rt, line)
				if diff := cmp.Diff(params, got.Params); diff != "" {
					rt.Fatalf("%s\ndecodes to different params (-want +got):\n%s", line, diff)
				}
			})
		})
		if mi.NewResult == nil {
			continue
		}
		t.Run(string(mi.Name)+"/result", func(t *testing.T) {
			gen := valueOf(reflect.TypeOf(mi.NewResult()).Elem())
			rapid.Check(t, func(rt *rapid.T) {
				result := ptrTo(gen.Draw(rt, "result"))
				m := &domain.Message{Kind: domain.KindResult, ID: domain.IDOf("req-7"), Result: result, JSONRPC: json.RawMessage(`"2.0"`)}
				line := codec.Encode(m)
				d, got := decodeOne(rt, line)
				d.DecodeResult(0, mi)
				if diff := cmp.Diff(result, got.Result); diff != "" {
					rt.Fatalf("%s\ndecodes to a different result (-want +got):\n%s", line, diff)
				}
			})
		})
	}
}

func ptrTo(v reflect.Value) any {
	p := reflect.New(v.Type())
	p.Elem().Set(v)
	return p.Interface()
}

// TestReencodeKeepsJSON: encode(decode(raw)) is raw as a JSON value, for
// raw JSON with members in any order, any white space and extra undeclared
// members, in every object.
func TestReencodeKeepsJSON(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		mi, result, src, tree := drawMessage(rt)
		var b bytes.Buffer
		rewrite(rt, &b, src, tree, "msg")
		line := b.Bytes()
		d, got := decodeOne(rt, line)
		if result {
			d.DecodeResult(0, mi)
		}
		out := codec.Encode(got)
		if diff := cmp.Diff(parsed(rt, line), parsed(rt, out)); diff != "" {
			rt.Fatalf("in:  %s\nout: %s\n(-in +out):\n%s", line, out, diff)
		}
	})
}

// drawMessage draws a valid request or result of some method and returns
// the method, whether the message is a result, and its JSON with the
// parse tree of it.
func drawMessage(rt *rapid.T) (mi *domain.MethodInfo, result bool, src []byte, tree *jsonv.Value) {
	mi = rapid.SampledFrom(domain.Methods).Draw(rt, "method")
	var m *domain.Message
	result = mi.NewResult != nil && rapid.Bool().Draw(rt, "result")
	if result {
		r := valueOf(reflect.TypeOf(mi.NewResult()).Elem()).Draw(rt, "result")
		m = &domain.Message{Kind: domain.KindResult, ID: domain.IDOf(3), Result: ptrTo(r), JSONRPC: json.RawMessage(`"2.0"`)}
	} else {
		params := valueOf(reflect.TypeOf(mi.NewParams()).Elem()).Draw(rt, "params")
		m = &domain.Message{Kind: domain.KindRequest, ID: domain.IDOf(3), Method: mi.Name, Params: ptrTo(params), JSONRPC: json.RawMessage(`"2.0"`)}
	}
	src = codec.Encode(m)
	v, err := jsonv.Parse(src)
	if err != nil {
		rt.Fatalf("encoder wrote invalid JSON: %v\n%s", err, src)
	}
	return mi, result, src, &v
}

// rewrite writes v again with shuffled members, random white space and,
// in some objects, an extra undeclared member with a string value (a
// string, because a map[string]string member must stay well-typed).
func rewrite(rt *rapid.T, b *bytes.Buffer, src []byte, v *jsonv.Value, label string) {
	space := func() {
		b.WriteString(rapid.SampledFrom([]string{"", "", " ", "\t", "  "}).Draw(rt, label+".ws"))
	}
	switch v.Kind {
	case jsonv.Array:
		b.WriteByte('[')
		for i := range v.Elems() {
			if i > 0 {
				b.WriteByte(',')
			}
			space()
			rewrite(rt, b, src, &v.Elems()[i], label+"[]")
		}
		b.WriteByte(']')
	case jsonv.Object:
		order := rapid.Permutation(indexes(len(v.Members()))).Draw(rt, label+".order")
		extra := rapid.IntRange(0, 3).Draw(rt, label+".extra") == 0
		b.WriteByte('{')
		for n, i := range order {
			if n > 0 {
				b.WriteByte(',')
			}
			space()
			m := &v.Members()[i]
			b.Write(jsonString(m.Key))
			b.WriteByte(':')
			space()
			rewrite(rt, b, src, &m.Value, label+"."+m.Key)
		}
		if extra {
			if len(order) > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"x_added":"by the test"`)
		}
		b.WriteByte('}')
	default:
		b.Write(v.Raw(src))
	}
}

func indexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// A BatchDecoder's lines stay as DecodeLine decodes them until Reset,
// however many lines follow in the batch, and results decode late (after
// later lines were parsed) as they do for a line decoded alone.
func TestBatchDecoderKeepsBatch(t *testing.T) {
	lines := readLines(t, "testdata/full-session.ndjson")
	var bd codec.BatchDecoder
	for round := range 2 {
		bd.Reset()
		var batch []*codec.Decoded
		for n, line := range lines {
			batch = append(batch, bd.DecodeLine(codec.Line{Num: n + 1, Bytes: line}))
		}
		tr := &transcript{t: t, pending: map[string]domain.Method{}}
		for n, line := range lines {
			want, wantProbs := tr.decode(n+1, line)
			got := batch[n]
			gotProbs := append([]codec.Problem(nil), got.Problems...)
			for i, m := range got.Msgs {
				m.Method = want.Msgs[i].Method
				if mi, known := domain.LookupMethod(m.Method); known && m.Kind == domain.KindResult {
					gotProbs = append(gotProbs, got.DecodeResult(i, mi)...)
				}
			}
			if diff := cmp.Diff(wantProbs, gotProbs); diff != "" {
				t.Fatalf("round %d, line %d: problems differ (-alone +batch):\n%s", round, n+1, diff)
			}
			if len(got.Msgs) != len(want.Msgs) {
				t.Fatalf("round %d, line %d: %d messages, want %d", round, n+1, len(got.Msgs), len(want.Msgs))
			}
			for i := range got.Msgs {
				if g, w := codec.Encode(got.Msgs[i]), codec.Encode(want.Msgs[i]); string(g) != string(w) {
					t.Fatalf("round %d, line %d: batch decodes\n%s\nalone\n%s", round, n+1, g, w)
				}
			}
		}
	}
}

// A request without "params" gets its method's params decoded from {}, so
// that rules see the type and missing required members are reported, and
// it re-encodes without "params".
func TestOmittedParams(t *testing.T) {
	for _, tc := range []struct {
		line    string
		missing []string // required members reported missing
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"session/list"}`, nil},
		{`{"jsonrpc":"2.0","id":1,"method":"session/new"}`, []string{"cwd", "mcpServers"}},
		{`{"jsonrpc":"2.0","method":"session/cancel"}`, []string{"sessionId"}},
	} {
		d, m := decodeOne(t, []byte(tc.line))
		if !m.ParamsOmitted || m.Params == nil {
			t.Errorf("%s: ParamsOmitted = %v, Params = %v; want the typed params of an omitted member", tc.line, m.ParamsOmitted, m.Params)
		}
		var missing []string
		for _, p := range d.Problems {
			if p.Kind == codec.ProbMissing {
				missing = append(missing, p.Member)
			}
		}
		if diff := cmp.Diff(tc.missing, missing); diff != "" {
			t.Errorf("%s: missing members (-want +got):\n%s", tc.line, diff)
		}
		if out := codec.Encode(m); string(out) != tc.line {
			t.Errorf("%s re-encodes as %s", tc.line, out)
		}
	}
}

// drawTyped draws a message, decodes it and returns its typed params or
// result (typed as its method's), with the line it was decoded from.
func drawTyped(rt *rapid.T) (d *codec.Decoded, typed any, src []byte) {
	mi, result, src, _ := drawMessage(rt)
	d = codec.DecodeLine(codec.Line{Num: 1, Bytes: src})
	if !result {
		return d, d.Msgs[0].Params, src
	}
	d.DecodeResult(0, mi)
	return d, d.Msgs[0].Result, src
}

// TestMetaSeen holds Decoded.MetaSeen to what the protocol machine relies
// on when it skips the trace-context check: it is true exactly when a
// struct reachable from the typed params or result holds a "_meta".
func TestMetaSeen(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		d, typed, src := drawTyped(rt)
		if want := holdsMeta(reflect.ValueOf(typed)); d.MetaSeen(0) != want {
			rt.Fatalf("MetaSeen = %v, want %v (whether a struct in the typed value holds a _meta)\n%s", d.MetaSeen(0), want, src)
		}
	})
}

// holdsMeta reports whether a struct within v has a non-empty Meta field.
func holdsMeta(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		return !v.IsNil() && holdsMeta(v.Elem())
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return false
		}
		for i := range v.Len() {
			if holdsMeta(v.Index(i)) {
				return true
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if holdsMeta(it.Value()) {
				return true
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			if f.Name == "Meta" && v.Field(i).Len() > 0 {
				return true
			}
			if holdsMeta(v.Field(i)) {
				return true
			}
		}
	}
	return false
}
