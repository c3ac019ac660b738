package codec

import (
	"strconv"
	"testing"
	"time"

	"github.com/acplint/acplint/domain"
)

// repeatedUnknown finds repeats among an object's Unknown members however
// they got there (undeclared members, and repeats of declared ones, which
// duplicate appends without asking) and in time linear in their number: a
// scan per member would take many minutes for the half million members here.
func TestRepeatedUnknownIsLinear(t *testing.T) {
	d := newDecoder(nil, "")
	var unknown domain.Members
	start := time.Now()
	const n = 1 << 19
	for i := range n {
		name := strconv.Itoa(i)
		if d.repeatedUnknown(unknown, name) {
			t.Fatalf("member %d: %q reported as a repeat", i, name)
		}
		unknown = append(unknown, domain.Member{Name: name})
		if i%3 == 0 {
			// What duplicate appends for a declared member.
			unknown = append(unknown, domain.Member{Name: "cwd"})
		}
		if i%1000 == 999 {
			// Checked as it goes, so that a quadratic fails in bounded time.
			if elapsed := time.Since(start); elapsed > 30*time.Second {
				t.Fatalf("%d members took %v", i+1, elapsed)
			}
			for _, again := range []string{strconv.Itoa(i / 2), "cwd", name} {
				if !d.repeatedUnknown(unknown, again) {
					t.Fatalf("after member %d: %q not reported as a repeat", i, again)
				}
			}
		}
	}
}

// Objects are told apart even when one's Unknown members follow another's.
func TestRepeatedUnknownPerObject(t *testing.T) {
	d := newDecoder(nil, "")
	var a, b domain.Members
	for i := range 2 * scanUnknownLimit {
		a = append(a, domain.Member{Name: "a" + strconv.Itoa(i)})
		b = append(b, domain.Member{Name: "b" + strconv.Itoa(i)})
		if d.repeatedUnknown(a, "b0") || d.repeatedUnknown(b, "a0") {
			t.Fatalf("after %d members, one object's names leak into the other's", i+1)
		}
	}
	if !d.repeatedUnknown(a, "a0") || !d.repeatedUnknown(b, "b"+strconv.Itoa(2*scanUnknownLimit-1)) {
		t.Error("a repeat is missed")
	}
}
