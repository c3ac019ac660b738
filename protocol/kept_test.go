package protocol

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/internal/proctest"
)

// TestKeptMemoryIgnoresListLength: what the machine keeps of a connection
// whose initialize advertised n auth methods and whose one session opened
// with n additional directories, n modes and a select config option of n
// values does not grow with n: it keeps at most MaxKeptEntries of each
// list. (Before the cap it kept a copy of every list and indexes of it,
// about 0.8 KiB per entry: 42 MiB for lists of 50,000.) The live heap
// with the phase alone alive is compared at n and 8n, both beyond the
// cap.
func TestKeptMemoryIgnoresListLength(t *testing.T) {
	if proctest.RaceEnabled {
		t.Skip("the race detector changes what is allocated; .ci/run runs this test without it")
	}
	kept := func(n int) uint64 {
		list := func(entry string) string {
			var b strings.Builder
			for i := range n {
				if i > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, entry, i, i)
			}
			return b.String()
		}
		w := &adversary{t: t, p: newPhase(), methods: map[string]domain.Method{}}
		w.send(domain.FromClient, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
		w.send(domain.FromAgent, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"sessionCapabilities":{"additionalDirectories":{}}},"authMethods":[`+
			list(`{"id":"login-%d","name":"Sign in %d"}`)+`]}}`)
		w.send(domain.FromClient, `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[],"additionalDirectories":[`+
			list(`"/home/dev/library-%d/src%d"`)+`]}}`)
		w.send(domain.FromAgent, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1","modes":{"currentModeId":"mode-0","availableModes":[`+
			list(`{"id":"mode-%d","name":"Mode %d"}`)+`]},"configOptions":[{"id":"mode","name":"Mode","category":"mode","type":"select","currentValue":"mode-0","options":[`+
			list(`{"value":"mode-%d","name":"Mode %d"}`)+`]}]}}`)
		p := w.p
		w.p = Phase{}
		heap := liveHeap()
		if s, ok := p.Session("s1"); !ok || !s.hasMode(domain.SessionModeID(fmt.Sprintf("mode-%d", n-1))) {
			t.Fatalf("the session is gone or does not take its last mode")
		}
		return heap
	}
	const n = 2 * MaxKeptEntries
	base := kept(1)
	small, large := kept(n)-base, kept(8*n)-base
	t.Logf("kept beyond a connection with lists of 1: %.0f KiB with lists of %d, %.0f KiB with %d", float64(small)/(1<<10), n, float64(large)/(1<<10), 8*n)
	const slack = 256 << 10
	if large > small+slack {
		t.Errorf("what the machine keeps grows with the lists: %.0f KiB with lists of %d, %.0f KiB with %d", float64(small)/(1<<10), n, float64(large)/(1<<10), 8*n)
	}
}

// liveHeap is the heap left after collections. Twice: the first moves
// sync.Pool contents (jsonv's pooled parsers keep their stacks, up to 1 MiB
// each) to the victim cache, the second frees them; they are not what the
// machine keeps.
func liveHeap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// keptHeap is the live heap with the phase that feed leaves alone alive,
// beyond that of a phase past initialize with session s1 idle.
func keptHeap(t *testing.T, n int, feed func(w *adversary, n int)) int64 {
	t.Helper()
	heap := func(n int) uint64 {
		w := newAdversary(t)
		// The capabilities the checks of elicitations and extension
		// methods ask for.
		w.p.ClientCaps = &domain.ClientCapabilities{}
		if n > 0 {
			feed(w, n)
		}
		p := w.p
		w.p = Phase{}
		heap := liveHeap()
		runtime.KeepAlive(p)
		return heap
	}
	return int64(heap(n)) - int64(heap(0))
}

// assertKeptIgnoresCount compares what the machine keeps after feed with
// n and with 8n ids, n beyond the cap: it must not grow.
func assertKeptIgnoresCount(t *testing.T, what string, n int, feed func(w *adversary, n int)) {
	if proctest.RaceEnabled {
		t.Skip("the race detector changes what is allocated; .ci/run runs this test without it")
	}
	small, large := keptHeap(t, n, feed), keptHeap(t, 8*n, feed)
	t.Logf("kept with %d %s: %.0f KiB; with %d: %.0f KiB", n, what, float64(small)/(1<<10), 8*n, float64(large)/(1<<10))
	const slack = 256 << 10
	if large > small+slack {
		t.Errorf("what the machine keeps grows with the %s: %.0f KiB with %d, %.0f KiB with %d", what, float64(small)/(1<<10), n, float64(large)/(1<<10), 8*n)
	}
}

// TestKeptMemoryIgnoresListedSessions: session/list may list any number
// of sessions in one result, and any number of pages may follow, each
// with a cursor; the machine keeps MaxKeptEntries of the sessions (with
// their cwd) and of the cursors. (Before, it kept all: about 0.3 KiB a
// session.)
func TestKeptMemoryIgnoresListedSessions(t *testing.T) {
	t.Run("sessions", func(t *testing.T) {
		assertKeptIgnoresCount(t, "listed sessions", 2*MaxKeptEntries, func(w *adversary, n int) {
			var b strings.Builder
			for i := range n {
				if i > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, `{"sessionId":"listed-%d","cwd":"/home/dev/project-%d"}`, i, i)
			}
			w.send(domain.FromClient, `{"jsonrpc":"2.0","id":2,"method":"session/list","params":{}}`)
			w.send(domain.FromAgent, `{"jsonrpc":"2.0","id":2,"result":{"sessions":[`+b.String()+`]}}`)
		})
	})
	t.Run("pages", func(t *testing.T) {
		assertKeptIgnoresCount(t, "list pages", 2*MaxKeptEntries, func(w *adversary, n int) {
			for i := range n {
				w.send(domain.FromClient, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/list","params":{}}`, i+2))
				w.send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"sessions":[{"sessionId":"page-%d","cwd":"/p"}],"nextCursor":"cursor-%d"}}`, i+2, i, i))
			}
		})
	})
}

// TestKeptMemoryIgnoresReportedKeys: findings made once per id (here an
// update for a session that does not exist, ACP-SID-002, once per id)
// and once per method (an unadvertised extension method, ACP-EXTN-006)
// remember the latest reportedWindow keys, not every id and method a
// sender chose. (Before, about 0.1 KiB an id.)
func TestKeptMemoryIgnoresReportedKeys(t *testing.T) {
	t.Run("session ids", func(t *testing.T) {
		assertKeptIgnoresCount(t, "unknown session ids", 2*reportedWindow, func(w *adversary, n int) {
			for i := range n {
				w.send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"ghost-%d","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`, i))
			}
		})
	})
	t.Run("extension methods", func(t *testing.T) {
		assertKeptIgnoresCount(t, "extension methods", 2*reportedWindow, func(w *adversary, n int) {
			for i := range n {
				w.send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","method":"_vendor/event-%d","params":{}}`, i))
			}
		})
	})
}

// TestKeptMemoryIgnoresElicitations: the ids of URL elicitations ever
// opened, which elicitation/complete is judged by, are kept up to
// MaxKeptEntries. (Before, all of them: about 0.1 KiB an id.)
func TestKeptMemoryIgnoresElicitations(t *testing.T) {
	assertKeptIgnoresCount(t, "URL elicitations", 2*MaxKeptEntries, func(w *adversary, n int) {
		for i := range n {
			w.send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"elicitation/create","params":{"sessionId":"s1","message":"Sign in.","mode":"url","elicitationId":"elic-%d","url":"https://example.com/oauth"}}`, i, i))
			w.send(domain.FromClient, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"action":"accept"}}`, i))
			w.send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","method":"elicitation/complete","params":{"elicitationId":"elic-%d"}}`, i))
		}
	})
}

// A key longer than maxReportedKey is remembered by its digest, so that
// what a window of keys holds does not follow the length of the ids.
func TestRecentKeysKeepLongKeysShort(t *testing.T) {
	var r recentKeys
	long := strings.Repeat("x", 1<<20)
	r.Add(long)
	if !r.Has(long) || r.Has(long[1:]) || r.Has(long[:len(long)-1]+"y") {
		t.Fatal("a long key is not remembered exactly")
	}
	for k := range r.newer.m {
		if len(k) > maxReportedKey {
			t.Fatalf("a key of %d bytes is kept", len(k))
		}
	}
	for i := range reportedWindow {
		r.Add(fmt.Sprint(i))
	}
	if r.Len() > reportedWindow || r.Has(long) {
		t.Fatalf("the window holds %d keys (at most %d), the oldest one too: %v", r.Len(), reportedWindow, r.Has(long))
	}
}

// TestKeptMemoryIgnoresRunningTurn: one turn that never ends may stream
// any number of tool calls, message ids and compactions; running turns
// keep the latest MaxKeptEntries to 2*MaxKeptEntries of them. (Before,
// a running turn kept every one: about 0.2 KiB an item.)
func TestKeptMemoryIgnoresRunningTurn(t *testing.T) {
	update := func(w *adversary, u string) {
		w.send(domain.FromAgent, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":`+u+`}}`)
	}
	prompt := func(w *adversary) {
		w.send(domain.FromClient, `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}}`)
	}
	t.Run("tool calls", func(t *testing.T) {
		assertKeptIgnoresCount(t, "tool calls of a running turn", 2*MaxKeptEntries, func(w *adversary, n int) {
			prompt(w)
			for i := range n {
				update(w, fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":"call-%d","title":"Read file %d","status":"in_progress"}`, i, i))
			}
		})
	})
	t.Run("message ids", func(t *testing.T) {
		assertKeptIgnoresCount(t, "message ids of a running turn", 2*MaxKeptEntries, func(w *adversary, n int) {
			prompt(w)
			for i := range n {
				update(w, fmt.Sprintf(`{"sessionUpdate":"agent_message_chunk","messageId":"msg-%d","content":{"type":"text","text":"x"}}`, i))
			}
		})
	})
	t.Run("compactions", func(t *testing.T) {
		assertKeptIgnoresCount(t, "compactions under way", 2*MaxKeptEntries, func(w *adversary, n int) {
			for i := range n {
				update(w, fmt.Sprintf(`{"sessionUpdate":"compaction_update","compactionId":"compaction-%d","status":"in_progress"}`, i))
			}
		})
	})
}

// TestKeptMemoryIgnoresPendingRequests: a side may send any number of
// requests the other never answers; the machine keeps the latest
// 3/4*MaxKeptEntries to MaxKeptEntries of each side's. (Before, every
// one: about 0.2 KiB a request.)
func TestKeptMemoryIgnoresPendingRequests(t *testing.T) {
	assertKeptIgnoresCount(t, "pending requests", 2*MaxKeptEntries, func(w *adversary, n int) {
		for i := range n {
			w.send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"fs/read_text_file","params":{"sessionId":"s1","path":"/w/file-%d.txt"}}`, i+10, i))
		}
	})
}

// TestPendingCutSparesUnknownIDs: once the machine dropped requests of a
// side still pending, a response that matches none it kept is not
// reported as answering an unknown id: it may answer a dropped one. The
// cut is said once (ACP-LINT-006).
func TestPendingCutSparesUnknownIDs(t *testing.T) {
	w := newWire(t)
	notes := 0
	for i := range MaxKeptEntries + 1 {
		got := w.send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":"x%d","method":"fs/read_text_file","params":{"sessionId":"s","path":"/w/f%d"}}`, i, i))
		for _, id := range got {
			if id == findings.LINTListCut.ID {
				notes++
			}
		}
	}
	if notes != 1 || w.p.PendingCount(domain.FromAgent) > MaxKeptEntries {
		t.Errorf("%d notes of the cut, %d requests kept; want 1 note and at most %d", notes, w.p.PendingCount(domain.FromAgent), MaxKeptEntries)
	}
	w.clean(w.send(domain.FromClient, `{"jsonrpc":"2.0","id":"x0","result":{"content":""}}`))    // dropped
	w.clean(w.send(domain.FromClient, `{"jsonrpc":"2.0","id":"x4096","result":{"content":""}}`)) // kept
}

// TestKeptMemoryIgnoresOpenElicitations: an agent may open any number of
// URL elicitations the client accepts and that are never completed; the
// machine keeps the latest 3/4*MaxKeptEntries to MaxKeptEntries open.
// (Before, every one: about 0.1 KiB an elicitation.)
func TestKeptMemoryIgnoresOpenElicitations(t *testing.T) {
	assertKeptIgnoresCount(t, "open URL elicitations", 2*MaxKeptEntries, func(w *adversary, n int) {
		for i := range n {
			w.send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"elicitation/create","params":{"sessionId":"s1","message":"Sign in.","mode":"url","elicitationId":"open-%d","url":"https://example.com/oauth"}}`, i+10, i))
			w.send(domain.FromClient, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"action":"accept"}}`, i+10))
		}
	})
}

// countRule counts rule among the ids of the rules a message broke.
func countRule(rules []string, rule *findings.Rule) int {
	n := 0
	for _, id := range rules {
		if id == rule.ID {
			n++
		}
	}
	return n
}

// TestOpenElicitationsCutSparesReuse: once the machine dropped the
// oldest open URL elicitations, an id it dropped that comes again is not
// judged a reuse (ACP-ELIC-002): whether that elicitation is still
// outstanding is no longer known. One it kept still is. The cut is said
// once (ACP-LINT-006).
func TestOpenElicitationsCutSparesReuse(t *testing.T) {
	w := newWire(t)
	elicit := func(id string) []string {
		w.nextID++
		rules := w.send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"elicitation/create","params":{"sessionId":"s","message":"Sign in.","mode":"url","elicitationId":%q,"url":"https://example.com/oauth"}}`, w.nextID, id))
		w.send(domain.FromClient, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"action":"accept"}}`, w.nextID))
		return rules
	}
	notes := 0
	for i := range MaxKeptEntries + 1 {
		notes += countRule(elicit(fmt.Sprintf("e%d", i)), findings.LINTListCut)
	}
	// Two: the ids ever opened (Completed) are cut at the same one.
	if notes != 2 || w.p.Elicitations.Len() > MaxKeptEntries {
		t.Errorf("%d notes of the cuts, %d elicitations kept open; want 2 notes and at most %d", notes, w.p.Elicitations.Len(), MaxKeptEntries)
	}
	// The client advertised no elicitation (ACP-CAP-004 on each): the
	// rules of this test are ELIC-002 and LINT-006.
	if got := elicit("e0"); countRule(got, findings.ELICDuplicateID)+countRule(got, findings.LINTListCut) > 0 { // dropped
		t.Errorf("a dropped elicitation's id, used again: %v; want neither %s nor another %s", got, findings.ELICDuplicateID.ID, findings.LINTListCut.ID)
	}
	if got := elicit(fmt.Sprintf("e%d", MaxKeptEntries)); countRule(got, findings.ELICDuplicateID) != 1 { // kept
		t.Errorf("a kept open elicitation's id, used again: %v; want %s", got, findings.ELICDuplicateID.ID)
	}
}

// TestKeptMemoryIgnoresTerminals: an agent may create any number of
// terminals it never releases; the machine keeps the latest
// 3/4*MaxKeptEntries to MaxKeptEntries of them. (Before, every one:
// about 0.2 KiB a terminal.)
func TestKeptMemoryIgnoresTerminals(t *testing.T) {
	assertKeptIgnoresCount(t, "unreleased terminals", 2*MaxKeptEntries, func(w *adversary, n int) {
		for i := range n {
			w.send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"terminal/create","params":{"sessionId":"s1","command":"make","outputByteLimit":1024}}`, i+10))
			w.send(domain.FromClient, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"terminalId":"term-%d"}}`, i+10, i))
		}
	})
}

// TestTerminalsCutSparesUnknownTerminals: once the machine dropped the
// oldest terminals not released, a terminal/* request or terminal
// content naming one it does not know is not reported (ACP-TERM-001,
// ACP-TOOL-008): it may name a dropped one. A dropped terminal is not
// reported as never released at the end (ACP-TERM-003); the kept ones
// are, and a use of a released one still is (ACP-TERM-002). The cut is
// said once (ACP-LINT-006).
func TestTerminalsCutSparesUnknownTerminals(t *testing.T) {
	w := newWire(t)
	notes := 0
	for i := range MaxKeptEntries + 1 {
		w.nextID++
		w.clean(w.send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"terminal/create","params":{"sessionId":"s","command":"make"}}`, w.nextID)))
		notes += countRule(w.send(domain.FromClient, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"terminalId":"t%d"}}`, w.nextID, i)), findings.LINTListCut)
	}
	if notes != 1 || w.p.flow.term.open > MaxKeptEntries {
		t.Errorf("%d notes of the cut, %d terminals kept; want 1 note and at most %d", notes, w.p.flow.term.open, MaxKeptEntries)
	}
	w.request(domain.FromAgent, `"terminal/output","params":{"sessionId":"s","terminalId":"t0"}`, `{"output":"","truncated":false}`) // dropped
	w.request(domain.FromAgent, `"terminal/release","params":{"sessionId":"s","terminalId":"t1"}`, `{}`)                             // dropped
	id := w.prompt()
	w.clean(w.update(`{"sessionUpdate":"tool_call","toolCallId":"c0","title":"make","status":"in_progress","content":[{"type":"terminal","terminalId":"t2"}]}`)) // dropped
	w.clean(w.update(`{"sessionUpdate":"tool_call","toolCallId":"c1","title":"make","status":"in_progress","content":[{"type":"terminal","terminalId":"t4096"}]}`))
	w.clean(w.update(toolDone("c0")))
	w.clean(w.update(toolDone("c1")))
	w.clean(w.endTurn(id))
	w.request(domain.FromAgent, `"terminal/release","params":{"sessionId":"s","terminalId":"t4096"}`, `{}`) // kept
	if got := w.send(domain.FromAgent, `{"jsonrpc":"2.0","id":"again","method":"terminal/output","params":{"sessionId":"s","terminalId":"t4096"}}`); countRule(got, findings.TERMUseAfterRelease) != 1 {
		t.Errorf("a use of a kept terminal after its release: %v; want %s", got, findings.TERMUseAfterRelease.ID)
	}
	w.send(domain.FromClient, `{"jsonrpc":"2.0","id":"again","error":{"code":-32002,"message":"released"}}`)
	vs, _ := Violations(StepInPlace(&w.p, Event{End: true}))
	leaks := 0
	for _, v := range vs {
		if v.Finding.RuleID == findings.TERMNotReleased.ID {
			leaks++
		}
	}
	if kept := MaxKeptEntries + 1 - MaxKeptEntries/4 - 1; leaks != kept {
		t.Errorf("%d terminals reported never released; want the %d kept", leaks, kept)
	}
}

// TestKeptMemoryIgnoresOpenSessions: a client may open any number of
// sessions it never closes; the machine keeps the latest
// 3/4*MaxKeptEntries to MaxKeptEntries of them open. (Before, every one:
// about 1 KiB a session.)
func TestKeptMemoryIgnoresOpenSessions(t *testing.T) {
	assertKeptIgnoresCount(t, "open sessions", 2*MaxKeptEntries, func(w *adversary, n int) {
		for i := range n {
			w.send(domain.FromClient, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/new","params":{"cwd":"/home/dev/project-%d","mcpServers":[]}}`, i+10, i))
			w.send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"sessionId":"session-%d"}}`, i+10, i))
		}
	})
}

// TestSessionsCutSparesDroppedSessions: once the machine dropped the
// oldest open sessions, a message naming a session it does not know is
// not reported as naming one that is not open (ACP-SID-001, ACP-SID-002):
// it may name a dropped one, which the peers still use. A -32800 answer
// to a request of such a session is not reported as uncovered by a
// cancel (ACP-CXL-008): its turn may have been cancelled. The sessions
// kept are judged as before. The cut is said once (ACP-LINT-006).
func TestSessionsCutSparesDroppedSessions(t *testing.T) {
	w := &wire{t: t, p: newPhase(), pending: map[string]domain.Method{}}
	w.request(domain.FromClient, `"initialize","params":{"protocolVersion":1,"clientCapabilities":{"terminal":true},"clientInfo":{"name":"c","version":"1"}}`,
		`{"protocolVersion":1,"agentCapabilities":{"sessionCapabilities":{"close":{}}},"authMethods":[],"agentInfo":{"name":"a","version":"1"}}`)
	w.request(domain.FromClient, `"session/new","params":{"cwd":"/w","mcpServers":[]}`, `{"sessionId":"s"}`) // the oldest
	notes := 0
	for i := range MaxKeptEntries {
		w.nextID++
		w.clean(w.send(domain.FromClient, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`, w.nextID)))
		notes += countRule(w.send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"sessionId":"s%d"}}`, w.nextID, i)), findings.LINTListCut)
	}
	if _, kept := w.p.Session("s"); notes != 1 || kept || w.p.Sessions.Len() > MaxKeptEntries {
		t.Errorf("%d notes of the cut, %d sessions kept, the first among them: %v; want 1 note, at most %d, not the first", notes, w.p.Sessions.Len(), kept, MaxKeptEntries)
	}
	// The dropped session "s" runs a turn the client cancels.
	prompt := w.prompt()
	w.clean(w.update(chunk("m1")))
	w.clean(w.send(domain.FromAgent, `{"jsonrpc":"2.0","id":"read","method":"terminal/create","params":{"sessionId":"s","command":"make"}}`))
	w.clean(w.send(domain.FromClient, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`))
	w.clean(w.send(domain.FromClient, `{"jsonrpc":"2.0","id":"read","error":{"code":-32800,"message":"cancelled"}}`))
	w.clean(w.send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"stopReason":"cancelled"}}`, prompt)))
	w.request(domain.FromClient, `"session/close","params":{"sessionId":"s"}`, `{}`)
	// A kept session is judged: an update after its close is reported.
	w.request(domain.FromClient, fmt.Sprintf(`"session/close","params":{"sessionId":"s%d"}`, MaxKeptEntries-1), `{}`)
	got := w.send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s%d","update":%s}}`, MaxKeptEntries-1, chunk("m2")))
	if countRule(got, findings.SIDUnknownSessionFromAgent) != 1 {
		t.Errorf("an update for a kept session after its close: %v; want %s", got, findings.SIDUnknownSessionFromAgent.ID)
	}
}
