package conformance

import (
	"sync"
	"time"
)

// pace is what the check learned about the agent's speed, shared by all
// its runs. It lets the check wait less once the agent has shown what it
// does: a turn that only ends when cancelled is cancelled sooner, and once
// the agent has let a request time out, later runs wait a generous
// multiple of its slowest answer instead of the full timeout. The verdict
// does not depend on it: the failures it shortens were already seen.
type pace struct {
	mu sync.Mutex
	// idleCancel and responseTimeout are the configured values, the upper
	// bounds. (The startup timeout is not scaled: starting varies too much,
	// with compilers and package managers in front of many agents. It is
	// stretched only by the time the machine's load took, see stallMeter.)
	idleCancel, responseTimeout time.Duration

	// slowest is the longest the agent took to answer a request or to say
	// anything during a turn it then ended on its own.
	slowest time.Duration
	// slowestReply is the longest the agent took to answer a request other
	// than a prompt, as the harness saw it: what reading one line and
	// answering it costs the agent on this machine under this load.
	slowestReply time.Duration
	// timeouts counts runs in which the agent let a request time out.
	timeouts int
	// selfEnded counts turns the agent ended without a cancel; stuck the
	// turns that waited for an idle cancel.
	selfEnded, stuck int
}

// Floors of the scaled waits, and how many times the slowest answer seen
// they allow.
const (
	minIdleCancel   = 100 * time.Millisecond
	minScaledWait   = 500 * time.Millisecond
	idleFactor      = 4
	graceFactor     = 4
	timeoutFactor   = 10
	stuckBeforeFast = 2
)

func newPace(o *Options) *pace {
	return &pace{idleCancel: o.IdleCancel, responseTimeout: o.ResponseTimeout}
}

// idle is how long a prompt turn may go without an agent message before
// the client cancels it, as a user stops a turn that shows no progress; 0
// never. It starts at the configured value. An agent whose turns only end
// when cancelled (it has let turns get stuck and ended none on its own)
// is cancelled after minIdleCancel; one that ended turns on its own gets a
// multiple of its slowest pause.
func (p *pace) idle() time.Duration {
	if p == nil || p.idleCancel <= 0 {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.selfEnded > 0:
		return clampDuration(idleFactor*p.slowest, minIdleCancel, p.idleCancel)
	case p.stuck >= stuckBeforeFast:
		return min(minIdleCancel, p.idleCancel)
	}
	return p.idleCancel
}

// response is the silence allowed while a request is pending: the
// configured timeout, until the agent let one pass; then a multiple of the
// slowest answer it gave.
func (p *pace) response() time.Duration {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.timeouts == 0 {
		return p.responseTimeout
	}
	return clampDuration(timeoutFactor*p.slowest, minScaledWait, p.responseTimeout)
}

// answered notes a request answered after d.
func (p *pace) answered(d time.Duration) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.slowest = max(p.slowest, d)
	p.mu.Unlock()
}

// replied notes a request other than a prompt answered after d.
func (p *pace) replied(d time.Duration) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.slowestReply = max(p.slowestReply, d)
	p.mu.Unlock()
}

// cancelGrace is how long an agent must keep working after a cancel for
// the harness to take its response as written after reading it: the
// configured grace, or a multiple of the slowest reply the agent gave,
// when the machine's load (or the agent) makes answering one line take
// that long. A response that comes sooner may have crossed the cancel.
func (p *pace) cancelGrace(configured time.Duration) time.Duration {
	if p == nil {
		return configured
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return max(configured, graceFactor*p.slowestReply)
}

// closeGrace is how long an agent is given to exit once its stdin closed:
// the configured grace, or a multiple of the slowest reply the agent gave,
// when the machine's load (or the agent) makes answering one line take
// that long.
func (p *pace) closeGrace(configured time.Duration) time.Duration {
	return p.cancelGrace(configured)
}

// turnEnded notes how a prompt turn ended: on its own, with gap the
// longest the agent was silent during it, or only after an idle cancel.
func (p *pace) turnEnded(stuck bool, gap time.Duration) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if stuck {
		p.stuck++
		return
	}
	p.selfEnded++
	p.slowest = max(p.slowest, gap)
}

// endsTurns reports whether the agent has ended a prompt turn without
// being cancelled.
func (p *pace) endsTurns() bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.selfEnded > 0
}

// timedOut notes a run in which the agent let a request time out.
func (p *pace) timedOut() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.timeouts++
	p.mu.Unlock()
}

func clampDuration(d, lo, hi time.Duration) time.Duration {
	return min(max(d, lo), hi)
}
