package protocol

import (
	"strconv"
	"testing"
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
