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
