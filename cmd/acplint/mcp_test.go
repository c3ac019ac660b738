package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP server is tested the way an assistant uses it: the real
// 'acplint mcp', a process of its own that hands itself over to the
// acplint-mcp binary built here, driven over its stdin and stdout by the
// Go SDK's client (and by the MCP Inspector's CLI, a second client
// written independently, where scripts/install-test-deps installed it).

// mcpTestVersion is the version the tests stamp into acplint-mcp, as a
// release build stamps both binaries.
const mcpTestVersion = "v0.0.0-mcptest"

// buildMCPServer builds acplint-mcp into a new directory and returns the
// directory, for PATH: 'acplint mcp' looks there when acplint-mcp is not
// beside the running executable (here, the test binary).
func buildMCPServer(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("go", "build", "-ldflags", "-X main.version="+mcpTestVersion, "-o", filepath.Join(dir, mcpServerName), "../acplint-mcp")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ../acplint-mcp: %v\n%s", err, out)
	}
	return dir
}

// pathWith is the PATH entry of a child's environment: dir, then this
// process's PATH.
func pathWith(dir string) string {
	return "PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH")
}

// mcpTools are the tools acplint mcp lists, with input properties each
// must have.
var mcpTools = map[string][]string{
	"lint_transcript":    {"path", "content", "format", "schema", "severity", "enable", "disable"},
	"explain_rule":       {"id"},
	"list_rules":         {"area", "severity"},
	"schema_diff":        {"old_path", "new_path", "surface", "fail_on"},
	"check_agent":        {"command", "runs", "steps", "seed", "dry_run", "confirm"},
	"convert_transcript": {"path", "to"},
}

// mcpSession starts 'acplint mcp ARGS…' and connects the SDK's client to
// it. When the test ends the client closes the server's stdin, and the
// server must then exit 0 with nothing on stderr.
func mcpSession(t *testing.T, args ...string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	cmd := acplintProcess(t, ctx, 4<<20, append([]string{"mcp"}, args...)...)
	// The agents check_agent starts inherit this (a race-enabled agent
	// would sleep a second at every exit).
	cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0", pathWith(buildMCPServer(t)))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "acplint-test", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		cancel()
		t.Fatalf("connect: %v; stderr:\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		defer cancel()
		if err := cs.Close(); err != nil {
			t.Errorf("closing the session: %v", err)
		}
		if code := cmd.ProcessState.ExitCode(); code != exitClean || stderr.Len() > 0 {
			t.Errorf("acplint mcp exited %d after its stdin closed; stderr:\n%s", code, stderr.String())
		}
	})
	return cs
}

func mcpCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return res
}

func mcpText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// mcpStructured decodes a successful call's structured content.
func mcpStructured(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", mcpText(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
}

func mcpWantError(t *testing.T, res *mcp.CallToolResult, want string) {
	t.Helper()
	if !res.IsError || !strings.Contains(mcpText(res), want) {
		t.Errorf("want a tool error saying %q, got (error %v) %s", want, res.IsError, mcpText(res))
	}
}

// TestMCPServer: an MCP client initializes acplint mcp, lists the tools
// with their input schemas, lints the README's example and gets the
// ACP-SES-002 finding as structured content with the fields of lint -f
// json, and gets a clear error from every tool on bad input; check_agent
// plans by default, refuses to run without confirm, and with it runs a
// defective agent, shrinks the failure into a file under the root that
// lint_transcript reproduces.
func TestMCPServer(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	cs := mcpSession(t, "--root", repo, "--root", out)

	init := cs.InitializeResult()
	if init.ServerInfo.Name != "acplint" || init.ServerInfo.Version != mcpTestVersion || init.Capabilities.Tools == nil || init.Capabilities.Resources == nil {
		t.Errorf("initialize: server %+v, capabilities %+v", init.ServerInfo, init.Capabilities)
	}
	if !strings.Contains(init.Instructions, repo) {
		t.Errorf("the instructions do not name the root %s:\n%s", repo, init.Instructions)
	}

	t.Run("tools/list", func(t *testing.T) {
		list, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range list.Tools {
			names = append(names, tool.Name)
			var in struct {
				Type       string                     `json:"type"`
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			}
			b, _ := json.Marshal(tool.InputSchema)
			if err := json.Unmarshal(b, &in); err != nil || in.Type != "object" {
				t.Errorf("%s: input schema %s", tool.Name, b)
			}
			for _, p := range mcpTools[tool.Name] {
				if in.Properties[p] == nil {
					t.Errorf("%s: input schema lacks %q: %s", tool.Name, p, b)
				}
			}
			if tool.OutputSchema == nil || tool.Description == "" || tool.Annotations == nil {
				t.Errorf("%s: no output schema, description or annotations", tool.Name)
			}
			if tool.Name == "check_agent" {
				if !slices.Contains(in.Required, "command") || !strings.Contains(string(in.Properties["dry_run"]), `"default":true`) {
					t.Errorf("check_agent: command is not required or dry_run does not default to true: %s", b)
				}
			}
		}
		slices.Sort(names)
		want := slices.Sorted(func(yield func(string) bool) {
			for n := range mcpTools {
				if !yield(n) {
					return
				}
			}
		})
		if !slices.Equal(names, want) {
			t.Errorf("tools %q, want %q", names, want)
		}
	})

	t.Run("lint_transcript", func(t *testing.T) {
		example := filepath.Join(repo, "examples", "session-without-mcp-servers.ndjson")
		res := mcpCall(t, cs, "lint_transcript", map[string]any{"path": example})
		var got struct {
			Findings []map[string]any `json:"findings"`
			Total    int              `json:"total"`
		}
		mcpStructured(t, res, &got)
		if got.Total != 1 || got.Findings[0]["rule"] != "ACP-SES-002" {
			t.Fatalf("README example: %+v", got)
		}
		if !strings.Contains(mcpText(res), "(ACP-SES-002)") {
			t.Errorf("the summary does not show the finding:\n%s", mcpText(res))
		}
		// The same fields and values as acplint lint -f json.
		stdout, stderr, code := acplintRun(nil, "lint", "-f", "json", example)
		if code != exitFindings {
			t.Fatalf("lint -f json: exit %d: %s", code, stderr)
		}
		var cli []map[string]any
		for line := range strings.Lines(string(stdout)) {
			var f map[string]any
			if err := json.Unmarshal([]byte(line), &f); err != nil {
				t.Fatal(err)
			}
			cli = append(cli, f)
		}
		if diff := cmp.Diff(cli, got.Findings); diff != "" {
			t.Errorf("structured findings differ from lint -f json (-cli +mcp):\n%s", diff)
		}
		// Relative to the first root, and inline.
		mcpStructured(t, mcpCall(t, cs, "lint_transcript", map[string]any{"path": "examples/session-without-mcp-servers.ndjson"}), &got)
		content, _ := os.ReadFile(example)
		mcpStructured(t, mcpCall(t, cs, "lint_transcript", map[string]any{"content": string(content)}), &got)
		if got.Total != 1 || got.Findings[0]["rule"] != "ACP-SES-002" {
			t.Errorf("inline: %+v", got)
		}
		mcpWantError(t, mcpCall(t, cs, "lint_transcript", map[string]any{"path": "/etc/hosts"}), "is outside the directories this server may read")
		mcpWantError(t, mcpCall(t, cs, "lint_transcript", map[string]any{"path": "examples/missing.ndjson"}), "no such file")
		mcpWantError(t, mcpCall(t, cs, "lint_transcript", map[string]any{}), "give either path")
	})

	t.Run("explain_rule", func(t *testing.T) {
		var rule struct {
			ID      string `json:"id"`
			Failing struct {
				Transcript string `json:"transcript"`
			} `json:"failingExample"`
		}
		mcpStructured(t, mcpCall(t, cs, "explain_rule", map[string]any{"id": "ACP-SES-002"}), &rule)
		if rule.ID != "ACP-SES-002" || !strings.Contains(rule.Failing.Transcript, "session/new") {
			t.Errorf("explain: %+v", rule)
		}
		mcpWantError(t, mcpCall(t, cs, "explain_rule", map[string]any{"id": "ACP-SES-999"}), `unknown rule "ACP-SES-999"`)
	})

	t.Run("list_rules", func(t *testing.T) {
		var list struct {
			Rules []map[string]any `json:"rules"`
		}
		mcpStructured(t, mcpCall(t, cs, "list_rules", map[string]any{}), &list)
		// The same rows as acplint rules -f json.
		stdout, stderr, code := acplintRun(nil, "rules", "-f", "json")
		if code != exitClean {
			t.Fatalf("rules -f json: exit %d: %s", code, stderr)
		}
		var cli []map[string]any
		for line := range strings.Lines(string(stdout)) {
			var r map[string]any
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatal(err)
			}
			cli = append(cli, r)
		}
		if diff := cmp.Diff(cli, list.Rules); diff != "" {
			t.Errorf("list_rules differs from rules -f json (-cli +mcp):\n%s", diff)
		}
		mcpWantError(t, mcpCall(t, cs, "list_rules", map[string]any{"severity": "fatal"}), "severity")
	})

	t.Run("schema_diff", func(t *testing.T) {
		var diff struct {
			Changes  []map[string]any `json:"changes"`
			Breaking int              `json:"breaking"`
			Failed   bool             `json:"failed"`
		}
		mcpStructured(t, mcpCall(t, cs, "schema_diff", map[string]any{
			"old_path": "schemadiff/testdata/npm/0.4.5/schema/schema.json",
			"new_path": "schemadiff/testdata/npm/1.0.0/schema/schema.json",
		}), &diff)
		if len(diff.Changes) == 0 || diff.Breaking == 0 || !diff.Failed || !strings.HasPrefix(diff.Changes[0]["check"].(string), "ACP-DIFF-") {
			t.Errorf("0.4.5 -> 1.0.0: %d changes, %d breaking, failed %v", len(diff.Changes), diff.Breaking, diff.Failed)
		}
		mcpWantError(t, mcpCall(t, cs, "schema_diff", map[string]any{"old_path": "nope.json", "new_path": "nope.json"}), "nope.json: no such file")
	})

	t.Run("convert_transcript", func(t *testing.T) {
		var conv struct {
			Transcript string `json:"transcript"`
		}
		mcpStructured(t, mcpCall(t, cs, "convert_transcript", map[string]any{"path": "examples/session-without-mcp-servers.ndjson", "to": "acplint"}), &conv)
		if !strings.HasPrefix(conv.Transcript, `{"format":"acplint-transcript","version":1`) {
			t.Errorf("convert to acplint:\n%s", conv.Transcript)
		}
		mcpWantError(t, mcpCall(t, cs, "convert_transcript", map[string]any{"path": "examples/session-without-mcp-servers.ndjson", "to": "yaml"}), "to")
	})

	t.Run("resources", func(t *testing.T) {
		res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "acplint://rules/ACP-SES-002"})
		if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, `"id": "ACP-SES-002"`) {
			t.Errorf("acplint://rules/ACP-SES-002: %v %+v", err, res)
		}
		if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "acplint://rules/ACP-SES-999"}); err == nil {
			t.Error("acplint://rules/ACP-SES-999 was read")
		}
	})

	t.Run("check_agent", func(t *testing.T) {
		agent := []string{"acplint", "__agent", "-defect", "update-after-cancel"}
		var plan struct {
			Ran  bool `json:"ran"`
			Plan struct {
				Program string `json:"program"`
				Runs    int    `json:"runs"`
			} `json:"plan"`
		}
		mcpStructured(t, mcpCall(t, cs, "check_agent", map[string]any{"command": agent, "runs": 10}), &plan)
		if plan.Ran || filepath.Base(plan.Plan.Program) != "acplint" || plan.Plan.Runs != 10 {
			t.Errorf("dry run: %+v", plan)
		}
		mcpWantError(t, mcpCall(t, cs, "check_agent", map[string]any{"command": agent, "dry_run": false}), "refused: running starts acplint __agent -defect update-after-cancel; it needs confirm: true")
		mcpWantError(t, mcpCall(t, cs, "check_agent", map[string]any{"command": agent, "dry_run": false, "confirm": true, "runs": 1000}), "runs")

		var v struct {
			Ran           bool     `json:"ran"`
			Conformant    bool     `json:"conformant"`
			Complete      bool     `json:"complete"`
			Failed        []string `json:"failed"`
			VerdictFile   string   `json:"verdictFile"`
			Reproductions []struct {
				Key        string `json:"key"`
				File       string `json:"file"`
				Reproduced bool   `json:"reproduced"`
			} `json:"reproductions"`
		}
		mcpStructured(t, mcpCall(t, cs, "check_agent", map[string]any{
			"command": agent, "runs": 10, "seed": 1, "timeout_seconds": 60, "out_dir": out, "dry_run": false, "confirm": true,
		}), &v)
		if !v.Ran || v.Conformant || !v.Complete || !slices.Contains(v.Failed, "ACP-CXL-002") || len(v.Reproductions) == 0 {
			t.Fatalf("check of a defective agent: %+v", v)
		}
		rep := v.Reproductions[0]
		if rep.Key != "ACP-CXL-002" || !rep.Reproduced || filepath.Dir(rep.File) != out {
			t.Errorf("reproduction %+v, want ACP-CXL-002 reproduced in %s", rep, out)
		}
		for _, f := range []string{rep.File, v.VerdictFile} {
			info, err := os.Lstat(f)
			if err != nil || !info.Mode().IsRegular() || info.Mode().Perm() != 0o600 {
				t.Errorf("%s: %v, mode %v; want a regular file, 0600", f, err, info.Mode())
			}
		}
		var lint struct {
			Findings []map[string]any `json:"findings"`
		}
		mcpStructured(t, mcpCall(t, cs, "lint_transcript", map[string]any{"path": rep.File, "clean_end": true}), &lint)
		if !slices.ContainsFunc(lint.Findings, func(f map[string]any) bool { return f["rule"] == "ACP-CXL-002" }) {
			t.Errorf("lint of the shrunk transcript does not show ACP-CXL-002: %v", lint.Findings)
		}
	})
}

// TestMCPInspectorCLI: the MCP Inspector's CLI, an MCP client that shares
// no code with acplint or the Go SDK, lists acplint mcp's tools with their
// input schemas and lints the README's example. It runs the Inspector that
// scripts/install-test-deps installed in testdata/inspector (what `npx
// @modelcontextprotocol/inspector` runs there), so nothing is fetched.
func TestMCPInspectorCLI(t *testing.T) {
	dir, err := filepath.Abs("testdata/inspector")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("SKIPPED LOUDLY: node is not on PATH, so the MCP Inspector CLI cannot run; install Node.js 20+ and run scripts/install-test-deps")
	}
	inspector := filepath.Join(dir, "node_modules", ".bin", "mcp-inspector")
	if _, err := os.Stat(inspector); err != nil {
		t.Skip("SKIPPED LOUDLY: the MCP Inspector is not installed in cmd/acplint/testdata/inspector; run scripts/install-test-deps (npm ci there)")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	// The Inspector starts the server with an environment of its own: the
	// test binary answers as acplint by its name.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "acplint")
	if err := os.Symlink(self, bin); err != nil {
		t.Fatal(err)
	}
	mcpDir := buildMCPServer(t)
	inspect := func(args ...string) []byte {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, inspector, append([]string{"--cli", bin, "mcp", "--root", repo}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), pathWith(mcpDir))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("mcp-inspector %q: %v\nstdout:\n%s\nstderr:\n%s", args, err, out, stderr.String())
		}
		return out
	}

	var list struct {
		Tools []struct {
			Name        string `json:"name"`
			InputSchema struct {
				Type       string                     `json:"type"`
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"inputSchema"`
		} `json:"tools"`
	}
	out := inspect("--method", "tools/list")
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatalf("tools/list: %v\n%s", err, out)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		for _, p := range mcpTools[tool.Name] {
			if tool.InputSchema.Type != "object" || tool.InputSchema.Properties[p] == nil {
				t.Errorf("%s: input schema lacks %q", tool.Name, p)
			}
		}
	}
	if len(names) != len(mcpTools) {
		t.Errorf("the Inspector lists %q, want the %d tools", names, len(mcpTools))
	}

	var res struct {
		IsError           bool `json:"isError"`
		StructuredContent struct {
			Findings []struct {
				Rule     string `json:"rule"`
				Location struct {
					Line int `json:"line"`
				} `json:"location"`
			} `json:"findings"`
		} `json:"structuredContent"`
	}
	out = inspect("--method", "tools/call", "--tool-name", "lint_transcript", "--tool-arg", "path=examples/session-without-mcp-servers.ndjson")
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("tools/call: %v\n%s", err, out)
	}
	if f := res.StructuredContent.Findings; res.IsError || len(f) != 1 || f[0].Rule != "ACP-SES-002" || f[0].Location.Line != 3 {
		t.Errorf("lint_transcript through the Inspector:\n%s", out)
	}
}

// TestFindMCPServer: acplint mcp runs the acplint-mcp beside its own
// executable before one in PATH, so that a release archive's pair goes
// together; a file there that cannot be executed is passed over.
func TestFindMCPServer(t *testing.T) {
	self := filepath.Join(t.TempDir(), "acplint")
	beside := filepath.Join(filepath.Dir(self), mcpServerName)
	inPath := filepath.Join(t.TempDir(), mcpServerName)
	if err := os.WriteFile(inPath, []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Dir(inPath))

	if got, err := findMCPServer(self); err != nil || got != inPath {
		t.Errorf("nothing beside acplint: %q, %v; want %s", got, err, inPath)
	}
	if err := os.WriteFile(beside, []byte("#!/bin/sh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := findMCPServer(self); err != nil || got != inPath {
		t.Errorf("a file beside acplint that cannot run: %q, %v; want %s", got, err, inPath)
	}
	if err := os.Chmod(beside, 0o700); err != nil {
		t.Fatal(err)
	}
	if got, err := findMCPServer(self); err != nil || got != beside {
		t.Errorf("acplint-mcp beside acplint and in PATH: %q, %v; want %s", got, err, beside)
	}
	t.Setenv("PATH", t.TempDir())
	if got, err := findMCPServer(""); err == nil {
		t.Errorf("with no executable and nothing in PATH: %q, want an error", got)
	}
}
