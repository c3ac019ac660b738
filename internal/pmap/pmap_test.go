package pmap

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// checkInvariants verifies the structural invariants of m's tree: keys in
// strict ascending order, cached heights correct, AVL balance (sibling
// heights differ by at most one), node count equal to Len, and the overall
// height within 2*log2(n)+2 (AVL guarantees ~1.44*log2(n+2)).
func checkInvariants[K cmp.Ordered, V any](t rapid.TB, m Map[K, V]) {
	t.Helper()
	var walk func(n *node[K, V], lo, hi *K) (h int, count int)
	walk = func(n *node[K, V], lo, hi *K) (int, int) {
		if n == nil {
			return 0, 0
		}
		if lo != nil && cmp.Compare(n.key, *lo) <= 0 {
			t.Fatalf("order violated: key %v not > lower bound %v", n.key, *lo)
		}
		if hi != nil && cmp.Compare(n.key, *hi) >= 0 {
			t.Fatalf("order violated: key %v not < upper bound %v", n.key, *hi)
		}
		hl, cl := walk(n.left, lo, &n.key)
		hr, cr := walk(n.right, &n.key, hi)
		if d := hl - hr; d < -1 || d > 1 {
			t.Fatalf("AVL balance violated at key %v: left height %d, right height %d", n.key, hl, hr)
		}
		h := max(hl, hr) + 1
		if int(n.height) != h {
			t.Fatalf("cached height %d at key %v, actual %d", n.height, n.key, h)
		}
		return h, cl + cr + 1
	}
	h, count := walk(m.root, nil, nil)
	if count != m.Len() {
		t.Fatalf("Len() = %d, tree holds %d nodes", m.Len(), count)
	}
	if bound := 2*math.Log2(float64(count)) + 2; count > 0 && float64(h) > bound {
		t.Fatalf("height %d exceeds 2*log2(%d)+2 = %.1f", h, count, bound)
	}
}

// checkModel verifies m against the plain Go map model: Len, Get/Has for
// every model key, All and Keys in ascending order, and tree invariants.
func checkModel[K cmp.Ordered](t rapid.TB, m Map[K, int], model map[K]int) {
	t.Helper()
	if m.Len() != len(model) {
		t.Fatalf("Len() = %d, want %d", m.Len(), len(model))
	}
	for k, want := range model {
		got, ok := m.Get(k)
		if !ok || got != want {
			t.Fatalf("Get(%v) = %v, %v; want %v, true", k, got, ok, want)
		}
		if !m.Has(k) {
			t.Fatalf("Has(%v) = false, want true", k)
		}
	}
	wantKeys := slices.Sorted(maps.Keys(model))
	var gotKeys []K
	for k, v := range m.All() {
		if want, ok := model[k]; !ok || v != want {
			t.Fatalf("All yielded %v: %v; model has %v, %v", k, v, want, ok)
		}
		gotKeys = append(gotKeys, k)
	}
	if !slices.Equal(gotKeys, wantKeys) {
		t.Fatalf("All keys = %v, want %v", gotKeys, wantKeys)
	}
	if keys := m.Keys(); !slices.Equal(keys, wantKeys) {
		t.Fatalf("Keys() = %v, want %v", keys, wantKeys)
	}
	checkInvariants(t, m)
}

// version is one snapshot of the map together with the model it must match.
type version[K cmp.Ordered] struct {
	m      Map[K, int]
	model  map[K]int
	parent int // index of the version it was derived from
}

// testModel runs a rapid state-machine test of Map[K, int] against a Go map.
// keyGen draws single keys; fromInt maps non-negative ints to keys
// preserving order, for bulk inserts.
// Every action derives a new version from a randomly chosen existing one,
// so the versions form a tree sharing structure. All versions are kept and
// re-verified at the end: any mutation of a shared node by a later operation
// would show up as an old version diverging from its saved model copy.
func testModel[K cmp.Ordered](t *testing.T, keyGen *rapid.Generator[K], fromInt func(int) K) {
	rapid.Check(t, func(t *rapid.T) {
		versions := []version[K]{{model: map[K]int{}}}
		pick := func(t *rapid.T) int {
			return rapid.IntRange(0, len(versions)-1).Draw(t, "version")
		}
		// existingOrNew draws a key present in model (if any) or an arbitrary key.
		existingOrNew := func(t *rapid.T, model map[K]int) K {
			if len(model) > 0 && rapid.Bool().Draw(t, "existing") {
				return rapid.SampledFrom(slices.Sorted(maps.Keys(model))).Draw(t, "key")
			}
			return keyGen.Draw(t, "key")
		}
		derive := func(t *rapid.T, parent int, m Map[K, int], model map[K]int) {
			checkModel(t, m, model)
			versions = append(versions, version[K]{m: m, model: model, parent: parent})
		}

		t.Repeat(map[string]func(*rapid.T){
			"Set": func(t *rapid.T) {
				i := pick(t)
				k := existingOrNew(t, versions[i].model)
				v := rapid.Int().Draw(t, "value")
				model := maps.Clone(versions[i].model)
				model[k] = v
				derive(t, i, versions[i].m.Set(k, v), model)
			},
			"Delete": func(t *rapid.T) {
				i := pick(t)
				k := existingOrNew(t, versions[i].model)
				old := versions[i].m
				m := old.Delete(k)
				if _, present := versions[i].model[k]; !present && (m.root != old.root || m.n != old.n) {
					t.Fatalf("Delete(%v) of absent key did not return the receiver", k)
				}
				model := maps.Clone(versions[i].model)
				delete(model, k)
				derive(t, i, m, model)
			},
			"Update": func(t *rapid.T) {
				i := pick(t)
				k := existingOrNew(t, versions[i].model)
				v := rapid.Int().Draw(t, "value")
				wantOld, wantOK := versions[i].model[k]
				calls := 0
				m := versions[i].m.Update(k, func(old int, ok bool) int {
					calls++
					if old != wantOld || ok != wantOK {
						t.Fatalf("Update(%v) passed (%v, %v), want (%v, %v)", k, old, ok, wantOld, wantOK)
					}
					if ok {
						return old + 1
					}
					return v
				})
				if calls != 1 {
					t.Fatalf("Update called f %d times, want 1", calls)
				}
				model := maps.Clone(versions[i].model)
				if wantOK {
					model[k] = wantOld + 1
				} else {
					model[k] = v
				}
				derive(t, i, m, model)
			},
			"BulkSet": func(t *rapid.T) {
				// Hundreds of inserts at once grow trees large enough for the
				// balance invariant to matter. Ascending and descending runs
				// are the classic worst cases for unbalanced trees. Keys come
				// from a drawn seed because rapid keeps drawn slices short.
				i := pick(t)
				count := rapid.IntRange(0, 600).Draw(t, "count")
				start := rapid.IntRange(0, 50_000).Draw(t, "start")
				mode := rapid.SampledFrom([]string{"ascending", "descending", "random"}).Draw(t, "mode")
				r := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 0))
				m, model := versions[i].m, maps.Clone(versions[i].model)
				for j := range count {
					var n int
					switch mode {
					case "ascending":
						n = start + j
					case "descending":
						n = start + count - j
					default:
						n = start + r.IntN(2*count+1)
					}
					k := fromInt(n)
					m = m.Set(k, j)
					model[k] = j
				}
				derive(t, i, m, model)
			},
			"BulkDelete": func(t *rapid.T) {
				i := pick(t)
				stride := rapid.IntRange(1, 4).Draw(t, "stride")
				offset := rapid.IntRange(0, stride-1).Draw(t, "offset")
				m, model := versions[i].m, maps.Clone(versions[i].model)
				for j, k := range slices.Sorted(maps.Keys(versions[i].model)) {
					if j%stride == offset {
						m = m.Delete(k)
						delete(model, k)
					}
				}
				derive(t, i, m, model)
			},
			"Rebuild": func(t *rapid.T) {
				// Same contents, built from scratch in a random order: a
				// differently shaped tree sharing no nodes with its parent.
				i := pick(t)
				keys := rapid.Permutation(slices.Sorted(maps.Keys(versions[i].model))).Draw(t, "order")
				var m Map[K, int]
				for _, k := range keys {
					m = m.Set(k, versions[i].model[k])
				}
				derive(t, i, m, maps.Clone(versions[i].model))
			},
			"Probe": func(t *rapid.T) {
				v := versions[pick(t)]
				k := keyGen.Draw(t, "key")
				want, wantOK := v.model[k]
				if got, ok := v.m.Get(k); got != want || ok != wantOK {
					t.Fatalf("Get(%v) = %v, %v; want %v, %v", k, got, ok, want, wantOK)
				}
				if v.m.Has(k) != wantOK {
					t.Fatalf("Has(%v) = %v, want %v", k, !wantOK, wantOK)
				}
			},
			"Equal": func(t *rapid.T) {
				a, b := versions[pick(t)], versions[pick(t)]
				want := maps.Equal(a.model, b.model)
				if got := a.m.Equal(b.m); got != want {
					t.Fatalf("Equal = %v, want %v\n a = %v\n b = %v", got, want, a.m, b.m)
				}
				if got := b.m.Equal(a.m); got != want {
					t.Fatalf("Equal (reversed) = %v, want %v", got, want)
				}
			},
		})

		// Persistence: after all the later operations on derived versions,
		// every snapshot must still match the model copy saved when it was
		// created, and compare correctly against the version it came from.
		for i, v := range versions {
			checkModel(t, v.m, v.model)
			p := versions[v.parent]
			if got, want := v.m.Equal(p.m), maps.Equal(v.model, p.model); got != want {
				t.Fatalf("version %d Equal(parent %d) = %v, want %v", i, v.parent, got, want)
			}
		}
	})
}

func TestModelIntKeys(t *testing.T) {
	// A narrow range makes collisions (overwrites, deletes of present keys)
	// common; the full range occasionally hits extreme values.
	testModel(t, rapid.OneOf(rapid.IntRange(-64, 64), rapid.IntRange(-1000, 1000), rapid.Int()),
		func(n int) int { return n })
}

func TestModelStringKeys(t *testing.T) {
	testModel(t, rapid.OneOf(rapid.StringMatching(`[a-d]{0,3}`), rapid.String()),
		func(n int) string { return fmt.Sprintf("k%06d", n) })
}

func TestZeroValue(t *testing.T) {
	var m Map[string, int]
	if m.Len() != 0 {
		t.Errorf("Len() = %d, want 0", m.Len())
	}
	if v, ok := m.Get("x"); ok || v != 0 {
		t.Errorf("Get on empty map = %v, %v", v, ok)
	}
	if m.Has("x") {
		t.Error("Has on empty map = true")
	}
	for k, v := range m.All() {
		t.Errorf("All on empty map yielded %v: %v", k, v)
	}
	if keys := m.Keys(); len(keys) != 0 {
		t.Errorf("Keys() = %v, want empty", keys)
	}
	if s := m.String(); s != "{}" {
		t.Errorf("String() = %q, want {}", s)
	}
	if d := m.Delete("x"); d.root != nil || d.Len() != 0 {
		t.Errorf("Delete on empty map = %v", d)
	}
	if !m.Equal(Map[string, int]{}) {
		t.Error("zero maps not Equal")
	}
	if m.Equal(m.Set("a", 0)) {
		t.Error("empty map Equal to non-empty map")
	}
}

func TestLargeSequential(t *testing.T) {
	// Ascending inserts, then deletes, at transcript-like sizes; the tree must
	// stay balanced and earlier versions must survive intact.
	n := 1 << 16
	if testing.Short() {
		n = 1 << 12
	}
	var m Map[int, int]
	for i := range n {
		m = m.Set(i, i*i)
	}
	checkInvariants(t, m)
	full := m
	for i := 0; i < n; i += 2 {
		m = m.Delete(i)
	}
	checkInvariants(t, m)
	if m.Len() != n/2 {
		t.Fatalf("Len() = %d after deleting evens, want %d", m.Len(), n/2)
	}
	if full.Len() != n {
		t.Fatalf("original Len() = %d, want %d", full.Len(), n)
	}
	i := 0
	for k, v := range full.All() {
		if k != i || v != i*i {
			t.Fatalf("original entry %d = %v: %v, want %v: %v", i, k, v, i, i*i)
		}
		i++
	}
	// Descending deletes of the rest.
	for i := n - 1; i >= 0; i-- {
		m = m.Delete(i)
	}
	if m.Len() != 0 || m.root != nil {
		t.Fatalf("map not empty after deleting everything: Len() = %d", m.Len())
	}
}

func TestSetAllocations(t *testing.T) {
	// Path copying: a Set on a large map allocates about one node per level,
	// plus at most a couple for a rotation, never anything proportional to n.
	var m Map[int, int]
	for i := range 100_000 {
		m = m.Set(i*2, i)
	}
	h := int(m.root.height)
	for _, k := range []int{-1, 0, 77_777, 100_001, 1 << 30} {
		allocs := testing.AllocsPerRun(20, func() { _ = m.Set(k, 1) })
		if allocs > float64(h+3) {
			t.Errorf("Set(%d) on %d entries (height %d): %.0f allocs, want <= %d", k, m.Len(), h, allocs, h+3)
		}
	}
	if allocs := testing.AllocsPerRun(20, func() { _ = m.Delete(3) }); allocs != 0 {
		t.Errorf("Delete of absent key: %.0f allocs, want 0", allocs)
	}
}

func TestDeleteAbsentReturnsReceiver(t *testing.T) {
	m := Map[int, string]{}.Set(1, "a").Set(2, "b")
	d := m.Delete(3)
	if d.root != m.root || d.n != m.n {
		t.Error("Delete of absent key returned a different map")
	}
}

func TestAllEarlyStop(t *testing.T) {
	var m Map[int, int]
	for i := range 100 {
		m = m.Set(i, i)
	}
	var got []int
	for k := range m.All() {
		if k == 5 {
			break
		}
		got = append(got, k)
	}
	if want := []int{0, 1, 2, 3, 4}; !slices.Equal(got, want) {
		t.Errorf("All with break yielded %v, want %v", got, want)
	}
}

func TestString(t *testing.T) {
	m := Map[int, string]{}.Set(3, "c").Set(1, "a").Set(2, "b")
	if got, want := m.String(), "{1: a, 2: b, 3: c}"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got, want := fmt.Sprint(Map[string, int]{}.Set("x", 1)), "{x: 1}"; got != want {
		t.Errorf("fmt.Sprint = %q, want %q", got, want)
	}
}

// approx has a custom Equal that ignores Note; Map.Equal must use it.
type approx struct {
	N    int
	Note string
}

func (a approx) Equal(b approx) bool { return a.N == b.N }

func TestEqual(t *testing.T) {
	build := func(keys ...int) Map[int, int] {
		var m Map[int, int]
		for _, k := range keys {
			m = m.Set(k, k*10)
		}
		return m
	}
	asc := build(1, 2, 3, 4, 5, 6, 7, 8, 9)
	desc := build(9, 8, 7, 6, 5, 4, 3, 2, 1)
	mixed := build(5, 1, 9, 3, 7, 2, 8, 4, 6)

	tests := []struct {
		name string
		a, b Map[int, int]
		want bool
	}{
		{"same root", asc, asc, true},
		{"different shapes same contents", asc, desc, true},
		{"mixed order", mixed, desc, true},
		{"different value", asc, asc.Set(5, 51), false},
		{"same value rewritten", asc, asc.Set(5, 50), true},
		{"different key same len", asc, asc.Delete(9).Set(10, 90), false},
		{"extra key", asc, asc.Set(10, 100), false},
		{"missing key", asc, asc.Delete(1), false},
		{"set then delete", asc, asc.Set(100, 0).Delete(100), true},
		{"delete then restore", asc, asc.Delete(4).Set(4, 40), true},
		{"empty vs empty", Map[int, int]{}, build(), true},
		{"empty vs non-empty", Map[int, int]{}, asc, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.Equal(tt.b); got != tt.want {
				t.Errorf("a.Equal(b) = %v, want %v\n a = %v\n b = %v", got, tt.want, tt.a, tt.b)
			}
			if got := tt.b.Equal(tt.a); got != tt.want {
				t.Errorf("b.Equal(a) = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestEqualSharedSubtrees(t *testing.T) {
	// Versions derived from a common large ancestor differ in one entry; the
	// difference must be found whichever side of the shared nodes it is on.
	var base Map[int, int]
	for i := range 1000 {
		base = base.Set(i, i)
	}
	for _, k := range []int{0, 1, 499, 500, 998, 999} {
		changed := base.Set(k, -1)
		if base.Equal(changed) || changed.Equal(base) {
			t.Errorf("change at key %d not detected", k)
		}
		if !base.Equal(changed.Set(k, k)) {
			t.Errorf("restoring key %d not Equal to base", k)
		}
		if a, b := base.Delete(k), changed.Delete(k); !a.Equal(b) {
			t.Errorf("both with key %d deleted not Equal", k)
		}
	}
}

func TestEqualUsesEqualMethod(t *testing.T) {
	a := Map[string, approx]{}.Set("x", approx{1, "first"}).Set("y", approx{2, ""})
	b := Map[string, approx]{}.Set("y", approx{2, "other"}).Set("x", approx{1, "second"})
	if !a.Equal(b) {
		t.Error("Equal ignored the values' Equal method (notes differ, N equal)")
	}
	if a.Equal(b.Set("x", approx{3, "first"})) {
		t.Error("Equal = true for values whose Equal method says they differ")
	}
}

func TestEqualDeepEqual(t *testing.T) {
	a := Map[int, []string]{}.Set(1, []string{"a", "b"}).Set(2, nil)
	b := Map[int, []string]{}.Set(2, nil).Set(1, []string{"a", "b"})
	if !a.Equal(b) {
		t.Error("maps with DeepEqual slice values not Equal")
	}
	if a.Equal(b.Set(1, []string{"a"})) {
		t.Error("maps with different slice values Equal")
	}
	if a.Equal(b.Set(2, []string{})) {
		t.Error("nil and empty slice values Equal (reflect.DeepEqual distinguishes them)")
	}
}

func TestEqualProperty(t *testing.T) {
	// Two maps built from the same entries in independent random orders
	// are Equal; changing one entry in one of them makes them unequal.
	rapid.Check(t, func(t *rapid.T) {
		model := rapid.MapOfN(rapid.IntRange(-500, 500), rapid.IntRange(0, 3), 0, 200).Draw(t, "model")
		keys := slices.Sorted(maps.Keys(model))
		build := func(label string) Map[int, int] {
			var m Map[int, int]
			for _, k := range rapid.Permutation(keys).Draw(t, label) {
				m = m.Set(k, model[k])
			}
			return m
		}
		a, b := build("orderA"), build("orderB")
		if !a.Equal(b) {
			t.Fatalf("same contents not Equal:\n a = %v\n b = %v", a, b)
		}
		if !reflect.DeepEqual(a.Keys(), b.Keys()) {
			t.Fatalf("Keys differ: %v vs %v", a.Keys(), b.Keys())
		}
		if len(keys) > 0 {
			k := rapid.SampledFrom(keys).Draw(t, "changed")
			c := b.Set(k, model[k]+1)
			if a.Equal(c) || c.Equal(a) {
				t.Fatalf("maps differing at %v reported Equal", k)
			}
		}
	})
}

func TestGoCmpDiff(t *testing.T) {
	// go-cmp uses the Equal method, so Maps can appear in larger structs
	// compared with cmp.Diff; String makes the diff readable.
	type phase struct {
		Name    string
		Pending Map[int, string]
	}
	a := phase{"x", Map[int, string]{}.Set(1, "a").Set(2, "b")}
	b := phase{"x", Map[int, string]{}.Set(2, "b").Set(1, "a")}
	if d := gocmp.Diff(a, b); d != "" {
		t.Errorf("unexpected diff (-a +b):\n%s", d)
	}
	c := phase{"x", a.Pending.Set(3, "c")}
	if d := gocmp.Diff(a, c); d == "" {
		t.Error("expected a diff for different maps")
	}
}

func TestConcurrentReaders(t *testing.T) {
	// Readers iterate and look up in a shared version while other goroutines
	// derive new versions from it; the race detector flags any write to a
	// shared node.
	var base Map[int, int]
	for i := range 2000 {
		base = base.Set(i, i)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for range 3 {
				sum := 0
				for _, v := range base.All() {
					sum += v
				}
				if want := 1999 * 2000 / 2; sum != want {
					t.Errorf("sum = %d, want %d", sum, want)
				}
				for i := range 2000 {
					if v, ok := base.Get(i); !ok || v != i {
						t.Errorf("Get(%d) = %v, %v", i, v, ok)
						return
					}
				}
			}
		}()
		go func() {
			defer wg.Done()
			m := base
			for i := range 2000 {
				if i%3 == g%3 {
					m = m.Delete(i)
				} else {
					m = m.Set(i, -i)
				}
			}
			_ = m.Equal(base)
		}()
	}
	wg.Wait()
	checkInvariants(t, base)
}

func BenchmarkSet(b *testing.B) {
	const n = 100_000
	sequential := make([]int, n)
	for i := range sequential {
		sequential[i] = i
	}
	r := rand.New(rand.NewPCG(1, 2))
	random := make([]int, n)
	for i := range random {
		random[i] = r.Int()
	}
	for _, bc := range []struct {
		name string
		keys []int
	}{
		{"sequential_100k", sequential},
		{"random_100k", random},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var m Map[int, int]
			iters := 0
			for b.Loop() {
				iters++
				m = Map[int, int]{}
				for _, k := range bc.keys {
					m = m.Set(k, k)
				}
			}
			if m.Len() != n {
				b.Fatalf("Len() = %d, want %d", m.Len(), n)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(iters*n), "ns/insert")
		})
	}
}

// ReplaceInPlace, on a map whose older versions are dropped, keeps it
// equal to the model: it replaces a present key's value and reports it,
// and leaves an absent key absent. It allocates nothing.
func TestReplaceInPlace(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var m Map[string, int]
		model := map[string]int{}
		keys := rapid.SampledFrom([]string{"a", "b", "c", "d", "e", "f", "g", "h"})
		for range rapid.IntRange(1, 60).Draw(t, "steps") {
			k, v := keys.Draw(t, "key"), rapid.Int().Draw(t, "value")
			switch rapid.SampledFrom([]string{"set", "delete", "replace"}).Draw(t, "op") {
			case "set":
				m = m.Set(k, v)
				model[k] = v
			case "delete":
				m = m.Delete(k)
				delete(model, k)
			case "replace":
				_, present := model[k]
				if got := m.ReplaceInPlace(k, v); got != present {
					t.Fatalf("ReplaceInPlace(%q) = %v, want %v", k, got, present)
				}
				if present {
					model[k] = v
				}
			}
			checkInvariants(t, m)
			checkModel(t, m, model)
		}
	})
	var m Map[string, int]
	for i := range 100 {
		m = m.Set(fmt.Sprint(i), i)
	}
	if allocs := testing.AllocsPerRun(100, func() { m.ReplaceInPlace("42", 7) }); allocs != 0 {
		t.Errorf("ReplaceInPlace allocates %v times", allocs)
	}
}
