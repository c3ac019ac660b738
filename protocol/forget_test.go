package protocol

import (
	"fmt"
	"testing"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
)

// TestDoneSessionsForgotten: opening and closing sessions one after
// another, the machine's memory of sessions stays within the window
// however many there were.
func TestDoneSessionsForgotten(t *testing.T) {
	p := newPhase()
	line := 0
	pending := map[string]domain.Method{}
	send := func(dir domain.Direction, text string) {
		t.Helper()
		line++
		d := codec.DecodeLine(codec.Line{Num: line, Bytes: []byte(text)})
		m := d.Msgs[0]
		m.Dir = dir
		switch m.Kind {
		case domain.KindRequest:
			pending[m.ID.Key()] = m.Method
		case domain.KindResult:
			m.Method = pending[m.ID.Key()]
			mi, _ := domain.LookupMethod(m.Method)
			d.DecodeResult(0, mi)
		}
		err := StepInPlace(&p, Event{Msg: m, Loc: findings.Location{File: "t", Line: line}})
		vs, other := Violations(err)
		if len(other) > 0 {
			t.Fatalf("line %d: %v", line, other)
		}
		for _, v := range vs {
			if v.Finding.Severity == findings.SeverityError {
				t.Fatalf("line %d: %v", line, v)
			}
		}
	}
	send(domain.FromClient, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	send(domain.FromAgent, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"sessionCapabilities":{"close":{}}},"authMethods":[]}}`)
	const n = 5 * doneWindow
	for i := range n {
		sid := fmt.Sprintf("sess_%d", i)
		send(domain.FromClient, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/new","params":{"cwd":"/w/%d","mcpServers":[]}}`, 3*i+1, i))
		send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"sessionId":%q}}`, 3*i+1, sid))
		send(domain.FromClient, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":%q,"prompt":[]}}`, 3*i+2, sid))
		send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":{"sessionUpdate":"plan","entries":[]}}}`, sid))
		send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"stopReason":"end_turn"}}`, 3*i+2))
		send(domain.FromClient, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/close","params":{"sessionId":%q}}`, 3*i+3, sid))
		send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, 3*i+3))
	}
	for name, size := range map[string]int{
		"Sessions": p.Sessions.Len() + p.closed.Len(), "Issued": p.Issued.Len(), "KnownCwd": p.KnownCwd.Len(),
		"plans": p.upd.plans.Len(), "historyAt": p.life.ses.historyAt.Len(), "turnEnd": p.flow.cxl.turnEnd.Len(),
	} {
		if size > doneWindow {
			t.Errorf("after %d sessions the machine remembers %d in %s; at most %d were expected", n, size, name, doneWindow)
		}
	}
	if _, ok := p.Session(domain.SessionID(fmt.Sprintf("sess_%d", n-1))); !ok {
		t.Error("the latest closed session is forgotten")
	}
}
