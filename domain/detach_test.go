package domain

import "testing"

// Detach takes nil interfaces, pointers, slices and maps as they are.
func TestDetachNil(t *testing.T) {
	if got := Detach[any](nil); got != nil {
		t.Errorf("Detach[any](nil) = %v", got)
	}
	if got := Detach[*Message](nil); got != nil {
		t.Errorf("Detach[*Message](nil) = %v", got)
	}
	if got := Detach[[]string](nil); got != nil {
		t.Errorf("Detach[[]string](nil) = %v", got)
	}
	if got := Detach[map[string]int](nil); got != nil {
		t.Errorf("Detach[map[string]int](nil) = %v", got)
	}
}
