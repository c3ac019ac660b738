package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/htmlreport"
	"github.com/acplint/acplint/internal/safefile"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/tap"
	"github.com/acplint/acplint/transcript"
)

const tapDoc = `
Tap lints the live traffic between an editor and an ACP agent. Configure it
as the agent command in the editor: it starts AGENT_CMD, forwards the
editor's stdin to the agent and the agent's stdout to the editor byte for
byte, passes the agent's stderr through, and lints every line as it
crosses. Findings never go to stdout (that is the editor's channel): they
go to --lint-out, or to stderr.

Forwarding comes first. The recorder and the live linter each work behind a
queue of --queue bytes. The live linter, when it falls behind by more,
drops frames rather than slow the connection, and the findings say where
and how many (ACP-LINT-004). The recorder keeps everything: when it is a
whole queue behind (the machine's cores are taken), the traffic waits for
it as long as it writes at least 1 MiB a second (or a quarter of the
queue); a recorder that writes less (a slow disk, or one that hangs)
holds the traffic for about a second each time it falls a whole queue
behind, and drops frames meanwhile, a gap record saying where and how
many. When the agent has exited, the tap waits for the recorder in the
same way (and, on Linux, while other work keeps the tap from the CPU,
for 30 s of that at most), and a recording it had to stop ends with a
gap record. A line longer than --max-line is
forwarded whole but not recorded or linted (a gap too). Nobody reading
stderr, an editor that stops reading, a full disk or a bug in a rule
(ACP-LINT-003) never stall or end the forwarding. The recording is flushed whenever the recorder
has caught up, at most 2 ms after the traffic, so a tap killed outright
loses at most the frames of its last 2 ms. The live linter runs in a
process of its own at the lowest CPU priority (SCHED_IDLE on Linux, nice
19 elsewhere): it lints with the CPU the editor, the agent and the
forwarding leave, and on a machine kept busy it falls behind into its
queue. When the agent has exited, the tap waits for the live linter by
the recorder's rule, as long as it takes at least 1 MiB of its input a
second (or a quarter of the queue, or all it has left), and, on Linux,
while other work keeps it from the CPU, for 30 s of that at most; a
linter that does neither (a hang) is stopped after a second. What it has
not linted then is lost to the live findings, which say so, not to the
recording.

The agent runs in a process group of its own, so signals reach the real
agent behind a wrapper (a script, npx, go run); on Linux the whole group is
killed even if the tap is killed outright (a small supervisor, this same
executable, leads the group and kills it when the tap dies). When the editor closes the connection, or stops reading, the
agent's stdin is closed; an agent that stays silent for --grace after that
gets SIGTERM, and SIGKILL --grace later, all of its group. SIGINT, SIGTERM
and SIGHUP sent to the tap go to the agent's group, and SIGKILL follows
--grace later. When the agent closes its stdout, the editor sees the end of
the stream at once. The tap exits with the agent's exit code (128+N when
signal N ended it).

--record writes the traffic in acplint's transcript format (a versioned
header, then one frame per line with direction, time and the verbatim
bytes); 'acplint lint' reads it and gives the findings the tap gave live.
--redact replaces secrets in the recording only (MCP env values, HTTP
header values, credential-named members, tokens in arguments and URLs) and
says so in the header; forwarding is never altered. --html writes the
page 'acplint lint -f html' makes of the recording as the live linter reads
the traffic, complete when the connection ends (with --redact, secrets are
replaced in it too). Output files are created 0600 and never written
through a symbolic link.

Zed (settings.json):
	"agent_servers": {
	  "My Agent (linted)": {
	    "command": "acplint",
	    "args": ["tap", "--record", "/tmp/acp.jsonl", "--lint-out", "/tmp/acp.lint",
	             "--", "my-agent", "--acp"]
	  }
	}
`

func runTap(ctx context.Context, args []string, e *env) int {
	fs := newFlagSet("tap", "acplint tap [flags] -- AGENT_CMD [ARGS…]", tapDoc, e)
	record := fs.String("record", "", "write the transcript to this `file` (0600; a file from an earlier run is replaced, a link is refused, and while another tap writes FILE this one writes FILE.PID)")
	lintOut := fs.String("lint-out", "", "write findings to this `file` instead of stderr (created like --record's)")
	redact := fs.Bool("redact", false, "replace secret values in the recording and the HTML report (never in the forwarded traffic)")
	htmlOut := fs.String("html", "", "write an HTML report of the traffic and its findings to this `file` (created like --record's), complete when the connection ends")
	noLint := fs.Bool("no-lint", false, "only forward and record")
	grace := fs.Duration("grace", tap.DefaultGrace, "how long the agent may stay silent after the editor closed the connection before it is sent SIGTERM, and then how long before SIGKILL")
	maxLine := fs.Int("max-line", tap.DefaultMaxLine, "longest line, in `bytes`, that is recorded and linted; a longer one is forwarded whole and shows as a gap (ACP-LINT-004)")
	queue := fs.Int("queue", tap.DefaultQueueBytes, "`bytes` of traffic the recorder and the live linter may each fall behind by: past it the live linter drops frames (ACP-LINT-004) and the traffic waits for a recorder that keeps writing")
	enable, disable, severity := &listFlag{}, &listFlag{}, &listFlag{}
	fs.Var(enable, "enable", "lint live only the rules these `patterns` select, as lint's --enable")
	fs.Var(disable, "disable", "leave out the rules these `patterns` select, as lint's --disable")
	fs.Var(severity, "rule-severity", "report the rules `PATTERN=SEVERITY` selects with that severity, as lint's --rule-severity")
	schemaFile := fs.String("schema", "", "check params and results live against this ACP schema `file`, as lint's --schema")
	config := addFileFlags(fs)
	if code, ok := parseFlags(fs, args, e); !ok {
		return code
	}
	if _, err := config.apply(fs, "tap", map[string]string{"enable": "enable", "disable": "disable", "severity": "rule-severity", "schema": "schema"}); err != nil {
		e.errorf("tap: %v", err)
		return exitUsage
	}
	selection, err := selectRules(enable.items, disable.items, severity.items, findings.All())
	if err != nil {
		e.errorf("tap: %v", err)
		return exitUsage
	}
	liveOpts := lint.Options{Filter: func(f findings.ValidationFinding) bool {
		_, on := selection.apply(f)
		return on
	}}
	var schemaText []byte
	if *schemaFile != "" {
		if schemaText, err = os.ReadFile(*schemaFile); err == nil {
			liveOpts.Schema, err = parseSchema(*schemaFile, schemaText)
		}
		if err != nil {
			e.errorf("tap: --schema: %v", err)
			return exitUsage
		}
	}
	command := fs.Args()
	if len(command) == 0 {
		e.errorf("tap: no agent command; usage: acplint tap [flags] -- AGENT_CMD [ARGS…]")
		return exitUsage
	}
	if *htmlOut != "" && *noLint {
		e.errorf("tap: --html shows the findings of the live linter, which --no-lint turns off")
		return exitUsage
	}
	// Writes to a closed stdout or stderr must fail, not kill the tap (and
	// orphan the agent) with SIGPIPE; tap.Run does the same while it runs.
	ignorePipe := make(chan os.Signal, 1)
	signal.Notify(ignorePipe, syscall.SIGPIPE)
	defer signal.Stop(ignorePipe)

	var rec *transcript.Writer
	header := transcript.Header{Producer: "acplint " + acplintVersion(), Started: time.Now().UTC(), Redacted: *redact, Command: command}
	if *redact {
		header.Command = tap.RedactCommand(command)
	}
	var recFile *os.File
	if *record != "" {
		f, err := openTapOutput(*record, e)
		if err != nil {
			e.errorf("tap: --record: %v", err)
			return exitUsage
		}
		recFile = f
		defer f.Close()
		if rec, err = transcript.NewWriter(f, header); err != nil {
			e.errorf("tap: %v", err)
			return exitUsage
		}
	}

	var findingsDst io.Writer = e.stderr
	if *lintOut != "" {
		f, err := openTapOutput(*lintOut, e)
		if err != nil {
			e.errorf("tap: --lint-out: %v", err)
			return exitUsage
		}
		defer f.Close()
		findingsDst = f
	}
	var pageFile *os.File
	if *htmlOut != "" {
		f, err := openTapOutput(*htmlOut, e)
		if err != nil {
			e.errorf("tap: --html: %v", err)
			return exitUsage
		}
		defer f.Close()
		pageFile = f
	}

	// Whoever reads the findings (a stderr the editor may never read) must
	// not be able to hold the linter, and through it anything else.
	findingsOut := tap.NewDetachedWriter(findingsDst, findingsBuffer)
	trouble := func(err error) {
		writeFinding(findingsOut, lint.InternalError(findings.Location{File: "tap"}, err.Error()))
	}
	// Live findings name the recording, so their lines can be opened there.
	liveName := "tap"
	if *record != "" {
		liveName = *record
	}

	var observers []tap.Observer
	// recording guards rec: the tap stops giving the recorder frames at
	// the end when it does not keep up, but it may still be writing one
	// when the tap finishes the file.
	var recording sync.Mutex
	recordingEnded := false
	if rec != nil {
		observers = append(observers, tap.Observer{
			Name: "recorder",
			Frame: func(fr transcript.Frame) {
				if *redact && fr.Lost == nil {
					fr.Data = tap.Redact(fr.Data)
				}
				recording.Lock()
				defer recording.Unlock()
				if !recordingEnded {
					rec.Write(fr) // errors stick; reported after the run
				}
			},
			// Flushing whenever the recorder has caught up keeps the file
			// current: a tap killed outright loses at most the frames of
			// its last recordDelay.
			Idle: func() {
				recording.Lock()
				defer recording.Unlock()
				if !recordingEnded {
					rec.Flush()
				}
			},
			Delay: recordDelay,
			// A complete recording outranks the traffic's speed: on a
			// machine whose cores are taken, the traffic slows to the
			// recorder's pace rather than lose frames from the recording,
			// and at the end the tap waits for it while other work keeps
			// the tap from the CPU.
			Hold: true, Starved: cpuStarved(os.Getpid()),
		})
	}
	var live liveObserver
	if !*noLint {
		live = startLiveLinter(liveLintConfig{File: liveName, Started: header.Started, Enable: enable.items, Disable: disable.items,
			Severity: severity.items, Schema: *schemaFile, SchemaText: schemaText, HTML: pageFile != nil, Redact: *redact, MaxLine: *maxLine},
			pageFile, findingsOut, trouble, liveOpts, selection, tap.KeepUpNeed(*queue))
		// The tap waits for the live linter after tap.Run (live.wait),
		// for the frames its queue holds and its last findings at once.
		observers = append(observers, tap.Observer{Name: "live linter", Frame: live.frame, Idle: live.idle, Delay: liveLintDelay, End: live.end})
	}
	opts := tap.Options{Command: command, Stderr: e.stderr, Observers: observers, Grace: *grace,
		MaxLine: *maxLine, QueueBytes: *queue, OnTrouble: trouble, Supervised: true}
	// From here on stderr may be a pipe nobody reads (the agent's stderr
	// goes there too): the tap's own messages must not wait on it either.
	notes := tap.NewDetachedWriter(e.stderr, 64<<10)
	defer notes.Close(time.Second)
	note := func(format string, args ...any) { fmt.Fprintf(notes, "acplint: "+format+"\n", args...) }
	res, err := tap.Run(ctx, opts, e.stdin, e.stdout)
	if err != nil {
		if live != nil {
			live.end()
			live.wait()
		}
		note("%v", err)
		return exitUsage
	}
	if rec != nil {
		lost, stopped := res.Left["recorder"]
		finished := make(chan error, 1)
		go func() {
			recording.Lock()
			defer recording.Unlock()
			recordingEnded = true
			if stopped {
				// The recording says where it ends short, as it says
				// where frames were dropped.
				lost.Reason = "the recorder did not keep up with the traffic (a slow or stuck disk) and was stopped once the agent had exited: what crossed from here on was not recorded"
				rec.Write(transcript.Frame{T: time.Since(header.Started), Conn: 1, Lost: &lost})
			}
			err := rec.Flush()
			if err == nil {
				if err = recFile.Sync(); errors.Is(err, syscall.EINVAL) {
					err = nil
				}
			}
			finished <- err
		}()
		select {
		case err := <-finished:
			if err != nil {
				note("tap: writing %s: %v", *record, err)
			}
		case <-time.After(recordFinishTimeout):
			// A write that hangs (a disk, a network file system) must
			// not keep the tap, which the editor waits for, from ending.
			note("tap: writing %s: the last writes did not finish within %v; the recording may end short", *record, recordFinishTimeout)
		}
	}
	// The recording is whole before the tap waits for the live linter,
	// which may take longer: a tap killed meanwhile loses only findings.
	if live != nil {
		live.wait()
	}
	if dropped, err := findingsOut.Close(2 * time.Second); dropped > 0 || err != nil {
		note("tap: %d bytes of findings could not be written (%v)", dropped, err)
	}
	return res.ExitCode
}

// openTapOutput opens a file the tap writes as it runs (--record,
// --lint-out): 0600, never through a link. The editor starts the tap with
// the same arguments every time, so a file left by an earlier run is
// replaced; a file another tap is writing right now is not, and this tap
// writes name.PID instead, and says so.
func openTapOutput(name string, e *env) (*os.File, error) {
	f, err := safefile.Overwrite(name)
	if errors.Is(err, safefile.ErrInUse) {
		alt := fmt.Sprintf("%s.%d", name, os.Getpid())
		if f, err = safefile.Create(alt); err == nil {
			e.errorf("tap: %s is being written by another acplint tap; writing %s instead", name, alt)
		}
	}
	return f, err
}

// startLiveLinter starts the live linter in a process of its own at the
// lowest priority (startLiveLintProcess), or, where that process cannot be
// started, on goroutines of the tap's own process. opts and selection are
// what cfg gives, for the latter; need is the keep-up rule's
// (liveLintKeepUp).
func startLiveLinter(cfg liveLintConfig, pageFile *os.File, out io.Writer, trouble func(error), opts lint.Options, selection *ruleSelection, need int64) liveObserver {
	if cfg.MaxLine <= 0 {
		cfg.MaxLine = tap.DefaultMaxLine // as tap.Run takes it
	}
	if p, err := startLiveLintProcess(cfg, pageFile, out, trouble, need); err == nil {
		return p
	}
	var page *htmlreport.Writer
	if pageFile != nil {
		page = htmlreport.New(pageFile, htmlreport.Options{Version: acplintVersion(), Redact: cfg.Redact})
	}
	return newLiveLinter(out, cfg.File, cfg.Started, page, opts, selection, trouble, need)
}

// writeFinding prints one finding in the text format.
func writeFinding(w io.Writer, f findings.ValidationFinding) {
	findings.Write(w, findings.FormatText, findings.Report{Findings: []findings.ValidationFinding{f}})
}

// liveLinter hands the frames the tap's queue gives it to lint.Source
// directly (transcript.NewFrameReader), so live linting is exactly `acplint
// lint` of the recording, gaps included, with no transcript written and
// parsed again on the way; findings are printed as soon as they are found,
// and, when page is not nil, written into it with the traffic; the page is
// closed when the input ends.
//
// The queue wakes the linter at most once per liveLintDelay while the
// traffic flows (tap.Observer.Delay), and idle hands over what came: lint
// then reads the handful of lines as one batch. Waking it for each line as
// it crossed (the editor and the agent take turns, a few lines at a time)
// cost thread switches taken from the forwarding on a busy machine.
//
// It lints in the tap's own process, only where the live linter process
// (tap_livelint.go) cannot be started.
type liveLinter struct {
	// batches carries what the queue gave since the last hand-over to the
	// linter; end closes it.
	batches chan []transcript.Frame
	done    chan struct{}
	trouble func(error)

	// handed and taken count the work (liveWork) of the frames the queue
	// handed to frame and those the linter has taken, and keepUp is the
	// rule wait waits by.
	handed, taken atomic.Int64
	keepUp        tap.KeepUp

	// mu guards what follows, which the tap's queue fills and end hands
	// over last.
	mu           sync.Mutex
	pending      []transcript.Frame
	pendingBytes int
	closed       bool
}

// findingsBuffer is how many bytes of findings the tap keeps for a reader
// that does not keep up: a longer finding is dropped whole.
const findingsBuffer = 1 << 20

// recordDelay is how long a line may wait for the recorder while the
// traffic flows. Woken for every line (the editor and the agent take
// turns, a line or three at a time), the recorder cost a thread switch and
// a write to the file per line, a third of the tap's CPU with live lint
// and time taken from the forwarding on a busy machine; woken at most
// every 2 ms, it writes what came in one go.
const recordDelay = 2 * time.Millisecond

// recordFinishTimeout bounds how long the tap waits, at the end, for the
// recording's last writes.
const recordFinishTimeout = 5 * time.Second

// liveLintDelay is how long a line may wait for the linter while the
// traffic flows: findings come at most this late.
const liveLintDelay = 50 * time.Millisecond

// liveLintBatch bounds the bytes of frames (what the tap's queue counts)
// that wait to be handed to the linter besides the queue: past it, frame
// hands them over before the queue has run empty.
const liveLintBatch = 256 << 10

// opts holds the rule selection's Filter and the schema; selection
// reports a finding with the severity --rule-severity gives it; trouble
// is told when wait stops waiting, by liveLintKeepUp with need.
func newLiveLinter(out io.Writer, file string, started time.Time, page *htmlreport.Writer, opts lint.Options, selection *ruleSelection, trouble func(error), need int64) *liveLinter {
	l := &liveLinter{batches: make(chan []transcript.Frame), done: make(chan struct{}), trouble: trouble}
	l.keepUp = liveLintKeepUp(need, func() int64 { return l.handed.Load() - l.taken.Load() }, os.Getpid())
	go func() {
		// The queue's side stops waiting for the linter once done is
		// closed (handOverLocked), however linting ends.
		defer close(l.done)
		next := func() ([]transcript.Frame, error) {
			if b, ok := <-l.batches; ok {
				l.taken.Add(liveWork(b))
				return b, nil
			}
			return nil, io.EOF
		}
		lintLive(out, file, started, page, opts, selection, next)
	}()
	return l
}

// lintLive lints the frames next hands over (see transcript.NewFrameReader)
// as `acplint lint` lints the recording, prints the findings to out as
// they are found and, when page is not nil, writes them into it with the
// traffic; the page is closed when the input ends. Nothing in linting
// ends the caller: a panic is reported to out.
func lintLive(out io.Writer, file string, started time.Time, page *htmlreport.Writer, opts lint.Options, selection *ruleSelection, next func() ([]transcript.Frame, error)) {
	defer func() {
		// lint recovers from a panic in a rule itself; this is the last
		// line, so that nothing in linting can end the tap.
		if r := recover(); r != nil {
			writeFinding(out, lint.InternalError(findings.Location{File: file}, fmt.Sprintf("live lint stopped after an internal error: panic: %v", r)))
		}
	}()
	print := func(f findings.ValidationFinding) {
		f, _ = selection.apply(f)
		writeFinding(out, f)
	}
	opts.File, opts.OnFinding = file, print
	// With the recording's start, so that the page's times are the
	// recording's.
	src := transcript.NewFrameReader(next, started, opts.MaxLine)
	var err error
	if page != nil {
		// Closed here, after the last entry, even if lint panics.
		defer func() {
			if err := page.Close(); err != nil {
				fmt.Fprintf(out, "acplint tap: %v\n", err)
			}
		}()
		_, err = page.LintSource(src, opts)
	} else {
		_, err = lint.Source(src, opts)
	}
	if err != nil {
		fmt.Fprintf(out, "acplint tap: live lint stopped: %v\n", err)
	}
}

// frame keeps fr for the linter until the queue runs empty (idle), or
// liveLintBatch bytes wait.
func (l *liveLinter) frame(fr transcript.Frame) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.handed.Add(liveWork([]transcript.Frame{fr}))
	l.pending = append(l.pending, fr)
	// Counted as the queue counts it, the frame too: a flood of empty
	// lines is bounded as well.
	l.pendingBytes += len(fr.Data) + int(unsafe.Sizeof(fr))
	if l.pendingBytes >= liveLintBatch {
		l.handOverLocked()
	}
}

func (l *liveLinter) idle() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.handOverLocked()
	}
}

// handOverLocked gives the frames kept to the linter; it may wait for the
// linter to take them (the tap's queue holds the rest meanwhile), never
// the tap's forwarding.
func (l *liveLinter) handOverLocked() {
	if len(l.pending) == 0 {
		return
	}
	select {
	case l.batches <- l.pending:
	case <-l.done: // the linter stopped: nobody reads
	}
	l.pending, l.pendingBytes = nil, 0
}

// end hands over the frames kept and ends the input.
func (l *liveLinter) end() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.handOverLocked()
	l.closed = true
	close(l.batches)
}

// wait waits for the last findings as long as the linter keeps up
// (liveLintKeepUp); a linter that does not is left to itself, its last
// findings lost.
func (l *liveLinter) wait() {
	if err := l.keepUp.Wait(l.done, l.taken.Load); err != nil {
		l.trouble(liveLintStopped(err, l.keepUp))
	}
}
