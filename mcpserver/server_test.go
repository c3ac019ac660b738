package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tests here drive the server through the SDK's client over an
// in-memory transport: what a client sees, without a process. The
// command's tests (cmd/acplint/mcp_test.go) run the real 'acplint mcp'.

const readmeExample = "../examples/session-without-mcp-servers.ndjson"

// connect starts a server with opts and returns a client session to it.
func connect(t *testing.T, opts Options) *mcp.ClientSession {
	t.Helper()
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// call calls a tool and returns its result; a protocol error fails the test.
func call(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// text joins a result's text content.
func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// wantError checks that res is a tool error whose text contains each of subs.
func wantError(t *testing.T, res *mcp.CallToolResult, subs ...string) {
	t.Helper()
	if !res.IsError {
		t.Errorf("not an error: %s", text(res))
		return
	}
	for _, s := range subs {
		if !strings.Contains(text(res), s) {
			t.Errorf("error %q does not say %q", text(res), s)
		}
	}
}

// structured decodes a successful result's structured content into v.
func structured(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", text(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestFilesOnlyUnderRoots: a tool reads a file under a root, through
// links that stay inside; everything else is refused with an error that
// says why, and a path outside the roots is refused before the file
// system is asked, so the error does not tell whether it exists.
func TestFilesOnlyUnderRoots(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	copyFile(t, readmeExample, filepath.Join(root, "traces", "example.ndjson"))
	copyFile(t, readmeExample, filepath.Join(base, "outside.ndjson"))
	for link, target := range map[string]string{
		"inside-link.ndjson": filepath.Join(root, "traces", "example.ndjson"),
		"escape.ndjson":      filepath.Join(base, "outside.ndjson"),
		"zero.ndjson":        "/dev/zero",
		"up":                 base,
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo.ndjson"), 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(root, "big.ndjson")
	if err := os.WriteFile(big, make([]byte, 2048), 0o600); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, Options{Roots: []string{root}, MaxFileSize: 1024})

	for _, path := range []string{"traces/example.ndjson", filepath.Join(root, "traces", "example.ndjson"), "inside-link.ndjson", "traces/../traces/example.ndjson"} {
		var out LintOutput
		structured(t, call(t, cs, "lint_transcript", map[string]any{"path": path}), &out)
		if out.Total != 1 || out.Findings[0].RuleID != "ACP-SES-002" {
			t.Errorf("%s: %+v, want the one ACP-SES-002 finding", path, out)
		}
	}
	for path, why := range map[string]string{
		filepath.Join(base, "outside.ndjson"): "is outside the directories this server may read",
		"../outside.ndjson":                   "is outside the directories this server may read",
		filepath.Join(base, "does-not-exist"): "is outside the directories this server may read",
		"/etc/passwd":                         "is outside the directories this server may read",
		"escape.ndjson":                       "resolves to " + filepath.Join(base, "outside.ndjson"),
		"up/outside.ndjson":                   "is outside",
		"zero.ndjson":                         "is outside",
		"missing.ndjson":                      "missing.ndjson: no such file",
		"fifo.ndjson":                         "not a regular file (a named pipe)",
		".":                                   "not a regular file (a directory)",
		"big.ndjson":                          "2048 bytes, larger than the server reads (acplint mcp --max-file-size): at most 1024",
		"":                                    "give either path",
	} {
		wantError(t, call(t, cs, "lint_transcript", map[string]any{"path": path}), why)
	}
	// The schema and both schema_diff files go through the same check.
	wantError(t, call(t, cs, "lint_transcript", map[string]any{"path": "traces/example.ndjson", "schema": "escape.ndjson"}), "schema: ", "is outside")
	wantError(t, call(t, cs, "schema_diff", map[string]any{"old_path": "/etc/passwd", "new_path": "traces/example.ndjson"}), "is outside")
	wantError(t, call(t, cs, "convert_transcript", map[string]any{"path": "escape.ndjson", "to": "jsonl"}), "is outside")
	// Inline content is bounded as files are.
	wantError(t, call(t, cs, "lint_transcript", map[string]any{"content": strings.Repeat("x", 1025)}), "content: 1025 bytes, larger than the server reads")
}

// TestRootsDefaultToTheWorkingDirectory: with no root, relative paths are
// read from the working directory and nothing above it.
func TestRootsDefaultToTheWorkingDirectory(t *testing.T) {
	cs := connect(t, Options{})
	var out LintOutput
	structured(t, call(t, cs, "lint_transcript", map[string]any{"path": "lint.go"}), &out) // a file in this package's directory
	wantError(t, call(t, cs, "lint_transcript", map[string]any{"path": readmeExample}), "is outside")
	if _, err := New(Options{Roots: []string{"lint.go"}}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a file as root: %v", err)
	}
}

// manyFindings is a transcript with n findings: n session/new requests
// without mcpServers, each reported as ACP-SES-002.
func manyFindings(n int) string {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}` + "\n")
	b.WriteString(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[]}}` + "\n")
	for i := range n {
		b.WriteString(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i+1) + `,"method":"session/new","params":{"cwd":"/tmp"}}` + "\n")
	}
	return b.String()
}

// TestLintFindingsAreCapped: at most MaxFindings findings come back, and
// the counts, the flag and the summary say how many there were.
func TestLintFindingsAreCapped(t *testing.T) {
	cs := connect(t, Options{MaxFindings: 5})
	res := call(t, cs, "lint_transcript", map[string]any{"content": manyFindings(12)})
	var out LintOutput
	structured(t, res, &out)
	if len(out.Findings) != 5 || !out.Truncated || out.Total < 12 || out.Errors < 12 {
		t.Errorf("got %d findings, truncated %v, total %d, errors %d; want 5 of at least 12", len(out.Findings), out.Truncated, out.Total, out.Errors)
	}
	if !strings.Contains(text(res), "(the structured content holds the first 5)") {
		t.Errorf("summary does not say the list is cut:\n%s", text(res))
	}
	// Below the cap nothing is cut.
	var all LintOutput
	structured(t, call(t, connect(t, Options{}), "lint_transcript", map[string]any{"content": manyFindings(12)}), &all)
	if all.Truncated || len(all.Findings) != all.Total || all.Total != out.Total {
		t.Errorf("under the default cap: truncated %v, %d of %d (the cut run counted %d)", all.Truncated, len(all.Findings), all.Total, out.Total)
	}
}

// TestLintOptions: severity, enable and disable filter the findings; bad
// values are tool errors that say what is wrong.
func TestLintOptions(t *testing.T) {
	cs := connect(t, Options{Roots: []string{".."}})
	count := func(args map[string]any) int {
		t.Helper()
		args["path"] = "examples/session-without-mcp-servers.ndjson"
		var out LintOutput
		structured(t, call(t, cs, "lint_transcript", args), &out)
		return out.Total
	}
	for _, c := range []struct {
		args map[string]any
		want int
	}{
		{map[string]any{}, 1},
		{map[string]any{"disable": []string{"ACP-SES-002"}}, 0},
		{map[string]any{"enable": []string{"acp-ses-002"}}, 1},
		{map[string]any{"enable": []string{"ACP-RPC-001"}}, 0},
		{map[string]any{"severity": "error"}, 1},
		{map[string]any{"format": "ndjson"}, 1},
	} {
		if got := count(c.args); got != c.want {
			t.Errorf("%v: %d findings, want %d", c.args, got, c.want)
		}
	}
	ex := "examples/session-without-mcp-servers.ndjson"
	wantError(t, call(t, cs, "lint_transcript", map[string]any{"path": ex, "disable": []string{"ACP-NOPE-001"}}), `disable: unknown rule "ACP-NOPE-001"`)
	wantError(t, call(t, cs, "lint_transcript", map[string]any{"path": ex, "severity": "fatal"}), "severity")
	wantError(t, call(t, cs, "lint_transcript", map[string]any{"path": ex, "format": "xml"}), "format")
	wantError(t, call(t, cs, "lint_transcript", map[string]any{"path": ex, "content": "{}"}), "give either path")
	wantError(t, call(t, cs, "lint_transcript", map[string]any{"path": ex, "colour": "red"}), "colour")
	wantError(t, call(t, cs, "lint_transcript", map[string]any{"path": ex, "schema": "README.md"}), "schema: README.md: not a JSON Schema document")
}

// TestToolsGiveUpAtTheirDeadline: a call that takes longer than Timeout
// returns an error saying so, promptly, and the server goes on serving.
func TestToolsGiveUpAtTheirDeadline(t *testing.T) {
	root := t.TempDir()
	big := filepath.Join(root, "big.ndjson")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	chunk := manyFindings(20000) // about 1.5 MB
	for range 20 {
		f.WriteString(chunk)
	}
	f.Close()
	cs := connect(t, Options{Roots: []string{root}, Timeout: 20 * time.Millisecond})
	start := time.Now()
	res := call(t, cs, "lint_transcript", map[string]any{"path": "big.ndjson"})
	took := time.Since(start)
	wantError(t, res, "lint_transcript: did not finish within 20ms (acplint mcp --timeout)")
	if took > 5*time.Second {
		t.Errorf("the call returned after %v", took)
	}
	wantError(t, call(t, cs, "convert_transcript", map[string]any{"path": "big.ndjson", "to": "jsonl"}), "did not finish within 20ms")
	// The server still answers.
	if err := cs.Ping(context.Background(), nil); err != nil {
		t.Errorf("ping after the timeouts: %v", err)
	}
}

// TestConvertIsBounded: the converted transcript is returned up to
// MaxOutput bytes, cut at a line end and flagged; problems are findings.
func TestConvertIsBounded(t *testing.T) {
	cs := connect(t, Options{Roots: []string{".."}, MaxOutput: 300})
	var out ConvertOutput
	res := call(t, cs, "convert_transcript", map[string]any{"path": "examples/session-without-mcp-servers.ndjson", "to": "jsonl"})
	structured(t, res, &out)
	if !out.Truncated || out.Bytes > 300 || out.Bytes == 0 || !strings.HasSuffix(out.Transcript, "}\n") || out.Bytes != len(out.Transcript) {
		t.Errorf("truncated %v, %d bytes: %q", out.Truncated, out.Bytes, out.Transcript)
	}
	if !strings.Contains(text(res), "cut at the server's bound of 300 bytes") {
		t.Errorf("summary: %s", text(res))
	}
	cs = connect(t, Options{Roots: []string{".."}})
	structured(t, call(t, cs, "convert_transcript", map[string]any{"path": "examples/session-without-mcp-servers.ndjson", "to": "jsonl"}), &out)
	if out.Truncated || strings.Count(out.Transcript, "\n") != 4 || !strings.HasPrefix(out.Transcript, `{"dir":"client","msg":{"jsonrpc":"2.0","id":0,"method":"initialize"`) {
		t.Errorf("whole conversion: truncated %v:\n%s", out.Truncated, out.Transcript)
	}
	wantError(t, call(t, cs, "convert_transcript", map[string]any{"path": "examples/session-without-mcp-servers.ndjson", "to": "xml"}), "to")
	wantError(t, call(t, cs, "convert_transcript", map[string]any{"to": "jsonl"}), "path")
}

// TestCheckAgentPlansByDefault: without dry_run false and confirm true
// nothing is started; the plan names the program, its directory, the
// capabilities and budgets; bad arguments are refused before anything runs.
func TestCheckAgentPlansByDefault(t *testing.T) {
	root := t.TempDir()
	marker := filepath.Join(root, "started")
	script := filepath.Join(root, "agent.sh")
	// The "agent" leaves a mark if it is ever started.
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, Options{Roots: []string{root}, MaxRuns: 30, CheckTimeout: time.Minute})
	var out CheckOutput
	res := call(t, cs, "check_agent", map[string]any{"command": []string{"./agent.sh", "--acp"}, "runs": 5, "caps": "terminal"})
	structured(t, res, &out)
	real, _ := filepath.EvalSymlinks(root)
	if out.Ran || out.Plan.Program != filepath.Join(real, "agent.sh") || out.Plan.Dir != real || out.Plan.Runs != 5 ||
		len(out.Plan.Capabilities) != 1 || out.Plan.Capabilities[0] != "terminal" || out.Plan.TimeoutSeconds != 60 {
		t.Errorf("plan: %+v", out)
	}
	if !strings.Contains(text(res), "dry_run: false, confirm: true") {
		t.Errorf("the plan does not say how to run it:\n%s", text(res))
	}
	wantError(t, call(t, cs, "check_agent", map[string]any{"command": []string{"./agent.sh"}, "dry_run": false}), "refused", "confirm: true")
	wantError(t, call(t, cs, "check_agent", map[string]any{"command": []string{"./agent.sh"}, "dry_run": false, "confirm": false}), "refused")
	// confirm alone is a dry run all the same.
	if res := call(t, cs, "check_agent", map[string]any{"command": []string{"./agent.sh"}, "confirm": true}); res.IsError || !strings.Contains(text(res), "nothing was started") {
		t.Errorf("confirm without dry_run false: %s", text(res))
	}
	for args, why := range map[string]map[string]any{
		"not in PATH":               {"command": []string{"no-such-agent-here"}},
		"not an executable file":    {"command": []string{"./missing.sh"}},
		"command":                   {"command": []string{}},
		"runs":                      {"command": []string{"./agent.sh"}, "runs": 31},
		"timeout_seconds":           {"command": []string{"./agent.sh"}, "timeout_seconds": 61},
		`unknown client capability`: {"command": []string{"./agent.sh"}, "caps": "telepathy"},
		"out_dir: ":                 {"command": []string{"./agent.sh"}, "out_dir": "/tmp"},
	} {
		wantError(t, call(t, cs, "check_agent", why), args)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the agent was started")
	}
}

// TestRulesAndResources: the catalog tools and resources agree, and
// unknown IDs and areas are errors.
func TestRulesAndResources(t *testing.T) {
	cs := connect(t, Options{})
	var rule Rule
	structured(t, call(t, cs, "explain_rule", map[string]any{"id": "acp-ses-002"}), &rule)
	if rule.ID != "ACP-SES-002" || rule.Doc == "" || rule.Failing == nil || len(rule.Failing.Lines) == 0 || !strings.Contains(rule.Spec, "session-setup") {
		t.Errorf("explain ACP-SES-002: %+v", rule)
	}
	wantError(t, call(t, cs, "explain_rule", map[string]any{"id": "ACP-NOPE-999"}), `unknown rule "ACP-NOPE-999"`)
	wantError(t, call(t, cs, "explain_rule", map[string]any{}), "id")

	var ses, errs ListOutput
	structured(t, call(t, cs, "list_rules", map[string]any{"area": "SES"}), &ses)
	structured(t, call(t, cs, "list_rules", map[string]any{"severity": "error"}), &errs)
	if len(ses.Rules) == 0 || len(errs.Rules) == 0 {
		t.Fatalf("SES: %d rules, errors: %d rules", len(ses.Rules), len(errs.Rules))
	}
	for _, r := range ses.Rules {
		if !strings.HasPrefix(r.ID, "ACP-SES-") || r.Doc != "" {
			t.Errorf("area SES lists %+v", r)
		}
	}
	for _, r := range errs.Rules {
		if r.Severity != "error" {
			t.Errorf("severity error lists %s (%s)", r.ID, r.Severity)
		}
	}
	wantError(t, call(t, cs, "list_rules", map[string]any{"area": "NOPE"}), "area")

	ctx := context.Background()
	got, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "acplint://rules/ACP-SES-002"})
	if err != nil {
		t.Fatal(err)
	}
	var fromResource Rule
	if err := json.Unmarshal([]byte(got.Contents[0].Text), &fromResource); err != nil || fromResource.ID != rule.ID || fromResource.Doc != rule.Doc {
		t.Errorf("resource: %v, %+v", err, fromResource)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "acplint://rules/ACP-NOPE-999"}); err == nil {
		t.Error("an unknown rule's resource was read")
	}
	got, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "acplint://spec"})
	if err != nil {
		t.Fatal(err)
	}
	var pages []SpecPage
	if err := json.Unmarshal([]byte(got.Contents[0].Text), &pages); err != nil || len(pages) == 0 {
		t.Fatalf("spec: %v, %d pages", err, len(pages))
	}
	for _, p := range pages {
		if !strings.HasPrefix(p.URL, "https://") || len(p.Rules) == 0 {
			t.Errorf("spec page %+v", p)
		}
	}
	got, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "acplint://rules"})
	if err != nil {
		t.Fatal(err)
	}
	var all ListOutput
	if err := json.Unmarshal([]byte(got.Contents[0].Text), &all); err != nil || len(all.Rules) <= len(ses.Rules) {
		t.Errorf("rules resource: %v, %d rules", err, len(all.Rules))
	}
}

// TestSchemaDiff classifies an SDK upgrade, gates it with fail_on, caps
// the changes, and refuses a cross-version diff unless asked.
func TestSchemaDiff(t *testing.T) {
	cs := connect(t, Options{Roots: []string{"../schemadiff/testdata"}, MaxFindings: 3})
	args := map[string]any{"old_path": "npm/0.4.5/schema/schema.json", "new_path": "npm/1.0.0/schema/schema.json"}
	var out DiffOutput
	res := call(t, cs, "schema_diff", args)
	structured(t, res, &out)
	if out.Total <= 3 || len(out.Changes) != 3 || !out.Truncated || out.Breaking == 0 || !out.Failed {
		t.Errorf("0.4.5 -> 1.0.0: %d of %d changes, truncated %v, %d breaking, failed %v", len(out.Changes), out.Total, out.Truncated, out.Breaking, out.Failed)
	}
	if c := out.Changes[0]; !strings.HasPrefix(c.CheckID, "ACP-DIFF-") || c.Old.File != "npm/0.4.5/schema/schema.json" {
		t.Errorf("first change: %+v", c)
	}
	args["fail_on"] = "none"
	structured(t, call(t, cs, "schema_diff", args), &out)
	if out.Failed {
		t.Error("fail_on none failed")
	}
	same := map[string]any{"old_path": "npm/1.0.0/schema/schema.json", "new_path": "npm/1.0.0/schema/schema.json"}
	structured(t, call(t, cs, "schema_diff", same), &out)
	if out.Total != 0 || out.Failed || out.Changes == nil {
		t.Errorf("a schema against itself: %+v", out)
	}
	cross := map[string]any{"old_path": "npm/2.0.0/schema/v1/schema.json", "new_path": "npm/2.0.0/schema/v2/schema.json"}
	wantError(t, call(t, cs, "schema_diff", cross), "allow_cross_version")
	cross["allow_cross_version"] = true
	structured(t, call(t, cs, "schema_diff", cross), &out)
	if len(out.Notes) == 0 || !strings.Contains(strings.Join(out.Notes, "\n"), "allow_cross_version") {
		t.Errorf("cross-version notes: %q", out.Notes)
	}
	wantError(t, call(t, cs, "schema_diff", map[string]any{"old_path": "PROVENANCE.md", "new_path": "npm/1.0.0/schema/schema.json"}), "PROVENANCE.md: not a JSON Schema document")
	wantError(t, call(t, cs, "schema_diff", map[string]any{"old_path": "npm/1.0.0/schema/schema.json"}), "new_path")
	wantError(t, call(t, cs, "schema_diff", map[string]any{"old_path": "npm/1.0.0/schema/schema.json", "new_path": "npm/1.0.0/schema/schema.json", "surface": "beta"}), "surface")
}
