package protocol

import (
	"testing"
)

// TestChecksAreWellFormed guards the shape of checkList: unique names,
// one line of doc, and hooks whose function fits their trigger.
func TestChecksAreWellFormed(t *testing.T) {
	names := map[string]bool{}
	framing := 0
	for _, ch := range checkList() {
		if ch.Name == "" || names[ch.Name] {
			t.Errorf("check name %q is empty or not unique", ch.Name)
		}
		names[ch.Name] = true
		if ch.Doc == "" {
			t.Errorf("check %s has no doc", ch.Name)
		}
		if len(ch.Hooks) == 0 {
			t.Errorf("check %s has no hooks", ch.Name)
		}
		for i, h := range ch.Hooks {
			funcs := 0
			for _, set := range []bool{h.request != nil, h.response != nil, h.end != nil} {
				if set {
					funcs++
				}
			}
			wantMethods, wantFuncs := false, 1
			switch h.On {
			case OnFraming:
				framing++
				wantFuncs = 0 // the machine runs the framing itself
			case OnRequestTo, OnResponseTo:
				wantMethods = true
			}
			if funcs != wantFuncs || (len(h.Methods) > 0) != wantMethods ||
				(h.request != nil) != (h.On == OnEveryRequest || h.On == OnRequestTo) ||
				(h.response != nil) != (h.On == OnEveryResponse || h.On == OnResponseTo) {
				t.Errorf("check %s hook %d (%v) does not fit its trigger", ch.Name, i, h)
			}
		}
	}
	if framing != 1 {
		t.Errorf("%d hooks claim the framing, want 1", framing)
	}
}

// TestChecksReturnsCopies proves callers of Checks cannot change the
// machine's checks.
func TestChecksReturnsCopies(t *testing.T) {
	cs := Checks()
	first := cs[0].Rules[0]
	cs[0].Rules[0] = nil
	cs[0].Name = "changed"
	again := Checks()
	if again[0].Rules[0] != first || again[0].Name == "changed" {
		t.Fatal("changing the result of Checks changed the machine's checks")
	}
}
