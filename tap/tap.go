// Package tap sits between an editor and an ACP agent: it starts the
// agent, forwards both byte streams unchanged, and hands every line that
// crosses to observers (recording, live linting).
//
// Forwarding is the one path that must never fail, so nothing else is on
// it. Bytes go to the other side as soon as they are read; the complete
// lines of each read are copied once and go, shared, to every observer
// through its own queue, bounded in bytes, and each observer works on its
// own goroutine. An observer that falls behind by more than its queue, or
// a line longer than Options.MaxLine, costs that observer frames, never
// the connection: the frames are dropped and the observer is told where
// and how many (a gap frame, transcript.Lost). The one exception is an
// observer that holds the traffic (Observer.Hold, the recorder): for it
// the traffic waits, as long as it keeps up. A panic in an observer stops
// that observer only.
package tap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/internal/procgroup"
	"github.com/acplint/acplint/transcript"
)

// Defaults for Options.
const (
	DefaultGrace      = 5 * time.Second
	DefaultMaxLine    = codec.DefaultMaxLine
	DefaultQueueBytes = 64 << 20
	// DefaultDrainTimeout bounds how long the tap waits, once the agent has
	// exited, for observers to finish what is queued (those that hold the
	// traffic are waited for as long as they keep up, and the caller
	// waits for those with an End).
	DefaultDrainTimeout = 10 * time.Second
)

// Options configure a tap.
type Options struct {
	// Command is the agent and its arguments.
	Command []string
	// Stderr receives the agent's stderr unchanged (the editor's stderr).
	Stderr io.Writer
	// Observers see every line that crosses, each through its own queue.
	Observers []Observer
	// Grace is how long the agent may stay silent after its stdin closed
	// before it is sent SIGTERM, and then how long it has before SIGKILL.
	Grace time.Duration
	// MaxLine is the longest line observers are given (DefaultMaxLine when
	// 0); a longer line is forwarded whole but reaches observers as a gap.
	MaxLine int
	// QueueBytes bounds the line bytes waiting for each observer
	// (DefaultQueueBytes when 0).
	QueueBytes int
	// DrainTimeout bounds the wait for observers at the end
	// (DefaultDrainTimeout when 0), but for those that hold the traffic
	// or have an End.
	DrainTimeout time.Duration
	// OnTrouble is told, from any goroutine, of what went wrong off the
	// forwarding path (an observer panicked or did not finish). May be nil.
	OnTrouble func(error)
	// Supervised runs the agent under a supervisor, this same executable,
	// so that on Linux the agent's whole process group ends even when the
	// tap is killed outright (supervise_linux.go). The program must call
	// Supervise first thing in main, or the supervisor would run the
	// program itself.
	Supervised bool
}

// An Observer is given the lines that cross, in the order the tap saw
// them, on a goroutine of its own.
type Observer struct {
	// Name says which observer, in trouble reports.
	Name string
	// Frame is called for every line, and for every gap: a frame with Lost
	// set stands for the frames this observer missed at that point.
	Frame func(transcript.Frame)
	// Idle, when set, is called whenever the queue runs empty: the moment
	// to flush, so a crash loses at most the frames in flight (with a
	// Delay, those of the last Delay).
	Idle func()
	// Delay is how long a frame may wait in the queue before the observer
	// is woken for it (0: at once). Waking a goroutine for every line
	// costs the machine a thread switch or two, taken from the forwarding
	// when the editor and the agent take turns; an observer that may lag
	// wakes at most once per Delay while the traffic flows and takes what
	// has queued, unless the queue is half full.
	Delay time.Duration
	// Hold makes the tap wait for this observer, rather than drop frames,
	// when its queue is full, for as long as the observer keeps taking
	// frames off it (at least holdMinBytes a holdWindow): a recorder on a
	// machine whose cores are taken then slows the traffic to its pace
	// and records all of it, and a recorder that stops (a disk that
	// hangs) costs the traffic one holdWindow and then frames of its own.
	Hold bool
	// Starved, for an observer that holds the traffic, says at the end
	// whether the observer was kept from the CPU (KeepUp.Starved): the
	// tap then waits for it up to MostStarved more.
	Starved func() bool
	// End, when set, is called on the observer's goroutine once the
	// observer has been given everything, the agent having exited; Run
	// does not wait for such an observer at the end, but returns while
	// its queue may still be delivered, and the caller waits for what
	// the observer does behind it (by KeepUp, say), and stops it if need
	// be.
	End func()
}

// Result describes how the agent ended.
type Result struct {
	// ExitCode is the agent's exit code, or 128+signal when a signal
	// killed it, the convention of shells (and what the editor expects).
	ExitCode int
	// Frames counts the lines that crossed in each direction.
	FromClient, FromAgent int
	// Left holds, by observer name, what the observers that did not
	// finish in time at the end were not given; such an observer is
	// given nothing more once Run has returned (beyond the line it may
	// be working on).
	Left map[string]transcript.Lost
}

// Run starts the agent in a process group of its own and forwards clientIn
// to its stdin and its stdout to clientOut until the agent exits. When
// clientIn ends, or clientOut stops taking bytes (the editor went away),
// the agent's stdin is closed, the ACP way to ask it to exit; if it stays
// silent for Grace it gets SIGTERM, then SIGKILL, all of its group. SIGINT,
// SIGTERM and SIGHUP sent to the tap are passed on to the group, and SIGKILL
// follows after Grace. When the agent closes its stdout, clientOut is
// closed at once if it is an io.Closer. On Linux the agent gets SIGKILL if
// the tap dies first, and its whole group does under Options.Supervised;
// whatever is left of the group is ended when the agent has exited.
func Run(ctx context.Context, opts Options, clientIn io.Reader, clientOut io.Writer) (Result, error) {
	if len(opts.Command) == 0 {
		return Result{}, errors.New("tap: no agent command")
	}
	if opts.Grace <= 0 {
		opts.Grace = DefaultGrace
	}
	if opts.MaxLine <= 0 {
		opts.MaxLine = DefaultMaxLine
	}
	if opts.QueueBytes <= 0 {
		opts.QueueBytes = DefaultQueueBytes
	}
	if opts.DrainTimeout <= 0 {
		opts.DrainTimeout = DefaultDrainTimeout
	}
	// A write to a closed pipe must be an error the pumps handle, not the
	// signal that kills the process (the default for stdout and stderr).
	// Notify, not Ignore: an ignored signal would stay ignored in the agent.
	pipeSigs := make(chan os.Signal, 1)
	signal.Notify(pipeSigs, syscall.SIGPIPE)
	defer signal.Stop(pipeSigs)

	var cmd *exec.Cmd
	var started func() error
	supervised := false
	if opts.Supervised {
		cmd, started, supervised = supervisedCommand(opts.Command)
	}
	if !supervised {
		cmd = exec.Command(opts.Command[0], opts.Command[1:]...)
		cmd.SysProcAttr = procgroup.Attr()
		started = func() error { return nil }
	}
	cmd.Stderr = opts.Stderr
	// A grandchild that keeps the agent's stderr open must not hold Wait
	// once the agent itself has gone.
	cmd.WaitDelay = opts.Grace
	// Plain pipes rather than StdinPipe/StdoutPipe: Wait then returns when
	// the agent exits, whoever else (a helper it started) still holds its
	// stdout, so the tap ends with the agent, not with its last helper.
	agentStdin, agentIn, err := os.Pipe()
	if err != nil {
		return Result{}, err
	}
	agentOut, agentStdout, err := os.Pipe()
	if err != nil {
		agentStdin.Close()
		agentIn.Close()
		return Result{}, err
	}
	cmd.Stdin, cmd.Stdout = agentStdin, agentStdout
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	err = cmd.Start()
	// The agent has its ends (or failed to start); the tap keeps its own.
	agentStdin.Close()
	agentStdout.Close()
	if err == nil {
		if err = started(); err != nil {
			cmd.Wait()
		}
	}
	if err != nil {
		agentIn.Close()
		agentOut.Close()
		return Result{}, fmt.Errorf("tap: starting the agent: %w", err)
	}
	// Setpgid: the group's id is the pid of its leader, the supervisor or
	// the agent.
	group := cmd.Process.Pid

	fan := newFanout(opts)
	start := time.Now()
	clientDone := make(chan struct{})
	go func() {
		defer close(clientDone)
		fan.pump(clientIn, agentIn, domain.FromClient, start, nil)
		agentIn.Close() // EOF from the editor: tell the agent to exit
	}()
	editorGone := make(chan struct{})
	agentDone := make(chan struct{})
	go func() {
		defer close(agentDone)
		fan.pump(agentOut, clientOut, domain.FromAgent, start, func() { close(editorGone) })
		// The agent closed its stdout: the editor should see that now, not
		// when the agent has also exited.
		if c, ok := clientOut.(io.Closer); ok {
			c.Close()
		}
	}()
	waitErr := make(chan error, 1)
	go func() { waitErr <- cmd.Wait() }()

	var werr error
	ladder := time.NewTimer(time.Hour)
	ladder.Stop()
	// The ladder: 0 = not started; 1 = stdin closed, SIGTERM after Grace of
	// silence; 2 = SIGTERM sent, SIGKILL after Grace whatever the agent
	// does; 3 = SIGKILL sent.
	step := 0
	escalate := func(to int) {
		if to > step {
			step = to
			ladder.Reset(opts.Grace)
		}
	}
	var lastAgentBytes int64
	// Each of these fires once: a nil channel is never ready, so a closed
	// one must be set to nil after it is handled, or select picks it again
	// and again.
	clientClosed, editorLeft, cancelled := clientDone, editorGone, ctx.Done()
	for done := false; !done; {
		select {
		case werr = <-waitErr:
			done = true
		case s := <-sigs:
			procgroup.Signal(group, s.(syscall.Signal))
			escalate(2)
		case <-clientClosed:
			clientClosed = nil
			escalate(1)
		case <-editorLeft:
			// What the agent writes now goes nowhere, so its output does
			// not extend the grace: SIGTERM follows Grace after this.
			editorLeft = nil
			agentIn.Close()
			escalate(1)
		case <-cancelled:
			cancelled = nil
			agentIn.Close()
			procgroup.Signal(group, syscall.SIGTERM)
			escalate(2)
		case <-ladder.C:
			switch step {
			case 1:
				// editorLeft is nil once the editor stopped reading: then
				// the agent's output goes nowhere and extends nothing.
				if n := fan.agentBytes.Load(); n != lastAgentBytes && editorLeft != nil {
					// Still writing (a large reply after the editor hung
					// up): the silence counts from the agent's last output.
					lastAgentBytes = n
					ladder.Reset(opts.Grace)
					continue
				}
				procgroup.Signal(group, syscall.SIGTERM)
				escalate(2)
			case 2:
				procgroup.Signal(group, syscall.SIGKILL)
				step = 3
			}
		}
	}
	ladder.Stop()
	// The agent has exited. Its stdout ends now, unless a process it left
	// behind holds it: that one gets Grace to finish, then its group is
	// ended, and last the tap stops reading.
	select {
	case <-agentDone:
	case <-time.After(opts.Grace):
	}
	endGroup(group, opts.Grace)
	select {
	case <-agentDone:
	case <-time.After(opts.Grace):
		agentOut.Close() // a holder outside the group: stop reading
		<-agentDone
	}
	agentIn.Close()
	// The client side may still be blocked reading the editor's stdin; the
	// agent is gone, so its lines have nowhere to go. Do not wait for it.
	left := fan.close(opts.DrainTimeout)
	res := Result{ExitCode: exitCode(cmd.ProcessState, werr), Left: left}
	res.FromClient, res.FromAgent = fan.counts()
	return res, nil
}

// endGroup ends what is left of the agent's process group once the agent
// itself has exited (helpers it started and did not stop): SIGTERM, then
// SIGKILL after grace.
func endGroup(group int, grace time.Duration) {
	if !procgroup.Alive(group) {
		return
	}
	procgroup.Signal(group, syscall.SIGTERM)
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if !procgroup.Alive(group) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	procgroup.Signal(group, syscall.SIGKILL)
}

func exitCode(ps *os.ProcessState, err error) int {
	if ps == nil {
		if err != nil {
			return 1
		}
		return 0
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// fanout cuts both byte streams into lines and gives each line to every
// observer's queue, in one order for all of them.
type fanout struct {
	maxLine int
	mu      sync.Mutex // orders the two pumps' lines
	queues  []*queue
	n       [3]int
	// agentBytes counts bytes read from the agent, to tell a busy agent
	// from a hung one.
	agentBytes atomic.Int64
}

func newFanout(opts Options) *fanout {
	f := &fanout{maxLine: opts.MaxLine}
	for _, o := range opts.Observers {
		f.queues = append(f.queues, newQueue(o, int64(opts.QueueBytes), opts.OnTrouble))
	}
	return f
}

// pump copies src to dst as bytes arrive and gives each complete line to
// the observers. When dst stops taking bytes, onWriteFail is called once
// and the rest of src is still read (and observed), so the writer on the
// other end never blocks.
func (f *fanout) pump(src io.Reader, dst io.Writer, from domain.Direction, start time.Time, onWriteFail func()) {
	buf := make([]byte, 256<<10)
	lines := lineCutter{maxLine: f.maxLine}
	writeOK := true
	// With no observer the lines are only counted: copying each one for
	// nobody cost a pipe's worth of allocation and collection.
	observed := len(f.queues) > 0
	unterminated := false // the bytes so far end inside a line
	for {
		n, err := src.Read(buf)
		if from == domain.FromAgent {
			f.agentBytes.Add(int64(n))
		}
		if n > 0 && !observed {
			f.count(from, bytes.Count(buf[:n], []byte{'\n'}))
			unterminated = buf[n-1] != '\n'
		}
		if n > 0 && observed {
			// The lines go to the observers before the bytes go on (queuing
			// waits only for an observer that holds the traffic and keeps
			// up): a write to the peer may block, and the peer may answer a
			// line before the write returns; the recording must not show
			// the answer before the line.
			t := time.Since(start)
			for rest := buf[:n]; len(rest) > 0; {
				var evs []event
				evs, rest = lines.cut(rest)
				f.send(from, t, evs)
			}
		}
		if n > 0 && writeOK {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				writeOK = false
				if onWriteFail != nil {
					onWriteFail()
				}
			}
		}
		if err != nil {
			// A last line without "\n" is still traffic.
			if !observed {
				if unterminated {
					f.count(from, 1)
				}
			} else {
				f.send(from, time.Since(start), lines.end())
			}
			return
		}
	}
}

// An event is what one line of the traffic is to the observers: a frame
// of data, or, when tooLong is set, a line of that many bytes that was
// too long to keep.
type event struct {
	data    []byte
	tooLong int
	// inRead marks data that is still a slice of the pump's buffer.
	inRead bool
}

// lineCutter cuts one direction's bytes, as they are read, into lines.
type lineCutter struct {
	maxLine  int
	partial  []byte // the line so far, when it began in an earlier read
	oversize int    // bytes so far of a line longer than maxLine, not kept
}

// cut returns the lines that chunk ends, up to maxReadLines of them, and
// the rest of chunk, which the next call goes on with; what chunk leaves
// unfinished it keeps for the next read. chunk is the pump's buffer,
// which the next read overwrites: the lines that lie whole in it are
// copied out, those of one call into one allocation of their summed
// length, and the lines of each call are a slice of their own, so that
// a queue that keeps one part of a read pins no memory it does not count
// (read.cost). A line that began in an earlier read is already in a
// buffer of its own.
func (c *lineCutter) cut(chunk []byte) (evs []event, rest []byte) {
	inRead := 0
	for len(chunk) > 0 && len(evs) < maxReadLines {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			c.carry(chunk)
			chunk = nil
			break
		}
		piece := chunk[:i]
		switch {
		case c.oversize > 0 || len(c.partial)+len(piece) > c.maxLine:
			evs = append(evs, event{tooLong: c.oversize + len(c.partial) + len(piece)})
			c.partial, c.oversize = nil, 0
		case len(c.partial) > 0:
			// The frame owns partial now; the next line gets a new one.
			evs = append(evs, event{data: append(c.partial, piece...)})
			c.partial = nil
		case len(piece) > 0:
			evs = append(evs, event{data: piece, inRead: true})
			inRead += len(piece)
		default:
			evs = append(evs, event{}) // an empty line
		}
		chunk = chunk[i+1:]
	}
	if inRead > 0 {
		owned := make([]byte, 0, inRead)
		for j := range evs {
			if e := &evs[j]; e.inRead {
				at := len(owned)
				owned = append(owned, e.data...)
				e.data, e.inRead = owned[at:len(owned):len(owned)], false
			}
		}
	}
	return evs, chunk
}

// carry keeps piece, the start of a line the read did not finish, up to
// maxLine bytes; past that only its length is counted.
func (c *lineCutter) carry(piece []byte) {
	if c.oversize > 0 || len(c.partial)+len(piece) > c.maxLine {
		c.oversize += len(c.partial) + len(piece)
		c.partial = nil
		return
	}
	c.partial = append(c.partial, piece...)
}

// end returns the last line, which no "\n" ended, if there is one.
func (c *lineCutter) end() (evs []event) {
	switch {
	case c.oversize > 0:
		evs = append(evs, event{tooLong: c.oversize})
	case len(c.partial) > 0:
		evs = append(evs, event{data: c.partial})
	}
	c.partial, c.oversize = nil, 0
	return evs
}

// count counts n lines that no observer is given.
func (f *fanout) count(from domain.Direction, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n[from] += n
}

// send gives evs, lines of one read that crossed at t, to every queue,
// in the order the pumps took the lock. The queues share evs, which the
// pump does not touch again.
func (f *fanout) send(from domain.Direction, t time.Duration, evs []event) {
	if len(evs) == 0 {
		return
	}
	r := newRead(from, t, evs, f.maxLine)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n[from] += len(evs)
	for _, q := range f.queues {
		q.push(r)
	}
}

// maxReadLines is the most lines one read given to the queues holds: a
// read of many short lines goes in parts, so that what one part costs a
// queue (which takes a part even over its bound, when it is empty) stays
// near what it holds of the traffic.
const maxReadLines = 1024

func (f *fanout) close(timeout time.Duration) map[string]transcript.Lost {
	f.mu.Lock()
	for _, q := range f.queues {
		q.close()
	}
	f.mu.Unlock()
	// The observers work at once; the deadline is for those that do not
	// hold the traffic, and the caller waits for those with an End.
	deadline := time.After(timeout)
	var left map[string]transcript.Lost
	for _, q := range f.queues {
		if q.obs.End != nil {
			continue
		}
		lost, why := q.drain(deadline)
		if why == nil {
			continue
		}
		if left == nil {
			left = map[string]transcript.Lost{}
		}
		left[q.obs.Name] = lost
		wait := fmt.Sprintf("within %v of the agent's exit", timeout)
		if q.obs.Hold {
			wait = fmt.Sprintf("once the agent had exited: it wrote less than %d bytes (or all it had left) in %v", q.holdNeed(), holdWindow)
			if errors.Is(why, ErrKeptFromCPU) {
				wait = fmt.Sprintf("once the agent had exited: other work kept it from the CPU for more than %v", MostStarved)
			}
		}
		q.trouble(fmt.Errorf("%s did not finish %s; %d lines (%d bytes) it had not written are lost", q.obs.Name, wait, lost.Frames, lost.Bytes))
	}
	return left
}

func (f *fanout) counts() (client, agent int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n[domain.FromClient], f.n[domain.FromAgent]
}

// A read is the lines of one read from one side, as the pump cut them.
// Every queue holds the same read, which nobody changes once it is sent:
// the pump's work for a read does not grow with its lines or with the
// observers.
type read struct {
	from    domain.Direction
	t       time.Duration
	evs     []event
	maxLine int   // for the reason given for a line too long to keep
	cost    int64 // the memory the read pins, which the queues count
	work    int64 // its lines' event.work
}

func newRead(from domain.Direction, t time.Duration, evs []event, maxLine int) *read {
	r := &read{from: from, t: t, evs: evs, maxLine: maxLine}
	// What the read pins: its lines' bytes and its slice of events,
	// spare room included.
	r.cost = int64(cap(evs)) * int64(unsafe.Sizeof(event{}))
	for _, e := range evs {
		r.cost += int64(len(e.data))
		r.work += e.work()
	}
	return r
}

// work is what a line is to an observer: its bytes and a frame, so that
// a flood of empty lines is work too (the recorder writes a frame for
// each). Whether an observer that holds the traffic keeps up is counted
// in it.
func (e event) work() int64 { return LineWork(len(e.data) + e.tooLong) }

// LineWork is the work a line of n bytes is to an observer, in the unit
// of the keep-up rule (KeepUp): its bytes and a frame's worth.
func LineWork(n int) int64 { return int64(n) + int64(unsafe.Sizeof(event{})) }

// lost is what the observer misses of r when a queue drops it: its lines,
// and the bytes of all of them.
func (r *read) lost() (frames, bytes int64) {
	frames = int64(len(r.evs))
	return frames, r.work - frames*int64(unsafe.Sizeof(event{}))
}

// An entry of a queue: a read, or a gap (lost set) that stands for reads
// the observer did not get.
type entry struct {
	read *read
	t    time.Duration
	lost *transcript.Lost
}

// queue holds one observer's reads, up to a number of bytes. A read that
// does not fit is dropped and counted; the count reaches the observer as a
// gap frame before the next read that fits. For an observer that holds
// the traffic (Observer.Hold) the pump waits for room instead, while the
// observer keeps up (waitRoomLocked).
type queue struct {
	obs     Observer
	max     int64
	onError func(error)

	mu      sync.Mutex
	entries []entry
	head    int
	bytes   int64
	gap     *entry // reads dropped since the last one queued
	closed  bool
	failed  bool // the observer panicked: it gets nothing more
	wake    chan struct{}
	// urgent ends an observer's Delay early: the queue is half full, or
	// closed. (A token left from a push while the observer was busy ends
	// its next Delay at once: one early wake-up.)
	urgent chan struct{}
	done   chan struct{}
	// For Hold: room is signalled whenever the observer has taken reads
	// off the queue; behind is set when the pump gave up waiting, and
	// cleared once the queue is down to half. hold is the pace of the
	// stretch of holding the traffic (none when the traffic is not held),
	// counted in given.
	room   chan struct{}
	behind bool
	hold   pace
	// given counts the work (event.work) of the lines the observer has
	// been given, as it is given each (a read of many lines takes a
	// while), and givenLines the lines; pushed and pushedLines count what
	// was queued for it, so that what it was left without at the end is
	// known.
	given, givenLines   atomic.Int64
	pushed, pushedLines int64
	// dropped counts the lines and bytes dropped for it, told counts
	// those of the gaps it has been given.
	dropped, told transcript.Lost
	// stop ends delivery, between two lines: the tap gave up waiting
	// for the observer at the end.
	stop atomic.Bool
}

// The pump waits for an observer that holds the traffic as long as the
// observer is given at least holdMinBytes of lines (or a quarter of its
// queue, if that is less) in every holdWindow of holding it: at worst the
// traffic slows to that pace, where the cores are taken and the observer
// gets its share; an observer that does less (a slow disk, or one that
// hangs) is left behind, and its reads are dropped until it has caught up
// to half its queue. The tap waits for it at the end the same way.
const (
	holdWindow   = time.Second
	holdMinBytes = 1 << 20
)

// KeepUpWindow is the window of the rule by which the tap waits for work
// done behind the traffic (KeepUp): the work must move on by so much in
// every KeepUpWindow of waiting for it.
const KeepUpWindow = holdWindow

// KeepUpNeed is the work (LineWork) that an observer with a queue of
// queueBytes (DefaultQueueBytes when 0) must do in each KeepUpWindow to
// keep up: holdMinBytes, or a quarter of the queue if that is less, so
// that an observer a whole queue behind is waited for a bounded time.
func KeepUpNeed(queueBytes int) int64 {
	if queueBytes <= 0 {
		queueBytes = DefaultQueueBytes
	}
	return min(int64(holdMinBytes), int64(queueBytes)/4)
}

// KeepUp is the rule by which the tap waits for work done behind the
// traffic: for as long as the work keeps up, doing at least Need in every
// KeepUpWindow. The tap holds the traffic for an observer (Observer.Hold),
// and waits for it at the end, by this rule; the caller of Run waits by it
// for what it does behind an observer (Observer.End). Work that goes on at
// that pace is waited for a bounded time, at most what is left of it
// divided by Need windows and one to finish (MostStarved more, when it
// is kept from the CPU); work that stops, for one window.
type KeepUp struct {
	// Need is the work (LineWork) to do in each KeepUpWindow.
	Need int64
	// Left, when set, says how much work there is left to do: a window
	// that begins with less than Need left needs only that much done in
	// it, and one that begins with none left, the work's end (done): work
	// that catches up with the end of what it was given may take a window
	// to finish.
	Left func() int64
	// Starved, when set, is asked as the wait begins and at the end of
	// every window whether the work was kept from the CPU since it was
	// last asked, in the window: work that runs at the lowest
	// priority on a machine kept busy gets no CPU for seconds at a time,
	// and such a window does not count against it, up to MostStarved of
	// them in all. (Work that does not run, a hang, is kept from nothing;
	// work that runs and does nothing, a loop, only when the machine is
	// busy.)
	Starved     func() bool
	MostStarved time.Duration
}

// pace keeps the windows of the KeepUp rule: since is when the current
// window began (zero: none has), from the work done by then.
type pace struct {
	since time.Time
	from  int64
}

// start begins a window, unless one has begun; done is the work so far.
func (p *pace) start(done int64) {
	if p.since.IsZero() {
		p.since, p.from = time.Now(), done
	}
}

// keepingUp says whether the work, done so far, keeps up: yes while the
// window lasts; once it is over, whether need was done in it, and then
// the next window begins (none, when it was not).
func (p *pace) keepingUp(done, need int64) bool {
	if time.Since(p.since) < holdWindow {
		return true
	}
	if done-p.from < need {
		*p = pace{}
		return false
	}
	p.since, p.from = time.Now(), done
	return true
}

// left is what is left of the window.
func (p *pace) left() time.Duration { return holdWindow - time.Since(p.since) }

// MostStarved is how long in all, once the agent has exited, the tap
// waits for work behind it that is kept from the CPU (KeepUp.Starved):
// an observer's (Observer.Starved), and what the caller waits for by the
// same rule.
const MostStarved = 30 * time.Second

// errDeadline: an observer did not finish by Options.DrainTimeout.
var errDeadline = errors.New("deadline")

// Errors KeepUp.Wait gives up with.
var (
	// ErrFellBehind: in a window, the work did less than it needed to,
	// and did not wait for a CPU a quarter of it.
	ErrFellBehind = errors.New("fell behind")
	// ErrKeptFromCPU: the work was kept from the CPU for MostStarved,
	// and was still in the window after.
	ErrKeptFromCPU = errors.New("was kept from the CPU")
)

// Wait waits until done is closed, and returns nil, as long as the work
// that progress reports keeps up; when it does not, Wait gives up and
// says why, ErrFellBehind or ErrKeptFromCPU.
func (k KeepUp) Wait(done <-chan struct{}, progress func() int64) error {
	// need is what the window that begins now needs done.
	need := func() int64 {
		if k.Left == nil {
			return k.Need
		}
		return max(1, min(k.Need, k.Left()))
	}
	var p pace
	p.start(progress())
	windowNeed := need()
	var excused time.Duration
	if k.Starved != nil {
		k.Starved() // the first window begins
	}
	window := time.NewTimer(holdWindow)
	defer window.Stop()
	for {
		select {
		case <-done:
			return nil
		case <-window.C:
		}
		// Asked every window: it says what it saw since it was last
		// asked.
		starved := k.Starved != nil && k.Starved()
		if !p.keepingUp(progress(), windowNeed) {
			err := ErrFellBehind
			if starved {
				err = ErrKeptFromCPU
			}
			if !starved || excused >= k.MostStarved {
				select {
				case <-done: // finished with the window
					return nil
				default:
					return err
				}
			}
			excused += holdWindow
			p.start(progress())
		}
		windowNeed = need()
		window.Reset(p.left())
	}
}

func newQueue(o Observer, max int64, onError func(error)) *queue {
	q := &queue{obs: o, max: max, onError: onError, wake: make(chan struct{}, 1), urgent: make(chan struct{}, 1),
		done: make(chan struct{}), room: make(chan struct{}, 1)}
	go q.run()
	return q
}

// push queues r, or drops it when it does not fit.
func (q *queue) push(r *read) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed || q.failed {
		return
	}
	if q.bytes+r.cost > q.max && q.bytes > 0 && !q.waitRoomLocked(r.cost) {
		if !q.closed && !q.failed {
			frames, bytes := r.lost()
			q.dropLocked(r.t, frames, bytes, fmt.Sprintf("the %s fell behind by more than its %d-byte queue", q.obs.Name, q.max))
		}
		return
	}
	q.flushGapLocked()
	q.entries = append(q.entries, entry{read: r, t: r.t})
	q.bytes += r.cost
	q.pushedLines += int64(len(r.evs))
	q.pushed += r.work
	q.signal()
	if q.bytes > q.max/2 {
		notify(q.urgent)
	}
}

// waitRoomLocked waits, for an observer that holds the traffic, until
// size more bytes fit its queue, and says whether they do. It gives up
// when, in a holdWindow of holding the traffic (this wait and those
// before it since the queue was last down to half), the observer was
// given less than holdMinBytes, and then waits no more until the
// observer has caught up to half its queue. q.mu is held, and released
// while waiting.
func (q *queue) waitRoomLocked(size int64) bool {
	if !q.obs.Hold || q.behind {
		return false
	}
	// The observer must be woken now, whatever its Delay.
	q.signal()
	notify(q.urgent)
	q.hold.start(q.given.Load())
	var window *time.Timer
	defer func() {
		if window != nil {
			window.Stop()
		}
	}()
	for q.bytes+size > q.max && q.bytes > 0 {
		if q.closed || q.failed {
			return false
		}
		if !q.hold.keepingUp(q.given.Load(), q.holdNeed()) {
			q.behind = true
			return false
		}
		left := q.hold.left()
		if window == nil {
			window = time.NewTimer(left)
		} else {
			window.Reset(left)
		}
		q.mu.Unlock()
		select {
		case <-q.room:
		case <-window.C:
		}
		q.mu.Lock()
	}
	return !q.closed && !q.failed
}

// holdNeed is how much work (event.work) an observer that holds the
// traffic must be given in each holdWindow.
func (q *queue) holdNeed() int64 { return KeepUpNeed(int(q.max)) }

// drain waits, once the queue is closed, for the observer to finish: for
// one that holds the traffic as long as it keeps up (KeepUp, holdNeed in
// every holdWindow), for another until deadline. When it does not finish,
// it stops the observer between two lines and says what it was left
// without, and why (KeepUp.Wait's error, or errDeadline).
func (q *queue) drain(deadline <-chan time.Time) (left transcript.Lost, why error) {
	if q.obs.Hold {
		q.mu.Lock()
		pushed := q.pushed // the queue is closed: all there is
		q.mu.Unlock()
		toGive := func() int64 { return pushed - q.given.Load() }
		k := KeepUp{Need: q.holdNeed(), Left: toGive, Starved: q.obs.Starved, MostStarved: MostStarved}
		if why = k.Wait(q.done, q.given.Load); why != nil {
			return q.abandon(), why
		}
		return left, nil
	}
	select {
	case <-q.done:
		return left, nil
	case <-deadline:
		return q.abandon(), errDeadline
	}
}

// abandon stops delivery and returns what the observer was not given.
func (q *queue) abandon() transcript.Lost {
	q.stop.Store(true)
	q.mu.Lock()
	defer q.mu.Unlock()
	q.failed = true
	lines := q.pushedLines - q.givenLines.Load()
	return transcript.Lost{
		Frames: lines + q.dropped.Frames - q.told.Frames,
		Bytes:  q.pushed - q.given.Load() - lines*int64(unsafe.Sizeof(event{})) + q.dropped.Bytes - q.told.Bytes,
	}
}

// dropLocked counts frames lines of n bytes that this observer will not
// get, in the pending gap.
func (q *queue) dropLocked(t time.Duration, frames, n int64, reason string) {
	if q.gap != nil && q.gap.lost.Reason != reason {
		q.flushGapLocked()
	}
	if q.gap == nil {
		q.gap = &entry{t: t, lost: &transcript.Lost{Reason: reason}}
	}
	q.gap.lost.Frames += frames
	q.gap.lost.Bytes += n
	q.dropped.Frames += frames
	q.dropped.Bytes += n
}

// flushGapLocked queues the pending gap, if any. Gaps hold no line bytes,
// so they are queued whatever the queue holds: there is at most one per
// read that was queued.
func (q *queue) flushGapLocked() {
	if q.gap != nil {
		q.entries = append(q.entries, *q.gap)
		q.gap = nil
		q.signal()
	}
}

func (q *queue) signal() { notify(q.wake) }

// notify sends on c, a channel of one slot, unless a send is pending.
func notify(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

func (q *queue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.flushGapLocked()
	q.closed = true
	q.signal()
	notify(q.urgent)
	notify(q.room) // a pump waiting for room stops waiting
}

// deliverBytes bounds what the observer's goroutine takes off the queue
// under one lock (one read at least), so that room shows up as the
// observer works through a backlog, not only once it has.
const deliverBytes = 256 << 10

func (q *queue) run() {
	defer close(q.done)
	var delay *time.Timer
	if q.obs.Delay > 0 {
		delay = time.NewTimer(q.obs.Delay)
		delay.Stop()
	}
	var work []entry
	var tooLong tooLongRun // lines too long to keep, not yet told
	failed := false
	for {
		q.mu.Lock()
		if q.head == len(q.entries) && !q.closed {
			for q.head == len(q.entries) && !q.closed {
				q.mu.Unlock()
				<-q.wake
				q.mu.Lock()
			}
			if delay != nil && !q.closed && q.bytes <= q.max/2 {
				// Let the reads gather: the pump's signals meanwhile
				// find the wake slot full and wake nobody.
				q.mu.Unlock()
				delay.Reset(q.obs.Delay)
				select {
				case <-delay.C:
				case <-q.urgent:
					delay.Stop()
				}
				q.mu.Lock()
			}
		}
		if q.head == len(q.entries) {
			failed = q.failed
			q.mu.Unlock()
			if !failed {
				q.call(func() { q.flushTooLong(&tooLong) })
			}
			if q.obs.End != nil {
				// Even after a panic: the caller waits for the End.
				q.call(q.obs.End)
			}
			return
		}
		var taken int64
		for q.head < len(q.entries) && (len(work) == 0 || taken < deliverBytes) {
			e := q.entries[q.head]
			q.entries[q.head] = entry{}
			q.head++
			work = append(work, e)
			if e.read != nil {
				taken += e.read.cost
			}
		}
		failed = q.failed
		q.mu.Unlock()

		for _, e := range work {
			if !failed {
				failed = !q.deliver(e, &tooLong)
			}
		}
		clear(work)
		work = work[:0]

		q.mu.Lock()
		q.bytes -= taken
		if q.bytes <= q.max/2 {
			// Caught up: the traffic may be held again, afresh.
			q.behind, q.hold = false, pace{}
		}
		notify(q.room)
		empty := q.head == len(q.entries)
		if empty || q.head > len(q.entries)/2 {
			q.entries = append(q.entries[:0], q.entries[q.head:]...)
			q.head = 0
		}
		failed = q.failed
		q.mu.Unlock()
		if empty && !failed {
			q.call(func() { q.flushTooLong(&tooLong) })
			if q.obs.Idle != nil {
				q.call(q.obs.Idle)
			}
		}
	}
}

// deliver gives the observer what e holds, a frame for each line of a
// read or a gap, and says whether the observer is still working (it did
// not panic). Lines too long to keep in a row, of one length from one
// side, are told as one gap, gathered in tooLong until a frame of another
// kind comes or the queue runs empty (flushTooLong).
func (q *queue) deliver(e entry, tooLong *tooLongRun) bool {
	return q.call(func() {
		if e.lost != nil {
			q.flushTooLong(tooLong)
			q.mu.Lock()
			q.told.Frames += e.lost.Frames
			q.told.Bytes += e.lost.Bytes
			q.mu.Unlock()
			q.obs.Frame(transcript.Frame{T: e.t, Conn: 1, Lost: e.lost})
			return
		}
		r := e.read
		for _, ev := range r.evs {
			if q.stop.Load() {
				return
			}
			// Counted as given before the observer has it: a line it is
			// working on when it is stopped is not also counted as left.
			q.given.Add(ev.work())
			q.givenLines.Add(1)
			if ev.tooLong > 0 {
				if tooLong.gap.Lost != nil && (tooLong.from != r.from || tooLong.n != ev.tooLong) {
					q.flushTooLong(tooLong)
				}
				if tooLong.gap.Lost == nil {
					// The reason is written once a run, not once a line.
					reason := fmt.Sprintf("a line of %d bytes from the %s is longer than the %d bytes the tap keeps (--max-line); it was forwarded whole", ev.tooLong, r.from, r.maxLine)
					*tooLong = tooLongRun{from: r.from, n: ev.tooLong, gap: transcript.Frame{T: r.t, Conn: 1, Lost: &transcript.Lost{Reason: reason}}}
				}
				tooLong.gap.Lost.Frames++
				tooLong.gap.Lost.Bytes += int64(ev.tooLong)
			} else {
				q.flushTooLong(tooLong)
				q.obs.Frame(transcript.Frame{From: r.from, T: r.t, Conn: 1, Data: ev.data})
			}
		}
	})
}

// tooLongRun gathers lines too long to keep, in a row, of n bytes from
// one side, into one gap frame (gap.Lost is nil when it holds none).
type tooLongRun struct {
	from domain.Direction
	n    int
	gap  transcript.Frame
}

// flushTooLong gives the observer the gap that tooLong holds, if any.
func (q *queue) flushTooLong(tooLong *tooLongRun) {
	if tooLong.gap.Lost != nil {
		q.obs.Frame(tooLong.gap)
		*tooLong = tooLongRun{}
	}
}

// call runs one of the observer's functions; a panic stops the observer,
// not the tap. It says whether fn returned.
func (q *queue) call(fn func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			q.mu.Lock()
			q.failed = true
			q.mu.Unlock()
			q.trouble(fmt.Errorf("%s stopped after an internal error: panic: %v", q.obs.Name, r))
		}
	}()
	fn()
	return true
}

func (q *queue) trouble(err error) {
	if q.onError != nil {
		q.onError(err)
	}
}
