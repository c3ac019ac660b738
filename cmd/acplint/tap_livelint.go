package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/htmlreport"
	"github.com/acplint/acplint/internal/gcpolicy"
	"github.com/acplint/acplint/internal/procgroup"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/schemamodel"
	"github.com/acplint/acplint/tap"
	"github.com/acplint/acplint/transcript"
)

// The tap's live linter runs in a process of its own, this same
// executable, at the lowest CPU priority (lowerPriority): the editor, the
// agent and the tap's forwarding take the cores first, and live lint gets
// what they leave. In the tap's process it competed with them as an equal
// (30-37 ms of CPU per MB of traffic, on a machine where the two peers and
// the relay already want the cores), and lowering the priority of a
// goroutine is not possible: the linter's goroutines, its read-ahead
// workers and the garbage collector run on any of the process's threads.
// A process is priced once, at the tap's start, and its lint runs exactly
// the in-process code (lintLive), fed the same frames.
//
// The tap hands the process the frames its queue gives the live linter
// (tap.Observer), encoded without escaping (appendLiveFrame) on a pipe; the
// process's findings, and anything it prints, come back on another pipe
// and go out through the tap's findings writer, as the in-process
// linter's did. A linter that falls behind blocks the queue's goroutine on
// the pipe, never the forwarding: the queue fills and drops frames as
// before, and the gap reaches the linter as a gap frame. The process is in
// a process group of its own (a terminal's SIGINT for the tap must not end
// it before the last findings) and on Linux dies with the tap; it ends at
// the end of its input, which the tap's queue ends once it has given it
// every frame (end), and wait kills it if it does not keep up then. It
// tells the tap how much of its input it has taken on a third pipe
// (progressReporter), which the tap's keep-up rule reads.

// liveLintEnv marks a process started as the tap's live linter; its value
// is the tap's pid, so that the variable in a user's environment (exported
// once, inherited by a shell) does not turn acplint into a live linter
// reading frames from its stdin: only the tap's child takes it.
const liveLintEnv = "ACPLINT_TAP_LIVE_LINT"

// liveLintConfig is what the tap tells its live linter process, as the
// first line (JSON) of its input; the frames follow.
type liveLintConfig struct {
	// File names the input in findings.
	File string `json:"file"`
	// Started is the recording's start, which frame times count from.
	Started time.Time `json:"started"`
	// The rule selection, as the tap's flags and configuration give it.
	Enable   []string `json:"enable,omitempty"`
	Disable  []string `json:"disable,omitempty"`
	Severity []string `json:"severity,omitempty"`
	// Schema is --schema's file, "" for the compiled-in schema, and
	// SchemaText what the tap read from it: read once, by the tap, since
	// a file may be readable only once, or only by the tap (bash's <(…),
	// a FIFO, a file replaced since).
	Schema     string `json:"schema,omitempty"`
	SchemaText []byte `json:"schemaText,omitempty"`
	// HTML says the page is to be written to file descriptor 3, with
	// secrets replaced when Redact is set.
	HTML   bool `json:"html,omitempty"`
	Redact bool `json:"redact,omitempty"`
	// MaxLine is the longest frame the tap hands over (its --max-line).
	MaxLine int `json:"maxLine"`
	// Progress is the file descriptor the process tells the tap on how
	// much of its input it has taken (progressReporter), and closes once
	// it has linted everything; 0 for none.
	Progress int `json:"progress,omitempty"`
}

// liveLinterFD is where the live linter process finds the HTML page.
const liveLinterFD = 3

// liveObserver is a live linter as the tap's queue drives it.
type liveObserver interface {
	frame(transcript.Frame)
	idle()
	// end ends the input: the tap's queue calls it once it has given
	// the linter every frame (tap.Observer.End); it may be called again.
	end()
	// wait waits for the last findings as long as the linter keeps up
	// (liveLintKeepUp), and stops a linter that does not.
	wait()
}

// liveLintKeepUp is the rule by which the tap waits for the live linter
// once the agent has exited, for what its queue still holds and then for
// its last findings: the recorder's (tap.KeepUp), as long as the linter
// takes at least need (tap.KeepUpNeed of its queue) of its input in every
// tap.KeepUpWindow, or what was left of it (left), or it, or the tap
// feeding it, is kept from the CPU (cpuStarved; pid is the linter's): it
// runs at the lowest priority, and on a machine kept busy it gets no CPU
// for seconds at a time; the tap's own queue, at the normal priority, may
// wait too, and the linter then waits for its input. That is forgiven
// for tap.MostStarved at most. A linter
// that stops (a hang, a bug) is given up on after a window, and so is one
// that runs without linting on a machine with a core to spare, or that
// takes a window more to finish once it has taken all of its input.
//
// The input taken, not the findings, is what the tap can count as the
// linter works (the queue's frames, the frames the process reads);
// linting follows a few batches behind (lint's read-ahead).
func liveLintKeepUp(need int64, left func() int64, pid int) tap.KeepUp {
	k := tap.KeepUp{Need: need, Left: left, MostStarved: tap.MostStarved}
	linter, tapItself := cpuStarved(pid), cpuStarved(os.Getpid())
	switch {
	case pid == os.Getpid():
		k.Starved = tapItself // in the tap's process
	case linter != nil && tapItself != nil:
		k.Starved = func() bool {
			l, t := linter(), tapItself() // both, every window
			return l || t
		}
	}
	return k
}

// liveWork is the work the frames are to the live linter, as the tap's
// queue counts it (tap.LineWork).
func liveWork(frames []transcript.Frame) (n int64) {
	for _, fr := range frames {
		n += tap.LineWork(len(fr.Data))
	}
	return n
}

// liveLintStopped is what the findings say when the tap stopped waiting
// for the live linter: err is KeepUp.Wait's.
func liveLintStopped(err error, k tap.KeepUp) error {
	why := fmt.Sprintf("it took less than %d bytes of its input (or all it had left) in %v", k.Need, tap.KeepUpWindow)
	if errors.Is(err, tap.ErrKeptFromCPU) {
		why = fmt.Sprintf("other work kept it from the CPU (it runs at the lowest priority) for more than %v", k.MostStarved)
	}
	return fmt.Errorf("live linter did not finish once the agent had exited: %s; the tap gave up on it, and its last findings are lost", why)
}

// liveProgressEvery is how often at most the live linter tells the tap
// how much of its input it has taken: a few times a tap.KeepUpWindow, a
// wake-up of the tap's reader each time.
const liveProgressEvery = 200 * time.Millisecond

// liveExitWait bounds the wait, once the live linter has linted
// everything, for its exit, and then for what it wrote to reach the
// findings writer.
const liveExitWait = 3 * time.Second

// liveLintPriority is how the live linter process lowers its priority
// (lowerPriority), a variable so that a test of something else can have
// the linter compete with its load as an equal.
var liveLintPriority = lowerPriority

// liveLintCommand is the command started as the live linter, a variable
// so that tests can start another, or none.
var liveLintCommand = func() ([]string, error) {
	self, err := os.Executable()
	return []string{self}, err
}

// liveLintProcess is the tap's side of the live linter process.
type liveLintProcess struct {
	cmd     *exec.Cmd
	trouble func(error)
	// exited is closed once the process has exited (waitErr says how),
	// copied once everything it wrote has gone to the findings writer.
	exited, copied chan struct{}
	waitErr        error
	// handed counts the work (liveWork) of the frames written to the
	// process, taken that of those it has taken, as it last said; linted
	// is closed once it has linted everything (it closes the pipe it
	// says so on), or exited; keepUp is the rule wait waits by.
	handed, taken atomic.Int64
	linted        chan struct{}
	keepUp        tap.KeepUp

	// frames is the pipe to the process; mu guards it and what follows,
	// which the tap's queue uses, end last.
	frames  *os.File
	mu      sync.Mutex
	w       *bufio.Writer
	err     error // the first write error: the process no longer reads
	closed  bool
	scratch []byte
}

// startLiveLintProcess starts the live linter process; page, when not
// nil, is the file the HTML page goes to. Findings and whatever else the
// process prints go to out, and what goes wrong with the process to
// trouble. need is the keep-up rule's (liveLintKeepUp).
func startLiveLintProcess(cfg liveLintConfig, page *os.File, out io.Writer, trouble func(error), need int64) (*liveLintProcess, error) {
	argv, err := liveLintCommand()
	if err != nil {
		return nil, err
	}
	framesR, framesW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		framesR.Close()
		framesW.Close()
		return nil, err
	}
	progressR, progressW, err := os.Pipe()
	if err != nil {
		framesR.Close()
		framesW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), liveLintEnv+"="+strconv.Itoa(os.Getpid()))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = framesR, outW, outW
	if page != nil {
		cmd.ExtraFiles = []*os.File{page} // liveLinterFD
	}
	cmd.ExtraFiles = append(cmd.ExtraFiles, progressW)
	cfg.Progress = 2 + len(cmd.ExtraFiles)
	config, err := json.Marshal(cfg)
	if err == nil {
		cmd.SysProcAttr = procgroup.Attr()
		err = cmd.Start()
	}
	framesR.Close()
	outW.Close()
	progressW.Close()
	if err != nil {
		framesW.Close()
		outR.Close()
		progressR.Close()
		return nil, err
	}
	p := &liveLintProcess{cmd: cmd, trouble: trouble, exited: make(chan struct{}), copied: make(chan struct{}),
		linted: make(chan struct{}), frames: framesW, w: bufio.NewWriterSize(framesW, 64<<10)}
	p.keepUp = liveLintKeepUp(need, func() int64 { return p.handed.Load() - p.progress() }, cmd.Process.Pid)
	p.w.Write(append(config, '\n'))
	go func() {
		defer close(p.exited)
		p.waitErr = cmd.Wait()
	}()
	go func() {
		defer close(p.copied)
		defer outR.Close()
		copyLines(out, outR)
	}()
	go func() {
		defer close(p.linted)
		defer progressR.Close()
		var b [8]byte
		for {
			if _, err := io.ReadFull(progressR, b[:]); err != nil {
				return // it has linted everything, or exited
			}
			p.taken.Store(int64(binary.BigEndian.Uint64(b[:])))
		}
	}()
	return p, nil
}

// copyLines copies r to w a whole line per Write, so that a writer that
// drops what it cannot take (tap.DetachedWriter) never cuts a line in two.
// A line longer than findingsBuffer, which such a writer can never take,
// is handed over as its first findingsBuffer+1 bytes, to be dropped (and
// counted) whole, and the rest of it is skipped: the tap keeps no more of
// it.
func copyLines(w io.Writer, r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	over := false // the line so far is longer than findingsBuffer
	for {
		piece, err := br.ReadSlice('\n')
		if !over {
			line = append(line, piece...)
			if len(line) > findingsBuffer {
				w.Write(line[:findingsBuffer+1])
				line, over = line[:0], true
			}
		}
		ended := len(piece) > 0 && piece[len(piece)-1] == '\n'
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			ended = true
		}
		if ended {
			if len(line) > 0 {
				w.Write(line)
			}
			line, over = line[:0], false
			if cap(line) > 4*liveChunk {
				line = nil // a long line's buffer is not kept
			}
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}

func (p *liveLintProcess) frame(fr transcript.Frame) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.err != nil {
		return
	}
	p.handed.Add(liveWork([]transcript.Frame{fr}))
	p.scratch = appendLiveFrame(p.scratch[:0], fr)
	if _, p.err = p.w.Write(p.scratch); p.err == nil && fr.Lost == nil {
		_, p.err = p.w.Write(fr.Data)
	}
}

func (p *liveLintProcess) idle() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed && p.err == nil {
		p.err = p.w.Flush()
	}
}

// progress is what the process has taken of its input, as it says, but
// no more than it was handed: whatever it says, the tap's wait for it is
// bounded by what it has left.
func (p *liveLintProcess) progress() int64 { return min(p.taken.Load(), p.handed.Load()) }

// end ends the process's input: it lints what it has and exits.
func (p *liveLintProcess) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	if p.err == nil {
		p.w.Flush()
	}
	p.closed = true
	p.frames.Close()
}

// wait waits for the process to finish linting, as long as it keeps up
// (liveLintKeepUp), and kills a process that does not; then, a little
// while, for its exit (its findings are all written by then: what is left
// is the runtime's, the race detector's second at exit in a test).
func (p *liveLintProcess) wait() {
	err := p.keepUp.Wait(p.linted, p.progress)
	if err == nil {
		select {
		case <-p.exited:
			if p.waitErr != nil {
				p.trouble(fmt.Errorf("live linter process: %v", p.waitErr))
			}
		case <-time.After(liveExitWait):
		}
	}
	select {
	case <-p.exited:
	default:
		// The queue's goroutine may hold mu, writing to the pipe or
		// ending it (end): closing the pipe fails that write, and the
		// kill a write the process's end of it would still take.
		p.frames.Close()
		procgroup.Signal(p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.exited
	}
	if err != nil {
		p.trouble(liveLintStopped(err, p.keepUp))
	}
	// It exited: its end of the findings pipe is closed, unless a process
	// it started holds it (it starts none).
	select {
	case <-p.copied:
	case <-time.After(liveExitWait):
	}
}

// The frames go to the process in a form that costs the tap no escaping:
// a kind byte (the direction, or liveGap), the time and the connection as
// varints, then for a line its length (uvarint) and bytes, for a gap the
// frames and bytes lost (uvarints) and the reason's length and bytes.
const liveGap = 0xff

// appendLiveFrame appends fr's encoding to b; for a line, without its
// bytes, which follow.
func appendLiveFrame(b []byte, fr transcript.Frame) []byte {
	if fr.Lost != nil {
		b = append(b, liveGap)
		b = binary.AppendVarint(b, int64(fr.T))
		b = binary.AppendVarint(b, int64(fr.Conn))
		b = binary.AppendUvarint(b, uint64(fr.Lost.Frames))
		b = binary.AppendUvarint(b, uint64(fr.Lost.Bytes))
		b = binary.AppendUvarint(b, uint64(len(fr.Lost.Reason)))
		return append(b, fr.Lost.Reason...)
	}
	b = append(b, byte(fr.From))
	b = binary.AppendVarint(b, int64(fr.T))
	b = binary.AppendVarint(b, int64(fr.Conn))
	return binary.AppendUvarint(b, uint64(len(fr.Data)))
}

// parseSchema compiles the schema text read from file, as lint.LoadSchema
// compiles the file.
func parseSchema(file string, text []byte) (*lint.Schema, error) {
	m, err := schemamodel.Parse(file, text, schemamodel.Options{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return lint.CompileSchema(m)
}

// liveFrameReader reads the frames appendLiveFrame wrote.
type liveFrameReader struct {
	br      *bufio.Reader
	maxLine int
	batch   []transcript.Frame
	err     error // what ended the input, once frames read before it are given
	// chunk is memory the frames' bytes are cut from, so that a frame of
	// a few hundred bytes is not an allocation of its own. A chunk lives
	// as long as a frame cut from it: the linter holds a bounded number.
	chunk []byte
}

// liveChunk is the size of the chunks that frames' bytes are cut from.
const liveChunk = 64 << 10

// liveBatch bounds the frames next gives at once.
const liveBatch = 64

// next returns the frames that have come: one at least, waiting for it,
// and those that follow it in what has been read already. It may reuse
// the slice of the call before (transcript.NewFrameReader is done with
// it by then).
func (r *liveFrameReader) next() ([]transcript.Frame, error) {
	r.batch = r.batch[:0]
	if r.err != nil {
		return nil, r.err
	}
	for len(r.batch) < liveBatch && (len(r.batch) == 0 || r.br.Buffered() > 0) {
		fr, err := r.read()
		if err != nil {
			if len(r.batch) > 0 {
				r.err = err // after the frames read before it
				break
			}
			return nil, err
		}
		r.batch = append(r.batch, fr)
	}
	return r.batch, nil
}

var errBadLiveFrame = errors.New("the tap's frames are malformed")

func (r *liveFrameReader) read() (transcript.Frame, error) {
	kind, err := r.br.ReadByte()
	if err != nil {
		return transcript.Frame{}, err // io.EOF: between frames, the end
	}
	var fr transcript.Frame
	t, err := binary.ReadVarint(r.br)
	if err != nil {
		return fr, unexpected(err)
	}
	conn, err := binary.ReadVarint(r.br)
	if err != nil {
		return fr, unexpected(err)
	}
	fr.T, fr.Conn = time.Duration(t), int(conn)
	switch domain.Direction(kind) {
	case domain.FromClient, domain.FromAgent:
		n, err := binary.ReadUvarint(r.br)
		if err != nil {
			return fr, unexpected(err)
		}
		if n > uint64(r.maxLine) {
			return fr, errBadLiveFrame
		}
		fr.From, fr.Data = domain.Direction(kind), r.take(int(n))
		if _, err := io.ReadFull(r.br, fr.Data); err != nil {
			return fr, unexpected(err)
		}
		return fr, nil
	}
	if kind != liveGap {
		return fr, errBadLiveFrame
	}
	var nums [3]uint64
	for i := range nums {
		if nums[i], err = binary.ReadUvarint(r.br); err != nil {
			return fr, unexpected(err)
		}
	}
	if nums[2] > 1<<20 {
		return fr, errBadLiveFrame
	}
	reason := make([]byte, nums[2])
	if _, err := io.ReadFull(r.br, reason); err != nil {
		return fr, unexpected(err)
	}
	fr.Lost = &transcript.Lost{Frames: int64(nums[0]), Bytes: int64(nums[1]), Reason: string(reason)}
	return fr, nil
}

// unexpected is err inside a frame, where the input must not end.
func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// take returns n bytes of memory for a frame.
func (r *liveFrameReader) take(n int) []byte {
	if n > liveChunk/4 {
		return make([]byte, n)
	}
	if n > cap(r.chunk)-len(r.chunk) {
		r.chunk = make([]byte, 0, liveChunk)
	}
	at := len(r.chunk)
	r.chunk = r.chunk[:at+n]
	return r.chunk[at : at+n : at+n]
}

// liveLintChild runs the tap's live linter and exits when this process
// was started as one (startLiveLintProcess); otherwise it returns at once.
// main calls it first thing, and test binaries in TestMain.
func liveLintChild() {
	if os.Getenv(liveLintEnv) != strconv.Itoa(os.Getppid()) {
		return
	}
	os.Exit(runLiveLintChild(os.Stdin, os.Stdout))
}

func runLiveLintChild(in io.Reader, out io.Writer) int {
	liveLintPriority()
	gcpolicy.Apply()
	br := bufio.NewReaderSize(in, 256<<10)
	var cfg liveLintConfig
	line, err := br.ReadBytes('\n')
	if err == nil {
		err = json.Unmarshal(line, &cfg)
	}
	if err != nil {
		fmt.Fprintf(out, "acplint tap: live lint could not start: reading its configuration: %v\n", err)
		return 2
	}
	selection, err := selectRules(cfg.Enable, cfg.Disable, cfg.Severity, findings.All())
	if err != nil {
		fmt.Fprintf(out, "acplint tap: live lint could not start: %v\n", err)
		return 2
	}
	opts := lint.Options{Filter: func(f findings.ValidationFinding) bool {
		_, on := selection.apply(f)
		return on
	}}
	if cfg.Schema != "" {
		if opts.Schema, err = parseSchema(cfg.Schema, cfg.SchemaText); err != nil {
			fmt.Fprintf(out, "acplint tap: live lint could not start: --schema: %v\n", err)
			return 2
		}
	}
	var page *htmlreport.Writer
	if cfg.HTML {
		page = htmlreport.New(os.NewFile(liveLinterFD, "html"), htmlreport.Options{Version: acplintVersion(), Redact: cfg.Redact})
	}
	if cfg.MaxLine <= 0 {
		cfg.MaxLine = tap.DefaultMaxLine
	}
	frames := &liveFrameReader{br: br, maxLine: cfg.MaxLine}
	next := frames.next
	if cfg.Progress > 0 {
		progressFile := os.NewFile(uintptr(cfg.Progress), "progress")
		// Closed once everything is linted, the findings written: the
		// tap waits no more for the linting, only for the exit.
		defer progressFile.Close()
		progress := &progressReporter{w: progressFile}
		next = func() ([]transcript.Frame, error) {
			b, err := frames.next()
			progress.add(liveWork(b))
			if err != nil {
				progress.tell() // all of it: lint's end follows
			}
			return b, err
		}
	}
	lintLive(out, cfg.File, cfg.Started, page, opts, selection, next)
	return 0
}

// progressReporter tells the tap how much of its input the live linter
// has taken (liveWork, in all), at most every liveProgressEvery: the tap
// waits for it at the end as long as that grows (liveLintKeepUp), until
// the pipe it tells the tap on is closed.
type progressReporter struct {
	w    io.Writer
	done int64
	last time.Time
	buf  [8]byte
}

func (r *progressReporter) add(work int64) {
	r.done += work
	if time.Since(r.last) >= liveProgressEvery {
		r.tell()
	}
}

// tell tells the tap now.
func (r *progressReporter) tell() {
	r.last = time.Now()
	binary.BigEndian.PutUint64(r.buf[:], uint64(r.done))
	r.w.Write(r.buf[:]) // an error: the tap has gone, nobody to tell
}
