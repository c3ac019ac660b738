package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"time"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/internal/third_party/rapid"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/protocol"
	"github.com/acplint/acplint/transcript"
)

// Facts: what a run did. A rule is exercised when a run produced the fact
// its profile entry names.
const (
	FactAgentLine           Fact = "agent-line"     // the agent wrote a line on stdout
	FactInitialize          Fact = "initialize"     // initialize was answered
	FactAgentResponse       Fact = "agent-response" // the agent answered a request
	FactAgentRequest        Fact = "agent-request"  // the agent sent a request
	FactSessionNew          Fact = "session-new"    // session/new was answered
	FactPrompt              Fact = "prompt"         // a prompt turn ended
	FactUpdate              Fact = "update"         // the agent sent session/update
	FactToolCall            Fact = "tool-call"      // the agent reported a tool call
	FactPermission          Fact = "permission"     // the agent asked for permission
	FactPermissionCancelled Fact = "permission-cancelled"
	FactFS                  Fact = "fs"                // the agent called fs/*
	FactTerminal            Fact = "terminal"          // the agent called terminal/*
	FactCancelSent          Fact = "cancel-sent"       // the client sent session/cancel
	FactCloseSent           Fact = "close-sent"        // the client closed a session during its turn
	FactCancelDecisive      Fact = "cancel-decisive"   // a cancel the agent must have read before it ended the turn
	FactCancelRace          Fact = "cancel-race"       // a cancel that crossed the turn's end
	FactCloseDecisive       Fact = "close-in-turn"     // session/close during a turn, read before it ended
	FactLoad                Fact = "load"              // session/load was answered
	FactLoadHistory         Fact = "load-history"      // ... for a session that had turns
	FactWithheldRead        Fact = "withheld-read"     // a turn ran without fs.readTextFile
	FactWithheldWrite       Fact = "withheld-write"    // ... without fs.writeTextFile
	FactWithheldTerminal    Fact = "withheld-terminal" // ... without terminal
	FactClientRequest       Fact = "client-request"    // the client sent a request
	FactResume              Fact = "resume"            // session/resume was answered
	FactModeSet             Fact = "mode-set"          // session/set_mode was answered
	FactConfigSet           Fact = "config-set"        // session/set_config_option was answered
	FactAdvertisedCall      Fact = "advertised-call"   // the client called a method the agent advertised
	FactProbe               Fact = "probe"             // the client called a method no agent implements
)

// promptTask is one prompt the client may send. The text is plain English
// for a real agent; the fixture agents read its "read F", "edit F" and
// "run `C`" phrases as instructions.
type promptTask struct {
	text string
	file string // the file the prompt is about, for resource blocks
}

// mimeTypes of the workspace files, fixed so that a transcript does not
// depend on the host's MIME tables.
var mimeTypes = map[string]string{".md": "text/markdown", ".go": "text/x-go", ".txt": "text/plain"}

var promptTasks = []promptTask{
	{text: "Say hello."},
	{text: "Read README.md and tell me what this project is.", file: "README.md"},
	{text: "Edit README.md to give it a clearer title.", file: "README.md"},
	{text: "Run `ls -1` and list the project files."},
	{text: "Read src/main.go, then run `go vet ./...` and explain the result.", file: "src/main.go"},
	{text: "Read notes/todo.txt, edit notes/todo.txt to tick off the first item, then run `cat notes/todo.txt`.", file: "notes/todo.txt"},
	{text: "Read docs/design.md and summarise it."},
	{text: "Run `false` and tell me its exit code."},
}

// Run is one executed sequence, on an agent process of its own or on one
// it shares with other sequences of the same initialize (see pool.go).
type Run struct {
	N          int
	Transcript *Transcript
	Steps      []string
	Facts      map[Fact]int
	Failure    *Failure
	Close      CloseStep
	Exit       string
	Stderr     []byte
	Findings   []findings.ValidationFinding
	// Unadvertised counts agent calls of methods the client had not
	// advertised, by method.
	Unadvertised map[string]int
	// RaceLines are the prompt responses of turns whose cancel the agent
	// cannot be shown to have read first (see client.cancelRead).
	RaceLines map[int]bool
	// ReadLines are the prompt responses of cancelled turns whose cancel
	// the agent provably read first, with how the harness knows.
	ReadLines map[int]string
	Duration  time.Duration
	// Version is the protocol version the client asked for, InitLine the
	// transcript line of its initialize request.
	Version, InitLine int
	// NotStarted: the agent's program could not be run at all.
	NotStarted bool
	// Plan is what the client did, for shrinking.
	Plan *Plan
	// FaultLines are the client's messages that were wrong on purpose;
	// DisconnectLine is where the client closed the agent's stdin in
	// mid-turn (see Fault).
	FaultLines     map[int]string
	DisconnectLine int
	// Overlap spans the lines from the prompt the client sent while a turn
	// ran (FaultOverlap) to its response.
	Overlap [2]int
	// Interrupted: the check was stopped (interrupt, budget) during the
	// run, which therefore has no verdict.
	Interrupted bool
}

// selfContained reports whether f judges a message in itself (its
// framing, envelope or schema), not the agent's dealings with the client.
func selfContained(f findings.ValidationFinding) bool {
	switch f.RuleID {
	case findings.RPCVersion.ID, findings.RPCNoEnvelope.ID, findings.RPCMalformedError.ID:
		return true
	}
	rule := ruleByID(f.RuleID)
	return rule != nil && (rule.Area() == "WIRE" || rule.Area() == "SCH")
}

// overlapBlind are the rules that attribute updates and stop reasons to
// a turn, which overlapping prompts make ambiguous.
var overlapBlind = map[string]bool{
	findings.TURNOutOfTurnUpdate.ID: true, findings.CXLUpdateAfterCancel.ID: true,
	findings.TURNUnrequestedCancel.ID: true, findings.TURNEndWithOpenToolCalls.ID: true,
	// The queued prompt may run in a session the client closed meanwhile.
	findings.SIDUnknownSessionFromAgent.ID: true,
}

// excused reports whether f, a finding against the client, is about
// something the harness does on purpose: the info member of an initialize
// that asks for a later protocol version (see client.sequence), which v1
// does not define.
//
// Injected faults excuse the findings they cause: any finding against the
// client on a message that was wrong on purpose, the requests left
// unanswered because the client disconnected (the agent's own, sent to a
// client that is gone, too), and after the disconnect whatever judges the
// agent's dealings with the client (how it ends the turns the disconnect
// cut short, say; closing stdin cancels them, in effect): only what a
// message is in itself still counts there.
func (r *Run) excused(f findings.ValidationFinding) bool {
	switch {
	case f.RuleID == findings.SCHUnknownMember.ID && r.Version != 1 && f.Location.Line == r.InitLine && f.Location.Pointer == "/params/info":
		return true
	case f.Blame == findings.PartyClient && r.FaultLines[f.Location.Line] != "":
		return true
	case r.DisconnectLine > 0 && (f.RuleID == findings.RPCUnanswered.ID || f.RuleID == findings.EXTNUnansweredExtension.ID):
		return true
	case r.DisconnectLine > 0 && f.Location.Line > r.DisconnectLine && !selfContained(f):
		return true
	case f.Location.Line > r.Overlap[0] && f.Location.Line <= r.Overlap[1] && overlapBlind[f.RuleID]:
		// Two prompts ran at once: which turn an update or a stop reason
		// belongs to is not in the transcript.
		return true
	}
	return false
}

// execute runs one sequence: start the agent, play the client by plan,
// close the agent, and lint what was said.
func execute(ctx context.Context, opts *Options, ws *Workspace, plan *Plan) *Run {
	return executeAt(ctx, opts, ws, plan, nil)
}

// executeAt is execute at the check's pace. ctx ending (the user's
// interrupt, or the check's budget running out) stops the run, which then
// has no verdict (Run.Interrupted).
func executeAt(ctx context.Context, opts *Options, ws *Workspace, plan *Plan, pc *pace) *Run {
	run, _ := executeOn(ctx, opts, ws, plan, pc, nil, false)
	return run
}

// executeOn runs plan on cn, the process of an earlier sequence, or on a
// fresh one when cn is nil or unfit to serve another sequence. With keep,
// a sequence that ends well leaves its process running for the next, and
// returns it; otherwise the close ladder ends the process, and executeOn
// returns nil.
func executeOn(ctx context.Context, opts *Options, ws *Workspace, plan *Plan, pc *pace, cn *agentConn, keep bool) (*Run, *agentConn) {
	start := time.Now()
	rec := &Transcript{spillMax: opts.MaxTranscript}
	run := &Run{Transcript: rec, Facts: map[Fact]int{}, Version: plan.Version, Plan: plan}
	rec.startLint()
	if cn != nil && !cn.p.resume(rec) {
		cn.retire(opts.CloseGrace, ctx.Done())
		cn = nil
	}
	if cn == nil {
		p, err := startProc(opts.Agent, rec, opts.MaxLine)
		if err != nil {
			rec.finish()
			run.Failure = &Failure{Check: CheckStart, Message: fmt.Sprintf("could not start %s: %v", opts.Agent, err)}
			run.NotStarted = true
			return run, nil
		}
		cn = &agentConn{p: p}
	}
	p := cn.p
	// The run's watchdog must not shorten the close ladder; the user's
	// interrupt must.
	interrupt := ctx.Done()
	outer := ctx
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	c := newClient(ctx, opts, p, plan, ws.open(), pc)
	c.outer = outer
	c.handshake, c.nextID, c.startup = cn.handshake, cn.nextID, cn.startup
	c.load = newRunMeter(p.pid(), opts.RunTimeout)
	c.watchdog = watchRun(opts.RunTimeout, c.load, cancel)
	c.sequence()
	// Handing the process over costs a settle unless the agent is quiet
	// already; when the agent starts quicker than that, a fresh one is
	// cheaper.
	keep = keep && (c.quiet || c.startup > opts.Settle)
	if keep && c.canHandOver() && !c.quiet {
		// What the agent still says for this sequence lands on its record
		// before the next one begins, as the close ladder would have read
		// it.
		c.settle(opts.Settle)
	}
	// (The close ladder measures the load itself.)
	c.watchdog.stop()
	c.load.close()
	if keep && c.canHandOver() {
		p.park()
		run.Close = ClosedKept
		cn.handshake, cn.nextID, cn.startup = c.handshake, c.nextID, c.startup
	} else {
		// Whatever the agent still says is read (and recorded) while the
		// close ladder runs.
		c.closing = true
		// The stdin rung's grace grows with the agent's slowest reply: on a
		// machine loaded enough that answering one line takes that long,
		// exiting takes long too.
		var stdinWait time.Duration
		run.Close, stdinWait = p.shutdown(pc.closeGrace(opts.CloseGrace), opts.CloseGrace, interrupt, c.handle)
		// A grandchild that keeps stdout open must not keep the run going.
		p.stop()
		cn = nil
		switch {
		case c.failure != nil || c.interrupted:
		case run.Close == ClosedBefore && c.disconnectLine == 0:
			c.fail(CheckCrash, "the agent exited before the client closed the connection; it %s", p.exitStatus())
		case run.Close != ClosedOnStdin && !(c.disconnectLine > 0 && run.Close == ClosedBefore):
			// (After a disconnect the agent exits before the close ladder
			// begins: stdin was closed then.)
			c.fail(CheckClose, "the agent did not exit within %v of its stdin closing%s; it needed %s", opts.CloseGrace, closeStretch(opts.CloseGrace, stdinWait), run.Close)
		}
	}
	run.Steps = c.steps
	run.Facts = c.facts
	run.Failure = c.failure
	run.Exit = p.exitStatus()
	run.Stderr = p.stderr.Bytes()
	run.Unadvertised = c.unadvertised
	run.RaceLines = c.raceLines
	run.ReadLines = c.readLines
	run.Interrupted = c.interrupted
	run.InitLine = c.initLine
	run.FaultLines = c.faultLines
	run.DisconnectLine = c.disconnectLine
	run.Overlap = c.overlap
	if c.failure != nil && (c.failure.Check == CheckTimeout || c.failure.Check == CheckStart) {
		pc.timedOut()
	}
	run.Findings = rec.finish()
	run.Duration = time.Since(start)
	return run, cn
}

// closeStretch says how far the close grace was stretched (see
// pace.closeGrace and stallMeter), or nothing when it was not.
func closeStretch(configured, waited time.Duration) string {
	if waited <= configured {
		return ""
	}
	return fmt.Sprintf(" (stretched to %v for the agent's pace and the machine's load)", waited.Round(time.Millisecond))
}

// lintTranscript judges a JSONL transcript exactly as `acplint lint
// --clean-end` does. The harness records both directions until the
// connection closes, so the transcript is never truncated.
func lintTranscript(jsonl io.Reader, name string) []findings.ValidationFinding {
	res, err := lint.Transcript(jsonl, lint.Options{Format: transcript.FormatJSONL, File: name, CleanEnd: true})
	if err != nil {
		// Reading from a pipe or a file the harness wrote should not fail;
		// keep the error visible anyway.
		return []findings.ValidationFinding{lint.InternalError(findings.Location{File: name}, "linting the transcript failed: "+err.Error())}
	}
	return res.Findings
}

// Plan is one generated sequence: every choice of the client, drawn up
// front so that rapid can shrink it by dropping actions and lowering
// values. Choices that depend on what the agent does (which permission
// option, whether an fs call fails) are drawn as a list of answers per
// action, taken in order as the agent's requests come in.
type Plan struct {
	Caps    []Capability // advertised
	Version int          // requested protocolVersion
	Actions []Action
	Faults  []Fault // injected (see Fault)
}

// Action is one client step.
type Action struct {
	Kind ActionKind
	// Session picks among the sessions the action can apply to (modulo
	// their number).
	Session int
	// Prompt content: Task indexes promptTasks; Link and Embed add a
	// resource_link and an embedded resource for the task's file.
	Task        int
	Link, Embed bool
	// Cancel: 0 never, 1 after CancelAfter agent messages, 2 at the
	// agent's first request, 3 at once, right after the prompt; ViaClose
	// cancels with session/close.
	Cancel      int
	CancelAfter int
	ViaClose    bool
	// Answers are the choices for the agent's requests during the action:
	// a permission request picks option Answers[i] modulo their number; an
	// fs or terminal/create call fails when it is injectErrorAnswer.
	Answers []int
}

// ActionKind is what an action does.
type ActionKind int

const (
	ActPrompt ActionKind = iota
	ActNewSession
	ActLoadSession
	ActCloseSession
	ActResumeSession
	ActSetMode
	ActSetConfigOption
	// ActProbe calls a method that no agent implements, which the agent
	// should refuse with -32601.
	ActProbe
)

// actionKinds are the kinds an action draws from: prompts take five
// shares in twelve, because that is where agents go wrong.
var actionKinds = []ActionKind{ActPrompt, ActPrompt, ActPrompt, ActPrompt, ActPrompt, ActNewSession,
	ActLoadSession, ActCloseSession, ActResumeSession, ActSetMode, ActSetConfigOption, ActProbe}

// injectErrorAnswer makes an fs call or terminal/create fail.
const injectErrorAnswer = 5

// planGenerator draws plans with at most maxSteps actions, each injecting
// a drawn subset of faults.
func planGenerator(pool []Capability, faults []Fault, maxSteps int) *rapid.Generator[*Plan] {
	action := rapid.Custom(func(t *rapid.T) Action {
		kind := rapid.IntRange(0, len(actionKinds)-1).Draw(t, "kind (0-4 prompt, 5 new, 6 load, 7 close, 8 resume, 9 mode, 10 config, 11 probe)")
		a := Action{Kind: actionKinds[kind], Session: rapid.IntRange(0, 3).Draw(t, "session")}
		if a.Kind == ActPrompt {
			a.Task = rapid.IntRange(0, len(promptTasks)-1).Draw(t, "task")
			a.Link = rapid.Bool().Draw(t, "link")
			a.Embed = rapid.Bool().Draw(t, "embed")
			// Cancel three turns in five: after some messages, at a
			// request, or at once.
			a.Cancel = max(0, rapid.IntRange(0, 4).Draw(t, "cancel (0-1 never, 2 after k, 3 at a request, 4 at once)")-1)
			if a.Cancel == 1 {
				a.CancelAfter = rapid.IntRange(0, 8).Draw(t, "cancelAfter")
			}
			if a.Cancel != 0 {
				a.ViaClose = rapid.Bool().Draw(t, "viaClose")
			}
			a.Answers = rapid.SliceOfN(rapid.IntRange(0, injectErrorAnswer), 0, 6).Draw(t, "answers")
		}
		return a
	})
	return rapid.Custom(func(t *rapid.T) *Plan {
		p := &Plan{Version: 1}
		for _, k := range pool {
			if rapid.Bool().Draw(t, "advertise "+string(k)) {
				p.Caps = append(p.Caps, k)
			}
		}
		// Now and then ask for a version from the far future: a v1 agent
		// must answer 1, not echo the request.
		if rapid.Bool().Draw(t, "ask for version 65535") {
			p.Version = futureVersion
		}
		p.Actions = rapid.SliceOfN(action, 1, max(1, maxSteps)).Draw(t, "actions")
		for _, f := range faults {
			if rapid.Bool().Draw(t, "inject "+string(f)) {
				p.Faults = append(p.Faults, f)
			}
		}
		return p
	})
}

// preflightPlan is the simplest sequence: no capabilities, one session,
// one prompt that asks for nothing.
func preflightPlan() *Plan {
	return &Plan{Version: 1, Actions: []Action{{Kind: ActPrompt}}}
}

// tourPlans are the runs made after the preflight and before the
// generated ones: every feature the harness exercises, once, so that the
// verdict does not depend on how many runs the generator needs to reach
// a second session, a mode change or a resume. The first advertises every
// capability of pool; the second asks for a version no ACP release
// defines, which a v1 agent must answer with 1.
func tourPlans(pool []Capability) []*Plan {
	prompt := func(task, cancel, after int) Action {
		return Action{Kind: ActPrompt, Task: task, Link: true, Embed: true, Cancel: cancel, CancelAfter: after, Answers: []int{0, 0, 0}}
	}
	full := &Plan{Version: 1, Caps: append([]Capability(nil), pool...), Actions: []Action{
		prompt(0, 3, 0), // at once: an agent that answers at once races it
		prompt(1, 1, 0), // at the first update
		{Kind: ActNewSession},
		{Kind: ActSetMode, Session: 1},
		{Kind: ActSetConfigOption, Session: 1},
		prompt(2, 2, 0), // at the agent's first request
		{Kind: ActProbe},
		{Kind: ActLoadSession},
		{Kind: ActResumeSession}, // the first session, which has history
		prompt(5, 0, 0),
		{Kind: ActCloseSession},
	}}
	version := &Plan{Version: futureVersion, Actions: []Action{prompt(0, 0, 0)}}
	return []*Plan{full, version}
}

// futureVersion is the protocol version the client asks for now and then:
// one no ACP release defines, which a v1 agent must answer with 1.
const futureVersion = 65535

// sequence is the client's side of one run.
func (c *client) sequence() {
	for _, k := range c.plan.Caps {
		c.caps[k] = true
	}
	version := c.plan.Version
	if len(c.plan.Faults) > 0 {
		c.logf("inject faults %v", c.plan.Faults)
	}
	c.logf("initialize protocolVersion=%d capabilities=%v", version, c.advertised())
	info := map[string]any{"name": "acplint-check", "title": "acplint check", "version": c.opts.Version}
	params := map[string]any{
		"protocolVersion": version,
		"clientCapabilities": map[string]any{
			"fs":       map[string]any{"readTextFile": c.caps[CapReadTextFile], "writeTextFile": c.caps[CapWriteTextFile]},
			"terminal": c.caps[CapTerminal],
		},
		"clientInfo": info,
	}
	if version != 1 {
		// A client that asks for a later version speaks it, and v2's
		// initialize requires info: an agent that routes every request
		// above 1 to v2 refuses one without it, for a reason that has
		// nothing to do with negotiation. (v1 calls it clientInfo, so lint
		// notes the member; the verdict excuses it, see Run.excused.)
		params["info"] = info
	}
	var init *clientCall
	if c.handshake != nil {
		init = c.replayHandshake()
	} else {
		init = c.call("initialize", params)
	}
	c.initLine = init.line
	c.facts[FactClientRequest]++
	if !c.wait(init, c.opts.StartupTimeout) {
		if init.err != nil {
			c.facts[FactInitialize]++
			c.logf("initialize failed: %d %s; nothing more to do", init.err.Code, init.err.Message)
		}
		return
	}
	c.facts[FactInitialize]++
	if c.handshake == nil {
		c.handshake = c.p.endHandshake(init.respLine)
		c.startup = init.respAt.Sub(c.p.start)
	}
	c.readAgentInfo(init.result)
	if c.agent.version != 1 {
		c.logf("the agent negotiated protocol version %d; a v1 client stops here", c.agent.version)
		return
	}
	for _, a := range c.plan.Actions {
		if c.failure != nil || c.interrupted || c.disconnectLine > 0 {
			return
		}
		c.answers = a.Answers
		switch a.Kind {
		case ActPrompt:
			c.prompt(a)
		case ActNewSession:
			c.newSession()
		case ActLoadSession:
			c.loadSession(a)
		case ActCloseSession:
			c.closeSession(a)
		case ActResumeSession:
			c.resumeSession(a)
		case ActSetMode:
			c.setMode(a)
		case ActSetConfigOption:
			c.setConfigOption(a)
		case ActProbe:
			c.probe()
		}
	}
}

// replayHandshake starts the sequence's record with the initialize
// exchange of the process's start, lines and times as they were: the
// sequence would send the same initialize (agentConn), so that answer is
// the one it gets, and lint judges the sequence as a connection of its
// own. The response is handled as if just read.
func (c *client) replayHandshake() *clientCall {
	req, resp := c.handshake[0], c.handshake[1]
	cc := &clientCall{method: "initialize"}
	cc.line, c.sentAt = c.rec.addRecord(req)
	c.calls[domain.RequestID{Raw: []byte("0")}.Key()] = cc
	num, at := c.rec.addRecord(resp)
	body := bytes.TrimSuffix(bytes.TrimSuffix(resp.Line, []byte("\n")), []byte("\r"))
	c.handle(frame{line: body, num: num, at: at, rec: c.rec})
	return cc
}

func (c *client) advertised() []Capability {
	var out []Capability
	for _, k := range AllCapabilities {
		if c.caps[k] {
			out = append(out, k)
		}
	}
	return out
}

func (c *client) readAgentInfo(result json.RawMessage) {
	var r struct {
		ProtocolVersion   json.Number `json:"protocolVersion"`
		AgentCapabilities struct {
			LoadSession        bool `json:"loadSession"`
			PromptCapabilities struct {
				EmbeddedContext bool `json:"embeddedContext"`
			} `json:"promptCapabilities"`
			SessionCapabilities struct {
				Close  json.RawMessage `json:"close"`
				Resume json.RawMessage `json:"resume"`
			} `json:"sessionCapabilities"`
		} `json:"agentCapabilities"`
	}
	_ = json.Unmarshal(result, &r)
	v, err := r.ProtocolVersion.Int64()
	if err != nil {
		v = -1
	}
	caps := r.AgentCapabilities
	c.agent = agentInfo{
		version:         int(v),
		loadSession:     caps.LoadSession,
		embeddedContext: caps.PromptCapabilities.EmbeddedContext,
		close:           marked(caps.SessionCapabilities.Close),
		resume:          marked(caps.SessionCapabilities.Resume),
	}
}

// marked reports whether a capability marker (an object, in v1) is set.
func marked(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null" && string(raw) != "false"
}

func (c *client) newSession() *clientSession {
	c.logf("session/new")
	cc := c.call("session/new", map[string]any{"cwd": c.buf.ws.Root, "mcpServers": []any{}})
	c.facts[FactClientRequest]++
	if !c.wait(cc, 0) {
		return nil
	}
	var r struct {
		SessionID     string          `json:"sessionId"`
		Modes         *sessionModes   `json:"modes"`
		ConfigOptions json.RawMessage `json:"configOptions"`
	}
	if json.Unmarshal(cc.result, &r) != nil || r.SessionID == "" {
		return nil
	}
	c.facts[FactSessionNew]++
	s := &clientSession{id: r.SessionID, open: true, modes: r.Modes}
	_ = json.Unmarshal(r.ConfigOptions, &s.config)
	c.sessions = append(c.sessions, s)
	return s
}

func (c *client) loadSession(a Action) {
	if !c.agent.loadSession || len(c.sessions) == 0 {
		return // the agent cannot load, or there is nothing to load
	}
	s := c.sessions[a.Session%len(c.sessions)]
	if !c.closeBeforeReopening(s, "loading") {
		return
	}
	c.logf("session/load %s (%d earlier turn(s))", s.id, s.prompts)
	cc := c.call("session/load", map[string]any{"sessionId": s.id, "cwd": c.buf.ws.Root, "mcpServers": []any{}})
	c.facts[FactClientRequest]++
	c.facts[FactAdvertisedCall]++
	if !c.wait(cc, 0) {
		c.reopenFailed(s, cc)
		return
	}
	s.open = true
	c.facts[FactLoad]++
	if s.prompts > 0 {
		c.facts[FactLoadHistory]++
	}
	// History replayed after the response (ACP-SEQ-007) must be on the
	// record before the client's next move, however slowly the agent runs,
	// or the verdict would depend on the machine's load.
	c.settle(c.opts.Settle)
}

// closeBeforeReopening closes s, when it is open and the agent can close
// sessions, as an editor does before it reopens a session from its
// history; false when the close failed.
func (c *client) closeBeforeReopening(s *clientSession, what string) bool {
	if !s.open || !c.agent.close {
		return true
	}
	c.logf("session/close %s before %s it", s.id, what)
	cc := c.call("session/close", map[string]any{"sessionId": s.id})
	c.facts[FactAdvertisedCall]++
	if !c.wait(cc, 0) {
		return false
	}
	s.open = false
	return true
}

// reopenFailed: after a failed load or resume the session is not active
// (whatever the agent still knows of it), so the client does not use it.
func (c *client) reopenFailed(s *clientSession, cc *clientCall) {
	if cc.err != nil {
		c.logf("%s failed: %d %s; the session is not used again", cc.method, cc.err.Code, cc.err.Message)
		s.open = false
	}
}

// resumeSession reopens a session without its history, when the agent
// can resume sessions.
func (c *client) resumeSession(a Action) {
	if !c.agent.resume || len(c.sessions) == 0 {
		return
	}
	s := c.sessions[a.Session%len(c.sessions)]
	if !c.closeBeforeReopening(s, "resuming") {
		return
	}
	c.logf("session/resume %s (%d earlier turn(s))", s.id, s.prompts)
	cc := c.call("session/resume", map[string]any{"sessionId": s.id, "cwd": c.buf.ws.Root})
	c.facts[FactClientRequest]++
	c.facts[FactAdvertisedCall]++
	if !c.wait(cc, 0) {
		c.reopenFailed(s, cc)
		return
	}
	s.open = true
	c.facts[FactResume]++
	// Replay after the response (ACP-SEQ-009) lands before the next move,
	// as after session/load.
	c.settle(c.opts.Settle)
}

// setMode switches an open session to another of the modes session/new
// offered.
func (c *client) setMode(a Action) {
	var s *clientSession
	for _, o := range rotate(c.openSessions(), a.Session) {
		if o.modes != nil && len(o.modes.AvailableModes) > 1 {
			s = o
			break
		}
	}
	if s == nil {
		return
	}
	mode := ""
	for _, m := range s.modes.AvailableModes {
		if m.ID != s.modes.CurrentModeID {
			mode = m.ID
			break
		}
	}
	c.logf("session/set_mode %s %s", s.id, mode)
	cc := c.call("session/set_mode", map[string]any{"sessionId": s.id, "modeId": mode})
	c.facts[FactClientRequest]++
	if c.wait(cc, 0) {
		s.modes.CurrentModeID = mode
		c.facts[FactModeSet]++
	}
	// Updates the change sends after its response belong to it.
	c.settle(c.opts.Settle)
}

// setConfigOption gives a config option of an open session another of
// its values.
func (c *client) setConfigOption(a Action) {
	for _, s := range rotate(c.openSessions(), a.Session) {
		for _, o := range s.config {
			value, ok := o.another()
			if !ok {
				continue
			}
			c.logf("session/set_config_option %s %s=%s", s.id, o.ID, value)
			cc := c.call("session/set_config_option", map[string]any{"sessionId": s.id, "configId": o.ID, "value": value})
			c.facts[FactClientRequest]++
			if c.wait(cc, 0) {
				var r struct {
					ConfigOptions []configOption `json:"configOptions"`
				}
				if json.Unmarshal(cc.result, &r) == nil && len(r.ConfigOptions) > 0 {
					s.config = r.ConfigOptions
				}
				c.facts[FactConfigSet]++
			}
			c.settle(c.opts.Settle)
			return
		}
	}
}

// another returns a valid value of o other than its current one.
func (o configOption) another() (json.RawMessage, bool) {
	switch o.Type {
	case "boolean":
		if string(o.CurrentValue) == "true" {
			return json.RawMessage("false"), true
		}
		return json.RawMessage("true"), true
	case "select":
		for _, v := range o.Options {
			values := []json.RawMessage{v.Value}
			for _, g := range v.Options {
				values = append(values, g.Value)
			}
			for _, x := range values {
				if len(x) > 0 && !bytes.Equal(x, o.CurrentValue) {
					return x, true
				}
			}
		}
	}
	return nil, false
}

// rotate returns s starting at index i (modulo its length).
func rotate[T any](s []T, i int) []T {
	if len(s) == 0 {
		return nil
	}
	i %= len(s)
	return append(append([]T(nil), s[i:]...), s[:i]...)
}

// probe calls protocol.ProbeMethod, which no agent implements: the agent
// should refuse it with -32601 (ACP-EXTN-003).
func (c *client) probe() {
	c.logf("%s (a method no agent implements)", protocol.ProbeMethod)
	cc := c.call(string(protocol.ProbeMethod), map[string]any{})
	c.facts[FactClientRequest]++
	c.wait(cc, 0)
	if cc.respLine > 0 {
		c.facts[FactProbe]++
	}
}

func (c *client) closeSession(a Action) {
	open := c.openSessions()
	if !c.agent.close || len(open) == 0 {
		return
	}
	s := open[a.Session%len(open)]
	c.logf("session/close %s", s.id)
	cc := c.call("session/close", map[string]any{"sessionId": s.id})
	c.facts[FactClientRequest]++
	c.facts[FactAdvertisedCall]++
	if c.wait(cc, 0) {
		s.open = false
	}
}

func (c *client) prompt(a Action) {
	open := c.openSessions()
	if len(open) == 0 {
		if c.newSession() == nil {
			return
		}
		open = c.openSessions()
	}
	s := open[a.Session%len(open)]
	task := promptTasks[a.Task%len(promptTasks)]
	blocks := []any{map[string]any{"type": "text", "text": task.text}}
	if task.file != "" {
		abs := filepath.Join(c.buf.ws.Root, filepath.FromSlash(task.file))
		uri := "file://" + filepath.ToSlash(abs)
		mt := mimeTypes[path.Ext(task.file)]
		if a.Link {
			blocks = append(blocks, map[string]any{"type": "resource_link", "uri": uri, "name": path.Base(task.file), "mimeType": mt})
		}
		if c.agent.embeddedContext && a.Embed {
			text, _ := c.buf.read(abs)
			blocks = append(blocks, map[string]any{"type": "resource", "resource": map[string]any{"uri": uri, "mimeType": mt, "text": text}})
		}
	}
	plan := turnPlan{cancelAfter: -1}
	switch a.Cancel {
	case 1:
		plan.cancelAfter = a.CancelAfter
	case 2:
		plan.atRequest = true
	case 3:
		plan.atOnce = true
	}
	plan.viaClose = a.Cancel != 0 && a.ViaClose && c.agent.close
	c.logf("session/prompt %s %q (%d block(s))%s", s.id, task.text, len(blocks), plan)
	cc := c.call("session/prompt", map[string]any{"sessionId": s.id, "prompt": blocks})
	c.facts[FactClientRequest]++
	t := &activeTurn{sess: s, call: cc, plan: plan, lastAt: c.sentAt}
	c.turn = t
	defer func() { c.turn = nil }()
	if plan.atOnce && cc.line > 0 {
		c.cancelTurn("right after the prompt")
	}
	var second *clientCall
	if c.plan.has(FaultOverlap) && !c.overlapped && cc.line > 0 {
		// The user sends another message before the turn ends.
		c.overlapped = true
		c.logf("session/prompt %s again while the turn runs (fault %s)", s.id, FaultOverlap)
		second = c.call("session/prompt", map[string]any{"sessionId": s.id, "prompt": []any{map[string]any{"type": "text", "text": promptTasks[0].text}}})
		c.faultLines[second.line] = "a second prompt while a turn runs"
		c.facts[FactClientRequest]++
	}
	ok := c.wait(cc, 0)
	if second != nil && c.failure == nil {
		// Either answer is fine (a queued turn, or an error): it must come.
		c.wait(second, 0)
		c.overlap = [2]int{second.line, c.rec.Len()}
	}
	switch {
	case cc.respLine == 0:
	case t.stuck:
		c.pace.turnEnded(true, 0)
	case !t.cancelled:
		c.pace.turnEnded(false, t.longestGap)
	}
	if cc.done && cc.respLine > 0 {
		s.prompts++
		c.facts[FactPrompt]++
		for k, f := range map[Capability]Fact{CapReadTextFile: FactWithheldRead, CapWriteTextFile: FactWithheldWrite, CapTerminal: FactWithheldTerminal} {
			if !c.caps[k] {
				c.facts[f]++
			}
		}
	}
	if t.cancelled && cc.respLine > 0 {
		why := c.cancelRead(t, cc)
		read := why != ""
		if read {
			c.readLines[cc.respLine] = why
		}
		switch {
		case read && t.plan.viaClose:
			c.facts[FactCloseDecisive]++
		case read:
			c.facts[FactCancelDecisive]++
		default:
			c.facts[FactCancelRace]++
			c.raceLines[cc.respLine] = true
		}
	}
	if t.closeCall != nil && c.failure == nil {
		if c.wait(t.closeCall, 0) {
			s.open = false
		}
	}
	if ok && t.cancelled {
		// Late updates of a cancelled turn must show up before the next
		// prompt, or nobody could tell them from the next turn's.
		c.settle(c.opts.Settle)
	}
}

func (p turnPlan) String() string {
	via := "session/cancel"
	if p.viaClose {
		via = "session/close"
	}
	switch {
	case p.atRequest:
		return fmt.Sprintf(", %s at the agent's first request", via)
	case p.atOnce:
		return fmt.Sprintf(", %s right after it", via)
	case p.cancelAfter >= 0:
		return fmt.Sprintf(", %s after %d agent message(s)", via, p.cancelAfter)
	}
	return ""
}
