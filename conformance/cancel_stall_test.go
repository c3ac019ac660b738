package conformance

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/acplint/acplint/findings"
)

// stallingAgent is a conforming agent that handles one line at a time, as
// many simple agents do, and whose turn about README.md stalls in the
// middle, reading nothing meanwhile: what a process the machine does not
// schedule for a while looks like from the client. Its other turns end at
// once. A cancel that arrives during the stall is read only after the
// turn has ended, so the turn ends end_turn: a race, not a breach.
//
// With slow set, it is that agent on a machine so loaded that every answer
// takes slow, and a prompt that says hello takes stall, and ends with its
// response alone.
func stallingAgent(stall, slow time.Duration) {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	send := func(format string, args ...any) {
		fmt.Fprintf(out, format+"\n", args...)
		out.Flush()
	}
	chunk := func(sid, text string) {
		send(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":%q}}}}`, sid, text)
	}
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				SessionID string `json:"sessionId"`
				Prompt    []struct {
					Text string `json:"text"`
				} `json:"prompt"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || len(m.ID) == 0 {
			continue // notifications (session/cancel) and answers
		}
		if slow > 0 && m.Method != "initialize" {
			time.Sleep(slow)
		}
		switch m.Method {
		case "initialize":
			send(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[]}}`, m.ID)
		case "session/new":
			send(`{"jsonrpc":"2.0","id":%s,"result":{"sessionId":"sess_1"}}`, m.ID)
		case "session/prompt":
			sid := m.Params.SessionID
			text := ""
			if len(m.Params.Prompt) > 0 {
				text = m.Params.Prompt[0].Text
			}
			if slow > 0 && strings.Contains(text, "hello") {
				time.Sleep(stall)
				send(`{"jsonrpc":"2.0","id":%s,"result":{"stopReason":"end_turn"}}`, m.ID)
				continue
			}
			chunk(sid, "Working on it. ")
			if strings.Contains(text, "README") {
				time.Sleep(stall)
				chunk(sid, "Done.")
			}
			send(`{"jsonrpc":"2.0","id":%s,"result":{"stopReason":"end_turn"}}`, m.ID)
		default:
			send(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, m.ID)
		}
	}
}

// TestStalledTurnIsNoProofOfCancelRead: a turn in which an agent that
// ends turns on its own falls silent past the idle time (a stall of the
// agent or of the harness on a loaded machine) is cancelled, and the rest
// of the turn comes right after the cancel, with end_turn. Nothing shows
// that the agent had read the cancel: the verdict must take it for a
// race, not fail ACP-CXL-001.
func TestStalledTurnIsNoProofOfCancelRead(t *testing.T) {
	t.Parallel()
	opts := testOptions(t, "stalling")
	opts.IdleCancel = 100 * time.Millisecond
	k := newTestChecker(t, opts)
	// The preflight's turn ends on its own: the agent ends turns.
	if pre := k.execute(preflightPlan()); pre.Failure != nil || len(pre.failing(findings.SeverityError)) > 0 {
		t.Fatalf("preflight: %+v, fails %v\n%s", pre.Failure, pre.failing(findings.SeverityError), pre.Transcript.JSONL())
	}
	run := k.execute(&Plan{Version: 1, Actions: []Action{{Kind: ActPrompt, Task: 1}}})
	stuck := false
	for _, s := range run.Steps {
		stuck = stuck || strings.Contains(s, "without a message from the agent")
	}
	if !stuck {
		t.Fatalf("the stalled turn was not cancelled as stuck: steps %q", run.Steps)
	}
	if got := run.failing(findings.SeverityError); len(got) > 0 || len(run.ReadLines) > 0 {
		t.Errorf("a stalled turn that crossed its cancel fails %v (read lines %v)\n%s", sortedKeys(got), run.ReadLines, run.Transcript.JSONL())
	}
	if len(run.RaceLines) != 1 {
		t.Errorf("race lines %v, want the response to the cancelled prompt", run.RaceLines)
	}
}

// TestCancelGraceScalesWithLoad: on a machine loaded enough that an agent
// which handles one line at a time takes 100 ms to answer anything, its
// answer to a prompt cancelled right after it comes later than the
// configured cancel grace, with the cancel still unread behind the prompt.
// The grace grows with the slowest reply the agent gave, so the verdict
// takes the response for a race, not for a cancel read and ignored.
func TestCancelGraceScalesWithLoad(t *testing.T) {
	t.Parallel()
	opts := testOptions(t, "slow")
	opts.CancelGrace = 250 * time.Millisecond
	k := newTestChecker(t, opts)
	if pre := k.execute(preflightPlan()); pre.Failure != nil || len(pre.failing(findings.SeverityError)) > 0 {
		t.Fatalf("preflight: %+v, fails %v\n%s", pre.Failure, pre.failing(findings.SeverityError), pre.Transcript.JSONL())
	}
	run := k.execute(&Plan{Version: 1, Actions: []Action{{Kind: ActPrompt, Cancel: 3}}})
	if run.Facts[FactCancelSent] != 1 || run.Facts[FactPrompt] != 1 {
		t.Fatalf("want one prompt cancelled right after it; steps %q", run.Steps)
	}
	if got := run.failing(findings.SeverityError); len(got) > 0 || len(run.ReadLines) > 0 {
		t.Errorf("a slow agent's response that crossed the cancel fails %v (read lines %v)\n%s", sortedKeys(got), run.ReadLines, run.Transcript.JSONL())
	}
	if len(run.RaceLines) != 1 {
		t.Errorf("race lines %v, want the response to the cancelled prompt", run.RaceLines)
	}
}

// hastyAgent is a conforming agent that writes a whole turn at once,
// without waiting for the answers to its requests: five requests to read
// a file, a message, one more request, hastyUpdates more messages and the
// response, end_turn. A cancel the client sends on reading the first
// message is read after the turn has ended: a race.
func hastyAgent() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || len(m.ID) == 0 || m.Method == "" {
			continue // notifications (session/cancel) and answers
		}
		var out strings.Builder
		read := func(id string) {
			fmt.Fprintf(&out, `{"jsonrpc":"2.0","id":%q,"method":"fs/read_text_file","params":{"sessionId":"sess_1","path":"/README.md"}}`+"\n", id)
		}
		update := func(text string) {
			fmt.Fprintf(&out, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":%q}}}}`+"\n", text)
		}
		switch m.Method {
		case "initialize":
			fmt.Fprintf(&out, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[]}}`+"\n", m.ID)
		case "session/new":
			fmt.Fprintf(&out, `{"jsonrpc":"2.0","id":%s,"result":{"sessionId":"sess_1"}}`+"\n", m.ID)
		case "session/prompt":
			for i := range 5 {
				read(fmt.Sprint("early-", i))
			}
			update("Reading README.md.")
			read("late")
			for i := range hastyUpdates {
				update(fmt.Sprintf("Line %d of the summary.", i))
			}
			fmt.Fprintf(&out, `{"jsonrpc":"2.0","id":%s,"result":{"stopReason":"end_turn"}}`+"\n", m.ID)
		default:
			fmt.Fprintf(&out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`+"\n", m.ID)
		}
		os.Stdout.WriteString(out.String())
	}
}

// hastyUpdates is how many messages the hasty agent writes after its
// last request: more than the harness reads ahead of the client (the
// frames a proc queues), fewer bytes than the pipe and the reader's
// buffer hold, so that its whole turn is written at once.
const hastyUpdates = 400

// TestResponseInPipeIsNoProofOfCancelRead: the client answers an agent's
// requests late (FaultLate), and cancels the turn on reading its first
// message, by which time the agent has written the whole turn: the rest
// of it waits in the pipe, behind what the harness read ahead. The client
// answers the agent's last request after the cancel, and before it reads
// the response, so that answer lies between the cancel and the response
// in the transcript; but the agent wrote the response before it could
// read either. The verdict must take it for a race, not fail ACP-CXL-001.
func TestResponseInPipeIsNoProofOfCancelRead(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the harness tells the bytes in the pipe on Linux only")
	}
	t.Parallel()
	run := runPlan(t, testOptions(t, "hasty"), &Plan{Version: 1, Caps: []Capability{CapReadTextFile}, Faults: []Fault{FaultLate},
		Actions: []Action{{Kind: ActPrompt, Task: 1, Cancel: 1, CancelAfter: 5}}})
	if run.Facts[FactCancelSent] != 1 || run.Facts[FactFS] != 6 {
		t.Fatalf("want a prompt cancelled after its sixth message, and the agent's six reads answered; steps %q", run.Steps)
	}
	if got := run.failing(findings.SeverityError); run.Failure != nil || len(got) > 0 || len(run.ReadLines) > 0 {
		t.Errorf("a response written before the cancel was sent: failure %+v, fails %v (read lines %v)", run.Failure, sortedKeys(got), run.ReadLines)
	}
	if len(run.RaceLines) != 1 {
		t.Errorf("race lines %v, want the response to the cancelled prompt", run.RaceLines)
	}
}
