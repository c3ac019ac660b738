package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/acplint/acplint/lint"
)

// fixtureAgent is a small ACP agent with one defect: its turns end with
// stopReason "done", which v1 does not define (ACP-TURN-001). The test
// binary runs it when ACPLINT_FIXTURE_AGENT is set (see TestMain).
func fixtureAgent() {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &m) != nil || m.ID == nil {
			continue
		}
		switch m.Method {
		case "initialize":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[],"agentInfo":{"name":"fixture","version":"1.0.0"}}}`+"\n", m.ID)
		case "session/new":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"sessionId":"sess-1"}}`+"\n", m.ID)
		case "session/prompt":
			fmt.Fprint(out, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hello"}}}}`+"\n")
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"stopReason":"done"}}`+"\n", m.ID)
		}
		out.Flush()
	}
}

const tapClient = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{},"clientInfo":{"name":"editor","version":"1.0.0"}}}
{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/home/dev/p","mcpServers":[{"name":"gh","command":"/usr/bin/gh-mcp","args":[],"env":[{"name":"GITHUB_TOKEN","value":"ghp_supersecret"}]}]}}
{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"sess-1","prompt":[{"type":"text","text":"hi"}]}}
`

// TestTapLiveEqualsRecording runs an editor session through `acplint tap`
// and checks that the findings printed live are exactly what `acplint
// lint` reports on the recording, and that --redact hid the secret in the
// recording but not in the forwarded traffic.
func TestTapLiveEqualsRecording(t *testing.T) {
	t.Setenv("ACPLINT_FIXTURE_AGENT", "1")
	dir := t.TempDir()
	rec, live := filepath.Join(dir, "rec.jsonl"), filepath.Join(dir, "live.txt")

	// What the agent writes without the tap, to compare the forwarding.
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"tap", "--redact", "--record", rec, "--lint-out", live, "--", os.Args[0]},
		strings.NewReader(tapClient), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("tap exit code %d; stderr:\n%s", code, stderr.String())
	}
	if n := strings.Count(stdout.String(), "\n"); n != 4 {
		t.Errorf("the editor got %d lines, want the agent's 4:\n%s", n, stdout.String())
	}
	recording, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(recording, []byte("ghp_supersecret")) || !bytes.Contains(recording, []byte(`"redacted":true`)) {
		t.Errorf("recording not redacted:\n%s", recording)
	}

	liveOut, err := os.ReadFile(live)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(string(liveOut)), "\n") {
		// Detail lines (pointer, spec) are indented; compare the findings.
		if l != "" && !strings.HasPrefix(l, "\t") {
			got = append(got, l)
		}
	}
	res, err := lint.Transcript(bytes.NewReader(recording), lint.Options{File: rec})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range res.Findings {
		want = append(want, fmt.Sprintf("%s: %s: [%s] %s (%s)", f.Location, f.Severity, f.Blame, f.Message, f.RuleID))
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("live findings differ from lint of the recording\nlive:\n%s\nlint:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(string(liveOut), "ACP-TURN-001") {
		t.Errorf("the fixture's defect was not found live:\n%s", liveOut)
	}
}

func TestConvertRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, to := range []string{"acplint", "jsonl"} {
		var out, stderr bytes.Buffer
		if code := run(context.Background(), []string{"convert", "--to", to, "../../examples/sdk-recording.jsonl"}, nil, &out, &stderr); code != 0 {
			t.Fatalf("convert --to %s: exit %d: %s", to, code, stderr.String())
		}
		p := filepath.Join(dir, "out."+to)
		os.WriteFile(p, out.Bytes(), 0o644)
		orig, _ := os.ReadFile("../../examples/sdk-recording.jsonl")
		a, _ := lint.Transcript(bytes.NewReader(orig), lint.Options{File: "x"})
		b, _ := lint.Transcript(bytes.NewReader(out.Bytes()), lint.Options{File: "x"})
		if a.Messages != b.Messages || len(a.Findings) != len(b.Findings) {
			t.Errorf("--to %s: %d messages/%d findings, want %d/%d", to, b.Messages, len(b.Findings), a.Messages, len(a.Findings))
		}
	}
}
