package conformance

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

// maxTreeProcs bounds the processes of the agent's tree visited at each
// sample.
const maxTreeProcs = 256

// sample reads the run delay of every thread of process pid and of its
// descendants: the second field of /proc/PID/task/TID/schedstat, the
// nanoseconds the thread waited on a run queue. It does nothing where the
// kernel keeps no schedstat.
func (r *runDelays) sample(pid int) {
	eachThread(pid, func(task string, tid int) bool {
		if d, ok := readRunDelay(task + "/schedstat"); ok {
			r.note(tid, d)
		}
		return false
	})
}

// runnable reports whether a thread of process pid or of its descendants
// is running or waiting for a CPU (state R in /proc/PID/task/TID/stat):
// the agent has work in hand. (A thread's run delay counts only once the
// wait is over.) It is true where that cannot be read.
func runnable(pid int) bool {
	read := false
	found := eachThread(pid, func(task string, _ int) bool {
		var buf [512]byte
		b, ok := readProcFile(task+"/stat", buf[:])
		if !ok {
			return false
		}
		read = true
		// The state follows the command, in parentheses that it may
		// contain itself.
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) {
			return b[i+2] == 'R'
		}
		return false
	})
	return found || !read
}

// eachThread calls f with the /proc directory and the id of every thread
// of process pid and of its descendants, the first maxThreads of them,
// until f returns true; it reports whether one did.
func eachThread(pid int, f func(task string, tid int) bool) bool {
	if pid <= 0 {
		return false
	}
	procs, visited := []int{pid}, 0
	for i := 0; i < len(procs) && i < maxTreeProcs; i++ {
		dir := "/proc/" + strconv.Itoa(procs[i]) + "/task/"
		tasks, err := os.ReadDir(dir)
		if err != nil {
			continue // it exited
		}
		for _, task := range tasks {
			tid, err := strconv.Atoi(task.Name())
			if err != nil {
				continue
			}
			if visited++; visited > maxThreads {
				return false
			}
			if f(dir+task.Name(), tid) {
				return true
			}
			if len(procs) < maxTreeProcs {
				procs = appendChildren(procs, dir+task.Name()+"/children")
			}
		}
	}
	return false
}

// readRunDelay parses a schedstat file: time on the CPU, time waiting on
// a run queue (both in nanoseconds), timeslices.
func readRunDelay(path string) (time.Duration, bool) {
	var buf [128]byte
	b, ok := readProcFile(path, buf[:])
	if !ok {
		return 0, false
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0, false
	}
	ns, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil || ns < 0 {
		return 0, false
	}
	return time.Duration(ns), true
}

// appendChildren adds the pids listed in a task's children file.
func appendChildren(procs []int, path string) []int {
	var buf [512]byte
	b, ok := readProcFile(path, buf[:])
	if !ok {
		return procs
	}
	for _, f := range bytes.Fields(b) {
		if pid, err := strconv.Atoi(string(f)); err == nil && len(procs) < maxTreeProcs {
			procs = append(procs, pid)
		}
	}
	return procs
}

// readProcFile reads a small /proc file into buf, or in full when it does
// not fit: the meter reads many, and os.ReadFile spends twice the system
// calls on each.
func readProcFile(path string, buf []byte) ([]byte, bool) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	n, err := syscall.Read(fd, buf)
	syscall.Close(fd)
	switch {
	case err != nil || n < 0:
		return nil, false
	case n < len(buf):
		return buf[:n], true
	}
	b, err := os.ReadFile(path)
	return b, err == nil
}
