package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/acplint/acplint/conformance"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/htmlreport"
	"github.com/acplint/acplint/internal/safefile"
	"github.com/acplint/acplint/lint"
)

const checkDoc = `
Check starts an ACP agent, plays the client over its stdin and stdout, and
judges everything the agent says with the protocol machine that lint uses.

Each run plays one sequence: a minimal preflight (one prompt, no
capabilities), then a tour that uses every feature once, then --runs
generated ones: initialize with a drawn subset of
the client capabilities (--caps) and now and then for version 65535, then
up to --steps actions: new sessions, prompts with text and resource
content, cancels (right after the prompt, after some updates, at the
agent's first request; session/cancel, or session/close when the agent
supports it), session/load and session/resume when the agent advertises
them, session/set_mode and session/set_config_option when the session
offers modes and options, and a request for _acplint/no_such_method, which
no agent implements. The client answers fs/* from an in-memory workspace
whose unsaved buffers differ from disk, simulates terminal/* with output and
exit codes, picks any offered permission option (or "cancelled" after a
cancel), injects fs and terminal errors now and then, and refuses every
method it did not advertise with -32601. A prompt turn in which the agent
says nothing for --idle-cancel is cancelled, as a user stops a stuck turn;
for an agent whose turns only end when cancelled that time drops to 100ms.
The agent's stderr is kept but never judged.

Agent processes: the preflight starts the agent alone. After it, one
agent process serves up to --sequences-per-agent sequences in turn, each
with sessions of its own, when they send the same initialize (the same
protocol version and client capabilities) and inject no fault, and the
agent takes longer to start than --settle (what handing a process on
costs); the
initialize exchange of the process's start heads each one's transcript, so
every transcript is still a whole connection to lint. A process whose
sequence failed, left a request unanswered, or that speaks between
sequences is closed, and the next sequence gets a fresh one; a sequence
with faults always does, as does every run made while shrinking. The close
ladder runs after a process's last sequence. --parallel processes run at
once (-j); runs are numbered and judged in the order of their sequences,
whichever ends first. --sequences-per-agent 1 -j 1 starts a fresh agent for
every sequence, one at a time.

Faults (--faults): a real editor is not a perfect client. With --faults the
client also does what editors do wrong: late-answer (answers the agent's
requests late), duplicate-answer (answers each twice), fs-error (fails
every fs/* call), cancel-permission (dismisses permission requests: outcome
"cancelled" in a turn that goes on), disconnect (closes the agent's stdin
in mid-turn), overlap-prompt (a second prompt while a turn runs),
chunked-write (writes each message in pieces). The tour runs them all, and
each generated run a drawn subset. A robust agent does not crash
(CHECK-CRASH) or hang (CHECK-TIMEOUT, CHECK-CLOSE after a disconnect),
answers every prompt with a stop reason or an error (ACP-RPC-013), and
sends nothing for a turn after its response (ACP-TURN-003, ACP-CXL-002).
What the client does wrong on purpose is not held against either side.

Sequences are generated with rapid: --seed replays a check exactly (for a
deterministic agent). Each distinct failure is shrunk to the smallest run
that still shows it; with --out DIR the minimal run is written as
DIR/RULE.jsonl, a transcript that 'acplint lint --clean-end' reproduces the
finding from, and DIR/RULE.txt with the client's steps and the agent's stderr.
With --html DIR, each minimal run is also drawn as DIR/RULE.html, the page
'acplint lint --clean-end -f html' makes of it: the run as a timeline of
client and agent messages with the findings on them (the transcripts go to
DIR too unless --out names another directory).

The verdict groups rules by tier: MUST (error rules every agent meets; one
never exercised counts as not passed), capability-gated (error rules of a
capability or feature that came into play), SHOULD (warnings) and
informational. A cancel that may have crossed the end of the turn is a
race: it neither fails nor exercises the cancellation rules. A cancel counts
as read by the agent when the client answered one of the agent's requests
between the cancel and the prompt's response (stdin is read in order), when
the turn had been silent for the idle time before the cancel and the agent
has never ended a turn but on a cancel, or when the agent was silent for
--cancel-grace (or four times its slowest answer to a request other than a
prompt, when that is longer: a loaded machine) after the cancel before it
answered. An agent that ends
every turn before a cancel can reach it gets "cancellation not exercised",
with the reason: ACP-CXL-001 and ACP-CXL-002 are skipped, not failed. A
finding lint lowers to a warning (the agent may have had a reason) fails at
the SHOULD level. The harness also checks that the agent starts, answers in
time, does not die, and exits when its stdin closes (CHECK-* ids).

Timeouts: --startup-timeout until initialize is answered; --response-timeout
of silence while a request is pending (once the agent let one pass, later
runs wait ten times its slowest answer, at least 500ms; an agent that
answered an id the client never sent gets 500ms more); --run-timeout for
one whole run; --budget for the whole check, after which the verdict covers
the runs made.
Closing runs a ladder: stdin is closed, then SIGTERM, then SIGKILL, each
after --close-grace, while stdout is still read.

Output formats (-f): text; json, one record per line: a finding record
for each rule that failed (or a MUST never exercised, or an informational
rule noted), harness problem and note, with the keys lint's json output
has and check's detail (tier, status, examples with their transcript
windows, the minimal run) under "check", then a verdict record
({"version":1,"verdict":{…}}, every rule's status);
docs/json-output.schema.json describes them. sarif: the same findings
as SARIF 2.1.0. junit: one suite per tier, one case per rule. A finding is
located where lint shows it in the minimal transcript written with --out,
or else in the agent as a whole, named by its command line.

Bounds: whatever the agent writes, check's memory stays bounded. An agent
line longer than --max-line bytes is read past, not kept, and recorded as a
gap. Each run is judged in full as it happens, but its transcript keeps
only its first --max-transcript bytes (on disk, in an owner-only temporary
file that is removed at once) and its most recent lines after those (up to
1024 lines and 8 MiB, in memory); a transcript written with --out marks the
lines dropped between with a gap record ("lost") that lint reports. Lint's
findings are capped per rule (the first 100, then a count). The startup timeout counts from the
agent's start: an agent that writes on stdout but never answers initialize
fails it all the same. The startup, response and run timeouts, the close
grace of the stdin step and the settle time are stretched by the time the
machine's load kept the agent or acplint from running (at most three times
the wait more), so that a loaded machine does not fail a conforming agent;
a verdict that fails a stretched wait says so. The agent's threads waiting
for each other (more of them busy than it has CPUs) is not load.

Interrupting check (SIGINT, SIGTERM) ends it promptly: the running agent's
process group gets stdin closed, SIGTERM and SIGKILL within 1.5 s, the
verdict of the runs made so far is written, and check exits 2. A second
signal ends acplint at once; on Linux the agent process is then killed by
its parent-death signal (its own children are not).

Exit codes: 0 conformant; 1 not conformant, including an agent that runs
but never answers initialize (CHECK-START); 2 usage error, an agent program
that cannot be run, or check was interrupted.

Examples:
	acplint check -- go run ./conformance/agents/reference
	acplint check --runs 200 --seed 42 --out failures -- node agent.mjs
	acplint check --caps none -f junit -- my-agent --acp > check.xml
`

func runCheck(ctx context.Context, args []string, e *env) int {
	fs := newFlagSet("check", "acplint check [flags] -- AGENT_CMD [ARGS…]", checkDoc, e)
	format := fs.String("f", "text", "output `format`: text, json, sarif or junit")
	fs.StringVar(format, "format", "text", "same as -f")
	runs := fs.Int("runs", conformance.DefaultRuns, "`number` of generated sequences")
	parallel := fs.Int("parallel", conformance.DefaultParallel(), "`number` of agent processes running sequences at once")
	fs.IntVar(parallel, "j", conformance.DefaultParallel(), "same as --parallel")
	perAgent := fs.Int("sequences-per-agent", conformance.DefaultSequencesPerAgent, "`number` of sequences one agent process serves at most, in turn; 1 starts a fresh agent for each")
	steps := fs.Int("steps", conformance.DefaultSteps, "most client `actions` (prompts, sessions, loads, closes) per sequence")
	seed := fs.Uint64("seed", 0, "random `seed` of the sequences; 0 picks one (the verdict prints it)")
	caps := fs.String("caps", "all", "client capabilities each run may advertise (a drawn subset): `list` of fs.readTextFile, fs.writeTextFile, terminal, or all, none")
	out := fs.String("out", "", "write the minimal transcript of each failure to `DIR`")
	htmlDir := fs.String("html", "", "write the HTML report of each failure's minimal run to `DIR`/RULE.html")
	failOn := fs.String("fail-on", "error", "fail on rules of at least this `severity`: error (MUST and capability-gated) or warning (SHOULD too)")
	startup := fs.Duration("startup-timeout", conformance.DefaultStartupTimeout, "`time` allowed until initialize is answered")
	response := fs.Duration("response-timeout", conformance.DefaultResponseTimeout, "`time` of silence allowed while a request is pending")
	runTimeout := fs.Duration("run-timeout", conformance.DefaultRunTimeout, "watchdog `time` for one whole run")
	settle := fs.Duration("settle", conformance.DefaultSettle, "quiet `time` awaited after a cancelled turn, for late updates")
	cancelGrace := fs.Duration("cancel-grace", conformance.DefaultCancelGrace, "an agent silent this `time` after a cancel before it answers the cancelled prompt counts as having read the cancel (quicker answers are races)")
	grace := fs.Duration("close-grace", conformance.DefaultCloseGrace, "`time` given at each step of the close ladder (stdin, SIGTERM, SIGKILL)")
	shrinkTime := fs.Duration("shrink-time", conformance.DefaultShrinkTime, "`time` allowed to shrink each failure")
	idleCancel := fs.Duration("idle-cancel", conformance.DefaultIdleCancel, "cancel a prompt turn in which the agent says nothing for this `time`, as a user stops a stuck turn (shortened for an agent whose turns only end when cancelled); 0 never")
	faults := fs.String("faults", "none", "what the client does wrong on purpose, as editors do: `list` of late-answer, duplicate-answer, fs-error, cancel-permission, disconnect, overlap-prompt, chunked-write, or all, none")
	budget := fs.Duration("budget", 0, "total `time` for the whole check: no run starts and none is shrunk once it is spent, and the verdict covers the runs made; 0 no limit")
	maxShrinks := fs.Int("max-shrinks", conformance.DefaultMaxShrinks, "shrink at most this `number` of distinct failures")
	maxLine := fs.Int("max-line", conformance.DefaultMaxLine, "longest agent line kept, in `bytes`; a longer one is recorded as a gap")
	maxTranscript := fs.Int64("max-transcript", conformance.DefaultMaxTranscript, "`bytes` of the start of each run's transcript kept on disk; after them only a bounded tail is kept, in memory")
	verbose := fs.Bool("v", false, "print one line per run to stderr")
	config := addFileFlags(fs)
	if code, ok := parseFlags(fs, args, e); !ok {
		return code
	}
	if _, err := config.apply(fs, "check", map[string]string{"fail-on": "fail-on", "format": "f"}); err != nil {
		e.errorf("check: %v", err)
		return exitUsage
	}
	argv := fs.Args()
	if len(argv) == 0 {
		e.errorf("check: no agent command; usage: acplint check [flags] -- AGENT_CMD [ARGS…]")
		return exitUsage
	}
	outFormat, err := conformance.ParseFormat(*format)
	if err != nil {
		e.errorf("check: %v", err)
		return exitUsage
	}
	capList, err := conformance.ParseCapabilities(*caps)
	if err != nil {
		e.errorf("check: --caps: %v", err)
		return exitUsage
	}
	faultList, err := conformance.ParseFaults(*faults)
	if err != nil {
		e.errorf("check: --faults: %v", err)
		return exitUsage
	}
	threshold, err := findings.ParseSeverity(*failOn)
	if err != nil || threshold == findings.SeverityInfo {
		e.errorf("check: --fail-on: want error or warning, not %q", *failOn)
		return exitUsage
	}
	if *runs <= 0 || *steps <= 0 || *parallel <= 0 || *perAgent <= 0 || *maxShrinks < 0 || *maxLine <= 0 || *maxTranscript <= 0 || *idleCancel < 0 || *budget < 0 {
		e.errorf("check: --runs, --steps, --parallel, --sequences-per-agent, --max-line and --max-transcript must be positive, --max-shrinks, --idle-cancel and --budget not negative")
		return exitUsage
	}
	opts := conformance.Options{
		Agent:           conformance.AgentCommand{Path: argv[0], Args: argv[1:]},
		Runs:            *runs,
		Steps:           *steps,
		Seed:            *seed,
		Caps:            capList,
		StartupTimeout:  *startup,
		ResponseTimeout: *response,
		RunTimeout:      *runTimeout,
		Settle:          *settle,
		CancelGrace:     *cancelGrace,
		CloseGrace:      *grace,
		ShrinkTime:      *shrinkTime,
		IdleCancel:      *idleCancel,
		Budget:          *budget,
		Faults:          faultList,
		MaxShrinks:      *maxShrinks,
		OutDir:          *out,
		FailOn:          threshold,
		Version:         acplintVersion(),
		MaxLine:         *maxLine,
		MaxTranscript:   *maxTranscript,

		Parallel:          *parallel,
		SequencesPerAgent: *perAgent,
	}
	if *maxShrinks == 0 {
		opts.MaxShrinks = -1
	}
	if *htmlDir != "" && opts.OutDir == "" {
		// The pages are drawn from the transcripts on disk.
		opts.OutDir = *htmlDir
	}
	if *idleCancel == 0 {
		opts.IdleCancel = -1
	}
	if *verbose {
		opts.Progress = e.stderr
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first signal stops the check in order; a second one ends acplint
	// at once (the agent then gets its parent-death signal).
	go func() {
		<-ctx.Done()
		stop()
	}()
	v, err := conformance.Check(ctx, opts)
	if err != nil {
		e.errorf("check: %v", err)
		return exitUsage
	}
	if err := v.Write(e.stdout, outFormat); err != nil {
		e.errorf("check: writing the verdict: %v", err)
		return exitUsage
	}
	if *htmlDir != "" {
		if err := writeCheckPages(*htmlDir, v, e); err != nil {
			e.errorf("check: --html: %v", err)
			return exitUsage
		}
	}
	if ctx.Err() != nil {
		fmt.Fprintln(e.stderr, "acplint: check: interrupted; the verdict covers the runs made so far")
		return exitUsage
	}
	if !v.Conformant {
		return exitFindings
	}
	return exitClean
}

// writeCheckPages draws the minimal run of each reproduction written to
// disk as dir/KEY.html: what 'acplint lint --clean-end -f html' makes of
// its transcript. Pages are 0600, like every file acplint writes.
func writeCheckPages(dir string, v *conformance.Verdict, e *env) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, rep := range v.Reproductions {
		if rep.File == "" {
			continue
		}
		name := filepath.Join(dir, rep.Key+".html")
		err := safefile.Replace(name, func(w io.Writer) error {
			in, err := os.Open(rep.File)
			if err != nil {
				return err
			}
			defer in.Close()
			page := htmlreport.New(w, htmlreport.Options{Title: rep.Key + ": " + rep.File, Version: acplintVersion()})
			if _, err := page.Lint(in, lint.Options{File: rep.File, CleanEnd: true}); err != nil {
				return err
			}
			return page.Close()
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "acplint: check: %s shows the minimal run of %s\n", name, rep.Key)
	}
	return nil
}
