package lint_test

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/transcript"
)

// Messages of a short, valid session, reused by the tests below.
const (
	initReq   = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true},"clientInfo":{"name":"example-editor","version":"1.0.0"}}}`
	initRes   = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":false,"promptCapabilities":{"image":false,"audio":false,"embeddedContext":true}},"authMethods":[],"agentInfo":{"name":"example-agent","version":"0.3.1"}}}`
	newReq    = `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/home/dev/project","mcpServers":[]}}`
	newRes    = `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"sess_7f3a"}}`
	promptReq = `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"sess_7f3a","prompt":[{"type":"text","text":"Fix the build"}]}}`
	chunk     = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_7f3a","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Done."}}}}`
	promptRes = `{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`
)

func run(t *testing.T, format transcript.Format, input string) *lint.Result {
	t.Helper()
	res, err := lint.Transcript(strings.NewReader(input), lint.Options{Format: format, File: "t"})
	if err != nil {
		t.Fatalf("lint: %v", err)
	}
	return res
}

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// only returns the findings of the given rules.
func only(fs []findings.ValidationFinding, rules ...*findings.Rule) []findings.ValidationFinding {
	var out []findings.ValidationFinding
	for _, f := range fs {
		for _, r := range rules {
			if f.RuleID == r.ID {
				out = append(out, f)
			}
		}
	}
	return out
}

// expect fails unless fs holds exactly the wanted findings, given as
// "LINE RULE-ID regexp" strings, in any order.
func expect(t *testing.T, fs []findings.ValidationFinding, want ...string) {
	t.Helper()
	used := make([]bool, len(fs))
	for _, w := range want {
		var line int
		var rule, pat string
		fields := strings.SplitN(w, " ", 3)
		if len(fields) != 3 {
			t.Fatalf("bad want %q", w)
		}
		fmt.Sscan(fields[0], &line)
		rule, pat = fields[1], fields[2]
		re := regexp.MustCompile(pat)
		found := false
		for i, f := range fs {
			if !used[i] && f.Location.Line == line && f.RuleID == rule && re.MatchString(f.Message) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			t.Errorf("no finding %s", w)
		}
	}
	for i, f := range fs {
		if !used[i] {
			t.Errorf("unexpected finding %d %s: %s", f.Location.Line, f.RuleID, f.Message)
		}
	}
}

// TestResponseDirectionWithOverlappingIDs: both sides number their requests
// from 0, so in a raw transcript the same id is pending on both sides at
// once. The driver attributes each response to the side whose request it
// answers, by the pending tables and, when both match, by the result's
// shape; nothing is reported for a transcript that is fine.
func TestResponseDirectionWithOverlappingIDs(t *testing.T) {
	res := run(t, transcript.FormatNDJSON, lines(
		initReq, initRes, newReq, newRes, promptReq,
		// The agent's first request also uses id 0 (initialize's id is
		// answered, so id 0 is pending on the agent's side only).
		`{"jsonrpc":"2.0","id":0,"method":"fs/read_text_file","params":{"sessionId":"sess_7f3a","path":"/home/dev/project/Makefile"}}`,
		`{"jsonrpc":"2.0","id":0,"result":{"content":"all:\n\tgo build ./...\n"}}`,
		// The agent's id 2 overlaps the client's pending prompt (id 2):
		// only the permission outcome's shape tells them apart.
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_7f3a","update":{"sessionUpdate":"tool_call","toolCallId":"call_1","title":"Run make","kind":"execute","status":"pending"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session/request_permission","params":{"sessionId":"sess_7f3a","toolCall":{"toolCallId":"call_1"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"}]}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_7f3a","update":{"sessionUpdate":"tool_call_update","toolCallId":"call_1","status":"completed"}}}`,
		chunk, promptRes,
	))
	expect(t, only(res.Findings, findings.LINTDirectionUnknown, findings.RPCUnknownResponseID, findings.RPCUnanswered, findings.SCHInvalid, findings.PERMOutcomeShape))
}

// TestResponseDirectionAmbiguous: when the id is pending on both sides and
// the response cannot be told apart, the driver says so (ACP-LINT-001)
// instead of guessing; a response pending on neither side is not
// ambiguous but correlates with nothing (ACP-RPC-003).
func TestResponseDirectionAmbiguous(t *testing.T) {
	res := run(t, transcript.FormatNDJSON, lines(
		initReq, initRes, newReq, newRes, promptReq, // client id 2 pending
		`{"jsonrpc":"2.0","id":0,"method":"fs/read_text_file","params":{"sessionId":"sess_7f3a","path":"/x"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"fs/read_text_file","params":{"sessionId":"sess_7f3a","path":"/y"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"fs/read_text_file","params":{"sessionId":"sess_7f3a","path":"/z"}}`, // agent id 2 pending too
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Internal error"}}`,                          // line 9: either side's answer
		`{"jsonrpc":"2.0","id":9,"result":{}}`, // line 10: nobody's id
	))
	expect(t, only(res.Findings, findings.LINTDirectionUnknown, findings.RPCUnknownResponseID),
		`9 ACP-LINT-001 cannot tell which side sent the response with id 2: both sides have a request with that id pending;`,
		`10 ACP-RPC-003 response id 9 matches no pending request of either side`,
	)
}

// TestRequestDirectionUnknown: a request either side may send (an
// extension) cannot be attributed in a raw transcript, but a
// $/cancel_request is attributed by the id it cancels.
func TestRequestDirectionUnknown(t *testing.T) {
	res := run(t, transcript.FormatNDJSON, lines(
		initReq, initRes, newReq, newRes, promptReq,
		`{"jsonrpc":"2.0","method":"_acme.dev/heartbeat","params":{}}`,
		`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":2}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"stopReason":"cancelled"}}`,
	))
	expect(t, only(res.Findings, findings.LINTDirectionUnknown, findings.CXLUnknownCancelTarget, findings.RPCUnknownResponseID),
		`6 ACP-LINT-001 cannot tell which side sent notification "_acme.dev/heartbeat"`,
	)
}

// TestFormatDetection: each format is recognised from its first line, and
// every variant yields the same messages with the right senders.
func TestFormatDetection(t *testing.T) {
	wrap := func(dirKey, msgKey, client, agent string, quoted bool) string {
		var b strings.Builder
		for i, m := range []string{initReq, initRes, newReq, newRes} {
			dir := client
			if i%2 == 1 {
				dir = agent
			}
			payload := m
			if quoted {
				payload = fmt.Sprintf("%q", m)
			}
			fmt.Fprintf(&b, `{"ts":"2026-03-02T10:15:00.%03dZ",%q:%q,%q:%s}`+"\n", i, dirKey, dir, msgKey, payload)
		}
		return b.String()
	}
	zed := `[
  {
    "_direction": "outgoing",
    "_type": "request",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": true}, "clientInfo": {"name": "zed", "version": "0.190.0"}}
  },
  {
    "_direction": "incoming",
    "_type": "response",
    "id": 0,
    "params": {"protocolVersion": 1, "agentCapabilities": {"loadSession": false}, "authMethods": [], "agentInfo": {"name": "example-agent", "version": "0.3.1"}}
  },
  {
    "_direction": "outgoing",
    "_type": "request",
    "id": 1,
    "method": "session/new",
    "params": {"cwd": "/home/dev/project", "mcpServers": []}
  },
  {
    "_direction": "incoming",
    "_type": "response",
    "id": 1,
    "params": {"sessionId": "sess_7f3a"}
  }
]
`
	for _, tc := range []struct {
		name  string
		input string
		want  transcript.Format
	}{
		{"ndjson", lines(initReq, initRes, newReq, newRes), transcript.FormatNDJSON},
		{"ndjson starting with a banner", lines("example-agent v0.3.1 ready", initReq, initRes, newReq, newRes), transcript.FormatNDJSON},
		{"jsonl dir/msg", wrap("dir", "msg", "client", "agent", false), transcript.FormatJSONL},
		{"jsonl direction/message", wrap("direction", "message", "fromClient", "fromAgent", false), transcript.FormatJSONL},
		{"acp-inspector trace", wrap("direction", "json", "client_to_agent", "agent_to_client", true), transcript.FormatJSONL},
		{"zed array", zed, transcript.FormatZed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, transcript.FormatAuto, tc.input)
			if res.Format != tc.want {
				t.Errorf("format %s, want %s", res.Format, tc.want)
			}
			if res.Messages != 4 {
				t.Errorf("%d messages decoded, want 4", res.Messages)
			}
			var unexpected []findings.ValidationFinding
			for _, f := range res.Findings {
				if f.RuleID == findings.WIREAgentNotJSON.ID && strings.Contains(tc.name, "banner") {
					continue
				}
				unexpected = append(unexpected, f)
			}
			expect(t, unexpected)
		})
	}
}

// TestBadWrapperLines: a JSONL line that is not a record of the format is
// reported with its line (ACP-LINT-002) and skipped; the next lines are
// read normally, so the session still correlates.
func TestBadWrapperLines(t *testing.T) {
	input := lines(
		`{"dir":"client","msg":`+initReq+`}`,
		`{"dir":"agent","msg":`+initRes+`}`,
		`{"dir":"client","msg":`+newReq, // cut short
		`{"dir":"client","msg":`+newReq+`}`,
		`{"when":"10:15:00","msg":`+chunk+`}`, // no direction
		`{"dir":"editor","msg":`+chunk+`}`,    // unknown direction
		`{"dir":"agent","msg":`+newRes+`}`,
	)
	res := run(t, transcript.FormatJSONL, input)
	expect(t, res.Findings,
		`3 ACP-LINT-002 the line is not JSON`,
		`5 ACP-LINT-002 the line lacks a direction`,
		`6 ACP-LINT-002 direction "editor" is not one acplint knows`,
	)
	if res.Messages != 4 {
		t.Errorf("%d messages decoded, want 4", res.Messages)
	}
}

// TestLargeMessage proves ACP-WIRE-008, whose failing input (over 32 MiB)
// is too large for the golden corpus: a prompt just over the limit is
// reported, one just under it is not.
func TestLargeMessage(t *testing.T) {
	prompt := func(size int) string {
		head := `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"sess_7f3a","prompt":[{"type":"text","text":"`
		tail := `"}]}}`
		return head + strings.Repeat("a", size-len(head)-len(tail)) + tail
	}
	const limit = 32 << 20
	over := run(t, transcript.FormatNDJSON, lines(initReq, initRes, newReq, newRes, prompt(limit+1), promptRes))
	expect(t, over.Findings, `5 ACP-WIRE-008 message is 32\.0 MiB; the TypeScript SDK refuses messages over 32 MiB`)
	under := run(t, transcript.FormatNDJSON, lines(initReq, initRes, newReq, newRes, prompt(limit), promptRes))
	expect(t, under.Findings)
}

// TestSplitFrameInJSONL: an acp-inspector frame holding a raw newline is
// one message split in two; it is reported once and still decoded.
func TestSplitFrameInJSONL(t *testing.T) {
	split := strings.Replace(chunk, `"Done."`, `"Done.`+"\n"+`All tests pass."`, 1)
	input := lines(
		`{"direction":"client_to_agent","json":`+fmt.Sprintf("%q", initReq)+`}`,
		`{"direction":"agent_to_client","json":`+fmt.Sprintf("%q", initRes)+`}`,
		`{"direction":"client_to_agent","json":`+fmt.Sprintf("%q", newReq)+`}`,
		`{"direction":"agent_to_client","json":`+fmt.Sprintf("%q", newRes)+`}`,
		`{"direction":"client_to_agent","json":`+fmt.Sprintf("%q", promptReq)+`}`,
		`{"direction":"agent_to_client","json":`+fmt.Sprintf("%q", split)+`}`,
		`{"direction":"agent_to_client","json":`+fmt.Sprintf("%q", promptRes)+`}`,
	)
	res := run(t, transcript.FormatAuto, input)
	expect(t, res.Findings,
		`6 ACP-WIRE-003 one message spans one recorded frame: it contains 1 raw newline`,
		`6 ACP-RPC-012 the client sent nothing after the message split`,
	)
	if res.Messages != 7 {
		t.Errorf("%d messages decoded, want 7", res.Messages)
	}
}

// TestUnadvertisedMethodCode: a capability-gated method the receiver did
// not advertise should be refused with -32601 (ACP-RPC-010). The corpus
// cannot hold this case alone, since the request itself breaks a CAP rule.
func TestUnadvertisedMethodCode(t *testing.T) {
	load := func(code int) string {
		return lines(initReq, initRes,
			`{"jsonrpc":"2.0","id":1,"method":"session/load","params":{"sessionId":"sess_old","cwd":"/home/dev/project","mcpServers":[]}}`,
			fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"error":{"code":%d,"message":"Cannot load sessions."}}`, code))
	}
	res := run(t, transcript.FormatNDJSON, load(-32603))
	expect(t, only(res.Findings, findings.RPCMethodNotFoundCode),
		`4 ACP-RPC-010 session/load needs the loadSession capability, which the agent did not advertise, yet it is answered with -32603`)
	res = run(t, transcript.FormatNDJSON, load(-32601))
	expect(t, only(res.Findings, findings.RPCMethodNotFoundCode))
}

// TestLiveFindings: a finding is reported while the transcript is still
// being written (acplint tap lints a live connection through a pipe), so
// reading ahead must not hold a line back until more arrive.
func TestLiveFindings(t *testing.T) {
	pr, pw := io.Pipe()
	found := make(chan findings.ValidationFinding, 16)
	done := make(chan error, 1)
	go func() {
		_, err := lint.Transcript(pr, lint.Options{Format: transcript.FormatNDJSON, File: "live",
			OnFinding: func(f findings.ValidationFinding) { found <- f }})
		done <- err
	}()
	noMCP := `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/home/dev/project"}}`
	if _, err := io.WriteString(pw, lines(initReq, initRes, noMCP)); err != nil {
		t.Fatal(err)
	}
	select {
	case f := <-found:
		if f.Location.Line != 3 {
			t.Errorf("first live finding is on line %d (%s), want line 3", f.Location.Line, f.RuleID)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no finding for line 3 while the writer kept the transcript open")
	}
	pw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestLongTranscript lints a transcript far longer than what is read
// ahead at once, with one fault near the end: the finding names its line,
// and every line and message is counted once.
func TestLongTranscript(t *testing.T) {
	var b strings.Builder
	b.WriteString(lines(initReq, initRes, newReq, newRes))
	n := 4
	for turn := range 40 {
		id := 100 + turn
		b.WriteString(lines(strings.Replace(promptReq, `"id":2`, fmt.Sprintf(`"id":%d`, id), 1)))
		n++
		for range 25 {
			b.WriteString(lines(chunk))
			n++
		}
		b.WriteString(lines(strings.Replace(promptRes, `"id":2`, fmt.Sprintf(`"id":%d`, id), 1)))
		n++
	}
	// A chunk after the last turn ended belongs to no turn.
	b.WriteString(lines(chunk))
	n++
	res := run(t, transcript.FormatNDJSON, b.String())
	if res.Lines != n || res.Messages != n {
		t.Errorf("read %d lines and %d messages, want %d of each", res.Lines, res.Messages, n)
	}
	if len(res.Findings) == 0 || res.Findings[0].Location.Line != n {
		t.Fatalf("findings %v; want the stray chunk on line %d reported", res.Findings, n)
	}
}

// sessionsTranscript builds a connection that opens and closes n sessions
// one after another (ids sess_0 …), each with one prompt turn, and
// returns it with the line of each session/close result.
func sessionsTranscript(n int, extra func(b *strings.Builder, i int, line *int)) (string, []int) {
	var b strings.Builder
	closable := strings.Replace(initRes, `"loadSession":false`, `"loadSession":false,"sessionCapabilities":{"close":{}}`, 1)
	b.WriteString(lines(initReq, closable))
	line := 2
	closedAt := make([]int, n)
	write := func(ls ...string) {
		b.WriteString(lines(ls...))
		line += len(ls)
	}
	for i := range n {
		sid := fmt.Sprintf("sess_%d", i)
		id := 3 * i
		write(
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/new","params":{"cwd":"/home/dev/project","mcpServers":[]}}`, id+1),
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"sessionId":%q}}`, id+1, sid),
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"go"}]}}`, id+2, sid),
			fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":{"sessionUpdate":"tool_call","toolCallId":"call_1","title":"Read","kind":"read","status":"completed"}}}`, sid),
		)
		if extra != nil {
			extra(&b, i, &line)
		}
		write(
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"stopReason":"end_turn"}}`, id+2),
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/close","params":{"sessionId":%q}}`, id+3, sid),
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id+3),
		)
		closedAt[i] = line
	}
	return b.String(), closedAt
}

// TestClosedSessionsForgotten: the machine remembers recently closed
// sessions (an update for one is ACP-SID-002 and names the close) but not
// every session of a long transcript; one closed thousands of sessions ago
// is reported as a session that does not exist. A session whose terminal
// was never released keeps its record for the end-of-transcript report.
func TestClosedSessionsForgotten(t *testing.T) {
	const n = 3000
	leakyTerminal := func(b *strings.Builder, i int, line *int) {
		if i != 0 {
			return
		}
		b.WriteString(lines(
			`{"jsonrpc":"2.0","id":0,"method":"terminal/create","params":{"sessionId":"sess_0","command":"make"}}`,
			`{"jsonrpc":"2.0","id":0,"result":{"terminalId":"term_1"}}`,
		))
		*line += 2
	}
	input, closedAt := sessionsTranscript(n, leakyTerminal)
	late := func(sid string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"late"}}}}`, sid)
	}
	// sess_0 leaks a terminal, sess_1 is long forgotten, the last one is recent.
	input += lines(late("sess_1"), late(fmt.Sprintf("sess_%d", n-1)))
	last := strings.Count(input, "\n")
	res, err := lint.Transcript(strings.NewReader(input), lint.Options{Format: transcript.FormatNDJSON, File: "t", CleanEnd: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`7 ACP-TERM-003 terminal term_1 is created here and never released, and its session was closed at line ` + fmt.Sprint(closedAt[0]),
		fmt.Sprintf(`%d ACP-SID-002 the agent sends session/update for session "sess_1", which is not active on this connection`, last-1),
		fmt.Sprintf(`%d ACP-SID-002 the agent sends session/update for session "sess_%d", which was closed at line %d`, last, n-1, closedAt[n-1]),
	}
	expect(t, res.Findings, want...)
}

// failingReader returns data, then an I/O error.
type failingReader struct{ data io.Reader }

func (r failingReader) Read(p []byte) (int, error) {
	n, err := r.data.Read(p)
	if err == io.EOF {
		return n, errors.New("disk on fire")
	}
	return n, err
}

// TestNoGoroutinesLeft: the reading and decoding goroutines end with the
// run, whether the input ends or fails.
func TestNoGoroutinesLeft(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 20 {
		run(t, transcript.FormatNDJSON, lines(initReq, initRes, newReq, newRes, promptReq, chunk, promptRes))
		_, err := lint.Transcript(failingReader{strings.NewReader(lines(initReq, initRes, newReq))}, lint.Options{File: "t"})
		if err == nil || !strings.Contains(err.Error(), "disk on fire") {
			t.Fatalf("the I/O error was not returned: %v", err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after linting, %d before", n, before)
	}
}
