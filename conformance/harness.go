package conformance

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/internal/procgroup"
)

// AgentCommand is how to start the agent under test.
type AgentCommand struct {
	Path string   // program; looked up in PATH when it has no slash
	Args []string // arguments after the program
	Dir  string   // working directory; the current one when empty
	Env  []string // extra environment, added to acplint's own
}

func (c AgentCommand) String() string {
	return fmt.Sprint(append([]string{c.Path}, c.Args...))
}

// frame is one line the agent wrote on stdout.
type frame struct {
	line []byte // without its terminator
	num  int    // transcript line number
	at   time.Time
	size int // bytes it holds against maxInFlight
	// end is how many bytes the agent had written on stdout up to the end
	// of this line.
	end int64
	// rec is the transcript the line went to (nil between two sequences):
	// a line of one sequence is never handled by the next on the same
	// process.
	rec *Transcript
}

// proc is one running agent process with its stdio.
type proc struct {
	cmd    *exec.Cmd
	stdin  *os.File
	frames chan frame
	// eof is closed when stdout reached end of file (or failed).
	eof chan struct{}
	// exited is closed when the process has been waited for.
	exited  chan struct{}
	waitErr error
	stderr  *tailBuffer
	start   time.Time

	writeMu sync.Mutex
	closed  bool // stdin closed

	maxLine int
	stdout  *os.File
	// pulled counts the bytes the reader has taken from the stdout pipe.
	pulled atomic.Int64
	// Lines read but not yet handled by the client are bounded by bytes,
	// not only by count: flow guards inFlight, and the reader waits while
	// it is over maxInFlight (one line is always let through).
	flow     sync.Mutex
	flowCond *sync.Cond
	inFlight int
	stopped  bool
	stopCh   chan struct{}

	// recMu guards where lines are recorded: rec is the running sequence's
	// transcript, nil while the process waits between two sequences
	// (between then counts the lines the agent wrote all the same).
	recMu   sync.Mutex
	rec     *Transcript
	between int
	// handshake collects the records of the process's start, until
	// endHandshake, for the sequences that share the process (see
	// agentConn); capturing is false once it is over or too big to keep.
	handshake []numberedRecord
	capturing bool
}

// numberedRecord is a record with its line number in its transcript.
type numberedRecord struct {
	num int
	Record
}

// maxHandshake bounds the records of a process's start kept for replay:
// an initialize request and its response, and nothing else.
const maxHandshake = 2

// maxInFlight bounds the bytes of agent lines read ahead of the client.
// Beyond it the reader stops reading, the pipe fills and the agent waits:
// the harness, not the agent, sets the pace.
const maxInFlight = 4 << 20

// stderrGrace is how long the agent's stderr is read after the agent
// exited, for anything else that still holds it.
const stderrGrace = time.Second

// maxStderr bounds what is kept of the agent's stderr: its tail says why
// it failed, the rest is noise.
const maxStderr = 64 << 10

// startProc starts the agent with its stdio on pipes. The agent runs in a
// process group of its own so that signals reach a wrapper's children too
// (`go run`, `npx`, shell scripts).
func startProc(c AgentCommand, rec *Transcript, maxLine int) (*proc, error) {
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), c.Env...)
	cmd.SysProcAttr = procgroup.Attr()
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	p := &proc{
		cmd:     cmd,
		stdin:   inW,
		rec:     rec,
		frames:  make(chan frame, 256),
		eof:     make(chan struct{}),
		exited:  make(chan struct{}),
		stderr:  &tailBuffer{max: maxStderr},
		maxLine: maxLine,
		stdout:  outR,
		stopCh:  make(chan struct{}),

		capturing: true,
	}
	p.flowCond = sync.NewCond(&p.flow)
	cmd.Stdin = inR
	cmd.Stdout = outW
	cmd.Stderr = p.stderr
	// A process that escaped the agent's group (setsid) may hold stderr
	// open for ever: once the agent exited, Wait gives up on it after this.
	cmd.WaitDelay = stderrGrace
	p.start = time.Now()
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	go p.read(outR)
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// read records every stdout line the moment it arrives and hands it to
// the client. A line longer than maxLine is not kept: it is streamed past
// and recorded as a gap of its length.
func (p *proc) read(r *os.File) {
	defer close(p.eof)
	defer close(p.frames)
	defer r.Close()
	br := bufio.NewReaderSize(countingReader{r, &p.pulled}, 64<<10)
	var end int64
	for {
		line, skipped, err := readLine(br, p.maxLine)
		end += int64(len(line)) + skipped
		switch {
		case skipped > 0:
			p.record(Record{Dir: domain.FromAgent, lostBytes: skipped})
		case len(line) > 0:
			num, at, rec := p.record(Record{Dir: domain.FromAgent, Line: line})
			body := bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
			f := frame{line: body, num: num, at: at, size: len(line), end: end, rec: rec}
			if !p.reserve(f.size) {
				return
			}
			select {
			case p.frames <- f:
			case <-p.stopCh:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n.Add(int64(n))
	return n, err
}

// written is how many bytes the agent has written on stdout so far: those
// the reader took from the pipe and those still in it. It is false where
// the pipe's content cannot be told (see unreadBytes). It may count a few
// bytes written just after it was called, never fewer than were written
// before.
func (p *proc) written() (int64, bool) {
	for {
		before := p.pulled.Load()
		unread, ok := unreadBytes(p.stdout)
		if !ok {
			return 0, false
		}
		if after := p.pulled.Load(); after == before {
			return before + unread, true
		}
		// The reader took bytes meanwhile, which unread may or may not
		// count: ask again.
	}
}

// record adds r, stamped now, to the running sequence's transcript, and
// returns its line number, its time and the transcript (nil, counted in
// between, when no sequence is running).
func (p *proc) record(r Record) (int, time.Time, *Transcript) {
	p.recMu.Lock()
	defer p.recMu.Unlock()
	r.At = time.Now()
	rec := p.rec
	if rec == nil {
		p.between++
		return 0, r.At, nil
	}
	num, at := rec.addRecord(r)
	if p.capturing {
		if len(p.handshake) < maxHandshake && r.lostBytes == 0 {
			r.Line = bytes.Clone(r.Line)
			p.handshake = append(p.handshake, numberedRecord{num, r})
		} else {
			p.capturing, p.handshake = false, nil
		}
	}
	return num, at, rec
}

// endHandshake stops collecting the process's start and returns its
// records when they are exactly an initialize request (line 1) and its
// response (line respLine, 2): what a sequence that shares the process
// replays as its own start. Otherwise it returns nil, and the process
// serves no other sequence.
func (p *proc) endHandshake(respLine int) []Record {
	p.recMu.Lock()
	defer p.recMu.Unlock()
	hs := p.handshake
	ok := p.capturing && respLine == 2 && len(hs) == 2 &&
		hs[0].num == 1 && hs[0].Dir == domain.FromClient && hs[1].num == 2 && hs[1].Dir == domain.FromAgent
	p.capturing, p.handshake = false, nil
	if !ok {
		return nil
	}
	return []Record{hs[0].Record, hs[1].Record}
}

// park stops recording once a sequence is over and the process waits to
// serve the next.
func (p *proc) park() {
	p.recMu.Lock()
	defer p.recMu.Unlock()
	p.rec, p.between = nil, 0
}

// resume records into rec, for the next sequence on a parked process. It
// is false, and records nothing, when the process is unfit to serve it:
// the agent exited, or said something while no sequence was running (or
// after the last one stopped listening), which no sequence would answer.
func (p *proc) resume(rec *Transcript) bool {
	p.recMu.Lock()
	defer p.recMu.Unlock()
	if p.between > 0 || len(p.frames) > 0 || !p.alive() {
		return false
	}
	p.rec = rec
	return true
}

// readLine reads one line with its terminator. A line longer than max
// bytes is consumed without being kept: it returns nil and the line's
// length.
func readLine(br *bufio.Reader, max int) (line []byte, skipped int64, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case skipped > 0:
			skipped += int64(len(chunk))
		case len(line)+len(chunk) > max:
			skipped = int64(len(line) + len(chunk))
			line = nil
		default:
			line = append(line, chunk...)
		}
		if err != bufio.ErrBufferFull {
			return line, skipped, err
		}
	}
}

// reserve waits until size more bytes may be in flight to the client; it
// is false once the harness stopped reading.
func (p *proc) reserve(size int) bool {
	p.flow.Lock()
	defer p.flow.Unlock()
	for p.inFlight > 0 && p.inFlight+size > maxInFlight && !p.stopped {
		p.flowCond.Wait()
	}
	p.inFlight += size
	return !p.stopped
}

// received returns a frame's bytes to the flow budget once the client has
// it.
func (p *proc) received(f frame) {
	p.flow.Lock()
	p.inFlight -= f.size
	p.flow.Unlock()
	p.flowCond.Signal()
}

// stop ends reading: the reader returns (closing the stdout pipe, which a
// surviving grandchild then finds broken) and nothing more is recorded.
// It returns once the reader has, and the agent has been waited for (or
// could not be: it survived SIGKILL).
func (p *proc) stop() {
	p.flow.Lock()
	if !p.stopped {
		p.stopped = true
		close(p.stopCh)
	}
	p.flow.Unlock()
	p.flowCond.Broadcast()
	// Unblocks a read in progress: the pipe is in the runtime's poller.
	p.stdout.Close()
	<-p.eof
	select {
	case <-p.exited:
	case <-time.After(stderrGrace + 100*time.Millisecond):
	}
}

// errStdinClosed is returned by send after the harness closed stdin.
var errStdinClosed = errors.New("stdin already closed")

// send writes one line to the agent's stdin. The line is recorded before
// it is written, so that anything the agent says in reply comes after it.
// A write that blocks longer than timeout (an agent that stopped reading
// stdin) fails.
func (p *proc) send(line []byte, timeout time.Duration) (int, time.Time, error) {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	if p.closed {
		return 0, time.Time{}, errStdinClosed
	}
	full := append(bytes.Clone(line), '\n')
	num, at, _ := p.record(Record{Dir: domain.FromClient, Line: full})
	if timeout > 0 {
		_ = p.stdin.SetWriteDeadline(time.Now().Add(timeout))
	}
	_, err := p.stdin.Write(full)
	return num, at, err
}

// sendChunked is send with the line written in three pieces, pause apart:
// what a client that flushes part of a message at a time does.
func (p *proc) sendChunked(line []byte, timeout time.Duration, pause time.Duration) (int, time.Time, error) {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	if p.closed {
		return 0, time.Time{}, errStdinClosed
	}
	full := append(bytes.Clone(line), '\n')
	num, at, _ := p.record(Record{Dir: domain.FromClient, Line: full})
	if timeout > 0 {
		_ = p.stdin.SetWriteDeadline(time.Now().Add(timeout))
	}
	cut1, cut2 := len(full)/3, 2*len(full)/3
	for i, piece := range [][]byte{full[:cut1], full[cut1:cut2], full[cut2:]} {
		if i > 0 {
			time.Sleep(pause)
		}
		if _, err := p.stdin.Write(piece); err != nil {
			return num, at, err
		}
	}
	return num, at, nil
}

// closeStdin closes the agent's stdin once.
func (p *proc) closeStdin() {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	if !p.closed {
		p.closed = true
		p.stdin.Close()
	}
}

// pid is the agent's process id, the leader of its process group.
func (p *proc) pid() int {
	if p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// alive reports whether the process is still running.
func (p *proc) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// CloseStep says which rung of the close ladder ended the agent.
type CloseStep string

const (
	ClosedBefore  CloseStep = "exited on its own" // before the harness began closing
	ClosedOnStdin CloseStep = "stdin closed"      // exited after stdin was closed
	ClosedOnTerm  CloseStep = "SIGTERM"           // needed SIGTERM
	ClosedOnKill  CloseStep = "SIGKILL"           // needed SIGKILL
	ClosedNever   CloseStep = "still running"     // survived SIGKILL (should not happen)
)

// shutdown runs the close ladder: close stdin, then SIGTERM, then
// SIGKILL, giving the agent grace to exit at each rung while stdout keeps
// being drained (so that an agent blocked on a full pipe can still exit,
// and everything it says on the way out is recorded). drain receives the
// frames read meanwhile.
//
// The first rung, the one an agent is judged by (CHECK-CLOSE), waits
// stdinGrace, stretched by the time the machine's load kept the agent or
// the harness from running meanwhile (see stallMeter); shutdown returns
// how long that was. The other rungs wait grace.
//
// Once interrupt is closed (the user stopped the check), each rung waits
// at most interruptGrace, including the one in progress.
func (p *proc) shutdown(stdinGrace, grace time.Duration, interrupt <-chan struct{}, drain func(frame)) (CloseStep, time.Duration) {
	l := &ladder{grace: grace, interrupt: interrupt}
	step := p.closeLadder(l, stdinGrace, drain)
	// Whatever the rung, nothing of the agent's process group outlives the
	// run: a grandchild (a wrapper's child, a forked helper) that still
	// holds stdout open, or that the agent left behind when it exited.
	p.signal(syscall.SIGKILL)
	return step, l.stdinWait
}

// signal sends sig to the agent's whole process group.
func (p *proc) signal(sig syscall.Signal) {
	if p.cmd.Process != nil {
		procgroup.Signal(p.cmd.Process.Pid, sig)
	}
}

// ladder is the grace of the close ladder's rungs, which an interrupt
// shortens.
type ladder struct {
	grace     time.Duration
	interrupt <-chan struct{}
	// stdinWait is how long the first rung waited for the agent to exit at
	// most, once stretched for the load.
	stdinWait time.Duration
}

func (p *proc) closeLadder(l *ladder, stdinGrace time.Duration, drain func(frame)) CloseStep {
	already := !p.alive()
	p.closeStdin()
	var load *stallMeter
	if !already {
		load = newStallMeter(p.pid(), false, stdinGrace)
	}
	exited := p.waitExit(l, stdinGrace, load, drain)
	load.close()
	if exited {
		if already {
			return ClosedBefore
		}
		return ClosedOnStdin
	}
	p.signal(syscall.SIGTERM)
	if p.waitExit(l, l.grace, nil, drain) {
		return ClosedOnTerm
	}
	p.signal(syscall.SIGKILL)
	if p.waitExit(l, l.grace, nil, drain) {
		return ClosedOnKill
	}
	return ClosedNever
}

// waitExit drains stdout until the process has exited and stdout is at
// end of file, or grace is over, stretched by what load measures (when
// not nil). A process that exited while something else (a grandchild)
// still holds stdout open counts as exited when the grace period ends.
func (p *proc) waitExit(l *ladder, grace time.Duration, load *stallMeter, drain func(frame)) bool {
	interrupt := l.interrupt
	interrupted := func() {
		interrupt, load = nil, nil
		l.grace = min(l.grace, interruptGrace)
		grace = min(grace, interruptGrace)
	}
	select {
	case <-interrupt:
		interrupted()
	default:
	}
	began := time.Now()
	if load != nil {
		l.stdinWait = grace
	}
	timer := time.NewTimer(grace)
	defer timer.Stop()
	frames := p.frames
	exited := p.exited
	for {
		select {
		case <-interrupt:
			interrupted()
			timer.Reset(grace)
		case f, ok := <-frames:
			if !ok {
				frames = nil
				if exited == nil {
					return true
				}
				continue
			}
			p.received(f)
			if drain != nil {
				drain(f)
			}
		case <-exited:
			exited = nil
			if frames == nil {
				return true
			}
		case <-timer.C:
			if load != nil {
				if stretched := load.stretch(grace); time.Until(began.Add(stretched)) > 0 {
					// The load kept the agent from running: it gets that time
					// back.
					timer.Reset(time.Until(began.Add(stretched)))
					l.stdinWait = stretched
					continue
				}
			}
			return exited == nil
		}
	}
}

// exitStatus describes how the process ended.
func (p *proc) exitStatus() string {
	if p.alive() {
		return "running"
	}
	if p.waitErr == nil {
		return "exit status 0"
	}
	var ee *exec.ExitError
	if errors.As(p.waitErr, &ee) {
		return ee.ProcessState.String()
	}
	return p.waitErr.Error()
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu      sync.Mutex
	max     int
	buf     []byte
	dropped int
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.max; over > 0 {
		t.dropped += over
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(b), nil
}

// Bytes returns what is kept, with a note when the head was dropped.
func (t *tailBuffer) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dropped == 0 {
		return bytes.Clone(t.buf)
	}
	return append([]byte(fmt.Sprintf("[… %d earlier bytes dropped]\n", t.dropped)), t.buf...)
}

var _ io.Writer = (*tailBuffer)(nil)
