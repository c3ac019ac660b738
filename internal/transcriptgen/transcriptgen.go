// Package transcriptgen writes realistic, protocol-valid ACP v1 traffic as
// an NDJSON transcript (one JSON-RPC message per line, as a client and an
// agent exchange them over stdio), for benchmarks and load tests.
//
// The traffic follows what real peers do: initialize, then sessions with
// several prompt turns each. A turn streams agent_message_chunk updates,
// publishes and updates a plan, and runs tool calls: reads through
// fs/read_text_file, edits shown as diffs with locations that the user
// approves through session/request_permission before fs/write_text_file,
// and commands in client terminals. Turns end with end_turn.
//
// Output is deterministic: the same Options give the same bytes.
package transcriptgen

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/domain"
)

// Options control a generated transcript.
type Options struct {
	// Seed picks the traffic; the same seed gives the same bytes.
	Seed int64
	// Bytes is the size to reach: generation stops at the first session
	// end at or after this many bytes, so the result is a little larger.
	// Zero or less gives one session.
	Bytes int64
	// Sessions, when positive, asks for the other shape of traffic: that
	// many sessions open at the start and take prompt turns in rotation
	// until the transcript reaches Bytes, and then close. Where the
	// default shape runs one to eight turns per session, a long transcript
	// of this shape runs thousands in each, as a long day in an editor does.
	Sessions int
	// Side, when set, is told which peer sends each line, in the order of
	// the lines: NDJSON carries no direction, and a replay that plays the
	// client and the agent against each other needs it.
	Side func(from domain.Direction)
	// ChunkMin and ChunkMax, when ChunkMax is positive, cut the agent's
	// streamed messages and thoughts into chunks of ChunkMin to ChunkMax
	// bytes of text, the way agents that forward each model token (or a
	// few) send them, instead of a sentence a chunk: many more, smaller
	// messages for the same megabytes, which is what per-message costs
	// show on. Zero keeps the sentence-sized chunks (and the same bytes
	// as before for a seed).
	ChunkMin, ChunkMax int
}

// Write writes a transcript to w.
func Write(w io.Writer, opts Options) error {
	g := &gen{
		w:             bufio.NewWriterSize(w, 64<<10),
		chunkMin:      max(opts.ChunkMin, 1),
		chunkMax:      opts.ChunkMax,
		rnd:           rand.New(rand.NewPCG(uint64(opts.Seed), 0x61637067656e)), // "acpgen"
		pendingClient: map[int64]bool{},
		side:          opts.Side,
	}
	g.initialize()
	if opts.Sessions > 0 {
		g.longSessions(opts.Sessions, opts.Bytes)
	}
	for opts.Sessions <= 0 {
		g.session(opts.Bytes)
		if g.err != nil || g.written >= opts.Bytes {
			break
		}
	}
	if g.err != nil {
		return g.err
	}
	return g.w.Flush()
}

type gen struct {
	w       *bufio.Writer
	rnd     *rand.Rand
	written int64
	err     error

	clientID      int64          // next client request id
	agentID       int64          // next agent request id
	pendingClient map[int64]bool // client request ids awaiting an answer
	side          func(domain.Direction)

	chunkMin, chunkMax int // Options.ChunkMin and ChunkMax; chunkMax 0 for sentences

	project   project
	sessionN  int
	toolCallN int
	terminalN int
	messageN  int
}

var jsonrpc = json.RawMessage(`"2.0"`)

func (g *gen) send(from domain.Direction, m *domain.Message) {
	if g.err != nil {
		return
	}
	if g.side != nil {
		g.side(from)
	}
	m.JSONRPC = jsonrpc
	b := codec.Encode(m)
	b = append(b, '\n')
	n, err := g.w.Write(b)
	g.written += int64(n)
	g.err = err
}

// clientRequest sends a request from the client and returns its id.
func (g *gen) clientRequest(method domain.Method, params any) int64 {
	id := g.clientID
	g.clientID++
	g.pendingClient[id] = true
	g.send(domain.FromClient, &domain.Message{Kind: domain.KindRequest, ID: domain.IDOf(id), Method: method, Params: params})
	return id
}

// agentRequest sends a request from the agent. Both sides count ids from
// 0, as the SDKs do; the agent skips ids the client has pending so that a
// response in a raw transcript (which carries no direction) can be matched
// to its request.
func (g *gen) agentRequest(method domain.Method, params any) int64 {
	for g.pendingClient[g.agentID] {
		g.agentID++
	}
	id := g.agentID
	g.agentID++
	g.send(domain.FromAgent, &domain.Message{Kind: domain.KindRequest, ID: domain.IDOf(id), Method: method, Params: params})
	return id
}

// answerClient sends the agent's result for client request id.
func (g *gen) answerClient(id int64, result any) {
	delete(g.pendingClient, id)
	g.send(domain.FromAgent, &domain.Message{Kind: domain.KindResult, ID: domain.IDOf(id), Result: result})
}

// answerAgent sends the client's result for agent request id.
func (g *gen) answerAgent(id int64, result any) {
	g.send(domain.FromClient, &domain.Message{Kind: domain.KindResult, ID: domain.IDOf(id), Result: result})
}

// notify sends a notification from the agent (session/update is the only
// one generated).
func (g *gen) notify(method domain.Method, params any) {
	g.send(domain.FromAgent, &domain.Message{Kind: domain.KindNotification, Method: method, Params: params})
}

func (g *gen) update(sid domain.SessionID, u domain.SessionUpdate) {
	g.notify(domain.MethodSessionUpdate, &domain.SessionNotification{SessionID: sid, Update: u})
}

func (g *gen) pick(list []string) string { return list[g.rnd.IntN(len(list))] }

func (g *gen) between(lo, hi int) int { return lo + g.rnd.IntN(hi-lo+1) }

var clients = []domain.Implementation{
	{Name: "zed", Title: domain.Some("Zed"), Version: "0.212.3"},
	{Name: "acp-nvim", Title: domain.Some("CodeCompanion for Neovim"), Version: "17.4.0"},
	{Name: "jetbrains-acp", Title: domain.Some("JetBrains AI Assistant"), Version: "2026.2.1"},
}

var agents = []domain.Implementation{
	{Name: "claude-code-acp", Title: domain.Some("Claude Code"), Version: "0.9.2"},
	{Name: "gemini-cli", Title: domain.Some("Gemini CLI"), Version: "0.18.0"},
	{Name: "codex-acp", Title: domain.Some("Codex"), Version: "0.4.1"},
}

func (g *gen) initialize() {
	client := clients[g.rnd.IntN(len(clients))]
	agent := agents[g.rnd.IntN(len(agents))]
	id := g.clientRequest(domain.MethodInitialize, &domain.InitializeRequest{
		ProtocolVersion: 1,
		ClientCapabilities: domain.Some(domain.ClientCapabilities{
			FS: domain.Some(domain.FileSystemCapabilities{
				ReadTextFile:  domain.Some(true),
				WriteTextFile: domain.Some(true),
			}),
			Terminal: domain.Some(true),
		}),
		ClientInfo: domain.Some(client),
	})
	g.answerClient(id, &domain.InitializeResponse{
		ProtocolVersion: 1,
		AgentCapabilities: domain.Some(domain.AgentCapabilities{
			LoadSession: domain.Some(true),
			PromptCapabilities: domain.Some(domain.PromptCapabilities{
				Image:           domain.Some(true),
				Audio:           domain.Some(false),
				EmbeddedContext: domain.Some(true),
			}),
			McpCapabilities: domain.Some(domain.McpCapabilities{
				HTTP: domain.Some(true),
				SSE:  domain.Some(false),
			}),
			SessionCapabilities: domain.Some(domain.SessionCapabilities{
				Close: domain.Some(domain.SessionCloseCapabilities{}),
			}),
		}),
		AuthMethods: domain.Some([]domain.AuthMethod{}),
		AgentInfo:   domain.Some(agent),
	})
}

var modes = []domain.SessionMode{
	{ID: "default", Name: "Default", Description: domain.Some("Ask before editing files or running commands")},
	{ID: "acceptEdits", Name: "Accept Edits", Description: domain.Some("Edit files without asking")},
	{ID: "plan", Name: "Plan", Description: domain.Some("Analyse and plan without changing anything")},
}

// session opens a session, runs turns until the transcript reaches
// target bytes (at least one turn, at most eight) and closes it.
func (g *gen) session(target int64) {
	sid := g.openSession()
	turns := g.between(1, 8)
	for t := 0; t < turns; t++ {
		if t > 0 && g.rnd.IntN(6) == 0 {
			g.setMode(sid)
		}
		g.turn(sid)
		if g.err != nil || (target > 0 && g.written >= target) {
			break
		}
	}
	g.closeSession(sid)
}

// longSessions opens n sessions, runs turns in them in rotation until the
// transcript reaches target bytes (at least one turn each) and closes them.
func (g *gen) longSessions(n int, target int64) {
	type open struct {
		sid     domain.SessionID
		project project
	}
	sessions := make([]open, n)
	for i := range sessions {
		sid := g.openSession()
		sessions[i] = open{sid, g.project}
	}
	for t := 0; ; t++ {
		s := sessions[t%n]
		g.project = s.project
		if t >= n && g.rnd.IntN(6) == 0 {
			g.setMode(s.sid)
		}
		g.turn(s.sid)
		if g.err != nil || (t >= n-1 && g.written >= target) {
			break
		}
	}
	for _, s := range sessions {
		g.closeSession(s.sid)
	}
}

// openSession creates a session in a project of its own and returns its id.
func (g *gen) openSession() domain.SessionID {
	g.sessionN++
	g.project = projects[g.rnd.IntN(len(projects))]
	cwd := g.project.root
	servers := []domain.McpServer{}
	if g.rnd.IntN(3) == 0 {
		servers = append(servers, domain.McpServerStdio{
			Name:    "filesystem",
			Command: "/usr/local/bin/mcp-server-filesystem",
			Args:    []string{cwd},
			Env:     []domain.EnvVariable{{Name: "LOG_LEVEL", Value: "warn"}},
		})
	}
	id := g.clientRequest(domain.MethodSessionNew, &domain.NewSessionRequest{Cwd: cwd, McpServers: servers})
	sid := domain.SessionID(fmt.Sprintf("sess_%08x%04x", g.rnd.Uint32(), g.sessionN))
	g.answerClient(id, &domain.NewSessionResponse{
		SessionID: sid,
		Modes:     domain.Some(domain.SessionModeState{CurrentModeID: "default", AvailableModes: modes}),
	})
	g.update(sid, domain.AvailableCommandsUpdate{AvailableCommands: []domain.AvailableCommand{
		{Name: "init", Description: "Create an AGENTS.md file with instructions for the agent"},
		{Name: "review", Description: "Review the current changes", Input: domain.Some[domain.AvailableCommandInput](
			domain.UnstructuredCommandInput{Hint: "what to focus on"})},
		{Name: "compact", Description: "Summarise the conversation to free context"},
	}})
	return sid
}

func (g *gen) closeSession(sid domain.SessionID) {
	id := g.clientRequest(domain.MethodSessionClose, &domain.CloseSessionRequest{SessionID: sid})
	g.answerClient(id, &domain.CloseSessionResponse{})
}

func (g *gen) setMode(sid domain.SessionID) {
	mode := modes[g.rnd.IntN(len(modes))].ID
	id := g.clientRequest(domain.MethodSessionSetMode, &domain.SetSessionModeRequest{SessionID: sid, ModeID: mode})
	g.answerClient(id, &domain.SetSessionModeResponse{})
}

// turn runs one session/prompt turn.
func (g *gen) turn(sid domain.SessionID) {
	files := g.project.files
	focus := files[g.rnd.IntN(len(files))]
	prompt := []domain.ContentBlock{domain.TextContent{Text: g.request(focus)}}
	if g.rnd.IntN(2) == 0 {
		prompt = append(prompt, domain.ResourceLink{
			URI:      "file://" + g.abs(focus),
			Name:     path.Base(focus),
			MimeType: domain.Some(mimeOf(focus)),
		})
	}
	promptID := g.clientRequest(domain.MethodSessionPrompt, &domain.PromptRequest{SessionID: sid, Prompt: prompt})

	if g.rnd.IntN(2) == 0 {
		g.stream(sid, true, g.between(2, 5))
	}
	g.stream(sid, false, g.between(3, 12))

	steps := g.planSteps(focus)
	g.plan(sid, steps, 0)
	for i, step := range steps {
		switch step.kind {
		case domain.ToolRead:
			g.readTool(sid, step)
		case domain.ToolEdit:
			g.editTool(sid, step)
		case domain.ToolExecute:
			g.executeTool(sid, step)
		case domain.ToolSearch:
			g.searchTool(sid, step)
		}
		g.plan(sid, steps, i+1)
	}
	g.stream(sid, false, g.between(2, 8))
	used := uint64(g.between(4000, 180000))
	g.update(sid, domain.UsageUpdate{Used: used, Size: 200000})
	g.answerClient(promptID, &domain.PromptResponse{StopReason: domain.StopEndTurn})
}

// stream sends a message (or thought) as a run of chunks sharing a
// message id.
func (g *gen) stream(sid domain.SessionID, thought bool, chunks int) {
	g.messageN++
	mid := domain.Some(domain.MessageID(fmt.Sprintf("msg_%d", g.messageN)))
	send := func(text string) {
		c := domain.ContentChunk{Content: domain.TextContent{Text: text}, MessageID: mid}
		if thought {
			g.update(sid, domain.AgentThoughtChunk(c))
		} else {
			g.update(sid, domain.AgentMessageChunk(c))
		}
	}
	if g.chunkMax > 0 {
		sentences := make([]string, chunks)
		for i := range sentences {
			sentences[i] = g.sentence()
		}
		text := strings.Join(sentences, " ")
		for text != "" {
			n := min(g.between(g.chunkMin, max(g.chunkMin, g.chunkMax)), len(text))
			for n < len(text) && !utf8.RuneStart(text[n]) {
				n++
			}
			send(text[:n])
			text = text[n:]
		}
		return
	}
	for i := 0; i < chunks; i++ {
		text := g.sentence()
		if i < chunks-1 {
			text += " "
		}
		send(text)
	}
}

type step struct {
	kind  domain.ToolKind
	title string
	file  string // project-relative
}

func (g *gen) planSteps(focus string) []step {
	steps := []step{{kind: domain.ToolRead, title: "Read " + focus, file: focus}}
	if g.rnd.IntN(2) == 0 {
		steps = append(steps, step{kind: domain.ToolSearch, title: "Find callers of " + g.symbol(), file: focus})
	}
	steps = append(steps, step{kind: domain.ToolEdit, title: "Update " + focus, file: focus})
	if g.rnd.IntN(3) > 0 {
		steps = append(steps, step{kind: domain.ToolExecute, title: "Run " + g.project.test, file: focus})
	}
	return steps
}

// plan publishes the whole plan with the first done steps completed.
func (g *gen) plan(sid domain.SessionID, steps []step, done int) {
	entries := make([]domain.PlanEntry, len(steps))
	for i, s := range steps {
		status := domain.PlanPending
		switch {
		case i < done:
			status = domain.PlanCompleted
		case i == done:
			status = domain.PlanInProgress
		}
		prio := domain.PriorityHigh
		if s.kind == domain.ToolSearch || s.kind == domain.ToolExecute {
			prio = domain.PriorityMedium
		}
		entries[i] = domain.PlanEntry{Content: s.title, Priority: prio, Status: status}
	}
	g.update(sid, domain.Plan{Entries: entries})
}

func (g *gen) nextToolCall() domain.ToolCallID {
	g.toolCallN++
	return domain.ToolCallID(fmt.Sprintf("toolu_%012x", uint64(g.toolCallN)*0x9e3779b1&0xffffffffffff))
}

func raw(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func status(s domain.ToolCallStatus) domain.Opt[domain.ToolCallStatus] { return domain.Some(s) }

func textContent(s string) []domain.ToolCallContent {
	return []domain.ToolCallContent{domain.Content{Content: domain.TextContent{Text: s}}}
}

func (g *gen) readTool(sid domain.SessionID, s step) {
	id := g.nextToolCall()
	abs := g.abs(s.file)
	g.update(sid, domain.ToolCall{
		ToolCallID: id,
		Title:      s.title,
		Kind:       domain.Some(domain.ToolRead),
		Status:     status(domain.ToolCallPending),
		Locations:  domain.Some([]domain.ToolCallLocation{{Path: abs}}),
		RawInput:   raw(map[string]any{"file_path": abs}),
	})
	g.update(sid, domain.ToolCallUpdate{ToolCallID: id, Status: status(domain.ToolCallInProgress)})
	rid := g.agentRequest(domain.MethodFSReadTextFile, &domain.ReadTextFileRequest{SessionID: sid, Path: abs})
	text := g.source(s.file, g.between(8, 40))
	g.answerAgent(rid, &domain.ReadTextFileResponse{Content: text})
	g.update(sid, domain.ToolCallUpdate{
		ToolCallID: id,
		Status:     status(domain.ToolCallCompleted),
		Content:    domain.Some(textContent("```" + langOf(s.file) + "\n" + text + "```")),
	})
}

func (g *gen) searchTool(sid domain.SessionID, s step) {
	id := g.nextToolCall()
	sym := strings.TrimPrefix(s.title, "Find callers of ")
	g.update(sid, domain.ToolCall{
		ToolCallID: id,
		Title:      s.title,
		Kind:       domain.Some(domain.ToolSearch),
		Status:     status(domain.ToolCallInProgress),
		RawInput:   raw(map[string]any{"pattern": sym, "path": g.project.root}),
	})
	var hits []domain.ToolCallLocation
	var lines []string
	for i, n := 0, g.between(1, 4); i < n; i++ {
		f := g.project.files[g.rnd.IntN(len(g.project.files))]
		line := uint32(g.between(3, 400))
		hits = append(hits, domain.ToolCallLocation{Path: g.abs(f), Line: domain.Some(line)})
		lines = append(lines, fmt.Sprintf("%s:%d:\t%s(ctx, req)", f, line, sym))
	}
	g.update(sid, domain.ToolCallUpdate{
		ToolCallID: id,
		Status:     status(domain.ToolCallCompleted),
		Locations:  domain.Some(hits),
		Content:    domain.Some(textContent(strings.Join(lines, "\n"))),
		RawOutput:  raw(map[string]any{"matches": len(hits)}),
	})
}

var permissionOptions = []domain.PermissionOption{
	{OptionID: "allow-once", Name: "Allow", Kind: domain.AllowOnce},
	{OptionID: "allow-always", Name: "Always allow", Kind: domain.AllowAlways},
	{OptionID: "reject-once", Name: "Reject", Kind: domain.RejectOnce},
}

func (g *gen) editTool(sid domain.SessionID, s step) {
	id := g.nextToolCall()
	abs := g.abs(s.file)
	oldText := g.source(s.file, g.between(4, 16))
	newText := g.edit(oldText)
	line := uint32(g.between(1, 300))
	diff := []domain.ToolCallContent{domain.Diff{Path: abs, OldText: domain.Some(oldText), NewText: newText}}
	locs := []domain.ToolCallLocation{{Path: abs, Line: domain.Some(line)}}
	g.update(sid, domain.ToolCall{
		ToolCallID: id,
		Title:      s.title,
		Kind:       domain.Some(domain.ToolEdit),
		Status:     status(domain.ToolCallPending),
		Content:    domain.Some(diff),
		Locations:  domain.Some(locs),
		RawInput:   raw(map[string]any{"file_path": abs, "old_string": oldText, "new_string": newText}),
	})
	rid := g.agentRequest(domain.MethodSessionRequestPermission, &domain.RequestPermissionRequest{
		SessionID: sid,
		ToolCall: domain.ToolCallUpdate{
			ToolCallID: id,
			Title:      domain.Some(s.title),
			Kind:       domain.Some(domain.ToolEdit),
			Status:     status(domain.ToolCallPending),
			Content:    domain.Some(diff),
			Locations:  domain.Some(locs),
		},
		Options: permissionOptions,
	})
	choice := permissionOptions[0].OptionID
	if g.rnd.IntN(4) == 0 {
		choice = permissionOptions[1].OptionID
	}
	g.answerAgent(rid, &domain.RequestPermissionResponse{Outcome: domain.SelectedPermissionOutcome{OptionID: choice}})
	g.update(sid, domain.ToolCallUpdate{ToolCallID: id, Status: status(domain.ToolCallInProgress)})
	wid := g.agentRequest(domain.MethodFSWriteTextFile, &domain.WriteTextFileRequest{SessionID: sid, Path: abs, Content: newText})
	g.answerAgent(wid, &domain.WriteTextFileResponse{})
	g.update(sid, domain.ToolCallUpdate{ToolCallID: id, Status: status(domain.ToolCallCompleted)})
}

func (g *gen) executeTool(sid domain.SessionID, s step) {
	id := g.nextToolCall()
	argv := strings.Fields(g.project.test)
	g.update(sid, domain.ToolCall{
		ToolCallID: id,
		Title:      s.title,
		Kind:       domain.Some(domain.ToolExecute),
		Status:     status(domain.ToolCallPending),
		RawInput:   raw(map[string]any{"command": g.project.test}),
	})
	cid := g.agentRequest(domain.MethodTerminalCreate, &domain.CreateTerminalRequest{
		SessionID:       sid,
		Command:         argv[0],
		Args:            domain.Some(argv[1:]),
		Env:             domain.Some([]domain.EnvVariable{}),
		Cwd:             domain.Some(g.project.root),
		OutputByteLimit: domain.Some(uint64(1 << 20)),
	})
	g.terminalN++
	term := domain.TerminalID(fmt.Sprintf("term_%d", g.terminalN))
	g.answerAgent(cid, &domain.CreateTerminalResponse{TerminalID: term})
	g.update(sid, domain.ToolCallUpdate{
		ToolCallID: id,
		Status:     status(domain.ToolCallInProgress),
		Content:    domain.Some([]domain.ToolCallContent{domain.Terminal{TerminalID: term}}),
	})
	wid := g.agentRequest(domain.MethodTerminalWaitForExit, &domain.WaitForTerminalExitRequest{SessionID: sid, TerminalID: term})
	g.answerAgent(wid, &domain.WaitForTerminalExitResponse{ExitCode: domain.Some[uint32](0), Signal: domain.NullOf[string]()})
	oid := g.agentRequest(domain.MethodTerminalOutput, &domain.TerminalOutputRequest{SessionID: sid, TerminalID: term})
	g.answerAgent(oid, &domain.TerminalOutputResponse{
		Output:     g.testOutput(),
		Truncated:  false,
		ExitStatus: domain.Some(domain.TerminalExitStatus{ExitCode: domain.Some[uint32](0), Signal: domain.NullOf[string]()}),
	})
	rid := g.agentRequest(domain.MethodTerminalRelease, &domain.ReleaseTerminalRequest{SessionID: sid, TerminalID: term})
	g.answerAgent(rid, &domain.ReleaseTerminalResponse{})
	g.update(sid, domain.ToolCallUpdate{
		ToolCallID: id,
		Status:     status(domain.ToolCallCompleted),
		RawOutput:  raw(map[string]any{"exitCode": 0}),
	})
}

func (g *gen) abs(rel string) string { return g.project.root + "/" + rel }
