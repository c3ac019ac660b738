package protocol

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/acplint/acplint/internal/third_party/rapid"
)

// TestAnsweredWindow checks that the answered-id memory is bounded, forgets
// old ids, remembers the last half window, and keeps an id that was
// answered again recently.
func TestAnsweredWindow(t *testing.T) {
	var a answeredIDs
	a = a.Set("reused", 1)
	for i := range answeredWindow {
		a = a.Set(strconv.Itoa(i), 10+i)
		if i == answeredWindow/2 {
			a = a.Set("reused", 5000) // answered again: must survive its first eviction
		}
	}
	if n := a.Len(); n > answeredWindow {
		t.Fatalf("remembers %d ids, more than the window of %d", n, answeredWindow)
	}
	if _, ok := a.Get("0"); ok {
		t.Error("the oldest id is still remembered after the window filled")
	}
	if line, ok := a.Get("reused"); !ok || line != 5000 {
		t.Errorf("Get(reused) = %d, %v; want the later answer, line 5000", line, ok)
	}
	for i := answeredWindow / 2; i < answeredWindow; i++ {
		key := strconv.Itoa(i)
		if line, ok := a.Get(key); !ok || line != 10+i {
			t.Fatalf("Get(%s) = %d, %v; the last half window of ids must be remembered", key, line, ok)
		}
	}
}

// TestAnsweredIDsClonesAreIndependent records answers in clones of
// earlier versions as well as of the newest, as Step does, and checks
// every version against a model that copies its whole history: recording
// in a clone must never change what another version answers, and each
// must answer as if it had been built alone.
func TestAnsweredIDsClonesAreIndependent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		type version struct {
			got  answeredIDs
			want []answer // what the version remembers, oldest first
		}
		const keys = 200
		versions := []version{{}}
		rng := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 0))
		for range rapid.IntRange(1, 6).Draw(t, "runs") {
			v := versions[rapid.IntRange(0, len(versions)-1).Draw(t, "from")]
			v.got = v.got.clone()
			want := slices.Clip(v.want)
			for range rapid.IntRange(0, 3*answeredWindow).Draw(t, "answers") {
				key, line := strconv.Itoa(rng.IntN(keys)), rng.IntN(1<<20)
				v.got = v.got.Set(key, line)
				if len(want) == answeredWindow {
					want = slices.Clone(want[answeredWindow/2:])
				}
				want = append(want, answer{key, line})
			}
			v.want = slices.Clip(want)
			versions = append(versions, v)
			for vi, v := range versions {
				if v.got.Len() != len(v.want) {
					t.Fatalf("version %d: Len = %d, want %d", vi, v.got.Len(), len(v.want))
				}
				for k := range keys {
					key := strconv.Itoa(k)
					wantLine, wantOK := 0, false
					for _, a := range slices.Backward(v.want) {
						if a.key == key {
							wantLine, wantOK = a.line, true
							break
						}
					}
					if line, ok := v.got.Get(key); line != wantLine || ok != wantOK {
						t.Fatalf("version %d: Get(%s) = %d, %v; want %d, %v", vi, key, line, ok, wantLine, wantOK)
					}
				}
			}
		}
	})
}

// TestAnsweredSkipsOnlyIDsNeverAnswered: Get's shortcut for natural
// number ids above every one recorded answers what a lookup answers, for
// ids of every length, zero, and keys of strings and other numbers mixed
// in, through clones.
func TestAnsweredSkipsOnlyIDsNeverAnswered(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	key := func() string {
		switch rng.IntN(4) {
		case 0:
			return "s" + strconv.Itoa(rng.IntN(50)) // a string id's key
		case 1:
			return "0"
		default:
			return strconv.Itoa(rng.IntN(1 << rng.IntN(30)))
		}
	}
	var a answeredIDs
	model := map[string]int{}
	for i := range answeredWindow - 1 {
		if i%500 == 0 {
			a = a.clone()
		}
		k := key()
		for range 3 {
			q := key()
			line, ok := a.Get(q)
			if wantLine, wantOK := model[q]; line != wantLine || ok != wantOK {
				t.Fatalf("after %d answers, Get(%s) = %d, %v; want %d, %v", i, q, line, ok, wantLine, wantOK)
			}
		}
		a = a.Set(k, i+1)
		model[k] = i + 1
	}
	highest := ""
	for k, want := range model {
		if line, ok := a.Get(k); !ok || line != want {
			t.Fatalf("Get(%s) = %d, %v; want %d", k, line, ok, want)
		}
		if n, err := strconv.Atoi(k); err == nil && (highest == "" || n > must(strconv.Atoi(highest))) {
			highest = k
		}
	}
	if a.highest != highest {
		t.Fatalf("the highest natural id recorded is %q; Get's shortcut starts above %q", highest, a.highest)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
