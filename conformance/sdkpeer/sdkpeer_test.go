package sdkpeer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/transcript"
	"github.com/rogpeppe/go-internal/txtar"
)

var record = flag.Bool("record", false,
	"rewrite ../testdata/sdk/*.txtar and ../../examples/sdk-recording.jsonl from fresh recordings")

// requiredEnv makes a missing Node.js or SDK a failure instead of a skip,
// for CI jobs that must not silently lose this test.
const requiredEnv = "ACPLINT_REQUIRE_SDKPEER"

// scenario is one recorder run (one connection) and what it must contain.
type scenario struct {
	name  string
	about string // the corpus case comment
	// methods must each appear in the recording at least once; absent must not.
	methods, absent []string
	// covers lists the rules the recording exercises correctly: a corpus
	// case made from it is their passing case.
	covers []string
	// example marks the scenario saved as examples/sdk-recording.jsonl.
	example bool
}

// Rules every scenario exercises: a full, clean connection with one
// session, a permission request, tool calls with diff content and
// locations, a plan, streamed chunks with message ids, usage and a close.
var baseCovers = []string{
	"ACP-WIRE-001", "ACP-WIRE-002", "ACP-WIRE-003", "ACP-WIRE-004", "ACP-WIRE-005", "ACP-WIRE-006",
	"ACP-RPC-001", "ACP-RPC-002", "ACP-RPC-003", "ACP-RPC-004", "ACP-RPC-005", "ACP-RPC-006", "ACP-RPC-013",
	"ACP-SCH-001", "ACP-SCH-002", "ACP-SCH-003", "ACP-SCH-005",
	"ACP-SEQ-001", "ACP-SEQ-002", "ACP-SEQ-003", "ACP-SEQ-004", "ACP-SEQ-005",
	"ACP-VER-001", "ACP-VER-002", "ACP-VER-006",
	"ACP-CAP-012", "ACP-CAP-017", "ACP-CAP-021", "ACP-CAP-022",
	"ACP-SID-001", "ACP-SID-002", "ACP-SID-003",
	"ACP-SES-001", "ACP-SES-002",
	"ACP-TURN-001", "ACP-TURN-003", "ACP-TURN-004", "ACP-TURN-005", "ACP-TURN-006",
	"ACP-UPD-001", "ACP-UPD-002", "ACP-UPD-006", "ACP-UPD-009",
	"ACP-TOOL-001", "ACP-TOOL-002", "ACP-TOOL-003", "ACP-TOOL-004", "ACP-TOOL-005",
	"ACP-TOOL-006", "ACP-TOOL-007", "ACP-TOOL-009", "ACP-TOOL-010",
	"ACP-PERM-002", "ACP-PERM-003", "ACP-PERM-004", "ACP-PERM-005",
	"ACP-CONT-001", "ACP-EXTN-001", "ACP-LINT-001", "ACP-LINT-002",
}

// Rules a turn that goes through the client's fs and terminal exercises.
var clientToolCovers = []string{
	"ACP-CAP-001", "ACP-CAP-002", "ACP-CAP-003",
	"ACP-FS-001", "ACP-FS-002", "ACP-FS-004",
	"ACP-TERM-001", "ACP-TERM-002", "ACP-TERM-003", "ACP-TERM-004", "ACP-TERM-005", "ACP-TERM-006",
	"ACP-TOOL-008",
}

// Rules a cancelled turn followed by a normal one exercises.
var cancelCovers = []string{
	"ACP-CXL-001", "ACP-CXL-002", "ACP-CXL-004", "ACP-CXL-005", "ACP-TURN-002", "ACP-SEQ-006",
}

var common = []string{
	"initialize", "session/new", "session/prompt", "session/update", "session/request_permission", "session/close",
}

var clientTools = []string{
	"fs/read_text_file", "fs/write_text_file",
	"terminal/create", "terminal/wait_for_exit", "terminal/output", "terminal/release",
}

func join(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

var scenarios = []scenario{
	{
		name: "full",
		about: "Real traffic between two @agentclientprotocol/sdk 2.4.0 peers (conformance/sdkpeer): one turn\n" +
			"that streams chunks, publishes a plan, reads and edits README.md through the client's fs after\n" +
			"the user allows it, and runs a command in a client terminal. The client then calls the agent's\n" +
			"advertised _sdkpeer/stats extension, probes _sdkpeer/undo (the SDK answers -32601), sends an\n" +
			"extension notification and closes the session. No finding.",
		methods: join(common, clientTools, []string{"_sdkpeer/stats", "_sdkpeer/undo", "_sdkpeer/client_idle"}),
		absent:  []string{"session/cancel"},
		covers: join(baseCovers, clientToolCovers, []string{
			"ACP-PERM-001", "ACP-EXTN-002", "ACP-EXTN-003", "ACP-EXTN-006", "ACP-RPC-007", "ACP-RPC-008",
			"ACP-RPC-009", "ACP-RPC-010",
		}),
		example: true,
	},
	{
		name: "reject",
		about: "Real SDK traffic (conformance/sdkpeer): the user rejects the proposed edit, the agent marks\n" +
			"the tool call failed, writes nothing, runs nothing and ends the turn normally. No finding.",
		methods: join(common, []string{"fs/read_text_file"}),
		absent:  []string{"fs/write_text_file", "terminal/create", "session/cancel"},
		covers:  join(baseCovers, []string{"ACP-CAP-001", "ACP-FS-001", "ACP-FS-002", "ACP-FS-004", "ACP-PERM-001"}),
	},
	{
		name: "cancel-stream",
		about: "Real SDK traffic (conformance/sdkpeer): the client cancels the first turn as soon as the\n" +
			"agent starts streaming; the agent stops, sends nothing more and answers \"cancelled\". A second\n" +
			"turn in the same session then runs to end_turn. No finding.",
		methods: join(common, clientTools, []string{"session/cancel"}),
		covers:  join(baseCovers, clientToolCovers, cancelCovers, []string{"ACP-PERM-001"}),
	},
	{
		name: "cancel-permission",
		about: "Real SDK traffic (conformance/sdkpeer): the client cancels the turn while a permission\n" +
			"request is pending and answers that request with the \"cancelled\" outcome; the agent ends\n" +
			"the turn with \"cancelled\". A second turn then runs to end_turn. No finding.",
		methods: join(common, clientTools, []string{"session/cancel"}),
		covers:  join(baseCovers, clientToolCovers, cancelCovers, []string{"ACP-CXL-003", "ACP-PERM-001"}),
	},
	{
		name: "no-client-caps",
		about: "Real SDK traffic (conformance/sdkpeer): the client advertises no fs and no terminal\n" +
			"capability, so the agent reads, writes and runs the command itself and calls no fs/* or\n" +
			"terminal/* method. No finding.",
		methods: common,
		absent:  clientTools,
		covers:  join(baseCovers, []string{"ACP-CAP-001", "ACP-CAP-002", "ACP-CAP-003", "ACP-PERM-001"}),
	},
	{
		name: "load",
		about: "Real SDK traffic (conformance/sdkpeer): a new agent process loads a session an earlier\n" +
			"process made (that connection is not part of the recording). The agent replays the\n" +
			"conversation (user and agent chunks, plans, tool calls with the terminal output as text)\n" +
			"before answering session/load, then a new turn continues with fresh tool call ids. No finding.",
		methods: join(slices.DeleteFunc(slices.Clone(common), func(m string) bool { return m == "session/new" }),
			clientTools, []string{"session/load"}),
		absent: []string{"session/new", "session/cancel"},
		covers: join(baseCovers, clientToolCovers, []string{
			"ACP-PERM-001", "ACP-CAP-010", "ACP-SEQ-007", "ACP-SEQ-008", "ACP-SEQ-010", "ACP-SES-008",
		}),
	},
}

// peer finds node and the installed SDK, or skips (fails under
// ACPLINT_REQUIRE_SDKPEER=1) with a message that says what is missing.
func peer(t *testing.T) (node string) {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		if os.Getenv(requiredEnv) == "1" {
			t.Fatalf("%s (%s=1 makes this a failure)", msg, requiredEnv)
		}
		t.Skipf("SKIPPING the SDK peer recordings: %s", msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node (Node.js >= 20) is not on PATH; install Node.js and npm, then run scripts/install-test-deps")
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		missing("`node --version` failed: %v", err)
	}
	major, _ := strconv.Atoi(strings.SplitN(strings.TrimPrefix(strings.TrimSpace(string(out)), "v"), ".", 2)[0])
	if major < 20 {
		missing("node %s is too old: the SDK peer needs Node.js >= 20", strings.TrimSpace(string(out)))
	}
	if _, err := os.Stat(filepath.Join("node_modules", "@agentclientprotocol", "sdk", "package.json")); err != nil {
		missing("@agentclientprotocol/sdk is not installed in conformance/sdkpeer/node_modules; run scripts/install-test-deps (npm ci there)")
	}
	return node
}

// recordScenario runs record.mjs for one scenario and returns the
// transcript path.
func recordScenario(t *testing.T, node string, sc scenario, dir, workspace string) string {
	t.Helper()
	out := filepath.Join(dir, sc.name+".jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "record.mjs", "--scenario", sc.name, "--out", out, "--workspace", workspace)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("recorder failed (%v):\n%s", err, stderr.String())
	}
	t.Logf("recorder log:\n%s", stderr.String())
	return out
}

func lintTranscript(t *testing.T, name string, data []byte) []findings.ValidationFinding {
	t.Helper()
	res, err := lint.Transcript(bytes.NewReader(data), lint.Options{Format: transcript.FormatJSONL, File: name, CleanEnd: true})
	if err != nil {
		t.Fatalf("lint: %v", err)
	}
	if res.Format != transcript.FormatJSONL || res.Messages == 0 || res.Messages != res.Lines {
		t.Fatalf("lint read %d messages from %d lines as %s; want every line a JSONL frame", res.Messages, res.Lines, res.Format)
	}
	return res.Findings
}

// methodsIn lists the methods of the requests and notifications in a
// recording, checking each line's wrapper as it goes.
func methodsIn(t *testing.T, data []byte) map[string]int {
	t.Helper()
	seen := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for n := 1; sc.Scan(); n++ {
		var fr struct {
			Dir string `json:"dir"`
			Msg struct {
				Method string `json:"method"`
			} `json:"msg"`
		}
		if err := json.Unmarshal(sc.Bytes(), &fr); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		if fr.Dir != "client->agent" && fr.Dir != "agent->client" {
			t.Fatalf("line %d: dir %q", n, fr.Dir)
		}
		if fr.Msg.Method != "" {
			seen[fr.Msg.Method]++
		}
	}
	return seen
}

// TestSDKPeer records every scenario between the SDK agent and client and
// lints it: a valid real recording must give no error finding.
func TestSDKPeer(t *testing.T) {
	node := peer(t)
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			for _, id := range sc.covers {
				if _, ok := findings.ByID(id); !ok {
					t.Fatalf("scenario covers unknown rule %s", id)
				}
			}
			dir := t.TempDir()
			workspace := filepath.Join(dir, "project")
			if *record {
				// A fixed workspace keeps the corpus paths stable.
				workspace = filepath.Join(os.TempDir(), "acplint-sdkpeer", "project")
				if err := os.RemoveAll(workspace); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.MkdirAll(workspace, 0o755); err != nil {
				t.Fatal(err)
			}
			path := recordScenario(t, node, sc, dir, workspace)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			seen := methodsIn(t, data)
			for _, m := range sc.methods {
				if seen[m] == 0 {
					t.Errorf("the recording has no %s: the scenario did not run as designed", m)
				}
			}
			for _, m := range sc.absent {
				if seen[m] > 0 {
					t.Errorf("the recording has %d %s, want none", seen[m], m)
				}
			}
			got := lintTranscript(t, sc.name+".jsonl", data)
			flagged := map[string]bool{}
			for _, f := range got {
				flagged[f.RuleID] = true
				line := fmt.Sprintf("%s:%d: %s %s: %s", sc.name, f.Location.Line, f.Severity, f.RuleID, f.Message)
				if f.Location.Pointer != "" {
					line += " (at " + f.Location.Pointer + ")"
				}
				if f.Severity == findings.SeverityError {
					t.Errorf("error finding on real SDK traffic: %s\n\tframe: %s", line, frameAt(data, f.Location.Line))
				} else {
					t.Logf("non-error finding (check whether acplint or the SDK is right): %s\n\tframe: %s", line, frameAt(data, f.Location.Line))
				}
			}
			if *record && !t.Failed() {
				writeCorpus(t, sc, data, flagged)
			}
		})
	}
}

// frameAt returns a transcript line for failure messages, shortened.
func frameAt(data []byte, line int) string {
	lines := strings.Split(string(data), "\n")
	if line < 1 || line > len(lines) {
		return "(end of transcript)"
	}
	s := lines[line-1]
	if len(s) > 400 {
		s = s[:400] + "…"
	}
	return s
}

// writeCorpus saves a recording as a passing corpus case (and, for the
// example scenario, as the example transcript). Rules with any finding
// in the recording are left out of covers: it is not their passing case.
func writeCorpus(t *testing.T, sc scenario, data []byte, flagged map[string]bool) {
	t.Helper()
	var covers []string
	for _, id := range sc.covers {
		if flagged[id] {
			t.Logf("not listing %s in covers: the recording has a finding of it", id)
			continue
		}
		covers = append(covers, id)
	}
	slices.Sort(covers)
	covers = slices.Compact(covers)
	var comment strings.Builder
	comment.WriteString(sc.about + "\n")
	// Wrap covers: at about 100 columns per line; the corpus reader accepts
	// several covers: lines.
	line := "covers:"
	for _, id := range covers {
		if len(line)+1+len(id) > 100 {
			comment.WriteString(line + "\n")
			line = "covers:"
		}
		line += " " + id
	}
	comment.WriteString(line + "\n")
	a := &txtar.Archive{
		Comment: []byte(comment.String()),
		Files: []txtar.File{
			{Name: "flags", Data: []byte("--clean-end\n")},
			{Name: "want", Data: nil},
			{Name: "transcript.jsonl", Data: data},
		},
	}
	root := filepath.Join("..", "..")
	casePath := filepath.Join(root, "conformance", "testdata", "sdk", sc.name+".txtar")
	if err := os.MkdirAll(filepath.Dir(casePath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(casePath, txtar.Format(a), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", casePath)
	if sc.example {
		ex := filepath.Join(root, "examples", "sdk-recording.jsonl")
		if err := os.WriteFile(ex, data, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", ex)
	}
}

// TestCorpusCasesAreRecordings checks that the sdk corpus cases and the
// example are what writeCorpus makes: JSONL recordings of the scenarios
// with an empty want section, so nobody hand-edits them into something
// the SDK never sent. It needs no Node.js.
func TestCorpusCasesAreRecordings(t *testing.T) {
	root := filepath.Join("..", "..")
	sessionID := regexp.MustCompile(`"sessionId":"sess_[0-9a-f-]{36}"`)
	for _, sc := range scenarios {
		data, err := os.ReadFile(filepath.Join(root, "conformance", "testdata", "sdk", sc.name+".txtar"))
		if err != nil {
			t.Errorf("%s: %v (regenerate with go test ./conformance/sdkpeer -run TestSDKPeer -record)", sc.name, err)
			continue
		}
		a := txtar.Parse(data)
		var transcript []byte
		for _, f := range a.Files {
			switch f.Name {
			case "want":
				if len(bytes.TrimSpace(f.Data)) > 0 {
					t.Errorf("%s: the want section must be empty: a real recording is a passing case", sc.name)
				}
			case "transcript.jsonl":
				transcript = f.Data
			}
		}
		if transcript == nil {
			t.Errorf("%s: no transcript.jsonl section", sc.name)
			continue
		}
		seen := methodsIn(t, transcript)
		for _, m := range sc.methods {
			if seen[m] == 0 {
				t.Errorf("%s: the corpus recording has no %s", sc.name, m)
			}
		}
		if !sessionID.Match(transcript) {
			t.Errorf("%s: no session id of the form agent.mjs makes: not a recording of it", sc.name)
		}
		if sc.example {
			ex, err := os.ReadFile(filepath.Join(root, "examples", "sdk-recording.jsonl"))
			if err != nil {
				t.Errorf("example: %v", err)
			} else if !bytes.Equal(ex, transcript) {
				t.Errorf("examples/sdk-recording.jsonl differs from the %s corpus case; regenerate both with -record", sc.name)
			}
		}
	}
}
