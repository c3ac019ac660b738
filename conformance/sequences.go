package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"time"

	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/transcript"
	"pgregory.net/rapid"
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
	FactCancelDecisive      Fact = "cancel-decisive"   // a cancel the agent must have read before it ended the turn
	FactCancelRace          Fact = "cancel-race"       // a cancel that crossed the turn's end
	FactCloseDecisive       Fact = "close-in-turn"     // session/close during a turn, read before it ended
	FactLoad                Fact = "load"              // session/load was answered
	FactLoadHistory         Fact = "load-history"      // ... for a session that had turns
	FactWithheldRead        Fact = "withheld-read"     // a turn ran without fs.readTextFile
	FactWithheldWrite       Fact = "withheld-write"    // ... without fs.writeTextFile
	FactWithheldTerminal    Fact = "withheld-terminal" // ... without terminal
	FactClientRequest       Fact = "client-request"    // the client sent a request
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

// Run is one executed sequence against a fresh agent process.
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
	// the agent provably read first.
	ReadLines map[int]bool
	Duration  time.Duration
}

// execute runs one sequence: start the agent, play the client by plan,
// close the agent, and lint what was said.
func execute(ctx context.Context, opts *Options, ws *Workspace, plan *Plan) *Run {
	start := time.Now()
	rec := &Transcript{spillMax: opts.MaxTranscript}
	run := &Run{Transcript: rec, Facts: map[Fact]int{}}
	rec.startLint()
	p, err := startProc(opts.Agent, rec, opts.MaxLine)
	if err != nil {
		rec.finish()
		run.Failure = &Failure{Check: CheckStart, Message: fmt.Sprintf("could not start %s: %v", opts.Agent, err)}
		return run
	}
	// The run's watchdog must not shorten the close ladder; the user's
	// interrupt must.
	interrupt := ctx.Done()
	ctx, cancel := context.WithTimeout(ctx, opts.RunTimeout)
	defer cancel()
	c := newClient(ctx, opts, p, plan, ws.open())
	c.sequence()
	// Whatever the agent still says is read (and recorded) while the close
	// ladder runs.
	c.closing = true
	run.Close = p.shutdown(opts.CloseGrace, interrupt, c.handle)
	// A grandchild that keeps stdout open must not keep the run going.
	p.stop()
	switch {
	case c.failure != nil || c.interrupted:
	case run.Close == ClosedBefore:
		c.fail(CheckCrash, "the agent exited before the client closed the connection; it %s", p.exitStatus())
	case run.Close != ClosedOnStdin:
		c.fail(CheckClose, "the agent did not exit within %v of its stdin closing; it needed %s", opts.CloseGrace, run.Close)
	}
	run.Steps = c.steps
	run.Facts = c.facts
	run.Failure = c.failure
	run.Exit = p.exitStatus()
	run.Stderr = p.stderr.Bytes()
	run.Unadvertised = c.unadvertised
	run.RaceLines = c.raceLines
	run.ReadLines = c.readLines
	run.Findings = rec.finish()
	run.Duration = time.Since(start)
	return run
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
	// agent's first request; ViaClose cancels with session/close.
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
)

// injectErrorAnswer makes an fs call or terminal/create fail.
const injectErrorAnswer = 5

// planGenerator draws plans with at most maxSteps actions.
func planGenerator(pool []Capability, maxSteps int) *rapid.Generator[*Plan] {
	action := rapid.Custom(func(t *rapid.T) Action {
		// Half the actions are prompts: that is where agents go wrong.
		kind := rapid.IntRange(0, 5).Draw(t, "kind (0-2 prompt, 3 new, 4 load, 5 close)")
		a := Action{Kind: ActionKind(max(0, kind-2)), Session: rapid.IntRange(0, 3).Draw(t, "session")}
		if a.Kind == ActPrompt {
			a.Task = rapid.IntRange(0, len(promptTasks)-1).Draw(t, "task")
			a.Link = rapid.Bool().Draw(t, "link")
			a.Embed = rapid.Bool().Draw(t, "embed")
			// Cancel one turn in two, half of those at a request.
			a.Cancel = max(0, rapid.IntRange(0, 3).Draw(t, "cancel (0-1 never, 2 after k, 3 at a request)")-1)
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
			p.Version = 65535
		}
		p.Actions = rapid.SliceOfN(action, 1, max(1, maxSteps)).Draw(t, "actions")
		return p
	})
}

// preflightPlan is the simplest sequence: no capabilities, one session,
// one prompt that asks for nothing.
func preflightPlan() *Plan {
	return &Plan{Version: 1, Actions: []Action{{Kind: ActPrompt}}}
}

// sequence is the client's side of one run.
func (c *client) sequence() {
	for _, k := range c.plan.Caps {
		c.caps[k] = true
	}
	version := c.plan.Version
	c.logf("initialize protocolVersion=%d capabilities=%v", version, c.advertised())
	init := c.call("initialize", map[string]any{
		"protocolVersion": version,
		"clientCapabilities": map[string]any{
			"fs":       map[string]any{"readTextFile": c.caps[CapReadTextFile], "writeTextFile": c.caps[CapWriteTextFile]},
			"terminal": c.caps[CapTerminal],
		},
		"clientInfo": map[string]any{"name": "acplint-check", "title": "acplint check", "version": c.opts.Version},
	})
	c.facts[FactClientRequest]++
	if !c.wait(init, c.opts.StartupTimeout) {
		if init.err != nil {
			c.facts[FactInitialize]++
			c.logf("initialize failed: %d %s; nothing more to do", init.err.Code, init.err.Message)
		}
		return
	}
	c.facts[FactInitialize]++
	c.readAgentInfo(init.result)
	if c.agent.version != 1 {
		c.logf("the agent negotiated protocol version %d; a v1 client stops here", c.agent.version)
		return
	}
	for _, a := range c.plan.Actions {
		if c.failure != nil || c.interrupted {
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
		}
	}
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
				Close json.RawMessage `json:"close"`
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
		close:           len(caps.SessionCapabilities.Close) > 0 && string(caps.SessionCapabilities.Close) != "null",
	}
}

func (c *client) newSession() *clientSession {
	c.logf("session/new")
	cc := c.call("session/new", map[string]any{"cwd": c.buf.ws.Root, "mcpServers": []any{}})
	c.facts[FactClientRequest]++
	if !c.wait(cc, 0) {
		return nil
	}
	var r struct {
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(cc.result, &r) != nil || r.SessionID == "" {
		return nil
	}
	c.facts[FactSessionNew]++
	s := &clientSession{id: r.SessionID, open: true}
	c.sessions = append(c.sessions, s)
	return s
}

func (c *client) loadSession(a Action) {
	if !c.agent.loadSession || len(c.sessions) == 0 {
		return // the agent cannot load, or there is nothing to load
	}
	s := c.sessions[a.Session%len(c.sessions)]
	if s.open && c.agent.close {
		// Close it first, as an editor does before reopening a session
		// from its history.
		c.logf("session/close %s before loading it", s.id)
		cc := c.call("session/close", map[string]any{"sessionId": s.id})
		if !c.wait(cc, 0) {
			return
		}
		s.open = false
	}
	c.logf("session/load %s (%d earlier turn(s))", s.id, s.prompts)
	cc := c.call("session/load", map[string]any{"sessionId": s.id, "cwd": c.buf.ws.Root, "mcpServers": []any{}})
	c.facts[FactClientRequest]++
	if !c.wait(cc, 0) {
		return
	}
	s.open = true
	c.facts[FactLoad]++
	if s.prompts > 0 {
		c.facts[FactLoadHistory]++
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
	}
	plan.viaClose = a.Cancel != 0 && a.ViaClose && c.agent.close
	c.logf("session/prompt %s %q (%d block(s))%s", s.id, task.text, len(blocks), plan)
	cc := c.call("session/prompt", map[string]any{"sessionId": s.id, "prompt": blocks})
	c.facts[FactClientRequest]++
	t := &activeTurn{sess: s, call: cc, plan: plan}
	c.turn = t
	defer func() { c.turn = nil }()
	ok := c.wait(cc, 0)
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
		read := c.cancelRead(t, cc)
		if read {
			c.readLines[cc.respLine] = true
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
	case p.cancelAfter >= 0:
		return fmt.Sprintf(", %s after %d agent message(s)", via, p.cancelAfter)
	}
	return ""
}
