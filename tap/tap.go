// Package tap sits between an editor and an ACP agent: it starts the
// agent, forwards both byte streams unchanged, and hands every line that
// crosses to observers (recording, live linting).
//
// Forwarding is the one path that must never fail, so nothing else is on
// it. Bytes go to the other side as soon as they are read; each observer
// gets what was read through its own queue, bounded in bytes, and cuts it
// into lines on its own goroutine. An observer that falls behind by more
// than its queue, or a line longer than Options.MaxLine, costs that
// observer frames, never the connection: the frames are dropped and the
// observer is told where and how many (a gap frame, transcript.Lost). A
// panic in an observer stops that observer only.
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
	// exited, for observers to finish what is queued.
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
	// QueueBytes bounds what waits for each observer: the blocks of
	// memory its chunks of the traffic sit in, and a frame's overhead for
	// each line in them (DefaultQueueBytes when 0).
	QueueBytes int
	// DrainTimeout bounds the wait for observers at the end
	// (DefaultDrainTimeout when 0).
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
	// set stands for the frames this observer missed at that point. The
	// frame's Data is the tap's until Frame returns (a slice of what it
	// read, shared with the other observers): one that keeps a line
	// copies it.
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
	// Background runs the observer on a thread of its own at a lower CPU
	// priority (Linux): on a machine whose cores are taken, it falls
	// behind into its queue instead of taking the time of the forwarding.
	Background bool
}

// Result describes how the agent ended.
type Result struct {
	// ExitCode is the agent's exit code, or 128+signal when a signal
	// killed it, the convention of shells (and what the editor expects).
	ExitCode int
	// Frames counts the lines that crossed in each direction.
	FromClient, FromAgent int
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
	blocks := newBlockPool(blockSizeFor(opts.QueueBytes))
	if len(opts.Observers) > 0 {
		// While the agent starts.
		go blocks.warm(warmBlocks)
	}
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
		blocks.close()
		return Result{}, fmt.Errorf("tap: starting the agent: %w", err)
	}
	// Setpgid: the group's id is the pid of its leader, the supervisor or
	// the agent.
	group := cmd.Process.Pid

	fan := newFanout(opts, blocks)
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
	fan.close(opts.DrainTimeout)
	res := Result{ExitCode: exitCode(cmd.ProcessState, werr)}
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

// fanout gives what both pumps read to every observer's queue, in one
// order for all of them, and counts the lines that cross.
//
// The forwarding path does no per-line work: a pump reads a chunk into a
// block of memory, hands the chunk itself (a slice of the block, not a
// copy) to the queues and writes it to the other side. Each observer cuts
// its chunks into lines on its own goroutine (lineCutter). A block goes
// back to the pool once the pump has moved on from it and no queue holds a
// chunk of it, so in steady traffic the tap allocates nothing and its
// collector has nothing to do. Cutting lines, copying them and queuing each
// on the forwarding goroutine cost it three times the relay's time when an
// agent streamed.
type fanout struct {
	maxLine int
	mu      sync.Mutex // orders the two pumps' chunks
	queues  []*queue
	n       [3]int
	blocks  *blockPool
	// agentBytes counts bytes read from the agent, to tell a busy agent
	// from a hung one.
	agentBytes atomic.Int64
}

func newFanout(opts Options, blocks *blockPool) *fanout {
	f := &fanout{maxLine: opts.MaxLine, blocks: blocks}
	for _, o := range opts.Observers {
		f.queues = append(f.queues, newQueue(o, int64(opts.QueueBytes), opts.MaxLine, opts.OnTrouble))
	}
	return f
}

// blockSizeFor sizes the blocks the pumps read into for queues of
// queueBytes: a queue is charged a whole block for each block it holds a
// chunk of (that is the memory it keeps), so a block is a small part of a
// queue.
func blockSizeFor(queueBytes int) int {
	return min(max(queueBytes/16, 4<<10), 1<<20)
}

// maxRead bounds one read of a pump (as the relay reads, and more than a
// pipe holds).
const maxRead = 256 << 10

var newline = []byte{'\n'}

// pump copies src to dst as bytes arrive and gives each chunk to the
// observers. When dst stops taking bytes, onWriteFail is called once and
// the rest of src is still read (and observed), so the writer on the other
// end never blocks.
func (f *fanout) pump(src io.Reader, dst io.Writer, from domain.Direction, start time.Time, onWriteFail func()) {
	observed := len(f.queues) > 0
	var plain []byte // the buffer, with no observer
	if !observed {
		plain = make([]byte, maxRead)
	}
	var b *block // the block read into, with observers
	off := 0
	writeOK := true
	unterminated := false // the bytes so far end inside a line
	lineSoFar := 0        // the bytes so far of the line they end in
	for {
		buf := plain
		if observed {
			if b == nil || len(b.buf)-off < len(b.buf)/16 {
				if b != nil {
					b.release()
				}
				b, off = f.blocks.get(), 0
			}
			buf = b.buf[off:min(len(b.buf), off+maxRead)]
		}
		n, err := src.Read(buf)
		if from == domain.FromAgent {
			f.agentBytes.Add(int64(n))
		}
		if n > 0 {
			data := buf[:n]
			lines := bytes.Count(data, newline)
			unterminated = data[n-1] != '\n'
			// The chunk goes to the observers before the bytes go on
			// (queuing never blocks): a write to the peer may block, and
			// the peer may answer a line before the write returns; the
			// recording must not show the answer before the line.
			switch {
			case observed && lines == 0 && lineSoFar+n > f.maxLine:
				// Inside a line longer than any observer keeps: they are
				// told how long it is, and no queue holds its bytes.
				f.skip(from, time.Since(start), n)
			case observed:
				f.send(chunk{b: b, data: data, from: from, t: time.Since(start), lines: lines})
				off += n
			}
			if lines > 0 {
				lineSoFar = n - 1 - bytes.LastIndexByte(data, '\n')
			} else {
				lineSoFar += n
			}
			if !observed {
				f.count(from, lines)
			}
			if writeOK {
				if _, werr := dst.Write(data); werr != nil {
					writeOK = false
					if onWriteFail != nil {
						onWriteFail()
					}
				}
			}
		}
		if err != nil {
			// A last line without "\n" is still traffic.
			if unterminated {
				f.count(from, 1)
			}
			if observed {
				f.end(from, time.Since(start))
				b.release()
			}
			return
		}
	}
}

// count counts n lines that cross.
func (f *fanout) count(from domain.Direction, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n[from] += n
}

func (f *fanout) send(c chunk) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n[c.from] += c.lines
	for _, q := range f.queues {
		q.push(c)
	}
}

// skip tells the observers of n bytes of a line too long to keep.
func (f *fanout) skip(from domain.Direction, t time.Duration, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, q := range f.queues {
		q.pushSkip(from, t, int64(n))
	}
}

// end tells the observers that the stream from one side has ended: a
// last line without "\n" is a line too.
func (f *fanout) end(from domain.Direction, t time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, q := range f.queues {
		q.pushEnd(from, t)
	}
}

func (f *fanout) close(timeout time.Duration) {
	f.mu.Lock()
	for _, q := range f.queues {
		q.close()
	}
	f.mu.Unlock()
	deadline := time.After(timeout)
	for _, q := range f.queues {
		select {
		case <-q.done:
		case <-deadline:
			q.trouble(fmt.Errorf("%s did not finish within %v of the agent's exit; what it had not written is lost", q.obs.Name, timeout))
			return
		}
	}
}

func (f *fanout) counts() (client, agent int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n[domain.FromClient], f.n[domain.FromAgent]
}

// A block is memory a pump reads into; the chunks cut from it share it.
// refs counts the pump (while it reads into the block) and the queued
// chunks; the last to let go gives the block back to its pool.
type block struct {
	buf    []byte
	mapped bool // buf is mapped memory (newBlockMemory)
	refs   atomic.Int32
	pool   *blockPool
}

func (b *block) release() {
	if b.refs.Add(-1) == 0 && b.pool != nil {
		b.pool.put(b)
	}
}

// blockPool keeps a few blocks for reuse, so that steady traffic
// allocates nothing; what an observer that fell behind held beyond them
// goes back to the system when it lets go.
type blockPool struct {
	size   int
	mu     sync.Mutex
	free   []*block
	closed bool // nothing will use the pool: it keeps nothing
}

// keptBlocks is how many free blocks a pool keeps; warmBlocks how many it
// makes ready before the traffic starts (warm).
const (
	keptBlocks = 8
	warmBlocks = 8
)

func newBlockPool(size int) *blockPool { return &blockPool{size: size} }

// warm puts n blocks in the pool with their memory touched. A block's
// first use costs a page fault per page, taken by the pump that reads
// into it; when an agent streams, the observers fall behind (on a busy
// machine, by design: Observer.Background) and the pump needs a fresh
// block per megabyte: the faults were most of what a recorder still cost
// the forwarding. Done while the agent starts, they cost it nothing.
func (p *blockPool) warm(n int) {
	page := os.Getpagesize()
	for range n {
		b := &block{pool: p}
		b.buf, b.mapped = newBlockMemory(p.size)
		for i := 0; i < len(b.buf); i += page {
			b.buf[i] = 0
		}
		p.mu.Lock()
		full := p.closed || len(p.free) >= keptBlocks
		if !full {
			p.free = append(p.free, b)
		}
		p.mu.Unlock()
		if full {
			freeBlockMemory(b.buf, b.mapped)
			return
		}
	}
}

// close frees the blocks kept, and those warm makes from now on.
func (p *blockPool) close() {
	p.mu.Lock()
	free := p.free
	p.free, p.closed = nil, true
	p.mu.Unlock()
	for _, b := range free {
		freeBlockMemory(b.buf, b.mapped)
	}
}

// get returns a block with one reference, its caller's.
func (p *blockPool) get() *block {
	p.mu.Lock()
	var b *block
	if n := len(p.free); n > 0 {
		b = p.free[n-1]
		p.free[n-1] = nil
		p.free = p.free[:n-1]
	}
	p.mu.Unlock()
	if b == nil {
		b = &block{pool: p}
		b.buf, b.mapped = newBlockMemory(p.size)
	}
	b.refs.Store(1)
	return b
}

func (p *blockPool) put(b *block) {
	p.mu.Lock()
	kept := len(p.free) < keptBlocks
	if kept {
		p.free = append(p.free, b)
	}
	p.mu.Unlock()
	if !kept {
		// Nobody holds a slice of it: every chunk of it has been
		// released, and observers copy what they keep.
		freeBlockMemory(b.buf, b.mapped)
		b.buf = nil
	}
}

// A chunk is what one read of a pump gave: data, a slice of block b, and
// how many lines end in it.
type chunk struct {
	b     *block
	data  []byte
	from  domain.Direction
	t     time.Duration
	lines int
}

// An item is what a queue holds: a chunk, or bytes of one side the
// observer missed (dropped), or the end of one side's stream.
type item struct {
	kind  itemKind
	from  domain.Direction
	t     time.Duration
	b     *block // a chunk's block, which the item holds a reference to
	data  []byte
	lines int // lines that end in data, or in the dropped bytes
	// For a drop: how many bytes, and how many of them follow the last
	// "\n" (the start of a line whose end the observer may still get).
	dropped, tail int64
	// cost is what the queue was charged for the item.
	cost int64
}

type itemKind uint8

const (
	itemChunk itemKind = iota
	itemDrop
	itemEnd
	// itemSkip stands for bytes (in dropped) of a line already longer
	// than Options.MaxLine.
	itemSkip
)

// itemCost is what an item costs a queue besides its block and lines, so
// that a flood of one-byte reads is bounded by the queue as well.
const itemCost = int64(unsafe.Sizeof(item{}))

// frameCost is what a line costs a queue: a frame made of it, so that a
// flood of empty lines is bounded by the queue like any other traffic.
func frameCost(f transcript.Frame) int64 {
	return int64(len(f.Data)) + int64(unsafe.Sizeof(f))
}

// queue holds one observer's chunks, up to a number of bytes: for each
// block it holds a chunk of, the block, and for each line, a frame. A
// chunk that does not fit is dropped, or as many of its first lines as fit
// are kept; the observer is told what it missed (lineCutter), at that
// point, as a gap frame.
type queue struct {
	obs     Observer
	max     int64
	onError func(error)
	cut     lineCutter

	mu    sync.Mutex
	items []item
	head  int
	bytes int64
	// lastBlock is the block of the last chunk queued from each side: a
	// chunk of another block is charged that block.
	lastBlock [3]*block
	// drops holds, for each side, what was dropped since the last item
	// queued, until the next one is.
	drops  [3]item
	closed bool
	failed bool // the observer panicked: it gets nothing more
	wake   chan struct{}
	// urgent ends an observer's Delay early: the queue is half full, or
	// closed. (A token left from a push while the observer was busy ends
	// its next Delay at once: one early wake-up.)
	urgent chan struct{}
	// behind wakes a Background observer's assistant: the queue is more
	// than half full.
	behind chan struct{}
	done   chan struct{}
	// work is held while the observer is given an item: by its own
	// goroutine, or by its assistant.
	work sync.Mutex
}

func newQueue(o Observer, max int64, maxLine int, onError func(error)) *queue {
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	q := &queue{obs: o, max: max, onError: onError, wake: make(chan struct{}, 1), urgent: make(chan struct{}, 1),
		behind: make(chan struct{}, 1), done: make(chan struct{})}
	q.cut = lineCutter{maxLine: maxLine, behind: fmt.Sprintf("the %s fell behind by more than its %d-byte queue", o.Name, max), deliver: o.Frame}
	go q.run()
	return q
}

var lineCost = frameCost(transcript.Frame{})

// push queues c, or as many of its first lines as fit, and takes a
// reference to its block for what it keeps.
func (q *queue) push(c chunk) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed || q.failed {
		return
	}
	var blockCost int64
	if c.b != q.lastBlock[c.from] {
		blockCost = int64(len(c.b.buf))
	}
	keep, lines := len(c.data), c.lines
	if cost := itemCost + blockCost + int64(lines)*lineCost; q.bytes+cost > q.max {
		fit := 0
		if room := q.max - q.bytes - itemCost - blockCost; room > 0 {
			fit = int(room / lineCost)
		}
		if q.bytes == 0 {
			fit = max(fit, 1) // an empty queue takes a line at least
		}
		switch {
		case lines == 0 && q.bytes == 0:
			// part of a long line, into an empty queue: kept
		case lines == 0 || fit == 0:
			keep, lines = 0, 0
		case fit < lines:
			keep, lines = afterLines(c.data, fit), fit
		}
	}
	if keep == 0 {
		q.dropLocked(c.from, c.t, c.data, c.lines)
		return
	}
	q.flushDropsLocked()
	cost := itemCost + blockCost + int64(lines)*lineCost
	c.b.refs.Add(1)
	q.lastBlock[c.from] = c.b
	q.items = append(q.items, item{kind: itemChunk, from: c.from, t: c.t, b: c.b, data: c.data[:keep], lines: lines, cost: cost})
	q.bytes += cost
	if keep < len(c.data) {
		q.dropLocked(c.from, c.t, c.data[keep:], c.lines-lines)
	}
	q.signal()
	if q.bytes > q.max/2 {
		notify(q.urgent)
		notify(q.behind)
	}
}

// afterLines is the length of b's first n lines, their "\n" included.
func afterLines(b []byte, n int) int {
	at := 0
	for range n {
		at += bytes.IndexByte(b[at:], '\n') + 1
	}
	return at
}

// dropLocked counts data, with lines lines ending in it, as missed by
// this observer.
func (q *queue) dropLocked(from domain.Direction, t time.Duration, data []byte, lines int) {
	tail := 0
	if lines > 0 {
		tail = len(data) - 1 - bytes.LastIndexByte(data, '\n')
	}
	q.dropBytesLocked(from, t, int64(len(data)), lines, int64(tail))
}

// dropBytesLocked counts n bytes, with lines lines ending in them and tail
// bytes after the last, as missed by this observer.
func (q *queue) dropBytesLocked(from domain.Direction, t time.Duration, n int64, lines int, tail int64) {
	d := &q.drops[from]
	if d.kind != itemDrop {
		*d = item{kind: itemDrop, from: from, t: t}
	}
	d.dropped += n
	if lines > 0 {
		d.tail = tail
	} else {
		d.tail += n
	}
	d.lines += lines
}

// flushDropsLocked queues what was dropped. Drops hold no bytes, so they
// are queued whatever the queue holds: there are at most two per chunk
// queued.
func (q *queue) flushDropsLocked() {
	for i := range q.drops {
		if q.drops[i].kind == itemDrop {
			q.items = append(q.items, q.drops[i])
			q.drops[i] = item{}
			q.signal()
		}
	}
}

// pushSkip queues n bytes of a line too long to keep; bytes of one next
// to the last item queued are added to it.
func (q *queue) pushSkip(from domain.Direction, t time.Duration, n int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed || q.failed {
		return
	}
	if q.bytes+itemCost > q.max && q.bytes > 0 {
		q.dropBytesLocked(from, t, n, 0, 0)
		return
	}
	if last := len(q.items) - 1; last >= q.head && q.items[last].kind == itemSkip && q.items[last].from == from {
		q.items[last].dropped += n
		return
	}
	q.flushDropsLocked()
	q.items = append(q.items, item{kind: itemSkip, from: from, t: t, dropped: n, cost: itemCost})
	q.bytes += itemCost
	q.signal()
}

// pushEnd queues the end of one side's stream.
func (q *queue) pushEnd(from domain.Direction, t time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed || q.failed {
		return
	}
	q.flushDropsLocked()
	q.items = append(q.items, item{kind: itemEnd, from: from, t: t})
	q.signal()
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
	q.flushDropsLocked()
	q.closed = true
	q.signal()
	notify(q.urgent)
}

func (q *queue) run() {
	defer close(q.done)
	if q.obs.Background {
		go q.assist()
		toBackground()
	}
	var delay *time.Timer
	if q.obs.Delay > 0 {
		delay = time.NewTimer(q.obs.Delay)
		delay.Stop()
	}
	for {
		q.mu.Lock()
		if q.head == len(q.items) && !q.closed {
			for q.head == len(q.items) && !q.closed {
				q.mu.Unlock()
				<-q.wake
				q.mu.Lock()
			}
			if delay != nil && !q.closed && q.bytes <= q.max/2 {
				// Let the chunks gather: the pump's signals meanwhile
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
		closed := q.closed
		q.mu.Unlock()
		if !q.step(false) && closed {
			break
		}
	}
	// The end: once the assistant, if any, has finished its item.
	q.work.Lock()
	defer q.work.Unlock()
	q.mu.Lock()
	failed := q.failed
	q.mu.Unlock()
	if !failed {
		// What the observer missed last, it is told too.
		q.call(q.cut.flushGap)
	}
}

// assist helps a Background observer at the process's own priority while
// its queue is more than half full, until it is down to a quarter: an
// observer that has fallen that far behind takes the cores as an equal
// again, as it did before it was put in the background, rather than drop
// frames while the forwarding has them.
func (q *queue) assist() {
	for {
		select {
		case <-q.behind:
		case <-q.done:
			return
		}
		for q.step(true) {
		}
	}
}

// step gives the observer the next item, if any (when behindOnly, only if
// the queue is more than a quarter full), and says whether it did.
func (q *queue) step(behindOnly bool) bool {
	q.work.Lock()
	defer q.work.Unlock()
	q.mu.Lock()
	if q.head == len(q.items) || behindOnly && q.bytes <= q.max/4 {
		q.mu.Unlock()
		return false
	}
	it := q.items[q.head]
	q.items[q.head] = item{}
	q.head++
	failed := q.failed
	q.mu.Unlock()

	if !failed {
		q.call(func() { q.cut.take(&it) })
	}
	if it.b != nil {
		it.b.release()
	}

	q.mu.Lock()
	q.bytes -= it.cost
	empty := q.head == len(q.items)
	if empty || q.head > len(q.items)/2 {
		q.items = append(q.items[:0], q.items[q.head:]...)
		q.head = 0
	}
	failed = q.failed
	q.mu.Unlock()
	if empty && !failed && q.obs.Idle != nil {
		q.call(q.obs.Idle)
	}
	return true
}

// call runs one of the observer's functions; a panic stops the observer,
// not the tap.
func (q *queue) call(fn func()) {
	defer func() {
		if r := recover(); r != nil {
			q.mu.Lock()
			q.failed = true
			q.mu.Unlock()
			q.trouble(fmt.Errorf("%s stopped after an internal error: panic: %v", q.obs.Name, r))
		}
	}()
	fn()
}

func (q *queue) trouble(err error) {
	if q.onError != nil {
		q.onError(err)
	}
}

// lineCutter cuts one observer's chunks into lines, on its goroutine, and
// gives it each as a frame: a line inside a chunk as a slice of it, a line
// across chunks through a buffer of its own. Lines longer than maxLine,
// and lines the queue dropped bytes of, reach the observer as gap frames;
// consecutive gaps for the same reason are one frame.
type lineCutter struct {
	maxLine int
	behind  string // the reason of gaps of dropped bytes
	deliver func(transcript.Frame)
	side    [3]cutSide
	gap     *transcript.Frame // missed frames not yet told
}

// cutSide is the line one side's stream is in the middle of.
type cutSide struct {
	partial []byte // its bytes so far, when kept
	// oversize is its length so far once longer than maxLine, when its
	// bytes are no longer kept.
	oversize int64
	// lost is its length so far once bytes of it were dropped; lostLine
	// says so.
	lost     int64
	lostLine bool
}

// keptPartial is the capacity of a line buffer kept for the next line
// across chunks; a larger one, left by a long line, goes.
const keptPartial = 256 << 10

func (c *lineCutter) take(it *item) {
	s := &c.side[it.from]
	switch it.kind {
	case itemDrop:
		sofar := int64(len(s.partial)) + s.oversize + s.lost
		if it.lines == 0 {
			*s = cutSide{partial: s.partial[:0], lost: sofar + it.dropped, lostLine: true}
			return
		}
		// The line in progress ends in the dropped bytes, with it.lines-1
		// lines after it; the bytes after the last "\n" start a line of
		// which the observer gets the end at most.
		c.miss(it.t, c.behind, int64(it.lines), sofar+it.dropped-it.tail-int64(it.lines))
		*s = cutSide{partial: s.partial[:0], lost: it.tail, lostLine: it.tail > 0}
	case itemSkip:
		if !s.lostLine {
			s.oversize += int64(len(s.partial)) + it.dropped
			s.partial = nil
		} else {
			s.lost += it.dropped
		}
	case itemEnd:
		switch {
		case s.lostLine:
			c.miss(it.t, c.behind, 1, s.lost)
		case s.oversize > 0:
			c.miss(it.t, c.tooLong(it.from, s.oversize), 1, s.oversize)
		case len(s.partial) > 0:
			c.frame(transcript.Frame{From: it.from, T: it.t, Conn: 1, Data: s.partial})
		}
		*s = cutSide{}
	case itemChunk:
		c.cut(s, it.from, it.t, it.data)
	}
}

func (c *lineCutter) cut(s *cutSide, from domain.Direction, t time.Duration, data []byte) {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		piece := data
		if i >= 0 {
			piece = data[:i]
		}
		switch {
		case s.lostLine:
			s.lost += int64(len(piece))
		case s.oversize > 0 || len(s.partial)+len(piece) > c.maxLine:
			s.oversize += int64(len(s.partial) + len(piece))
			s.partial = nil // up to --max-line, not kept for a line not kept
		case i < 0:
			s.partial = append(s.partial, piece...)
		}
		if i < 0 {
			return
		}
		switch {
		case s.lostLine:
			c.miss(t, c.behind, 1, s.lost)
			s.lost, s.lostLine = 0, false
		case s.oversize > 0:
			c.miss(t, c.tooLong(from, s.oversize), 1, s.oversize)
			s.oversize = 0
		case len(s.partial) > 0:
			s.partial = append(s.partial, piece...)
			c.frame(transcript.Frame{From: from, T: t, Conn: 1, Data: s.partial})
			s.partial = s.partial[:0]
			if cap(s.partial) > keptPartial {
				s.partial = nil
			}
		default:
			c.frame(transcript.Frame{From: from, T: t, Conn: 1, Data: piece})
		}
		data = data[i+1:]
	}
}

func (c *lineCutter) tooLong(from domain.Direction, n int64) string {
	return fmt.Sprintf("a line of %d bytes from the %s is longer than the %d bytes the tap keeps (--max-line); it was forwarded whole", n, from, c.maxLine)
}

// miss counts frames the observer does not get, told as one gap frame
// with the frames missed next to them for the same reason.
func (c *lineCutter) miss(t time.Duration, reason string, frames, n int64) {
	if c.gap != nil && c.gap.Lost.Reason != reason {
		c.flushGap()
	}
	if c.gap == nil {
		c.gap = &transcript.Frame{T: t, Conn: 1, Lost: &transcript.Lost{Reason: reason}}
	}
	c.gap.Lost.Frames += frames
	c.gap.Lost.Bytes += n
}

func (c *lineCutter) flushGap() {
	if g := c.gap; g != nil {
		c.gap = nil
		c.deliver(*g)
	}
}

func (c *lineCutter) frame(f transcript.Frame) {
	c.flushGap()
	c.deliver(f)
}
