package conformance

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// Several of the harness's verdicts are waits on the wall clock:
// initialize must be answered within --startup-timeout (CHECK-START,
// MUST), every request before the agent falls silent for
// --response-timeout and every run within --run-timeout (CHECK-TIMEOUT),
// and the agent must exit within --close-grace of its stdin closing
// (CHECK-CLOSE); and --settle, the quiet that tells the agent has nothing
// more to say, decides where its late messages land. On a loaded machine a conforming agent gets a sliver of a core and the
// harness itself runs late, so wall time there measures the machine, not
// the agent. A stallMeter measures how much of a wait the load took away,
// and the wait is stretched by that much:
//
//   - the harness's own lateness: how much later than asked its sleeps
//     end while it waits (a harness that is not scheduled reads nothing,
//     however quick the agent);
//   - the agent's run delay, where the system tells it (Linux: schedstat):
//     how long the threads of the agent and of its children were ready to
//     run and waited for a CPU, added up (a runtime moves its work from
//     thread to thread), and at most the time the wait has lasted.
//
// The larger of the two counts: both measure the same load. An agent that
// really hangs, blocked on a read or asleep, never waits for a CPU, so its
// wait ends as before, stretched only by the harness's lateness; one that
// spins without answering is given at most maxStretch times the wait more.
//
// An agent's threads also wait for a CPU while its other threads hold
// them: one that keeps more threads busy than it has CPUs builds a run
// delay of its own, on an idle machine. That is the agent's slowness, not
// the machine's load, so the run delay counts only as far as the load
// from outside the agent could have caused it (where the system tells it,
// see cpuUse): the CPU time everything else took on the CPUs the agent may
// run on, per CPU.

// stallTick is how often the meter sleeps to measure the harness's
// lateness and samples the agent's run delay: often enough that a helper
// process of the agent (a wrapper's compiler) is seen before it exits.
const stallTick = 50 * time.Millisecond

// Reading the agent's run delay costs a few hundred microseconds of
// system time, and milliseconds more when the agent ends (the kernel drops
// what reading its threads' /proc files set up); most agents start and
// exit in less than sampleAfter, and load that would make them miss a wait
// does so for longer: the meter reads it from sampleAfter (or a quarter of
// the wait, when shorter) into the wait on, and misses at most that much
// of it.
const sampleAfter = 200 * time.Millisecond

// maxStretch bounds how many times the wait itself the load may add to it.
const maxStretch = 3

// stallMeter measures, from its start, the time load kept the agent (or
// the harness) from running.
type stallMeter struct {
	pid       int
	fromStart bool
	began     time.Time
	tick      time.Duration
	// sampleFrom is how far into the wait the run delay is read from.
	sampleFrom time.Duration
	stop       chan struct{}
	done       chan struct{}

	mu sync.Mutex
	// lag is the harness's lateness so far.
	lag time.Duration
	// delays are the agent's run delays, read once sampling; base is their
	// sum when it began.
	delays   runDelays
	sampling bool
	base     time.Duration
	// baseUse is the use of the agent's CPUs when sampling began, and
	// baseAt when that was.
	baseUse cpuUse
	baseAt  time.Time
}

// newStallMeter starts measuring the load on the agent pid and on the
// harness during a wait of d. With fromStart, everything the agent waited
// for a CPU since it started counts (a fresh process: its start is what
// is being waited for); otherwise only what it waits once the meter reads
// it (see sampleAfter).
func newStallMeter(pid int, fromStart bool, d time.Duration) *stallMeter {
	return newStallMeterEvery(pid, fromStart, d, stallTick)
}

// runTick is how often the meter of a whole run (see newRunMeter) ticks:
// a run can last minutes, and its waits are long enough that a helper
// process missed now and then does not matter.
const runTick = 250 * time.Millisecond

// newRunMeter measures the load on the agent pid and on the harness for
// a whole run of at most d: the response timeout and the run timeout are
// stretched by what it measures (see stallMeter.since).
func newRunMeter(pid int, d time.Duration) *stallMeter {
	return newStallMeterEvery(pid, false, d, runTick)
}

func newStallMeterEvery(pid int, fromStart bool, d, tick time.Duration) *stallMeter {
	m := &stallMeter{
		pid: pid, fromStart: fromStart, began: time.Now(), tick: tick, sampleFrom: min(sampleAfter, d/4),
		stop: make(chan struct{}), done: make(chan struct{}),
	}
	go m.run()
	return m
}

func (m *stallMeter) run() {
	defer close(m.done)
	timer := time.NewTimer(m.tick)
	defer timer.Stop()
	for {
		asked := time.Now()
		timer.Reset(m.tick)
		select {
		case <-m.stop:
			return
		case <-timer.C:
		}
		late := time.Since(asked) - m.tick
		m.mu.Lock()
		m.lag += max(late, 0)
		if m.sampling || time.Since(m.began) >= m.sampleFrom {
			m.sample()
		}
		m.mu.Unlock()
	}
}

// sample reads the agent's run delays, the first time as the base unless
// they count from the agent's start. m.mu is held.
func (m *stallMeter) sample() {
	m.delays.sample(m.pid)
	if !m.sampling {
		if !m.fromStart {
			m.base = m.delays.total()
		}
		m.baseUse, m.baseAt = m.delays.use, time.Now()
	}
	m.sampling = true
}

// close stops the meter.
func (m *stallMeter) close() {
	if m == nil {
		return
	}
	close(m.stop)
	<-m.done
}

// lost is the time load took from the wait so far.
func (m *stallMeter) lost() time.Duration {
	if m == nil {
		return 0
	}
	return m.since(stallMark{at: m.began})
}

// stretch is d extended by the time load took since the meter started, by
// at most maxStretch times d.
func (m *stallMeter) stretch(d time.Duration) time.Duration {
	return d + min(m.lost(), maxStretch*d)
}

// stallMark is what a meter had measured at a moment: a wait that begins
// while the meter runs (a request's silence, within a run) measures the
// load from its mark on.
type stallMark struct {
	at         time.Time
	lag, delay time.Duration
	// use is the use of the agent's CPUs then, when the meter was
	// sampling.
	use cpuUse
}

// mark notes what the meter has measured so far, as of its latest tick:
// it reads nothing, since a run marks every message, and the run delay it
// misses is a tick's at most.
func (m *stallMeter) mark() stallMark {
	if m == nil {
		return stallMark{at: time.Now()}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	mk := stallMark{at: time.Now(), lag: m.lag, delay: m.counted()}
	if m.sampling {
		mk.use = m.delays.use
	}
	return mk
}

// since is the time load took from a wait since mk.
func (m *stallMeter) since(mk stallMark) time.Duration {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sample()
	delay := m.counted() - mk.delay
	if outside, ok := m.outsideSince(mk); ok {
		delay = min(delay, outside)
	}
	// (Threads that wait side by side add up to more than the wait.)
	return min(max(m.lag-mk.lag, delay), time.Since(mk.at))
}

// outsideSince is the most that load from outside the agent could have
// kept it from running since mk (see cpuUse.outsideSince), or false where
// that is not known. m.mu is held, and the meter is sampling.
func (m *stallMeter) outsideSince(mk stallMark) (time.Duration, bool) {
	from, unread := mk.use, time.Duration(0)
	if !from.ok {
		// The mark came before sampling began: the run delay counts from
		// then, or from the agent's start, and the use of its CPUs before
		// then is not known; it may all have been load.
		from = m.baseUse
		if m.fromStart {
			unread = m.baseAt.Sub(m.began)
		}
	}
	outside, ok := m.delays.use.outsideSince(from)
	return outside + unread, ok
}

// stretchSince is d, a wait that began at mk, extended by the time load
// took since, by at most maxStretch times d.
func (m *stallMeter) stretchSince(mk stallMark, d time.Duration) time.Duration {
	return d + min(m.since(mk), maxStretch*d)
}

// counted is the agent's run delay the meter counts so far. m.mu is held.
func (m *stallMeter) counted() time.Duration {
	if !m.sampling {
		return 0
	}
	return m.delays.total() - m.base
}

// runDelays adds up the run delays of a process tree's threads. A thread
// that ended keeps the delay it was last seen with, so the sum only grows.
type runDelays struct {
	byTID map[int]time.Duration
	// use is the use of the tree's CPUs as of the latest sample.
	use cpuUse
	// stat is a buffer for the machine's CPU counters.
	stat []byte
}

// cpuUse is what kept the CPUs a process tree may run on busy, up to a
// moment: the system's counters only grow, so two readings tell what
// happened in between. The zero value is a reading that could not be
// taken (other systems than Linux, or the tree had gone).
type cpuUse struct {
	ok bool
	// busy is the time the CPUs the tree's first process may run on were
	// busy, cpus how many there are and mask which.
	busy time.Duration
	cpus int
	mask uint64
	// busyAll and allCPUs are the same for every CPU of the machine.
	busyAll time.Duration
	allCPUs int
	// own is the CPU time the tree's processes have used, and their
	// children once waited for.
	own time.Duration
}

// outsideSince is the CPU time that everything but the tree (the
// machine's other processes, and the harness) took on the tree's CPUs
// since from, per CPU: what that load could have kept the tree from
// running at most, since a thread of it waits for a CPU because of the
// load only while the load runs. A tree that keeps more threads busy than
// it has CPUs waits for itself, and that is not load. It is false when
// either reading is missing.
func (u cpuUse) outsideSince(from cpuUse) (time.Duration, bool) {
	if !u.ok || !from.ok || u.allCPUs != from.allCPUs {
		return 0, false
	}
	busy, cpus := u.busy-from.busy, u.cpus
	if u.mask != from.mask {
		// The tree was moved to other CPUs meanwhile (a wrapper such as
		// taskset that pins it as it starts): what its CPUs did before is
		// not known, the machine's average is.
		busy, cpus = u.busyAll-from.busyAll, u.allCPUs
	}
	if cpus <= 0 {
		return 0, false
	}
	// A process that left the tree takes its CPU time along: the tree's
	// own use may seem to shrink, and what it did count as load.
	outside := busy - max(u.own-from.own, 0)
	return max(outside, 0) / time.Duration(cpus), true
}

// maxThreads bounds the threads remembered, and those read at each sample
// (eachThread): a tree with more has its later threads' delays uncounted,
// and waits are stretched less. Reading a thread costs a few hundred
// microseconds, and the meter samples several times a second for a whole
// run: 4096 threads (an agent may start tens of thousands) took a second
// a sample.
const maxThreads = 1024

// note records that thread tid has waited d for a CPU in all. (A thread
// that takes the id of one that ended counts once it waited longer.)
func (r *runDelays) note(tid int, d time.Duration) {
	if r.byTID == nil {
		r.byTID = map[int]time.Duration{}
	}
	if old, ok := r.byTID[tid]; ok || len(r.byTID) < maxThreads {
		r.byTID[tid] = max(old, d)
	}
}

func (r *runDelays) total() time.Duration {
	var sum time.Duration
	for _, d := range r.byTID {
		sum += d
	}
	return sum
}

// errRunTimeout ends a run that outlasted the run timeout.
var errRunTimeout = errors.New("the run timeout is over")

// runWatchdog ends a run once it has lasted the run timeout, stretched by
// the time the machine's load kept the agent or the harness from running
// meanwhile, by at most maxStretch times the timeout: an agent that runs
// for ever still ends, at most that much later.
type runWatchdog struct {
	timer   *time.Timer
	began   time.Time
	timeout time.Duration
	load    *stallMeter
	end     context.CancelCauseFunc
	// allowed is the timeout once stretched.
	allowed atomic.Int64
}

func watchRun(timeout time.Duration, load *stallMeter, end context.CancelCauseFunc) *runWatchdog {
	w := &runWatchdog{began: time.Now(), timeout: timeout, load: load, end: end}
	w.allowed.Store(int64(timeout))
	w.timer = time.AfterFunc(timeout, w.fire)
	return w
}

func (w *runWatchdog) fire() {
	allowed := w.load.stretch(w.timeout)
	if rest := time.Until(w.began.Add(allowed)); rest > 0 {
		w.allowed.Store(int64(allowed))
		w.timer.Reset(rest)
		return
	}
	w.end(errRunTimeout)
}

// limit is how long the run may last, once stretched.
func (w *runWatchdog) limit() time.Duration {
	if w == nil {
		return 0
	}
	return time.Duration(w.allowed.Load())
}

func (w *runWatchdog) stop() {
	if w != nil {
		w.timer.Stop()
	}
}
