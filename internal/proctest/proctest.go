//go:build unix

// Package proctest helps tests that run fake agents as real processes
// check that none of them outlives the program under test.
package proctest

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Running reports whether process pid exists and is not a zombie: a
// killed process waits as a zombie until its parent (or init, for an
// orphan) reaps it, and that wait is no fault of the program under test.
// It reads /proc where there is one.
func Running(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err == nil {
		// The state follows the command name, which is in parentheses.
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && i+2 < len(stat) {
			return stat[i+2] != 'Z'
		}
	}
	return syscall.Kill(pid, 0) == nil
}

// AssertGone fails t unless every pid listed in pidfile (white-space
// separated, as fake agents append them with `echo $$ >>"$PIDFILE"`) has
// ended, allowing a moment for the reaping. A survivor is killed, so that
// a failing test leaves nothing behind either.
func AssertGone(t testing.TB, pidfile string) {
	t.Helper()
	data, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatalf("the fake agent wrote no pid file: %v", err)
	}
	for _, f := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("pid file %s: %v", pidfile, err)
		}
		deadline := time.Now().Add(2 * time.Second)
		for Running(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if Running(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("agent process %d outlived the program under test", pid)
		}
	}
}

// statusKiB reads a "Name:   N kB" line of /proc/PID/status; ok is false
// when the process is gone or is a zombie (which has no memory lines).
func statusKiB(pid int, name string) (kib int64, ok bool) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, found := strings.CutPrefix(line, name+":"); found {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// PeakKiB is the peak resident memory (VmHWM) of process pid, 0 when it
// is gone or /proc is not there to tell.
func PeakKiB(pid int) int64 {
	n, _ := statusKiB(pid, "VmHWM")
	return n
}

// ResetPeak starts the peak resident memory of this process anew from its
// resident size, so that PeakKiB measures what follows and not what an
// earlier test or benchmark of the process took; it reports false where
// the kernel cannot (Linux can, since 4.0).
func ResetPeak() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// ResidentKiB is the resident memory of a running process, 0 when it is
// gone: for watchdogs that kill a child before it takes the machine.
func ResidentKiB(pid int) int64 {
	n, _ := statusKiB(pid, "VmRSS")
	return n
}

// WatchPeak follows the peak resident memory (VmHWM) of process pid until
// it exits; call the returned function after waiting for the process to
// get the peak in KiB. Rusage's Maxrss would be wrong: on Linux a child's
// ru_maxrss starts at its parent's high-water mark (exec records the
// memory it replaces, which a vfork-style spawn shares with the parent),
// so a child of a 170 MiB test process would never read below 170 MiB.
// The peak is sampled every 5 ms, so a peak in the last milliseconds of a
// process can be missed; the peaks these tests bound are not there.
func WatchPeak(pid int) (peakKiB func() int64) {
	var peak atomic.Int64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			n, ok := statusKiB(pid, "VmHWM")
			if !ok {
				return
			}
			if n > peak.Load() {
				peak.Store(n)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	return func() int64 {
		close(stop)
		<-done
		return peak.Load()
	}
}
