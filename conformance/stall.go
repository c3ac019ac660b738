package conformance

import (
	"sync"
	"time"
)

// Two of the harness's verdicts are waits on the wall clock: initialize
// must be answered within --startup-timeout (CHECK-START, MUST) and the
// agent must exit within --close-grace of its stdin closing (CHECK-CLOSE).
// On a loaded machine a conforming agent gets a sliver of a core and the
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

// stallTick is how often the meter sleeps to measure the harness's
// lateness and samples the agent's run delay: often enough that a helper
// process of the agent (a wrapper's compiler) is seen before it exits.
const stallTick = 50 * time.Millisecond

// Reading the agent's run delay costs a few hundred microseconds of
// system time, most agents start and exit in less than sampleAfter, and
// load that would make them miss a wait does so for longer: the meter
// reads it from sampleAfter (or a quarter of the wait, when shorter) into
// the wait on, and misses at most that much of it.
const sampleAfter = 200 * time.Millisecond

// maxStretch bounds how many times the wait itself the load may add to it.
const maxStretch = 3

// stallMeter measures, from its start, the time load kept the agent (or
// the harness) from running.
type stallMeter struct {
	pid       int
	fromStart bool
	began     time.Time
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
}

// newStallMeter starts measuring the load on the agent pid and on the
// harness during a wait of d. With fromStart, everything the agent waited
// for a CPU since it started counts (a fresh process: its start is what
// is being waited for); otherwise only what it waits once the meter reads
// it (see sampleAfter).
func newStallMeter(pid int, fromStart bool, d time.Duration) *stallMeter {
	m := &stallMeter{
		pid: pid, fromStart: fromStart, began: time.Now(), sampleFrom: min(sampleAfter, d/4),
		stop: make(chan struct{}), done: make(chan struct{}),
	}
	go m.run()
	return m
}

func (m *stallMeter) run() {
	defer close(m.done)
	timer := time.NewTimer(stallTick)
	defer timer.Stop()
	for {
		asked := time.Now()
		timer.Reset(stallTick)
		select {
		case <-m.stop:
			return
		case <-timer.C:
		}
		late := time.Since(asked) - stallTick
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
	if !m.sampling && !m.fromStart {
		m.base = m.delays.total()
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
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sample()
	// (Threads that wait side by side add up to more than the wait.)
	return min(max(m.lag, m.delays.total()-m.base), time.Since(m.began))
}

// stretch is d extended by the time load took since the meter started, by
// at most maxStretch times d.
func (m *stallMeter) stretch(d time.Duration) time.Duration {
	return d + min(m.lost(), maxStretch*d)
}

// runDelays adds up the run delays of a process tree's threads. A thread
// that ended keeps the delay it was last seen with, so the sum only grows.
type runDelays struct {
	byTID map[int]time.Duration
}

// maxThreads bounds the threads remembered: a tree with more has its
// later threads' delays uncounted, and waits are stretched less.
const maxThreads = 4096

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
