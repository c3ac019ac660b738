package protocol

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
)

// wire steps a phase through hand-written messages, one a line, typing
// each response as the result of the request it answers.
type wire struct {
	t       *testing.T
	p       Phase
	line    int
	pending map[string]domain.Method
	nextID  int
}

// newWire returns a connection initialized with the capabilities the
// tests use, and session "s" open.
func newWire(t *testing.T) *wire {
	w := &wire{t: t, p: newPhase(), pending: map[string]domain.Method{}}
	w.request(domain.FromClient, `"initialize","params":{"protocolVersion":1,"clientCapabilities":{"terminal":true},"clientInfo":{"name":"c","version":"1"}}`,
		`{"protocolVersion":1,"agentCapabilities":{},"authMethods":[],"agentInfo":{"name":"a","version":"1"}}`)
	w.request(domain.FromClient, `"session/new","params":{"cwd":"/w","mcpServers":[]}`, `{"sessionId":"s"}`)
	return w
}

// send steps one message and returns the ids of the rules it broke.
func (w *wire) send(dir domain.Direction, text string) []string {
	w.t.Helper()
	w.line++
	d := codec.DecodeLine(codec.Line{Num: w.line, Bytes: []byte(text)})
	m := d.Msgs[0]
	m.Dir = dir
	switch m.Kind {
	case domain.KindRequest:
		w.pending[m.ID.Key()] = m.Method
	case domain.KindResult:
		m.Method = w.pending[m.ID.Key()]
		mi, _ := domain.LookupMethod(m.Method)
		d.DecodeResult(0, mi)
	}
	vs, other := Violations(StepInPlace(&w.p, Event{Msg: m, Loc: findings.Location{File: "t", Line: w.line}}))
	if len(other) > 0 {
		w.t.Fatalf("line %d: %v", w.line, other)
	}
	var rules []string
	for _, v := range vs {
		rules = append(rules, v.Finding.RuleID)
	}
	return rules
}

// request sends a request (method and params, as JSON members after
// "method":) and, unless result is empty, its result; it returns the
// request's id.
func (w *wire) request(from domain.Direction, methodAndParams, result string) int {
	w.t.Helper()
	w.nextID++
	id := w.nextID
	w.clean(w.send(from, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%s}`, id, methodAndParams)))
	if result != "" {
		w.clean(w.send(from.Opposite(), fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":%s}`, id, result)))
	}
	return id
}

func (w *wire) update(u string) []string {
	w.t.Helper()
	return w.send(domain.FromAgent, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":`+u+`}}`)
}

// clean fails the test for findings where none are expected.
func (w *wire) clean(rules []string) {
	w.t.Helper()
	if len(rules) > 0 {
		w.t.Fatalf("line %d: unexpected findings %v", w.line, rules)
	}
}

func (w *wire) prompt() int {
	return w.request(domain.FromClient, `"session/prompt","params":{"sessionId":"s","prompt":[]}`, "")
}

func (w *wire) endTurn(id int) []string {
	return w.send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"stopReason":"end_turn"}}`, id))
}

func toolCall(id string) string {
	return fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":%q,"title":"t","status":"in_progress"}`, id)
}

func toolDone(id string) string {
	return fmt.Sprintf(`{"sessionUpdate":"tool_call_update","toolCallId":%q,"status":"completed"}`, id)
}

func chunk(messageID string) string {
	return fmt.Sprintf(`{"sessionUpdate":"agent_message_chunk","messageId":%q,"content":{"type":"text","text":"x"}}`, messageID)
}

// TestPastTurnsForgotten: over many turns a session remembers at most
// turnWindow tool calls and message ids; those of the latest turns are
// still judged (a reused toolCallId), those of the first are forgotten.
func TestPastTurnsForgotten(t *testing.T) {
	const turns, perTurn = 800, 10 // 8,000 items, twice the window
	run := func() *wire {
		w := newWire(t)
		for turn := range turns {
			id := w.prompt()
			w.clean(w.update(chunk(fmt.Sprintf("m%d", turn))))
			for i := range perTurn - 1 {
				call := fmt.Sprintf("c%d_%d", turn, i)
				w.clean(w.update(toolCall(call)))
				w.clean(w.update(toolDone(call)))
			}
			w.clean(w.endTurn(id))
		}
		return w
	}
	w, same := run(), run()
	s, _ := w.p.Session("s")
	if n := s.ToolCalls.Len() + s.Messages.Len(); n > turnWindow || len(w.p.items.log) > turnWindow {
		t.Errorf("after %d items the session remembers %d tool calls and message ids, the log %d; at most %d were expected",
			turns*perTurn, n, len(w.p.items.log), turnWindow)
	}
	// A copy taken now must not see what the phase goes through next,
	// forgetting included.
	copied := w.p.Clone()
	id := w.prompt()
	if got := w.update(toolCall(fmt.Sprintf("c%d_0", turns-1))); !slices.Equal(got, []string{findings.TOOLDuplicateID.ID}) {
		t.Errorf("a toolCallId of the previous turn used again: %v, want %s", got, findings.TOOLDuplicateID.ID)
	}
	if got := w.update(toolDone("c0_0")); !slices.Equal(got, []string{findings.TOOLUpdateUnknown.ID}) {
		t.Errorf("an update to a tool call forgotten long ago: %v, want %s (as documented)", got, findings.TOOLUpdateUnknown.ID)
	}
	w.clean(w.update(toolDone(fmt.Sprintf("c%d_0", turns-1))))
	w.clean(w.endTurn(id))
	id = w.prompt()
	for i := range turnWindow {
		w.clean(w.update(chunk(fmt.Sprintf("more%d", i))))
	}
	w.clean(w.endTurn(id))
	if !reflect.DeepEqual(copied, same.p) {
		t.Error("stepping a phase changed a copy of it")
	}
}

// TestRunningTurnKeepsItsItems: a turn of more tool calls than the window
// (but fewer than the 2*MaxKeptEntries items running turns may keep
// before any is cut) forgets none of them while it runs; once it has
// ended they go too.
func TestRunningTurnKeepsItsItems(t *testing.T) {
	w := newWire(t)
	const calls = 2*MaxKeptEntries - 1 // and c0 stored again makes it 2*MaxKeptEntries
	id := w.prompt()
	for i := range calls {
		w.clean(w.update(toolCall(fmt.Sprintf("c%d", i))))
	}
	for i := range calls {
		w.clean(w.update(toolDone(fmt.Sprintf("c%d", i))))
	}
	if got := w.update(toolCall("c0")); !slices.Equal(got, []string{findings.TOOLDuplicateID.ID}) {
		t.Errorf("the turn's first toolCallId used again: %v, want %s", got, findings.TOOLDuplicateID.ID)
	}
	w.clean(w.update(toolDone("c0")))
	w.clean(w.endTurn(id))
	for turn := range 2 * turnWindow / 10 {
		id := w.prompt()
		for i := range 10 {
			call := fmt.Sprintf("d%d_%d", turn, i)
			w.clean(w.update(toolCall(call)))
			w.clean(w.update(toolDone(call)))
		}
		w.clean(w.endTurn(id))
	}
	if s, _ := w.p.Session("s"); s.ToolCalls.Len() > turnWindow {
		t.Errorf("the long turn's %d tool calls outlive it: the session remembers %d, at most %d were expected", calls, s.ToolCalls.Len(), turnWindow)
	}
}

// TestRunningTurnBeyondCap: a turn that streams more tool calls than
// running turns may keep keeps the latest, says once that it cut them
// (ACP-LINT-006), and judges no update to a call it may have dropped;
// the calls it kept are judged as before.
func TestRunningTurnBeyondCap(t *testing.T) {
	w := newWire(t)
	const calls = 6 * MaxKeptEntries
	id := w.prompt()
	cutAt := -1
	for i := range calls {
		got := w.update(toolCall(fmt.Sprintf("c%d", i)))
		switch {
		case len(got) == 0:
		case cutAt < 0 && slices.Equal(got, []string{findings.LINTListCut.ID}):
			cutAt = i
		default:
			t.Fatalf("tool call %d: unexpected findings %v", i, got)
		}
	}
	if cutAt != 2*MaxKeptEntries {
		t.Errorf("the cut was said at tool call %d, want %d (the first beyond what running turns keep)", cutAt, 2*MaxKeptEntries)
	}
	s, _ := w.p.Session("s")
	if n := s.ToolCalls.Len(); n < MaxKeptEntries || n > 2*MaxKeptEntries || len(w.p.items.log) > 2*MaxKeptEntries {
		t.Errorf("the running turn keeps %d tool calls, its log %d items; between %d and %d were expected", n, len(w.p.items.log), MaxKeptEntries, 2*MaxKeptEntries)
	}
	w.clean(w.update(toolDone("c0"))) // dropped: not judged
	last := fmt.Sprintf("c%d", calls-1)
	if got := w.update(toolCall(last)); !slices.Equal(got, []string{findings.TOOLDuplicateID.ID}) {
		t.Errorf("the latest toolCallId used again: %v, want %s", got, findings.TOOLDuplicateID.ID)
	}
	w.clean(w.update(toolDone(last)))
	if got := w.endTurn(id); !slices.Equal(got, []string{findings.TURNEndWithOpenToolCalls.ID}) {
		t.Errorf("the turn ends with the calls it kept open: %v, want %s", got, findings.TURNEndWithOpenToolCalls.ID)
	}
}

// TestReleasedTerminalsForgotten: of many terminals created and released
// the machine remembers the latest releasedWindow; a use of one of those
// is still a use after release, a use of one released long before is
// reported as a use of an unknown terminal (as documented).
func TestReleasedTerminalsForgotten(t *testing.T) {
	w := newWire(t)
	id := w.prompt()
	const n = 3 * releasedWindow
	for i := range n {
		w.request(domain.FromAgent, `"terminal/create","params":{"sessionId":"s","command":"true"}`, fmt.Sprintf(`{"terminalId":"t%d"}`, i))
		w.request(domain.FromAgent, fmt.Sprintf(`"terminal/release","params":{"sessionId":"s","terminalId":"t%d"}`, i), "{}")
	}
	if got := w.p.Terminals.Len(); got > releasedWindow {
		t.Errorf("after %d released terminals the machine remembers %d; at most %d were expected", n, got, releasedWindow)
	}
	use := func(term string) []string {
		w.nextID++
		return w.send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"terminal/output","params":{"sessionId":"s","terminalId":%q}}`, w.nextID, term))
	}
	if got := use(fmt.Sprintf("t%d", n-1)); !slices.Equal(got, []string{findings.TERMUseAfterRelease.ID}) {
		t.Errorf("the latest released terminal used: %v, want %s", got, findings.TERMUseAfterRelease.ID)
	}
	if got := use("t0"); !slices.Equal(got, []string{findings.TERMUnknownTerminal.ID}) {
		t.Errorf("a terminal released long ago used: %v, want %s (as documented)", got, findings.TERMUnknownTerminal.ID)
	}
	w.endTurn(id)
}
