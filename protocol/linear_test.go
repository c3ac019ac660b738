package protocol

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
)

// TestPerMessageWorkIgnoresPendingRequests: the work of a message must not
// grow with the number of requests left pending (DEVELOPERS.md: every
// path is linear). Each case leaves n client requests pending, then steps
// n agent messages of one kind; the bytes allocated per message, a
// measure of work that machine load does not change, must stay the same
// when n grows eightfold. A check that collects or sorts the pending
// requests on such a message allocates in proportion to n per message.
func TestPerMessageWorkIgnoresPendingRequests(t *testing.T) {
	for _, tc := range []struct {
		name string
		msg  func(i int) string
	}{
		{"response with an unknown id", func(i int) string { // pendingHint
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":"u%d","result":{}}`, i)
		}},
		{"update for an unknown session", func(i int) string { // newSessionPending
			return fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"ghost%d","update":{"sessionUpdate":"plan","entries":[]}}}`, i)
		}},
		{"permission request outside a turn", func(i int) string { // settingPending
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":"p%d","method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t%d"},"options":[{"optionId":"o","name":"Allow","kind":"allow_once"}]}}`, i, i)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			perMessage := func(n int) float64 {
				w := newAdversary(t)
				for i := range n {
					w.send(domain.FromClient, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/set_mode","params":{"sessionId":"s%d","modeId":"m"}}`, 1000+i, i%7))
				}
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				for i := range n {
					w.send(domain.FromAgent, tc.msg(i))
				}
				runtime.ReadMemStats(&after)
				return float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
			}
			const n = 500
			small, large := perMessage(n), perMessage(8*n)
			t.Logf("bytes allocated per message: %.0f with %d requests pending, %.0f with %d", small, n, large, 8*n)
			// Linear work gives a ratio near 1, work in proportion to the
			// pending requests one near 8.
			if large > 2.5*small {
				t.Errorf("the work per message grows with the pending requests: %.0f bytes per message with %d pending, %.0f with %d", small, n, large, 8*n)
			}
		})
	}
}

// adversary steps a phase with messages, decoding results as lint does.
type adversary struct {
	t       *testing.T
	p       Phase
	line    int
	methods map[string]domain.Method
}

// newAdversary returns an adversary past initialize, with session s1 idle.
func newAdversary(t *testing.T) *adversary {
	w := &adversary{t: t, p: newPhase(), methods: map[string]domain.Method{}}
	w.send(domain.FromClient, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	w.send(domain.FromAgent, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[]}}`)
	w.send(domain.FromClient, `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`)
	w.send(domain.FromAgent, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`)
	return w
}

func (w *adversary) send(dir domain.Direction, text string) {
	w.t.Helper()
	w.line++
	d := codec.DecodeLine(codec.Line{Num: w.line, Bytes: []byte(text)})
	m := d.Msgs[0]
	m.Dir = dir
	switch m.Kind {
	case domain.KindRequest:
		w.methods[m.ID.Key()] = m.Method
	case domain.KindResult:
		if method, ok := w.methods[m.ID.Key()]; ok {
			m.Method = method
			mi, _ := domain.LookupMethod(m.Method)
			d.DecodeResult(0, mi)
		}
	}
	err := StepInPlace(&w.p, Event{Msg: m, Loc: findings.Location{File: "t", Line: w.line}})
	if _, other := Violations(err); len(other) > 0 {
		w.t.Fatalf("line %d: %v", w.line, other)
	}
}

// TestLowestPendingMatchesSort: the index pendingHint reads gives the ids
// a sort of all pending requests gives, through requests answered, ids
// reused and numbers spelled in different forms.
func TestLowestPendingMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	spellings := []string{"%d", `"%d"`, "%d.0", "%de0", `"id-%d"`}
	var q pendingRequests
	for step := range 20000 {
		raw := fmt.Sprintf(spellings[rng.IntN(len(spellings))], rng.IntN(300))
		id := domain.RequestID{Raw: []byte(raw)}
		key := id.Key()
		if _, ok := q.Get(key); ok && rng.IntN(3) > 0 {
			q.Delete(key)
		} else {
			q.Set(key, Pending{ID: id, Line: step})
		}
		if step%7 != 0 {
			continue
		}
		want := inIDOrder(q.reqs)
		want = want[:min(len(want), 6)]
		got := q.lowest(6)
		if len(got) != len(want) {
			t.Fatalf("step %d: %d lowest, want %d", step, len(got), len(want))
		}
		for i := range want {
			if got[i].ID.String() != want[i].ID.String() || got[i].Line != want[i].Line {
				t.Fatalf("step %d: lowest[%d] is %s (line %d), want %s (line %d)", step, i, got[i].ID, got[i].Line, want[i].ID, want[i].Line)
			}
		}
		if len(q.order.entries) > 2*q.Len()+32+1 {
			t.Fatalf("step %d: the index holds %d entries for %d pending requests", step, len(q.order.entries), q.Len())
		}
	}
}
