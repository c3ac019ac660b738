// Package agents holds the fixture ACP agents that `acplint check` is
// tested against: a reference agent that follows the protocol, and the
// same agent with one deliberate defect each.
//
// The agent is a toy: it understands a small task language in the prompt
// text ("read FILE", "edit FILE", "run `CMD`"), performs each task through
// the client's fs and terminal methods when the client advertised them,
// and falls back when it did not. It streams its reply in chunks with a
// short pause between them, so that a client can cancel in mid-turn.
package agents

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

// Defect names one deliberate protocol bug. The empty Defect is the
// conforming reference agent.
type Defect string

const (
	None Defect = ""
	// EndTurnAfterCancel ignores session/cancel and ends the turn with
	// end_turn (ACP-CXL-001).
	EndTurnAfterCancel Defect = "end-turn-after-cancel"
	// QuietEndTurn ignores session/cancel too, and when a permission
	// request comes back "cancelled" it answers the prompt with end_turn at
	// once, leaving the tool call pending (ACP-CXL-001). The
	// response is its first message after the cancel, which a transcript
	// alone cannot tell from a race; the harness can, having answered the
	// permission request after the cancel.
	QuietEndTurn Defect = "quiet-end-turn"
	// UpdateAfterCancel answers a cancelled prompt correctly, then sends
	// one more message chunk (ACP-CXL-002).
	UpdateAfterCancel Defect = "update-after-cancel"
	// UnknownToolCallUpdate reports progress of a read under a tool call id
	// it never announced (ACP-TOOL-002).
	UnknownToolCallUpdate Defect = "unknown-tool-call-update"
	// FSWithoutCapability reads files through the client even when the
	// client did not advertise fs.readTextFile (ACP-CAP-001).
	FSWithoutCapability Defect = "fs-without-capability"
	// EchoVersion answers initialize with whatever protocolVersion the
	// client asked for (ACP-VER-002).
	EchoVersion Defect = "echo-version"
	// NonJSONStdout prints a debug line to stdout before running a command
	// (ACP-WIRE-001).
	NonJSONStdout Defect = "non-json-stdout"
	// NeverAnswer never answers session/prompt, nor does anything for it
	// (ACP-RPC-013, a timeout).
	NeverAnswer Defect = "never-answer"
	// CrashMidTurn exits with status 2 in the middle of an edit, after the
	// user allowed it.
	CrashMidTurn Defect = "crash-mid-turn"
	// CrashOnDuplicateAnswer exits with status 2 when the client answers a
	// request it no longer waits for: conformant with a perfect client,
	// it falls to `acplint check --faults duplicate-answer` (CHECK-CRASH).
	CrashOnDuplicateAnswer Defect = "crash-on-duplicate-answer"
)

// Defects lists every defect, for flag help and tests.
var Defects = []Defect{EndTurnAfterCancel, QuietEndTurn, UpdateAfterCancel, UnknownToolCallUpdate, FSWithoutCapability, EchoVersion, NonJSONStdout, NeverAnswer, CrashMidTurn, CrashOnDuplicateAnswer}

// Main runs the agent as a program: flags, then ACP on stdin/stdout until
// stdin closes. It returns the exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var names []string
	for _, d := range Defects {
		names = append(names, string(d))
	}
	defect := fs.String("defect", "", "deliberate protocol `bug` to show: "+strings.Join(names, ", "))
	delay := fs.Duration("delay", 2*time.Millisecond, "pause between streamed chunks")
	fixture := fs.String("fixture", "", "run instead the small `agent` that mirrors one of the conformance kit's v1 fixtures (see Fixtures)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *fixture != "" {
		if !knownFixture(Fixture(*fixture)) {
			fmt.Fprintf(stderr, "agent: unknown fixture %q\n", *fixture)
			return 2
		}
		return RunFixture(Fixture(*fixture), stdin, stdout, stderr)
	}
	d := Defect(*defect)
	if d != None && !known(d) {
		fmt.Fprintf(stderr, "agent: unknown defect %q (want one of %s)\n", d, strings.Join(names, ", "))
		return 2
	}
	a := New(d, stdout, stderr)
	a.Delay = *delay
	if err := a.Serve(stdin); err != nil {
		fmt.Fprintf(stderr, "agent: %v\n", err)
		return 1
	}
	return 0
}

func known(d Defect) bool {
	for _, x := range Defects {
		if x == d {
			return true
		}
	}
	return false
}

// Agent is one connection's worth of agent state.
type Agent struct {
	Defect Defect
	Delay  time.Duration
	// exit ends the process; tests of the package replace it.
	exit func(code int)

	out   io.Writer
	log   io.Writer
	outMu sync.Mutex

	mu         sync.Mutex
	clientCaps clientCaps
	sessions   map[string]*session
	nextSess   int
	nextReq    int
	nextTool   int
	waiting    map[string]chan response // agent request id -> answer
	turns      sync.WaitGroup
	closed     bool
}

type clientCaps struct {
	Read, Write, Terminal bool
}

type session struct {
	id      string
	cwd     string
	history []turnRecord
	// turn is the running prompt, nil when idle.
	turn *turn
}

type turnRecord struct{ user, agent string }

type turn struct {
	id        json.RawMessage
	cancelled chan struct{}
	once      sync.Once
	done      chan struct{}
}

func (t *turn) cancel() { t.once.Do(func() { close(t.cancelled) }) }

func (t *turn) isCancelled() bool {
	select {
	case <-t.cancelled:
		return true
	default:
		return false
	}
}

type response struct {
	Result json.RawMessage
	Error  *rpcError
	// closed says the client went away before answering.
	closed bool
}

type rpcError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%d %s", e.Code, e.Message) }

type inbound struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *rpcError       `json:"error"`
}

// New returns an agent writing ACP to out and its log to log.
func New(d Defect, out, log io.Writer) *Agent {
	return &Agent{
		Defect:   d,
		Delay:    2 * time.Millisecond,
		exit:     os.Exit,
		out:      out,
		log:      log,
		sessions: map[string]*session{},
		waiting:  map[string]chan response{},
	}
}

// Serve reads messages from in until it closes, then cancels running
// turns and returns.
func (a *Agent) Serve(in io.Reader) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			a.handle(line)
		}
		if err != nil {
			a.shutdown()
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// shutdown cancels every turn and wakes every waiting request: the client
// is gone, so nothing will be answered any more.
func (a *Agent) shutdown() {
	a.mu.Lock()
	a.closed = true
	for _, s := range a.sessions {
		if s.turn != nil {
			s.turn.cancel()
		}
	}
	for id, ch := range a.waiting {
		ch <- response{closed: true}
		delete(a.waiting, id)
	}
	a.mu.Unlock()
	a.turns.Wait()
}

func (a *Agent) handle(line []byte) {
	var m inbound
	if err := json.Unmarshal(line, &m); err != nil {
		a.send(map[string]any{"jsonrpc": "2.0", "id": nil, "error": rpcError{Code: -32700, Message: "Parse error"}})
		return
	}
	hasID := len(m.ID) > 0 && string(m.ID) != "null"
	switch {
	case m.Method == "" && hasID:
		a.mu.Lock()
		ch, ok := a.waiting[string(m.ID)]
		delete(a.waiting, string(m.ID))
		a.mu.Unlock()
		switch {
		case ok:
			ch <- response{Result: m.Result, Error: m.Error}
		case a.Defect == CrashOnDuplicateAnswer:
			fmt.Fprintf(a.log, "panic: no request waits for response id %s\n", m.ID)
			a.exit(2)
		}
	case m.Method != "" && !hasID:
		a.notification(m)
	case m.Method != "":
		a.request(m)
	}
}

func (a *Agent) notification(m inbound) {
	if m.Method != "session/cancel" {
		return
	}
	_, _, t := a.sessionNamed(m.Params)
	if t != nil && a.Defect != EndTurnAfterCancel && a.Defect != QuietEndTurn {
		t.cancel()
	}
}

func (a *Agent) request(m inbound) {
	switch m.Method {
	case "initialize":
		a.initialize(m)
	case "session/new":
		a.newSession(m)
	case "session/load":
		a.loadSession(m)
	case "session/close":
		a.closeSession(m)
	case "session/prompt":
		a.prompt(m)
	default:
		a.fail(m.ID, -32601, "Method not found: "+m.Method)
	}
}

func (a *Agent) initialize(m inbound) {
	var p struct {
		ProtocolVersion    json.Number `json:"protocolVersion"`
		ClientCapabilities struct {
			FS struct {
				ReadTextFile  bool `json:"readTextFile"`
				WriteTextFile bool `json:"writeTextFile"`
			} `json:"fs"`
			Terminal bool `json:"terminal"`
		} `json:"clientCapabilities"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		a.fail(m.ID, -32602, "Invalid params: "+err.Error())
		return
	}
	a.mu.Lock()
	a.clientCaps = clientCaps{Read: p.ClientCapabilities.FS.ReadTextFile, Write: p.ClientCapabilities.FS.WriteTextFile, Terminal: p.ClientCapabilities.Terminal}
	a.mu.Unlock()
	// This agent speaks version 1 only: that is the answer to any request,
	// unless the defect echoes the request back.
	var version any = 1
	if a.Defect == EchoVersion && p.ProtocolVersion != "" {
		version = p.ProtocolVersion
	}
	a.reply(m.ID, map[string]any{
		"protocolVersion": version,
		"agentCapabilities": map[string]any{
			"loadSession":         true,
			"promptCapabilities":  map[string]any{"image": false, "audio": false, "embeddedContext": true},
			"mcpCapabilities":     map[string]any{"http": false, "sse": false},
			"sessionCapabilities": map[string]any{"close": map[string]any{}},
		},
		"authMethods": []any{},
		"agentInfo":   map[string]any{"name": "acplint-reference-agent", "title": "acplint reference agent", "version": "1.0.0"},
	})
}

func (a *Agent) newSession(m inbound) {
	var p struct {
		Cwd string `json:"cwd"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil || !filepath.IsAbs(p.Cwd) {
		a.fail(m.ID, -32602, "Invalid params: cwd must be an absolute path")
		return
	}
	a.mu.Lock()
	a.nextSess++
	s := &session{id: fmt.Sprintf("sess_%d", a.nextSess), cwd: p.Cwd}
	a.sessions[s.id] = s
	a.mu.Unlock()
	a.reply(m.ID, map[string]any{"sessionId": s.id})
	a.update(s.id, map[string]any{
		"sessionUpdate": "available_commands_update",
		"availableCommands": []any{
			map[string]any{"name": "review", "description": "Review the changes in the working tree"},
		},
	})
}

func (a *Agent) loadSession(m inbound) {
	var p struct {
		SessionID string `json:"sessionId"`
		Cwd       string `json:"cwd"`
	}
	_ = json.Unmarshal(m.Params, &p)
	a.mu.Lock()
	s := a.sessions[p.SessionID]
	busy := s != nil && s.turn != nil
	var history []turnRecord
	if s != nil {
		history = append(history, s.history...)
		if p.Cwd != "" {
			s.cwd = p.Cwd
		}
	}
	a.mu.Unlock()
	switch {
	case s == nil:
		a.fail(m.ID, -32002, "Resource not found: session "+p.SessionID)
		return
	case busy:
		a.fail(m.ID, -32603, "Internal error: session "+p.SessionID+" is running a prompt")
		return
	}
	// The replay streams before the response, as the spec requires.
	for _, h := range history {
		a.update(s.id, map[string]any{"sessionUpdate": "user_message_chunk", "content": text(h.user)})
		a.update(s.id, map[string]any{"sessionUpdate": "agent_message_chunk", "content": text(h.agent)})
	}
	a.reply(m.ID, map[string]any{})
}

// sessionNamed returns the session the sessionId of params names, and its
// running turn; both nil when there is none.
func (a *Agent) sessionNamed(params json.RawMessage) (id string, s *session, t *turn) {
	var p struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(params, &p)
	a.mu.Lock()
	defer a.mu.Unlock()
	if s = a.sessions[p.SessionID]; s != nil {
		t = s.turn
	}
	return p.SessionID, s, t
}

func (a *Agent) closeSession(m inbound) {
	id, s, t := a.sessionNamed(m.Params)
	if s == nil {
		a.fail(m.ID, -32002, "Resource not found: session "+id)
		return
	}
	if t == nil {
		a.reply(m.ID, map[string]any{})
		return
	}
	// Closing cancels the running turn at once, before anything the client
	// sends after the close is read; the turn's response goes out before
	// the close's.
	t.cancel()
	go func() {
		<-t.done
		a.reply(m.ID, map[string]any{})
	}()
}

func (a *Agent) prompt(m inbound) {
	var p struct {
		SessionID string            `json:"sessionId"`
		Prompt    []json.RawMessage `json:"prompt"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		a.fail(m.ID, -32602, "Invalid params: "+err.Error())
		return
	}
	if a.Defect == NeverAnswer {
		return // the prompt is read, and nothing ever happens
	}
	a.mu.Lock()
	s := a.sessions[p.SessionID]
	switch {
	case s == nil:
		a.mu.Unlock()
		a.fail(m.ID, -32002, "Resource not found: session "+p.SessionID)
		return
	case s.turn != nil:
		a.mu.Unlock()
		a.fail(m.ID, -32603, "Internal error: a prompt is already running in "+p.SessionID)
		return
	}
	t := &turn{id: m.ID, cancelled: make(chan struct{}), done: make(chan struct{})}
	s.turn = t
	a.turns.Add(1)
	a.mu.Unlock()
	go func() {
		defer a.turns.Done()
		defer close(t.done)
		a.runTurn(s, t, promptText(p.Prompt))
	}()
}

// promptText joins the text blocks of a prompt and names the files that
// resource and resource_link blocks point at.
func promptText(blocks []json.RawMessage) string {
	var parts []string
	for _, b := range blocks {
		var c struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			URI      string `json:"uri"`
			Resource struct {
				URI string `json:"uri"`
			} `json:"resource"`
		}
		if json.Unmarshal(b, &c) != nil {
			continue
		}
		switch c.Type {
		case "text":
			parts = append(parts, c.Text)
		case "resource_link":
			parts = append(parts, "(see "+c.URI+")")
		case "resource":
			parts = append(parts, "(attached "+c.Resource.URI+")")
		}
	}
	return strings.Join(parts, " ")
}

// task is one thing the prompt asks for.
type task struct {
	kind string // read, edit, run
	arg  string
}

var taskRe = regexp.MustCompile("(?i)\\b(read|edit) ([A-Za-z0-9_./-]+)|(?i)\\brun `([^`]+)`")

func parseTasks(s string) []task {
	var ts []task
	for _, m := range taskRe.FindAllStringSubmatch(s, -1) {
		if m[3] != "" {
			ts = append(ts, task{kind: "run", arg: m[3]})
			continue
		}
		ts = append(ts, task{kind: strings.ToLower(m[1]), arg: strings.TrimRight(m[2], ".")})
	}
	return ts
}

// errCancelled ends a turn's task list early; errQuietEnd ends the turn
// at once (QuietEndTurn).
var (
	errCancelled = errors.New("cancelled")
	errQuietEnd  = errors.New("end the turn now")
)

func (a *Agent) runTurn(s *session, t *turn, prompt string) {
	tt := &turnRun{a: a, s: s, t: t}
	said := []string{}
	say := func(msg string) {
		said = append(said, msg)
		tt.chunk(msg)
	}
	tasks := parseTasks(prompt)
	if len(tasks) == 0 {
		say("Hello! ")
		tt.pause()
		say("Nothing to do here: ask me to read or edit a file, or to run a command.")
	} else {
		say(fmt.Sprintf("Working on %d task(s). ", len(tasks)))
	}
	var err error
	for _, k := range tasks {
		if tt.cancelled() {
			err = errCancelled
			break
		}
		tt.pause()
		switch k.kind {
		case "read":
			err = tt.read(k.arg)
		case "edit":
			err = tt.edit(k.arg)
		case "run":
			err = tt.run(k.arg)
		}
		if err != nil {
			break
		}
	}
	if errors.Is(err, errClosed) {
		return // the client is gone; nobody reads a response
	}
	if errors.Is(err, errQuietEnd) {
		a.mu.Lock()
		s.history = append(s.history, turnRecord{user: prompt, agent: strings.Join(said, "")})
		s.turn = nil
		a.mu.Unlock()
		a.reply(t.id, map[string]any{"stopReason": "end_turn"})
		return
	}
	if err == nil && !tt.cancelled() {
		tt.pause()
		if !tt.cancelled() {
			say("All done.")
		}
	}
	a.mu.Lock()
	s.history = append(s.history, turnRecord{user: prompt, agent: strings.Join(said, "")})
	a.mu.Unlock()
	stop := "end_turn"
	if tt.cancelled() || errors.Is(err, errCancelled) {
		tt.failOpen("cancelled by the user")
		stop = "cancelled"
	}
	a.mu.Lock()
	s.turn = nil
	a.mu.Unlock()
	a.reply(t.id, map[string]any{"stopReason": stop})
	if stop == "cancelled" && a.Defect == UpdateAfterCancel {
		a.update(s.id, map[string]any{"sessionUpdate": "agent_message_chunk", "content": text("(stopped)")})
	}
}

// turnRun performs one prompt turn.
type turnRun struct {
	a    *Agent
	s    *session
	t    *turn
	open []string // tool calls not yet completed or failed
}

// cancelled reports whether the turn was cancelled (the defect
// EndTurnAfterCancel never marks a turn cancelled on session/cancel, but
// honours session/close).
func (tt *turnRun) cancelled() bool { return tt.t.isCancelled() }

func (tt *turnRun) pause() {
	if tt.a.Delay > 0 {
		select {
		case <-time.After(tt.a.Delay):
		case <-tt.t.cancelled:
		}
	}
}

func (tt *turnRun) chunk(msg string) {
	tt.a.update(tt.s.id, map[string]any{"sessionUpdate": "agent_message_chunk", "content": text(msg)})
}

func (tt *turnRun) toolCall(title, kind string, extra map[string]any) string {
	tt.a.mu.Lock()
	tt.a.nextTool++
	id := fmt.Sprintf("call_%d", tt.a.nextTool)
	tt.a.mu.Unlock()
	u := map[string]any{"sessionUpdate": "tool_call", "toolCallId": id, "title": title, "kind": kind, "status": "pending"}
	for k, v := range extra {
		u[k] = v
	}
	tt.a.update(tt.s.id, u)
	tt.open = append(tt.open, id)
	return id
}

func (tt *turnRun) progress(id string, fields map[string]any) {
	u := map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": id}
	for k, v := range fields {
		u[k] = v
	}
	tt.a.update(tt.s.id, u)
	if st, _ := fields["status"].(string); st == "completed" || st == "failed" {
		for i, o := range tt.open {
			if o == id {
				tt.open = append(tt.open[:i], tt.open[i+1:]...)
				break
			}
		}
	}
}

// failOpen closes every tool call still open, so that no call is left
// dangling when the turn ends.
func (tt *turnRun) failOpen(why string) {
	for len(tt.open) > 0 {
		tt.progress(tt.open[0], map[string]any{"status": "failed", "content": []any{textContent(why)}})
	}
}

func (tt *turnRun) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(tt.s.cwd, p)
}

func (tt *turnRun) caps() clientCaps {
	tt.a.mu.Lock()
	defer tt.a.mu.Unlock()
	return tt.a.clientCaps
}

// readFile reads through the client when it can, from disk otherwise.
func (tt *turnRun) readFile(path string) (string, error) {
	if tt.caps().Read || tt.a.Defect == FSWithoutCapability {
		res, err := tt.a.call("fs/read_text_file", map[string]any{"sessionId": tt.s.id, "path": path})
		if err != nil {
			return "", err
		}
		var r struct {
			Content string `json:"content"`
		}
		if err := json.Unmarshal(res, &r); err != nil {
			return "", err
		}
		return r.Content, nil
	}
	b, err := os.ReadFile(path)
	return string(b), err
}

func (tt *turnRun) read(rel string) error {
	path := tt.abs(rel)
	id := tt.toolCall("Read "+rel, "read", map[string]any{"locations": []any{map[string]any{"path": path}}})
	tt.progress(id, map[string]any{"status": "in_progress"})
	content, err := tt.readFile(path)
	if errors.Is(err, errClosed) {
		return err
	}
	if err != nil {
		tt.progress(id, map[string]any{"status": "failed", "content": []any{textContent("could not read " + rel + ": " + err.Error())}})
		return nil
	}
	first, _, _ := strings.Cut(content, "\n")
	if tt.a.Defect == UnknownToolCallUpdate {
		// The result is also reported under an id of another naming
		// scheme, which the client never saw announced.
		tt.a.update(tt.s.id, map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": "tc-" + strings.TrimPrefix(id, "call_"), "status": "completed", "content": []any{textContent(first)}})
	}
	tt.progress(id, map[string]any{"status": "completed", "content": []any{textContent(first)}})
	tt.chunk(fmt.Sprintf("%s starts with %q. ", rel, first))
	return nil
}

func (tt *turnRun) edit(rel string) error {
	path := tt.abs(rel)
	old, err := tt.readFile(path)
	if errors.Is(err, errClosed) {
		return err
	}
	if err != nil {
		tt.chunk(fmt.Sprintf("I could not open %s (%v), so I left it alone. ", rel, err))
		return nil
	}
	if tt.cancelled() {
		return errCancelled
	}
	first, rest, _ := strings.Cut(old, "\n")
	updated := strings.TrimSpace(first) + " (edited)\n" + rest
	id := tt.toolCall("Edit "+rel, "edit", map[string]any{
		"content":   []any{map[string]any{"type": "diff", "path": path, "oldText": old, "newText": updated}},
		"locations": []any{map[string]any{"path": path, "line": 1}},
	})
	res, err := tt.a.call("session/request_permission", map[string]any{
		"sessionId": tt.s.id,
		"toolCall":  map[string]any{"toolCallId": id, "title": "Edit " + rel, "kind": "edit", "status": "pending"},
		"options": []any{
			map[string]any{"optionId": "allow-once", "name": "Allow", "kind": "allow_once"},
			map[string]any{"optionId": "allow-always", "name": "Always allow edits", "kind": "allow_always"},
			map[string]any{"optionId": "reject-once", "name": "Reject", "kind": "reject_once"},
		},
	})
	if errors.Is(err, errClosed) {
		return err
	}
	if err != nil {
		tt.progress(id, map[string]any{"status": "failed", "content": []any{textContent("permission request failed: " + err.Error())}})
		return nil
	}
	var r struct {
		Outcome struct {
			Outcome  string `json:"outcome"`
			OptionID string `json:"optionId"`
		} `json:"outcome"`
	}
	_ = json.Unmarshal(res, &r)
	switch {
	case r.Outcome.Outcome == "cancelled" && tt.a.Defect == QuietEndTurn && !tt.cancelled():
		// (A turn cancelled by session/close is handled correctly: only
		// session/cancel is ignored.)
		return errQuietEnd
	case r.Outcome.Outcome == "cancelled" && !tt.cancelled():
		// The turn goes on: the user dismissed the request (a
		// session/cancel would have cancelled the turn before this answer
		// was read), which is a no.
		tt.progress(id, map[string]any{"status": "failed", "content": []any{textContent("the user dismissed the permission request")}})
		tt.chunk("Understood, I left " + rel + " unchanged. ")
		return nil
	case r.Outcome.Outcome == "cancelled":
		tt.progress(id, map[string]any{"status": "failed", "content": []any{textContent("cancelled")}})
		return errCancelled
	case r.Outcome.Outcome != "selected" || !strings.HasPrefix(r.Outcome.OptionID, "allow"):
		tt.progress(id, map[string]any{"status": "failed", "content": []any{textContent("the user rejected the edit")}})
		tt.chunk("Understood, I left " + rel + " unchanged. ")
		return nil
	}
	if tt.a.Defect == CrashMidTurn {
		fmt.Fprintln(tt.a.log, "panic: runtime error: invalid memory address or nil pointer dereference")
		tt.a.exit(2)
	}
	tt.progress(id, map[string]any{"status": "in_progress"})
	if !tt.caps().Write {
		tt.progress(id, map[string]any{"status": "failed", "content": []any{textContent("the client cannot write files")}})
		tt.chunk("I cannot write files through this editor; here is the new first line: " + strings.TrimSpace(first) + " (edited). ")
		return nil
	}
	_, err = tt.a.call("fs/write_text_file", map[string]any{"sessionId": tt.s.id, "path": path, "content": updated})
	if errors.Is(err, errClosed) {
		return err
	}
	if err != nil {
		tt.progress(id, map[string]any{"status": "failed", "content": []any{textContent("write failed: " + err.Error())}})
		return nil
	}
	tt.progress(id, map[string]any{"status": "completed"})
	tt.chunk("Edited " + rel + ". ")
	return nil
}

func (tt *turnRun) run(cmdline string) error {
	fields := strings.Fields(cmdline)
	if len(fields) == 0 {
		return nil
	}
	if tt.a.Defect == NonJSONStdout {
		tt.a.raw("[debug] executing " + cmdline)
	}
	if !tt.caps().Terminal {
		tt.chunk("This editor gives me no terminal, so I cannot run `" + cmdline + "`. ")
		return nil
	}
	id := tt.toolCall("Run "+cmdline, "execute", map[string]any{"rawInput": map[string]any{"command": cmdline}})
	res, err := tt.a.call("terminal/create", map[string]any{
		"sessionId": tt.s.id, "command": fields[0], "args": fields[1:], "env": []any{}, "cwd": tt.s.cwd, "outputByteLimit": 4096,
	})
	if errors.Is(err, errClosed) {
		return err
	}
	if err != nil {
		tt.progress(id, map[string]any{"status": "failed", "content": []any{textContent("could not start: " + err.Error())}})
		return nil
	}
	var created struct {
		TerminalID string `json:"terminalId"`
	}
	_ = json.Unmarshal(res, &created)
	term := map[string]any{"sessionId": tt.s.id, "terminalId": created.TerminalID}
	tt.progress(id, map[string]any{"status": "in_progress", "content": []any{map[string]any{"type": "terminal", "terminalId": created.TerminalID}}})
	exit, err := tt.a.call("terminal/wait_for_exit", term)
	if errors.Is(err, errClosed) {
		return err
	}
	out, oerr := tt.a.call("terminal/output", term)
	if errors.Is(oerr, errClosed) {
		return oerr
	}
	if _, rerr := tt.a.call("terminal/release", term); errors.Is(rerr, errClosed) {
		return rerr
	}
	var status struct {
		ExitCode *int `json:"exitCode"`
	}
	_ = json.Unmarshal(exit, &status)
	var output struct {
		Output string `json:"output"`
	}
	_ = json.Unmarshal(out, &output)
	if err != nil || oerr != nil || status.ExitCode == nil || *status.ExitCode != 0 {
		tt.progress(id, map[string]any{"status": "failed", "rawOutput": map[string]any{"output": output.Output}})
		tt.chunk("`" + cmdline + "` failed. ")
		return nil
	}
	tt.progress(id, map[string]any{"status": "completed", "rawOutput": map[string]any{"exitCode": 0, "output": output.Output}})
	tt.chunk(fmt.Sprintf("`%s` printed %d line(s). ", cmdline, strings.Count(output.Output, "\n")))
	return nil
}

// errClosed is returned by call when the client closed the connection.
var errClosed = errors.New("connection closed")

// call sends a request to the client and waits for its answer.
func (a *Agent) call(method string, params any) (json.RawMessage, error) {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil, errClosed
	}
	id := a.nextReq
	a.nextReq++
	ch := make(chan response, 1)
	a.waiting[fmt.Sprint(id)] = ch
	a.mu.Unlock()
	a.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	r := <-ch
	if r.closed {
		return nil, errClosed
	}
	if r.Error != nil {
		return nil, r.Error
	}
	return r.Result, nil
}

func (a *Agent) reply(id json.RawMessage, result any) {
	a.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (a *Agent) fail(id json.RawMessage, code int64, msg string) {
	a.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": rpcError{Code: code, Message: msg}})
}

func (a *Agent) update(sessionID string, u map[string]any) {
	a.send(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": sessionID, "update": u}})
}

func (a *Agent) send(m map[string]any) {
	b, err := marshalSorted(m)
	if err != nil {
		fmt.Fprintf(a.log, "agent: encoding a message: %v\n", err)
		return
	}
	a.raw(string(b))
}

// raw writes one line to stdout.
func (a *Agent) raw(line string) {
	a.outMu.Lock()
	defer a.outMu.Unlock()
	_, _ = io.WriteString(a.out, line+"\n")
}

// marshalSorted encodes m with "jsonrpc" and "id" first, the way SDKs
// write messages; the other keys follow in sorted order.
func marshalSorted(m map[string]any) ([]byte, error) {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	rank := func(k string) int {
		switch k {
		case "jsonrpc":
			return 0
		case "id":
			return 1
		case "method":
			return 2
		}
		return 3
	}
	sort.Slice(keys, func(i, j int) bool {
		if rank(keys[i]) != rank(keys[j]) {
			return rank(keys[i]) < rank(keys[j])
		}
		return keys[i] < keys[j]
	})
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(m[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

func text(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

func textContent(s string) map[string]any {
	return map[string]any{"type": "content", "content": text(s)}
}
