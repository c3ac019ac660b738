package conformance

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

// maxTreeProcs bounds the processes of the agent's tree visited at each
// sample.
const maxTreeProcs = 256

// sample reads the run delay of every thread of process pid and of its
// descendants: the second field of /proc/PID/task/TID/schedstat, the
// nanoseconds the thread waited on a run queue. It does nothing where the
// kernel keeps no schedstat.
//
// It also reads the use of the tree's CPUs (cpuUse): the CPU time of each
// process of the tree, from /proc/PID/stat, and how busy the machine's
// CPUs have been, from /proc/stat.
func (r *runDelays) sample(pid int) {
	var own time.Duration
	rootSeen := false
	walkTree(pid, func(p int) {
		if d, ok := readProcCPU(p); ok {
			own += d
			rootSeen = rootSeen || p == pid
		}
	}, func(task string, tid int) bool {
		if d, ok := readRunDelay(task + "/schedstat"); ok {
			r.note(tid, d)
		}
		return false
	})
	r.use = cpuUse{}
	if rootSeen {
		r.readCPUUse(pid, own)
	}
}

// userHZ is the unit of the CPU times in /proc: a hundredth of a second on
// every architecture Go runs Linux on.
const userHZ = 100

// readProcCPU reads the CPU time process pid has used, its threads' alive
// and ended, and its children's that it waited for (utime, stime, cutime,
// cstime in /proc/PID/stat).
func readProcCPU(pid int) (time.Duration, bool) {
	var buf [512]byte
	b, ok := readProcFile("/proc/"+strconv.Itoa(pid)+"/stat", buf[:])
	if !ok {
		return 0, false
	}
	// The fields follow the command, in parentheses that it may contain
	// itself; utime is the 14th field, the command the 2nd.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 15 {
		return 0, false
	}
	var ticks int64
	for _, v := range f[11:15] {
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil || n < 0 {
			return 0, false
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ, true
}

// readCPUUse completes r.use with own, the tree's CPU time, and how busy
// the CPUs that process pid may run on have been (/proc/stat).
func (r *runDelays) readCPUUse(pid int, own time.Duration) {
	var set cpuSet
	if !set.of(pid) {
		return
	}
	if r.stat == nil {
		r.stat = make([]byte, 4096)
	}
	for {
		b, ok := readProcPrefix("/proc/stat", r.stat)
		if !ok {
			return
		}
		use, complete := parseCPUStat(b, &set)
		if complete {
			use.own = own
			r.use = use
			return
		}
		if len(b) < len(r.stat) {
			return // the file ended within the CPU lines
		}
		// The per-CPU lines come first, one a CPU: a machine with many
		// needs a larger buffer, once.
		r.stat = make([]byte, 2*len(r.stat))
	}
}

// parseCPUStat reads the per-CPU lines of /proc/stat ("cpuN user nice
// system idle iowait irq softirq steal ..."), adding up the busy time of
// those in set. It reports whether b held them all.
func parseCPUStat(b []byte, set *cpuSet) (cpuUse, bool) {
	use := cpuUse{mask: set.fingerprint()}
	for len(b) > 0 {
		line, rest, found := bytes.Cut(b, []byte("\n"))
		if !found {
			return cpuUse{}, false // cut off
		}
		b = rest
		name, fields, _ := bytes.Cut(line, []byte(" "))
		cpu, ok := bytes.CutPrefix(name, []byte("cpu"))
		if !ok {
			if use.allCPUs == 0 {
				return cpuUse{}, true // no per-CPU lines at all
			}
			use.ok = true
			return use, true
		}
		n, err := strconv.Atoi(string(cpu))
		if err != nil {
			continue // the machine's total
		}
		busy, ok := busyTicks(fields)
		if !ok {
			return cpuUse{}, true
		}
		d := time.Duration(busy) * time.Second / userHZ
		use.busyAll += d
		use.allCPUs++
		if set.has(n) {
			use.busy += d
			use.cpus++
		}
	}
	return cpuUse{}, false
}

// busyTicks adds up the busy fields of a CPU line of /proc/stat: user,
// nice, system, irq, softirq and steal (a hypervisor running something
// else is load too); idle and iowait are not. (guest time is in user.)
func busyTicks(fields []byte) (int64, bool) {
	var sum int64
	for i, f := range bytes.Fields(fields) {
		if i > 7 {
			break
		}
		if i == 3 || i == 4 {
			continue // idle, iowait
		}
		n, err := strconv.ParseInt(string(f), 10, 64)
		if err != nil || n < 0 {
			return 0, false
		}
		sum += n
	}
	return sum, true
}

// cpuSet is a CPU affinity mask, as sched_getaffinity returns it.
type cpuSet [16]uint64

// of reads the CPUs process pid may run on. It fails on a machine with
// more than 1024 CPUs.
func (s *cpuSet) of(pid int) bool {
	_, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_GETAFFINITY, uintptr(pid), unsafe.Sizeof(*s), uintptr(unsafe.Pointer(s)))
	return errno == 0
}

func (s *cpuSet) has(cpu int) bool {
	return cpu >= 0 && cpu < 64*len(s) && s[cpu/64]&(1<<(cpu%64)) != 0
}

// fingerprint tells sets apart (FNV-1a over the words).
func (s *cpuSet) fingerprint() uint64 {
	h := uint64(14695981039346656037)
	for _, w := range s {
		h = (h ^ w) * 1099511628211
	}
	return h
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
	return walkTree(pid, nil, f)
}

// walkTree is eachThread that also calls proc, when not nil, with each
// process of the tree (the first maxTreeProcs) before its threads.
func walkTree(pid int, proc func(pid int), f func(task string, tid int) bool) bool {
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
		if proc != nil {
			proc(procs[i])
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

// readProcPrefix reads the start of a /proc file into buf: as much as one
// read returns, at most len(buf).
func readProcPrefix(path string, buf []byte) ([]byte, bool) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	n, err := syscall.Read(fd, buf)
	syscall.Close(fd)
	if err != nil || n < 0 {
		return nil, false
	}
	return buf[:n], true
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
