package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/acplint/acplint/domain"
)

// Capability is a client capability the harness may advertise.
type Capability string

const (
	CapReadTextFile  Capability = "fs.readTextFile"
	CapWriteTextFile Capability = "fs.writeTextFile"
	CapTerminal      Capability = "terminal"
)

// AllCapabilities are the client capabilities of ACP v1.
var AllCapabilities = []Capability{CapReadTextFile, CapWriteTextFile, CapTerminal}

// ParseCapabilities reads a comma-separated capability list; "all" and
// "none" are shorthands.
func ParseCapabilities(s string) ([]Capability, error) {
	switch strings.TrimSpace(s) {
	case "all":
		return append([]Capability(nil), AllCapabilities...), nil
	case "none", "":
		return nil, nil
	}
	var out []Capability
	seen := map[Capability]bool{}
	for _, f := range strings.Split(s, ",") {
		c := Capability(strings.TrimSpace(f))
		switch c {
		case "read", "fs.read":
			c = CapReadTextFile
		case "write", "fs.write":
			c = CapWriteTextFile
		}
		ok := false
		for _, k := range AllCapabilities {
			ok = ok || k == c
		}
		if !ok {
			return nil, fmt.Errorf("unknown client capability %q (want %s, all or none)", c, joinCaps(AllCapabilities))
		}
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out, nil
}

func joinCaps(cs []Capability) string {
	var s []string
	for _, c := range cs {
		s = append(s, string(c))
	}
	return strings.Join(s, ", ")
}

// wireMsg is an agent message as the client needs it. The client reads
// loosely: judging the message is the protocol machine's job.
type wireMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (m *wireMsg) hasID() bool { return len(m.ID) > 0 && string(m.ID) != "null" }

// clientCall is a request the harness sent.
type clientCall struct {
	method string
	id     int
	line   int // transcript line of the request
	done   bool
	result json.RawMessage
	err    *rpcErr
	// respLine is the transcript line of the response, respAt when it
	// was read.
	respLine int
	respAt   time.Time
	// respEnd is how many bytes the agent had written on stdout up to the
	// end of the response (see frame.end).
	respEnd int64
}

type rpcErr struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

// agentInfo is what initialize told about the agent.
type agentInfo struct {
	version         int
	loadSession     bool
	embeddedContext bool
	close           bool
	resume          bool
}

// clientSession is a session the harness opened.
type clientSession struct {
	id      string
	open    bool
	prompts int // turns run, for session/load with history
	// modes and config are what session/new returned, kept current by the
	// client's own changes.
	modes  *sessionModes
	config []configOption
}

// sessionModes is the modes member of a session/new result.
type sessionModes struct {
	CurrentModeID  string `json:"currentModeId"`
	AvailableModes []struct {
		ID string `json:"id"`
	} `json:"availableModes"`
}

// configOption is one entry of a session's configOptions, as far as the
// client needs it to pick another valid value.
type configOption struct {
	ID           string          `json:"id"`
	Type         string          `json:"type"`
	CurrentValue json.RawMessage `json:"currentValue"`
	Options      []struct {
		Value   json.RawMessage `json:"value"`
		Options []struct {
			Value json.RawMessage `json:"value"`
		} `json:"options"` // a group of values
	} `json:"options"`
}

// turnPlan says when to cancel a prompt turn.
type turnPlan struct {
	// cancelAfter cancels after that many agent messages of the turn; -1
	// never. atRequest cancels when the agent first asks the client
	// something during the turn.
	cancelAfter int
	atRequest   bool
	// viaClose cancels by closing the session instead of session/cancel.
	viaClose bool
	// atOnce cancels right after the prompt is sent.
	atOnce bool
}

// activeTurn is the prompt turn in progress.
type activeTurn struct {
	sess      *clientSession
	call      *clientCall
	plan      turnPlan
	seen      int // agent messages since the prompt
	cancelled bool
	// cancelLine is the transcript line of the session/cancel or
	// session/close that cancelled the turn.
	cancelLine int
	cancelAt   time.Time
	// writtenAtCancel is how many bytes the agent had written on stdout
	// when the cancel was sent, read or not (0 where that cannot be told,
	// see proc.written).
	writtenAtCancel int64
	closeCall       *clientCall
	// firstAnswer is the transcript line of the client's first answer to an
	// agent request after the cancel.
	firstAnswer int
	// stuck: the client cancelled the turn because the agent had been
	// silent for the idle time (see pace.idle), with no message of the
	// agent on its way; seenAtCancel is seen then.
	stuck        bool
	seenAtCancel int
	// lastAt is when the agent last said something in the turn (the
	// prompt's sending at first), longestGap its longest silence.
	lastAt     time.Time
	longestGap time.Duration
	// before is when the agent said what came before its latest message
	// (once the turn is over, before its response).
	before time.Time
}

// Failure is something the harness itself saw go wrong with the agent:
// it would not start, stopped answering, or died.
type Failure struct {
	Check   string `json:"check"` // one of the Check* ids
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"` // transcript line of the request concerned
}

// Harness checks: what the harness judges itself, beside the catalog rules.
const (
	CheckStart   = "CHECK-START"   // the agent starts and answers initialize
	CheckTimeout = "CHECK-TIMEOUT" // every request is answered in time
	CheckCrash   = "CHECK-CRASH"   // the agent does not die while the client needs it
	CheckClose   = "CHECK-CLOSE"   // the agent exits when its stdin closes
)

// client plays the editor in one run.
type client struct {
	ctx  context.Context
	opts *Options
	p    *proc
	rec  *Transcript
	plan *Plan
	// answers are the current action's choices for agent requests,
	// consumed in order.
	answers []int
	buf     *buffers
	caps    map[Capability]bool
	agent   agentInfo

	nextID    int
	calls     map[string]*clientCall
	sessions  []*clientSession
	turn      *activeTurn
	terminals map[string]*simTerminal
	nextTerm  int

	facts   map[Fact]int
	failure *Failure
	// unadvertised counts agent calls of methods the client did not
	// advertise, answered with -32601, by method.
	unadvertised map[string]int
	// steps is a readable log of what the client did.
	steps []string
	// raceLines are prompt responses that may have crossed their cancel.
	raceLines map[int]bool
	// readLines are prompt responses written after the agent read the
	// cancel, with how the harness knows.
	readLines map[int]string
	// closing is set once the close ladder runs: nothing is answered then.
	closing bool
	eof     bool
	// interrupted: the check was stopped from outside.
	interrupted bool
	// sentAt is when the last line to the agent was recorded.
	sentAt time.Time
	// pace is the check's knowledge of the agent's speed (nil outside a
	// check).
	pace *pace
	// stray is the transcript line of the latest response whose id
	// matches no request the client has pending, strayAt when it came.
	stray   int
	strayAt time.Time
	// initLine is the transcript line of the initialize request.
	initLine int
	// outer is the context of the whole check: when it ends, the run is
	// interrupted, not timed out.
	outer context.Context
	// faultLines are the client's messages that are wrong on purpose (see
	// Fault); disconnectLine is the transcript's length when the client
	// closed the agent's stdin in mid-turn (FaultDisconnect).
	faultLines     map[int]string
	disconnectLine int
	// overlapped: the one overlapping prompt of FaultOverlap was sent;
	// overlap spans the lines from it to its response.
	overlapped bool
	overlap    [2]int
	// handshake, for a sequence on a process that served another before,
	// is the initialize exchange of the process's start (see agentConn).
	handshake []Record
	// quiet: the agent was silent for the settle time, and nothing was
	// said either way since.
	quiet bool
	// startup is how long the process took to answer initialize.
	startup time.Duration
	// load measures, for the whole run, the time the machine's load kept
	// the agent or the harness from running; watchdog ends the run after
	// the run timeout, stretched by it (nil outside executeOn).
	load     *stallMeter
	watchdog *runWatchdog
	// settleDelays are the agent's run delays read during settles.
	settleDelays runDelays
}

// Fact is something that happened in a run and that makes a rule
// exercised (see profile.go).
type Fact string

func newClient(ctx context.Context, opts *Options, p *proc, plan *Plan, buf *buffers, pc *pace) *client {
	return &client{
		ctx: ctx, opts: opts, p: p, rec: p.rec, plan: plan, buf: buf, pace: pc,
		caps:         map[Capability]bool{},
		calls:        map[string]*clientCall{},
		terminals:    map[string]*simTerminal{},
		facts:        map[Fact]int{},
		unadvertised: map[string]int{},
		raceLines:    map[int]bool{},
		faultLines:   map[int]string{},
		readLines:    map[int]string{},
	}
}

// maxSteps bounds the client's log of one run: an agent that asks for
// permission forever must not grow it without end.
const maxSteps = 1000

func (c *client) logf(format string, args ...any) {
	switch {
	case len(c.steps) < maxSteps:
		c.steps = append(c.steps, fmt.Sprintf(format, args...))
	case len(c.steps) == maxSteps:
		c.steps = append(c.steps, "… (later steps not logged)")
	}
}

func (c *client) fail(check, format string, args ...any) {
	if c.facts[FactInitialize] == 0 && (check == CheckCrash || check == CheckTimeout) {
		// Whatever goes wrong before initialize is answered, the agent did
		// not start.
		check = CheckStart
	}
	if c.failure == nil {
		c.failure = &Failure{Check: check, Message: fmt.Sprintf(format, args...)}
	}
}

// write sends one JSON-RPC message.
func (c *client) write(msg []byte) (int, bool) {
	if c.failure != nil {
		return 0, false
	}
	send := c.p.send
	if c.plan.has(FaultChunked) {
		send = func(line []byte, timeout time.Duration) (int, time.Time, error) {
			return c.p.sendChunked(line, timeout, chunkPause)
		}
	}
	line, at, err := send(msg, c.responseTimeout())
	c.sentAt = at
	c.quiet = false
	if err != nil {
		c.crashed(fmt.Sprintf("writing to the agent's stdin failed (%v)", err))
		return 0, false
	}
	return line, true
}

// call sends a request and registers it.
func (c *client) call(method string, params any) *clientCall {
	id := c.nextID
	c.nextID++
	p, _ := json.Marshal(params)
	m, _ := json.Marshal(method)
	msg := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%s,"params":%s}`, id, m, p)
	cc := &clientCall{method: method, id: id}
	line, ok := c.write(msg)
	if !ok {
		cc.done = true
		return cc
	}
	cc.line = line
	c.calls[domain.RequestID{Raw: fmt.Append(nil, id)}.Key()] = cc
	return cc
}

// notify sends a notification and returns its transcript line.
func (c *client) notify(method string, params any) int {
	p, _ := json.Marshal(params)
	m, _ := json.Marshal(method)
	line, _ := c.write(fmt.Appendf(nil, `{"jsonrpc":"2.0","method":%s,"params":%s}`, m, p))
	return line
}

func (c *client) reply(id json.RawMessage, result any) {
	r, _ := json.Marshal(result)
	c.answer(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, r))
}

func (c *client) replyError(id json.RawMessage, code int64, msg string) {
	e, _ := json.Marshal(rpcErr{Code: code, Message: msg})
	c.answer(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":%s}`, id, e))
}

// answer sends the response to an agent request.
func (c *client) answer(msg []byte) {
	if c.closing {
		return
	}
	if c.plan.has(FaultLate) {
		time.Sleep(lateAnswer)
	}
	line, ok := c.write(msg)
	if ok && c.plan.has(FaultDuplicate) {
		if again, ok := c.write(msg); ok {
			c.faultLines[again] = "the same answer again"
		}
	}
	// Answer lines only matter after the running turn's cancel, and only the
	// first of them (see cancelRead).
	if t := c.turn; ok && t != nil && t.cancelled && t.firstAnswer == 0 {
		t.firstAnswer = line
	}
}

// wait handles agent messages until cc is answered. It gives up when the
// agent says nothing for the response timeout, dies, or the run's watchdog
// fires. When first is set (the first response of the run), it also gives
// up first after the agent started, however much the agent says
// meanwhile: an agent that logs to stdout and never answers does not
// start.
//
// Two things end the wait sooner. A prompt turn in which the agent falls
// silent for the idle time (pace.idle) is cancelled, as a user stops a
// turn that shows no progress; the wait goes on for the answer to the
// cancel. And once the agent answered an id the client never sent (or
// already had answered), it is given strayGrace more for the real answer:
// it believes it has answered.
//
// The startup timeout and the response timeout are stretched by the time
// the machine's load kept the agent or the harness from running (see
// stallMeter): on a loaded machine a conforming agent's start, and its
// answers, take longer than they do on an idle one.
func (c *client) wait(cc *clientCall, first time.Duration) bool {
	var deadline time.Time
	var load *stallMeter
	if first > 0 {
		deadline = c.p.start.Add(first)
		if !cc.done {
			load = newStallMeter(c.p.pid(), true, first)
			defer load.close()
		}
	}
	sent := time.Now()
	// The agent has been silent since silence; the response timeout is
	// stretched to allowed for the load meanwhile.
	silence, allowed := c.load.mark(), time.Duration(0)
	for !cc.done {
		if c.failure != nil || c.interrupted || c.disconnectLine > 0 {
			return false
		}
		timeout := c.responseTimeout()
		wait := max(timeout, allowed) - time.Since(silence.at)
		if first > 0 {
			wait = time.Until(deadline)
		}
		limit := wait
		stray := c.stray > cc.line && cc.line > 0
		if stray {
			limit = min(limit, strayGrace-time.Since(c.strayAt))
		}
		idle := c.stuckAfter(cc)
		if idle > 0 && idle < limit {
			limit = idle
		}
		if limit > 0 && c.step(limit) {
			silence, allowed = c.load.mark(), 0
			continue
		}
		if first > 0 && limit == wait && c.failure == nil && !c.interrupted && !c.eof {
			if stretched := c.p.start.Add(load.stretch(first)); time.Until(stretched) > 0 {
				deadline = stretched
				continue
			}
		}
		if first == 0 && limit == wait && c.failure == nil && !c.interrupted && !c.eof {
			if stretched := c.load.stretchSince(silence, timeout); stretched > time.Since(silence.at) {
				allowed = stretched
				continue
			}
		}
		if idle > 0 && limit == idle && c.failure == nil && !c.interrupted && !c.eof {
			// A message that arrived as the idle time ran out is read
			// first: the turn was not silent after all.
			if len(c.p.frames) == 0 {
				c.cancelStuck(idle)
				// The agent has the cancel to answer now.
				silence, allowed = c.load.mark(), 0
			}
			continue
		}
		what := fmt.Sprintf("%s (line %d)", cc.method, cc.line)
		switch {
		case c.failure != nil || c.interrupted:
		case c.eof && first > 0:
			c.crashedAs(CheckStart, fmt.Sprintf("the agent closed stdout before it answered %s", what))
		case c.eof:
			c.crashed(fmt.Sprintf("the agent closed stdout while %s was pending", what))
		case stray && first > 0:
			c.fail(CheckStart, "no response to %s: the agent answered an id the client never sent at line %d and then said nothing for %v", what, c.stray, strayGrace)
		case stray:
			c.fail(CheckTimeout, "no response to %s: the agent answered an id the client never sent at line %d and then said nothing for %v", what, c.stray, strayGrace)
		case first > 0:
			c.fail(CheckStart, "no response to %s within the startup timeout of %v%s (the agent wrote %d line(s) on stdout meanwhile)", what, first, loadStretch(first, deadline.Sub(c.p.start)), c.facts[FactAgentLine])
		default:
			c.fail(CheckTimeout, "no response to %s and no other message for %v%s", what, timeout, loadStretch(timeout, allowed))
		}
		if c.failure != nil && c.failure.Line == 0 {
			c.failure.Line = cc.line
		}
		return false
	}
	if cc.respLine > 0 && first == 0 {
		// (The answer to initialize includes the agent's start, which is
		// not what a response timeout is about.)
		took := time.Since(sent)
		c.pace.answered(took)
		if cc.method != "session/prompt" {
			c.pace.replied(took)
		}
	}
	// A request whose write failed is done without a response: the failure
	// says so.
	return cc.err == nil && c.failure == nil
}

// loadStretch says, for a verdict, that a wait of d was stretched to
// allowed for the machine's load (see stallMeter), or nothing when it was
// not.
func loadStretch(d, allowed time.Duration) string {
	if allowed <= d {
		return ""
	}
	return fmt.Sprintf(", stretched to %v for the time load from outside the agent kept it or the harness from running", allowed.Round(time.Millisecond))
}

// strayGrace is how long the client still waits for a response after the
// agent answered an id the client never sent.
const strayGrace = 500 * time.Millisecond

// responseTimeout is the silence allowed while a request is pending.
func (c *client) responseTimeout() time.Duration {
	if d := c.pace.response(); d > 0 {
		return d
	}
	return c.opts.ResponseTimeout
}

// stuckAfter returns the idle time after which the client cancels the
// turn that cc is the prompt of, or 0 when it will not.
func (c *client) stuckAfter(cc *clientCall) time.Duration {
	t := c.turn
	if t == nil || t.call != cc || t.cancelled || c.closing {
		return 0
	}
	return c.pace.idle()
}

// cancelStuck cancels the running turn after the agent was silent for
// idle.
func (c *client) cancelStuck(idle time.Duration) {
	t := c.turn
	t.stuck, t.seenAtCancel = true, t.seen
	t.plan.viaClose = false
	c.cancelTurn("after %v without a message from the agent", idle)
}

// crashed records that the agent went away, with its exit status when it
// is known shortly.
func (c *client) crashed(what string) { c.crashedAs(CheckCrash, what) }

func (c *client) crashedAs(check, what string) {
	select {
	case <-c.p.exited:
	case <-time.After(200 * time.Millisecond):
	}
	c.fail(check, "%s; the agent %s", what, c.p.exitStatus())
}

// step handles one agent message, waiting at most timeout for it. It
// returns false on timeout, end of stdout or the watchdog.
func (c *client) step(timeout time.Duration) bool {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case f, ok := <-c.p.frames:
		if !ok {
			c.eof = true
			return false
		}
		c.p.received(f)
		if f.rec != c.rec {
			// Recorded for the sequence before on the same process, after it
			// stopped listening: it is on that sequence's record, and the
			// process serves no other (proc.resume).
			return true
		}
		c.handle(f)
		return true
	case <-timer.C:
		return false
	case <-c.ctx.Done():
		if errors.Is(context.Cause(c.ctx), errRunTimeout) && (c.outer == nil || c.outer.Err() == nil) {
			c.fail(CheckTimeout, "the run took longer than the run timeout of %v%s", c.opts.RunTimeout, loadStretch(c.opts.RunTimeout, c.watchdog.limit()))
		} else {
			c.interrupted = true // the user stopped the check: no verdict on this run
		}
		return false
	}
}

// settle handles agent messages until the agent has been quiet for d, so
// that late messages land before the client's next move.
func (c *client) settle(d time.Duration) {
	for c.failure == nil && !c.eof && !c.interrupted {
		if c.quietFor(d) {
			c.quiet = c.failure == nil && !c.eof && !c.interrupted
			return
		}
	}
}

// quietFor handles at most one agent message, and reports whether none
// came for d. An agent the machine's load kept from running said nothing
// because it could not: d is stretched by the time the load took from it
// (the agent's run delay, read when the quiet begins and when it ends, as
// far as load from outside the agent could have caused it, or the
// harness's lateness), by at most maxStretch times d, as long as the agent
// has work in hand. One whose threads all sleep has caught up, and
// what it still has to say waits for something other than a CPU: on a
// loaded machine the threads of an idle runtime wait for the CPU too when
// they wake, and that would stretch every settle. (The meter of the run
// ticks too seldom for a wait this short.)
//
// Reading a thread's /proc files costs the harness milliseconds of system
// time when the process ends, more than a quick agent's whole run: an
// agent younger than sampleAfter is not read, as the meter does not read
// it; only the harness's lateness counts then.
func (c *client) quietFor(d time.Duration) bool {
	pid := c.p.pid()
	if time.Since(c.p.start) < sampleAfter {
		pid = 0
	}
	c.settleDelays.sample(pid)
	from, base, late, allowed := time.Now(), c.settleDelays.total(), time.Duration(0), d
	baseUse := c.settleDelays.use
	for {
		if ask := allowed - time.Since(from); ask > 0 {
			asked := time.Now()
			if c.step(ask) {
				return false
			}
			late += max(time.Since(asked)-ask, 0)
		}
		if c.failure != nil || c.eof || c.interrupted {
			return true
		}
		if len(c.p.frames) > 0 {
			return false // it came as the time ran out
		}
		c.settleDelays.sample(pid)
		quiet := time.Since(from)
		delay := c.settleDelays.total() - base
		if outside, ok := c.settleDelays.use.outsideSince(baseUse); ok {
			delay = min(delay, outside) // (see stallMeter)
		}
		lost := min(max(late, delay), quiet)
		stretched := d + min(lost, maxStretch*d)
		if pid != 0 && lost > 0 {
			switch {
			case !runnable(pid):
				stretched = 0
			case stretched <= quiet && lost >= d/4:
				// A wait for the CPU counts once it is over: while the
				// agent, which the load kept from running for a quarter of
				// the settle or more, still has work in hand, the settle
				// goes on a quarter at a time.
				stretched = min(quiet+d/4, (1+maxStretch)*d)
			}
		}
		if stretched > quiet {
			allowed = stretched
			continue
		}
		if allowed > d {
			c.logf("the agent was quiet for %v: the settle time of %v%s", quiet.Round(time.Millisecond), d, loadStretch(d, allowed))
		}
		return true
	}
}

// handle processes one line from the agent.
func (c *client) handle(f frame) {
	c.quiet = false
	c.facts[FactAgentLine]++
	t := c.turn
	if t != nil && !t.call.done {
		t.seen++
		t.longestGap = max(t.longestGap, f.at.Sub(t.lastAt))
		t.before, t.lastAt = t.lastAt, f.at
	}
	var m wireMsg
	trimmed := bytes.TrimSpace(f.line)
	if len(trimmed) > 0 && trimmed[0] == '{' && json.Unmarshal(trimmed, &m) == nil {
		c.dispatch(f, &m)
	}
	if t != nil && !t.call.done && c.disconnectLine == 0 && c.plan.has(FaultDisconnect) && len(c.p.frames) == 0 {
		// The editor quits in mid-turn, once it has read all the agent
		// wrote: what is still on its way was written to a client that was
		// there, and is judged as such.
		c.disconnectLine = c.rec.Len()
		c.closing = true
		c.logf("close the agent's stdin in mid-turn (fault %s)", FaultDisconnect)
		c.p.closeStdin()
		return
	}
	// Cancel only while the prompt is still unanswered: a cancel after
	// the response would be the client's mistake (ACP-CXL-005).
	if !c.closing && t != nil && !t.call.done && !t.cancelled && t.plan.cancelAfter >= 0 && t.seen > t.plan.cancelAfter {
		c.cancelTurn("after %d agent message(s)", t.seen)
	}
}

func (c *client) dispatch(f frame, m *wireMsg) {
	switch {
	case m.Method == "" && m.hasID():
		c.onResponse(f, m)
	case m.Method != "" && m.hasID():
		c.facts[FactAgentRequest]++
		if c.closing {
			return // stdin is closed: nothing can be answered any more
		}
		if t := c.turn; t != nil && !t.call.done && !t.cancelled && t.plan.atRequest {
			c.cancelTurn("when the agent sent %s", m.Method)
		}
		c.onRequest(m)
	case m.Method != "":
		c.onNotification(m)
	}
}

func (c *client) onResponse(f frame, m *wireMsg) {
	c.facts[FactAgentResponse]++
	// Ids match as JSON values (domain.RequestID.Key): 1 is answered by 1.0.
	key := domain.RequestID{Raw: m.ID}.Key()
	cc, ok := c.calls[key]
	if !ok || cc.done {
		c.stray, c.strayAt = f.num, f.at
		return
	}
	cc.done = true
	cc.respLine = f.num
	cc.respAt = f.at
	cc.respEnd = f.end
	cc.result = m.Result
	if m.Error != nil {
		cc.err = &rpcErr{Code: m.Error.Code, Message: m.Error.Message}
	}
	delete(c.calls, key)
}

func (c *client) onNotification(m *wireMsg) {
	if m.Method != "session/update" {
		return
	}
	c.facts[FactUpdate]++
	var p struct {
		SessionID string `json:"sessionId"`
		Update    struct {
			SessionUpdate string `json:"sessionUpdate"`
			CurrentModeID string `json:"currentModeId"`
		} `json:"update"`
	}
	_ = json.Unmarshal(m.Params, &p)
	switch p.Update.SessionUpdate {
	case "tool_call", "tool_call_update":
		c.facts[FactToolCall]++
	case "current_mode_update":
		for _, s := range c.sessions {
			if s.id == p.SessionID && s.modes != nil && p.Update.CurrentModeID != "" {
				s.modes.CurrentModeID = p.Update.CurrentModeID
			}
		}
	}
}

// sessionParams is what every agent request carries.
type sessionParams struct {
	SessionID string `json:"sessionId"`
}

// onRequest answers a request from the agent.
func (c *client) onRequest(m *wireMsg) {
	switch m.Method {
	case "session/request_permission":
		c.facts[FactPermission]++
		c.answerPermission(m)
	case "fs/read_text_file":
		c.facts[FactFS]++
		if !c.caps[CapReadTextFile] {
			c.unadvertisedCall(m, "fs.readTextFile")
			return
		}
		c.readFile(m)
	case "fs/write_text_file":
		c.facts[FactFS]++
		if !c.caps[CapWriteTextFile] {
			c.unadvertisedCall(m, "fs.writeTextFile")
			return
		}
		c.writeFile(m)
	case "terminal/create", "terminal/output", "terminal/wait_for_exit", "terminal/kill", "terminal/release":
		c.facts[FactTerminal]++
		if !c.caps[CapTerminal] {
			c.unadvertisedCall(m, "terminal")
			return
		}
		c.terminal(m)
	default:
		c.replyError(m.ID, -32601, "Method not found: "+m.Method)
	}
}

// unadvertisedCall refuses a method the client did not advertise. The
// protocol machine reports the capability breach; the harness keeps the
// call for the report.
func (c *client) unadvertisedCall(m *wireMsg, capability string) {
	c.unadvertised[m.Method]++
	c.replyError(m.ID, -32601, fmt.Sprintf("Method not found: %s (the client did not advertise %s)", m.Method, capability))
}

func (c *client) answerPermission(m *wireMsg) {
	var p struct {
		SessionID string `json:"sessionId"`
		Options   []struct {
			OptionID string `json:"optionId"`
			Kind     string `json:"kind"`
		} `json:"options"`
	}
	_ = json.Unmarshal(m.Params, &p)
	t := c.turn
	inTurn := t != nil && !t.call.done && t.sess.id == p.SessionID
	// After a cancel, and outside any turn, the only safe answer is
	// "cancelled": selecting an option would let a tool run in a turn the
	// user stopped.
	if !inTurn || t.cancelled || len(p.Options) == 0 {
		c.facts[FactPermissionCancelled]++
		c.reply(m.ID, map[string]any{"outcome": map[string]any{"outcome": "cancelled"}})
		return
	}
	if c.plan.has(FaultCancelPermission) {
		c.logf("answer permission with cancelled: the user dismissed it (fault %s)", FaultCancelPermission)
		c.reply(m.ID, map[string]any{"outcome": map[string]any{"outcome": "cancelled"}})
		return
	}
	i := c.nextAnswer() % len(p.Options)
	o := p.Options[i]
	c.facts[Fact("permission:"+o.Kind)]++
	c.logf("answer permission with %s (%s)", o.OptionID, o.Kind)
	c.reply(m.ID, map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": o.OptionID}})
}

// nextAnswer takes the plan's next choice for an agent request; 0 (the
// first option, no error) once the plan has none left.
func (c *client) nextAnswer() int {
	if len(c.answers) == 0 {
		return 0
	}
	a := c.answers[0]
	c.answers = c.answers[1:]
	return a
}

// injectError decides whether a client method fails this time.
func (c *client) injectError() bool { return c.nextAnswer() == injectErrorAnswer }

func (c *client) readFile(m *wireMsg) {
	var p struct {
		Path  string `json:"path"`
		Line  *int   `json:"line"`
		Limit *int   `json:"limit"`
	}
	if json.Unmarshal(m.Params, &p) != nil || !filepath.IsAbs(p.Path) {
		c.replyError(m.ID, -32602, "Invalid params: path must be an absolute path")
		return
	}
	if c.injectError() || c.plan.has(FaultFSError) {
		c.logf("fail fs/read_text_file %s (injected)", p.Path)
		c.replyError(m.ID, -32603, "Internal error: reading "+p.Path+" failed: input/output error")
		return
	}
	content, ok := c.buf.read(p.Path)
	if !ok {
		c.replyError(m.ID, -32002, "Resource not found: "+p.Path)
		return
	}
	line, limit := 0, 0
	if p.Line != nil {
		line = *p.Line
	}
	if p.Limit != nil {
		limit = *p.Limit
	}
	c.reply(m.ID, map[string]any{"content": sliceLines(content, line, limit)})
}

func (c *client) writeFile(m *wireMsg) {
	var p struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	if json.Unmarshal(m.Params, &p) != nil || !filepath.IsAbs(p.Path) {
		c.replyError(m.ID, -32602, "Invalid params: path must be an absolute path")
		return
	}
	if c.injectError() || c.plan.has(FaultFSError) {
		c.logf("fail fs/write_text_file %s (injected)", p.Path)
		c.replyError(m.ID, -32603, "Internal error: writing "+p.Path+" failed: read-only file system")
		return
	}
	if !c.buf.write(p.Path, p.Content) {
		c.replyError(m.ID, -32603, "Internal error: "+p.Path+" is outside the workspace")
		return
	}
	c.reply(m.ID, map[string]any{})
}

func (c *client) terminal(m *wireMsg) {
	var p struct {
		TerminalID      string   `json:"terminalId"`
		Command         string   `json:"command"`
		Args            []string `json:"args"`
		OutputByteLimit *int     `json:"outputByteLimit"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		c.replyError(m.ID, -32602, "Invalid params")
		return
	}
	if m.Method == "terminal/create" {
		if len(c.terminals) >= maxTerminals {
			c.replyError(m.ID, -32603, "Internal error: too many terminals")
			return
		}
		if c.injectError() {
			c.logf("fail terminal/create %s (injected)", p.Command)
			c.replyError(m.ID, -32603, "Internal error: could not spawn "+p.Command+": resource temporarily unavailable")
			return
		}
		out, code := c.buf.simulate(p.Command, p.Args)
		c.nextTerm++
		id := fmt.Sprintf("term_%d", c.nextTerm)
		t := &simTerminal{output: out, exitCode: code}
		if p.OutputByteLimit != nil {
			t.limit = *p.OutputByteLimit
		}
		c.terminals[id] = t
		c.reply(m.ID, map[string]any{"terminalId": id})
		return
	}
	t, ok := c.terminals[p.TerminalID]
	if !ok || t.released {
		c.replyError(m.ID, -32002, "Resource not found: terminal "+p.TerminalID)
		return
	}
	status := map[string]any{"exitCode": t.exitCode, "signal": nil}
	if t.killed {
		status = map[string]any{"exitCode": nil, "signal": "SIGKILL"}
	}
	switch m.Method {
	case "terminal/output":
		out, truncated := truncateFront(t.output, t.limit)
		c.reply(m.ID, map[string]any{"output": out, "truncated": truncated, "exitStatus": status})
	case "terminal/wait_for_exit":
		c.reply(m.ID, status)
	case "terminal/kill":
		// The simulated command has already exited: kill changes nothing.
		c.reply(m.ID, map[string]any{})
	case "terminal/release":
		t.released = true
		c.reply(m.ID, map[string]any{})
	}
}

// maxTerminals bounds the simulated terminals of one run.
const maxTerminals = 1024

// cancelTurn cancels the running turn as its plan says.
func (c *client) cancelTurn(why string, args ...any) {
	t := c.turn
	t.cancelled = true
	if t.plan.viaClose {
		c.logf("close %s "+why, append([]any{t.sess.id}, args...)...)
		// Measured before the close is sent: measured after, it could count
		// a response the agent wrote once it had read the close.
		t.writtenAtCancel, _ = c.p.written()
		t.closeCall = c.call("session/close", map[string]any{"sessionId": t.sess.id})
		t.cancelLine, t.cancelAt = t.closeCall.line, c.sentAt
		c.facts[FactCloseSent]++
		return
	}
	c.logf("cancel %s "+why, append([]any{t.sess.id}, args...)...)
	// Before the cancel is sent, as for a close.
	t.writtenAtCancel, _ = c.p.written()
	t.cancelLine = c.notify("session/cancel", map[string]any{"sessionId": t.sess.id})
	t.cancelAt = c.sentAt
	c.facts[FactCancelSent]++
}

// cancelRead says how the harness knows that the agent read the cancel
// (or close) of t before it wrote the prompt response cc, or "" when it
// cannot tell. The protocol machine counts a cancel as read once any agent
// message comes between the two, but a message that was already in the
// pipe proves nothing. Three things do: the client answered one of the
// agent's requests in between (stdin is read in order, so an agent that
// went on after that answer had read the cancel before it); the client
// cancelled a turn in which the agent had been silent for the idle time,
// the agent has never ended a turn on its own, and the response is the
// first thing it said after the cancel; or the agent kept working for the
// cancel grace period before it answered.
//
// Silence alone proves nothing about an agent that does end turns on its
// own: on a loaded machine the rest of a turn it was busy with (a pause in
// the agent, or lines the harness had not read yet) comes right after a
// cancel that it crossed, as a slow turn's end does.
//
// And none of it holds for a response the agent had already written when
// the cancel was sent, which the harness, slow to read, read later: where
// the pipe tells the bytes in it (Linux), such a response is a race,
// whatever came between in the transcript.
func (c *client) cancelRead(t *activeTurn, cc *clientCall) string {
	switch {
	case t.writtenAtCancel > 0 && cc.respEnd > 0 && cc.respEnd <= t.writtenAtCancel:
		return ""
	case t.firstAnswer > t.cancelLine && t.firstAnswer < cc.respLine:
		return fmt.Sprintf("the client answered one of the agent's requests (line %d) between the cancel and this response, and stdin is read in order, so the agent had read the cancel", t.firstAnswer)
	case t.stuck && t.seen == t.seenAtCancel+1 && !c.pace.endsTurns():
		return "the agent, which has ended no turn but on a cancel, had been silent for the idle time when the client cancelled, with nothing of it on its way, and this response was the first thing it said after the cancel"
	case t.cancelLine < 1 || t.cancelAt.IsZero() || cc.respAt.IsZero():
		return ""
	}
	// The agent kept quiet for the cancel grace after the cancel before it
	// answered. (Measured from the agent's message before the response
	// too: a response written along with it, before the cancel came, is
	// read as late as the message when the harness is slow to read.) On a
	// loaded machine the grace grows with the agent's slowest reply (see
	// pace.cancelGrace).
	grace := c.pace.cancelGrace(c.opts.CancelGrace)
	if quiet := cc.respAt.Sub(later(t.cancelAt, t.before)); quiet >= grace {
		return fmt.Sprintf("the agent was silent for %v after the cancel before this response, longer than the cancel grace of %v", quiet.Round(time.Millisecond), grace.Round(time.Millisecond))
	}
	return ""
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// openSessions returns the sessions that can take a prompt.
func (c *client) openSessions() []*clientSession {
	var out []*clientSession
	for _, s := range c.sessions {
		if s.open {
			out = append(out, s)
		}
	}
	return out
}
