package schemacheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/internal/jsonv"
	"github.com/acplint/acplint/internal/proctest"
	"github.com/acplint/acplint/schemamodel"
)

// publishedSchemas are every schema file committed as test data: the
// published SDK history and the reference files the compiled-in schema
// comes from.
func publishedSchemas(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("../schemadiff/testdata/npm/*/schema/*.json")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("../schemadiff/testdata/npm/*/schema/*/schema.json")
	files = append(files, more...)
	files = append(files, "../internal/reference/acp-schema.json", "../internal/reference/acp-schema.unstable.json")
	if len(files) < 18 {
		t.Fatalf("found %d schema files, want the committed history", len(files))
	}
	sort.Strings(files)
	return files
}

// stats count what the differential tests compared, so that a test that
// stopped generating broken values shows.
var stats struct{ checked, withProblems, problems int }

type pair struct {
	ck *Checker
	or *oracle
	m  *schemamodel.Schema
}

func loadPair(t testing.TB, file string) pair {
	t.Helper()
	m, err := schemamodel.LoadFile(file, schemamodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ck, err := Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	or, err := compileOracle(m)
	if err != nil {
		t.Fatal(err)
	}
	return pair{ck, or, m}
}

func sortedKeys(m *schemamodel.Schema) []schemamodel.Key {
	keys := make([]schemamodel.Key, 0, len(m.Messages))
	for k := range m.Messages {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	return keys
}

// same checks one value with both and reports a difference; it returns
// false when the oracle itself panicked (math/big refuses some literals
// the validator then dereferences).
func (p pair) same(t *testing.T, key schemamodel.Key, raw []byte) bool {
	t.Helper()
	var want []codec.Problem
	panicked := func() (panicked bool) {
		defer func() {
			if recover() != nil {
				panicked = true
			}
		}()
		want = p.or.validate(key, raw, "/params")
		return false
	}()
	if panicked {
		return false
	}
	got := p.ck.Check(key, raw, nil, "/params")
	stats.checked++
	if len(want) > 0 {
		stats.withProblems++
		stats.problems += len(want)
	}
	if raw != nil {
		// The tree lint passes in (the codec's parse of the line) must give
		// what parsing raw gives; it gives none for a line that is not UTF-8.
		if tree, err := jsonv.Parse(raw); err == nil && utf8.Valid(raw) {
			if fromTree := p.ck.Check(key, raw, &tree, "/params"); !reflect.DeepEqual(fromTree, got) {
				t.Errorf("%s %s: %s\nfrom the tree:\n%s\nfrom raw:\n%s", p.m.File, key, raw, dump(fromTree), dump(got))
			}
		}
	}
	if len(got) == 0 && len(want) == 0 {
		return true
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s %s: %s\nchecker:\n%s\noracle:\n%s", p.m.File, key, raw, dump(got), dump(want))
		return true
	}
	return true
}

func dump(ps []codec.Problem) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "\t%s %s def=%q member=%q value=%q: %s\n", p.Kind, p.Pointer, p.Def, p.Member, p.Value, p.Detail)
	}
	return b.String()
}

// TestDifferential generates, for every message of every committed schema,
// values that fit it and values broken in the ways traffic breaks them,
// and checks that the compiled checker and the validator agree on every
// problem: kind, pointer, definition, member, value, detail and order.
func TestDifferential(t *testing.T) {
	// Under the race detector, which has nothing to find in this one
	// goroutine and slows it eight times (24 s), as many as -short; .ci/run
	// runs the 60 without -race.
	perMessage := 60
	if testing.Short() || proctest.RaceEnabled {
		perMessage = 10
	}
	for _, file := range publishedSchemas(t) {
		t.Run(strings.TrimPrefix(file, "../"), func(t *testing.T) {
			p := loadPair(t, file)
			rng := rand.New(rand.NewPCG(1, uint64(len(file))))
			failures := 0
			for _, key := range sortedKeys(p.m) {
				sh := p.m.Messages[key].Shape
				for i := 0; i < perMessage && failures < 20; i++ {
					g := &gen{rng: rng}
					v := g.value(sh, 0)
					if i%3 != 0 {
						for range 1 + rng.IntN(3) {
							v = g.mutate(v)
						}
					}
					raw, err := json.Marshal(v)
					if err != nil {
						t.Fatal(err)
					}
					if i%7 == 6 {
						raw = g.mangle(raw)
					}
					before := t.Failed()
					p.same(t, key, raw)
					if !before && t.Failed() {
						failures++
					}
				}
				p.same(t, key, nil)
				p.same(t, key, []byte("null"))
			}
		})
	}
}

// TestDifferentialCorpus checks the params and results of every message of
// the golden corpus against every committed schema with both.
func TestDifferentialCorpus(t *testing.T) {
	files, err := filepath.Glob("../conformance/testdata/*/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden corpus: %v", err)
	}
	type msg struct {
		key schemamodel.Key
		raw []byte
	}
	var msgs []msg
	for _, file := range files {
		a, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		methods := map[string]string{}
		for _, f := range a.Files {
			if !strings.HasPrefix(f.Name, "transcript.") {
				continue
			}
			for _, line := range bytes.Split(f.Data, []byte("\n")) {
				var one map[string]json.RawMessage
				var batch []map[string]json.RawMessage
				if json.Unmarshal(line, &one) == nil {
					batch = append(batch, one)
				} else if json.Unmarshal(line, &batch) != nil {
					continue
				}
				for _, m := range batch {
					var method string
					_ = json.Unmarshal(m["method"], &method)
					id := string(m["id"])
					switch {
					case method != "" && id != "":
						methods[id] = method
						msgs = append(msgs, msg{schemamodel.Key{Method: method, Kind: schemamodel.KindRequest}, m["params"]})
					case method != "":
						msgs = append(msgs, msg{schemamodel.Key{Method: method, Kind: schemamodel.KindNotification}, m["params"]})
					case m["result"] != nil && methods[id] != "":
						msgs = append(msgs, msg{schemamodel.Key{Method: methods[id], Kind: schemamodel.KindResponse}, m["result"]})
					}
				}
			}
		}
	}
	if len(msgs) < 500 {
		t.Fatalf("only %d messages in the corpus", len(msgs))
	}
	// Every message against every schema. Under the race detector, which
	// has nothing to find in these single-goroutine comparisons and makes
	// the oracle six times slower (93 s), the schemas take turns: schema
	// j checks the messages i with i%stride == j%stride, so that every
	// schema still meets an eighth of the corpus and every message two or
	// three of the 19 schemas. .ci/run runs this test in full without
	// -race.
	stride := 1
	if proctest.RaceEnabled {
		stride = 8
	}
	for j, file := range publishedSchemas(t) {
		p := loadPair(t, file)
		checked := 0
		for i, m := range msgs {
			if i%stride != j%stride {
				continue
			}
			if p.ck.Defines(m.key) {
				p.same(t, m.key, m.raw)
				checked++
			}
		}
		if checked == 0 {
			t.Errorf("%s: no corpus message is defined", file)
		}
	}
}

// gen makes values from schema shapes and breaks them.
type gen struct{ rng *rand.Rand }

func (g *gen) pick(n int) int { return g.rng.IntN(n) }

func (g *gen) value(sh *schemamodel.Shape, depth int) any {
	if sh == nil || depth > 7 || sh.Cycle {
		return g.scalar()
	}
	if sh.Enum != nil && (len(sh.Enum) > 0) && g.pick(8) != 0 {
		var v any
		dec := json.NewDecoder(strings.NewReader(sh.Enum[g.pick(len(sh.Enum))]))
		dec.UseNumber()
		_ = dec.Decode(&v)
		return v
	}
	if sh.Variants != nil && g.pick(6) != 0 {
		vr := sh.Variants[g.pick(len(sh.Variants))]
		v := g.value(vr.Shape, depth+1)
		obj, ok := v.(map[string]any)
		if !ok {
			return v
		}
		if vr.Tag != "" {
			if vr.CatchAll {
				obj[vr.Tag] = "_custom"
			} else {
				var tv any
				_ = json.Unmarshal([]byte(vr.TagValue), &tv)
				obj[vr.Tag] = tv
			}
		}
		for name, p := range sh.Props {
			if p.Required || g.pick(2) == 0 {
				obj[name] = g.value(p.Shape, depth+1)
			}
		}
		return obj
	}
	var ts []schemamodel.Types
	for _, t := range []schemamodel.Types{schemamodel.TypeObject, schemamodel.TypeArray, schemamodel.TypeString,
		schemamodel.TypeInteger, schemamodel.TypeNumber, schemamodel.TypeBoolean, schemamodel.TypeNull} {
		if sh.Types&t != 0 {
			ts = append(ts, t)
		}
	}
	if len(ts) == 0 || len(ts) == 7 && sh.Props == nil && sh.Items == nil {
		return g.scalar()
	}
	// Prefer the structured type of a nullable member.
	t := ts[g.pick(len(ts))]
	if (sh.Props != nil || sh.Values != nil) && sh.Types&schemamodel.TypeObject != 0 && g.pick(5) != 0 {
		t = schemamodel.TypeObject
	}
	switch t {
	case schemamodel.TypeObject:
		obj := map[string]any{}
		for name, p := range sh.Props {
			if p.Required || g.pick(2) == 0 {
				obj[name] = g.value(p.Shape, depth+1)
			}
		}
		if sh.Values != nil {
			for range g.pick(3) {
				obj[fmt.Sprintf("k%d", g.pick(100))] = g.value(sh.Values, depth+1)
			}
		}
		return obj
	case schemamodel.TypeArray:
		n := g.pick(3)
		arr := make([]any, n)
		for i := range arr {
			arr[i] = g.value(sh.Items, depth+1)
		}
		return arr
	case schemamodel.TypeString:
		return []string{"x", "hello", "/tmp/a b", "é<&>", ""}[g.pick(5)]
	case schemamodel.TypeInteger, schemamodel.TypeNumber:
		lo, hi := -5.0, 100.0
		if sh.Min != nil {
			lo = *sh.Min
		}
		if sh.Max != nil && *sh.Max < 1e6 {
			hi = *sh.Max
		}
		if hi < lo {
			hi = lo
		}
		return json.Number(fmt.Sprint(int64(lo + float64(g.pick(int(min(hi-lo, 1000))+1)))))
	case schemamodel.TypeBoolean:
		return g.pick(2) == 0
	}
	return nil
}

var oddScalars = []any{nil, true, false, json.Number("0"), json.Number("-1"), json.Number("1.5"), json.Number("1.0"),
	json.Number("1e30"), json.Number("-2147483649"), json.Number("18446744073709551616"), json.Number("1234567"),
	json.Number("12345.5"), json.Number("1e-7"), "", "bogus_value", "agent_message_chunk", "text", "<script>", "日本語",
	strings.Repeat("long", 20)}

func (g *gen) scalar() any { return oddScalars[g.pick(len(oddScalars))] }

// place is a spot in a value: how to read and replace what is there.
type place struct {
	get func() any
	set func(any)
}

// mutate breaks one random place of v.
func (g *gen) mutate(v any) any {
	root := v
	places := []place{{func() any { return root }, func(x any) { root = x }}}
	var walk func(x any)
	walk = func(x any) {
		switch c := x.(type) {
		case map[string]any:
			for _, k := range sortedNames(c) {
				places = append(places, place{func() any { return c[k] }, func(y any) { c[k] = y }})
				walk(c[k])
			}
		case []any:
			for i := range c {
				places = append(places, place{func() any { return c[i] }, func(y any) { c[i] = y }})
				walk(c[i])
			}
		}
	}
	walk(root)
	p := places[g.pick(len(places))]
	cur := p.get()
	obj, isObj := cur.(map[string]any)
	names := sortedNames(obj)
	switch g.pick(9) {
	case 0:
		p.set(g.scalar())
	case 1:
		p.set(map[string]any{})
	case 2:
		p.set([]any{cur})
	case 3:
		if isObj && len(names) > 0 {
			delete(obj, names[g.pick(len(names))])
		}
	case 4:
		if isObj {
			obj[[]string{"zzUnknown", "_meta", "a/b~c", "type"}[g.pick(4)]] = g.scalar()
		}
	case 5:
		if isObj {
			for _, tagName := range []string{"type", "sessionUpdate", "kind", "mode", "status", "outcome"} {
				if _, has := obj[tagName]; has {
					obj[tagName] = []any{"nonsense", json.Number("3"), nil}[g.pick(3)]
				}
			}
		}
	case 6:
		if isObj && len(names) > 0 {
			obj[names[g.pick(len(names))]] = nil
		}
	case 7:
		if s, ok := cur.(string); ok {
			p.set(s + "_x")
		} else {
			p.set("bogus_value")
		}
	default:
		if isObj && len(names) > 0 {
			k := names[g.pick(len(names))]
			obj[k] = g.mutate(obj[k])
		}
	}
	return root
}

func sortedNames(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// mangle breaks the text: duplicate members, bytes that are not UTF-8,
// escapes.
func (g *gen) mangle(raw []byte) []byte {
	if len(raw) < 2 || raw[0] != '{' {
		return raw
	}
	switch g.pick(3) {
	case 0:
		i := bytes.IndexByte(raw[1:], ',')
		if i > 0 && raw[len(raw)-1] == '}' {
			first := raw[1 : i+1]
			return append(append(append([]byte{}, raw[:len(raw)-1]...), ','), append(first, '}')...)
		}
	case 1:
		return bytes.Replace(raw, []byte(`"x"`), []byte("\"\xff\xfex\""), 1)
	}
	return bytes.Replace(raw, []byte(`"text"`), []byte(`"te\u0078t"`), 1)
}

func TestMain(m *testing.M) {
	code := m.Run()
	if testing.Verbose() {
		fmt.Printf("compared %d values, %d with problems (%d problems)\n", stats.checked, stats.withProblems, stats.problems)
	}
	os.Exit(code)
}
