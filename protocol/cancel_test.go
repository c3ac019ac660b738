package protocol_test

import (
	"strings"
	"testing"

	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/transcript"
)

const cancelPrelude = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{},"clientInfo":{"name":"e","version":"1"}}}
{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[],"agentInfo":{"name":"a","version":"1"}}}
{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}
{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s"}}
{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}]}}
`

const (
	chunk  = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}` + "\n"
	cancel = `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}` + "\n"
	endOK  = `{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}` + "\n"
)

// TestCancelRaceSeverity checks what the golden corpus cannot: the
// severity. An end_turn that is the agent's first message after the cancel
// is a race (info); one that follows further agent traffic is an error.
func TestCancelRaceSeverity(t *testing.T) {
	for _, tc := range []struct {
		name, tail string
		want       findings.Severity
	}{
		{"race", chunk + cancel + endOK, findings.SeverityInfo},
		{"violation", cancel + chunk + endOK, findings.SeverityError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := lint.Transcript(strings.NewReader(cancelPrelude+tc.tail), lint.Options{File: "t", Format: transcript.FormatNDJSON})
			if err != nil {
				t.Fatal(err)
			}
			var got []findings.ValidationFinding
			for _, f := range res.Findings {
				if f.RuleID == findings.CXLNotCancelled.ID {
					got = append(got, f)
				}
			}
			if len(got) != 1 || got[0].Severity != tc.want {
				t.Fatalf("want one %s %s finding, got %+v", tc.want, findings.CXLNotCancelled.ID, got)
			}
		})
	}
}
