package main

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// schedIdle is Linux's SCHED_IDLE policy: the thread runs only when no
// thread of another policy wants the core, and yields it at once when one
// wakes.
const schedIdle = 5

// lowerPriority gives every thread of this process the lowest priority:
// SCHED_IDLE, or nice 19 where that policy is refused. On Linux both
// belong to each thread, not to the process, and a new thread inherits
// its creator's, so once every thread has them, every thread the runtime
// starts later has them too. A thread started while the first ones are
// set may have been created by one not yet set: the list is read again
// until it holds no thread not yet set.
func lowerPriority() {
	set := map[int]bool{}
	for {
		dir, err := os.Open("/proc/self/task")
		if err != nil {
			lowerThreadPriority(0) // this thread at least
			return
		}
		names, err := dir.Readdirnames(-1)
		dir.Close()
		if err != nil {
			return
		}
		fresh := false
		for _, name := range names {
			tid, err := strconv.Atoi(name)
			if err != nil || set[tid] {
				continue
			}
			set[tid], fresh = true, true
			lowerThreadPriority(tid)
		}
		if !fresh {
			return
		}
	}
}

// lowerThreadPriority lowers the priority of thread tid (0: the calling
// one).
func lowerThreadPriority(tid int) {
	// Nice first: it is what counts should the policy be refused, or
	// later reset.
	syscall.Setpriority(syscall.PRIO_PROCESS, tid, 19)
	var param struct{ priority int32 }
	syscall.RawSyscall(syscall.SYS_SCHED_SETSCHEDULER, uintptr(tid), schedIdle, uintptr(unsafe.Pointer(&param)))
}

// cpuStarved returns a function, to be called once in a while, that says
// whether process pid was kept from the CPU since it was last called (or
// since cpuStarved, the first time), or nil where /proc does not say. It
// was if its threads waited, runnable and not running, a quarter of that
// time or more (the second field of /proc/PID/task/TID/schedstat), or,
// but for the caller's own process, if one of its threads is runnable now
// though they ran a quarter of that time or less: the kernel counts a wait
// when it ends, and a thread at the lowest priority on cores kept busy
// may wait longer than that. A process that sleeps (a hang) is kept from
// nothing; one that runs and does nothing, only while the cores are busy.
func cpuStarved(pid int) func() bool {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	if _, err := os.Stat(dir); err != nil {
		return nil
	}
	self := pid == os.Getpid() // whose thread reading this is runnable
	var mu sync.Mutex
	// By thread, what it had waited and run, in ns, when last read: the
	// sums go on growing when a thread, or the process, has exited.
	type seen struct{ waited, ran int64 }
	threads := map[string]seen{}
	read := func() (waited, ran int64, runnable bool) {
		d, err := os.Open(dir)
		if err != nil {
			return 0, 0, false // it has exited
		}
		names, _ := d.Readdirnames(-1)
		d.Close()
		for _, name := range names {
			stat, err := os.ReadFile(dir + "/" + name + "/schedstat")
			f := bytes.Fields(stat)
			if err != nil || len(f) < 2 {
				continue
			}
			r, err1 := strconv.ParseInt(string(f[0]), 10, 64)
			w, err2 := strconv.ParseInt(string(f[1]), 10, 64)
			if err1 != nil || err2 != nil {
				continue
			}
			before := threads[name]
			waited += max(0, w-before.waited)
			ran += max(0, r-before.ran)
			threads[name] = seen{max(w, before.waited), max(r, before.ran)}
			if !self && !runnable {
				// The state follows the command's name, in parentheses.
				if st, err := os.ReadFile(dir + "/" + name + "/stat"); err == nil {
					if i := bytes.LastIndexByte(st, ')'); i >= 0 && i+2 < len(st) && st[i+2] == 'R' {
						runnable = true
					}
				}
			}
		}
		return waited, ran, runnable
	}
	read()
	last := time.Now()
	return func() bool {
		mu.Lock()
		defer mu.Unlock()
		waited, ran, runnable := read()
		quarter := int64(time.Since(last) / 4)
		last = time.Now()
		return waited >= quarter || runnable && ran <= quarter
	}
}
