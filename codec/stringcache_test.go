package codec

import (
	"strings"
	"testing"
	"unsafe"
)

// The string cache returns equal strings, shares the copy of a string it
// saw last in a slot, and never confuses two strings that share a slot.
func TestStringCache(t *testing.T) {
	var c stringCache
	// Same length and same first, middle and last bytes: the same slot.
	a, b := "abXcd", "aeXfd"
	first := c.owned(a)
	if first != a {
		t.Fatalf("owned(%q) = %q", a, first)
	}
	if again := c.owned(strings.Clone(a)); again != a {
		t.Fatalf("owned(%q) again = %q", a, again)
	}
	if got := c.owned(b); got != b {
		t.Fatalf("owned(%q) after %q in its slot = %q", b, a, got)
	}
	if got := c.owned(a); got != a {
		t.Fatalf("owned(%q) after %q took its slot = %q", a, b, got)
	}
	long := strings.Repeat("x", stringCacheMax+1)
	if got := c.owned(long); got != long {
		t.Fatalf("a long string came back as %q", got)
	}
	var none *stringCache
	if got := none.owned(a); got != a || unsafe.StringData(got) == unsafe.StringData(a) {
		t.Fatalf("a nil cache returned %q, not a copy of %q", got, a)
	}
	if got := c.owned(long); unsafe.StringData(got) == unsafe.StringData(long) {
		t.Fatal("a long string came back without a copy")
	}
}

// A repeated id costs no allocation once cached.
func TestStringCacheShares(t *testing.T) {
	var c stringCache
	id := []byte("sess_7f3a9c")
	c.owned(string(id))
	allocs := testing.AllocsPerRun(100, func() {
		c.owned(string(id))
	})
	if allocs != 0 {
		t.Errorf("owned of a cached string allocates %.0f times", allocs)
	}
}
