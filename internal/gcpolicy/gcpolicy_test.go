package gcpolicy

import (
	"os"
	"runtime/debug"
	"testing"
)

func TestApply(t *testing.T) {
	t.Setenv("GOGC", "")
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)

	// GOGC set (even empty) is the user's choice: left alone.
	restore := Apply()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set, Apply changed the collector to %d", got)
	}
	restore()
}

func TestApplyDefault(t *testing.T) {
	// t.Setenv cannot unset; run only where GOGC is not set.
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set in this environment")
	}
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	restore := Apply()
	if got := debug.SetGCPercent(Percent); got != Percent {
		t.Errorf("Apply set the collector to %d, want %d", got, Percent)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("restore left %d, want the 100 that was there", got)
	}
}
