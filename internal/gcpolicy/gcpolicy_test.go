package gcpolicy

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// currentLimit reads the memory limit without changing it.
func currentLimit() int64 { return debug.SetMemoryLimit(-1) }

// GOGC or GOMEMLIMIT set (even empty) is the user's choice: left alone.
func TestApplyLeavesTheUsersSetting(t *testing.T) {
	for _, v := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(v, func(t *testing.T) {
			t.Setenv(v, "")
			before := debug.SetGCPercent(100)
			defer debug.SetGCPercent(before)
			limit := currentLimit()
			restore := Apply()
			if got := debug.SetGCPercent(100); got != 100 {
				t.Errorf("with %s set, Apply changed GOGC to %d", v, got)
			}
			if got := currentLimit(); got != limit {
				t.Errorf("with %s set, Apply changed the memory limit to %d", v, got)
			}
			restore()
		})
	}
}

func TestApplyDefault(t *testing.T) {
	// t.Setenv cannot unset; run only where neither is set.
	for _, v := range []string{"GOGC", "GOMEMLIMIT"} {
		if _, set := os.LookupEnv(v); set {
			t.Skipf("%s is set in this environment", v)
		}
	}
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	restore := Apply()
	if got := debug.SetGCPercent(Percent); got != Percent {
		t.Errorf("Apply set GOGC to %d, want %d", got, Percent)
	}
	if got := currentLimit(); got != Limit {
		t.Errorf("Apply set a memory limit of %d, want %d", got, Limit)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("restore left GOGC at %d, want the 100 that was there", got)
	}
	if got := currentLimit(); got != math.MaxInt64 {
		t.Errorf("restore left a memory limit of %d", got)
	}
}

func TestLimitFor(t *testing.T) {
	if got := limitFor(1 << 20); got != Limit {
		t.Errorf("limitFor(1 MiB) = %d, want the budget %d", got, Limit)
	}
	if got, want := limitFor(100<<20), int64(200<<20+runtimeRoom); got != want {
		t.Errorf("limitFor(100 MiB) = %d, want %d", got, want)
	}
}

// A live heap larger than the budget raises the limit, however many
// collections ran before, and restore stops the following.
func TestLimitFollowsTheLiveHeap(t *testing.T) {
	for _, v := range []string{"GOGC", "GOMEMLIMIT"} {
		if _, set := os.LookupEnv(v); set {
			t.Skipf("%s is set in this environment", v)
		}
	}
	restore := Apply()
	for range 3 {
		runtime.GC()
	}
	live := make([]byte, 3*Limit)
	for i := range live {
		live[i] = 1 // touch it, so it is really there
	}
	deadline := time.Now().Add(5 * time.Second)
	for currentLimit() < 2*int64(len(live)) {
		if time.Now().After(deadline) {
			got := currentLimit()
			restore()
			t.Fatalf("the limit stayed at %d with %d bytes live", got, len(live))
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	runtime.KeepAlive(live)
	restore()
	runtime.GC()
	time.Sleep(50 * time.Millisecond)
	if got := currentLimit(); got != math.MaxInt64 {
		t.Errorf("after restore, a collection set the limit to %d", got)
	}
}
