package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/acplint/acplint/findings"
)

const (
	stableRef   = "../internal/reference/acp-schema.json"
	unstableRef = "../internal/reference/acp-schema.unstable.json"
	sdk0141     = "../schemadiff/testdata/npm/0.14.1/schema/schema.json"
	sdk100      = "../schemadiff/testdata/npm/1.0.0/schema/schema.json"
)

func mustSchema(t *testing.T, file string) *Schema {
	t.Helper()
	s, err := LoadSchema(file)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSchemaParity lints every transcript of the golden corpus twice: with
// the compiled-in schema and with --schema set to the very schema file it
// was generated from (stable, then the unstable superset, which adds
// nothing the corpus uses). Both paths must give the same rules at the same
// lines and pointers; messages may word things differently.
func TestSchemaParity(t *testing.T) {
	files, err := filepath.Glob("../conformance/testdata/*/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden corpus: %v", err)
	}
	schemas := []*Schema{mustSchema(t, stableRef), mustSchema(t, unstableRef)}
	for _, file := range files {
		a, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var transcript []byte
		cleanEnd := false
		for _, f := range a.Files {
			switch {
			case strings.HasPrefix(f.Name, "transcript."):
				transcript = f.Data
			case f.Name == "flags":
				cleanEnd = strings.Contains(string(f.Data), "--clean-end")
			}
		}
		if transcript == nil {
			continue
		}
		compiled := ruleKeys(t, transcript, Options{File: file, CleanEnd: cleanEnd})
		for _, s := range schemas {
			got := ruleKeys(t, transcript, Options{File: file, CleanEnd: cleanEnd, Schema: s})
			if strings.Join(got, "\n") != strings.Join(compiled, "\n") {
				t.Errorf("%s: lint --schema %s disagrees with the compiled-in schema (lint/schema.go maps validator errors onto codec problems):\ncompiled:\n\t%s\n--schema:\n\t%s",
					file, s.File(), strings.Join(compiled, "\n\t"), strings.Join(got, "\n\t"))
			}
		}
	}
}

func ruleKeys(t *testing.T, transcript []byte, opts Options) []string {
	t.Helper()
	res, err := Transcript(strings.NewReader(string(transcript)), opts)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range res.Findings {
		out = append(out, fmt.Sprintf("%d %s %s", f.Location.Line, f.RuleID, f.Location.Pointer))
	}
	sort.Strings(out)
	return out
}

const initLines = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true},"clientInfo":{"name":"example-editor","version":"3.2.0"}}}
{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true,"sessionCapabilities":{"close":{}}},"authMethods":[],"agentInfo":{"name":"example-agent","version":"1.4.2"}}}
{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/home/dev/project","mcpServers":[]}}
{"jsonrpc":"2.0","id":1,"result":{"sessionId":"sess_1"}}
`

// TestSchemaVersionDecides checks findings that only a schema version other
// than the compiled-in one gives.
func TestSchemaVersionDecides(t *testing.T) {
	cases := []struct {
		name   string
		schema string
		line   string // appended to initLines as line 5
		rule   string // "" for no finding on line 5
		ptr    string
		msg    string
	}{
		{
			name: "a variant newer than the schema is unknown", schema: sdk100,
			line: `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_1","update":{"sessionUpdate":"notice","severity":"info","message":"Context compacted"}}}`,
			rule: "ACP-UPD-002", ptr: "/params/update/sessionUpdate", msg: `"notice" is not a known SessionUpdate "sessionUpdate"`,
		},
		{
			name: "the same variant under the schema that has it", schema: unstableRef,
			line: `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_1","update":{"sessionUpdate":"notice","severity":"info","title":"Context compacted"}}}`,
		},
		{
			name: "a member newer than the schema is unknown", schema: sdk0141,
			line: `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_1","update":{"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"hi"}}}}`,
			rule: "ACP-SCH-002", ptr: "/params/update/messageId", msg: `"messageId" is not a member of ContentChunk`,
		},
		{
			name: "a method newer than the schema is undefined", schema: sdk0141,
			line: `{"jsonrpc":"2.0","id":2,"method":"session/close","params":{"sessionId":"sess_1"}}`,
			rule: "ACP-EXTN-001", ptr: "/method", msg: `method "session/close" is not defined by the schema`,
		},
		{
			name: "unstable methods are validated too (the compiled codec keeps them raw)", schema: unstableRef,
			line: `{"jsonrpc":"2.0","id":2,"method":"providers/set","params":{"id":"main","apiType":"anthropic","baseUrl":"https://llm.example.com"}}`,
			rule: "ACP-SCH-001", ptr: "/params/providerId", msg: `SetProviderRequest lacks required "providerId"`,
		},
		{
			name: "a renamed member of a tagged variant is one missing member, not one per variant", schema: unstableRef,
			line: `{"jsonrpc":"2.0","id":2,"method":"session/load","params":{"sessionId":"sess_1","cwd":"/home/dev/project","mcpServers":[{"type":"acp","id":"tools","name":"tools"}]}}`,
			rule: "ACP-SES-005", ptr: "/params/mcpServers/0/serverId", msg: `McpServerAcp lacks required "serverId"`,
		},
		{
			name: "used: null is rejected by every version", schema: sdk0141,
			line: `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_1","update":{"sessionUpdate":"usage_update","used":null,"size":200000}}}`,
			rule: "ACP-UPD-006", ptr: "/params/update/used", msg: "null",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := mustSchema(t, tc.schema)
			res, err := Transcript(strings.NewReader(initLines+tc.line+"\n"), Options{File: "t.ndjson", Schema: s})
			if err != nil {
				t.Fatal(err)
			}
			var onLine []findings.ValidationFinding
			for _, f := range res.Findings {
				// Capability rules do not depend on the schema version.
				if f.Location.Line == 5 && !strings.HasPrefix(f.RuleID, "ACP-CAP-") {
					onLine = append(onLine, f)
				}
			}
			if tc.rule == "" {
				for _, f := range onLine {
					t.Errorf("unexpected %s at %s: %s", f.RuleID, f.Location.Pointer, f.Message)
				}
				return
			}
			found := false
			for _, f := range onLine {
				if f.RuleID == tc.rule && f.Location.Pointer == tc.ptr && strings.Contains(f.Message, tc.msg) {
					found = true
				}
			}
			if !found {
				var got []string
				for _, f := range onLine {
					got = append(got, f.RuleID+" "+f.Location.Pointer+": "+f.Message)
				}
				t.Errorf("want %s at %s (%q); got:\n\t%s", tc.rule, tc.ptr, tc.msg, strings.Join(got, "\n\t"))
			}
		})
	}
}

func TestLoadSchemaRejects(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"type":"object"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{bad, filepath.Join(dir, "missing.json")} {
		if _, err := LoadSchema(file); err == nil {
			t.Errorf("LoadSchema(%s) succeeded", file)
		}
	}
}

// TestLoadSchemaResolvesOnlyLocalRefs: a schema file must not make acplint
// read another local file or fetch a URL; the error names the ref, its
// pointer and its line.
func TestLoadSchemaResolvesOnlyLocalRefs(t *testing.T) {
	dir := t.TempDir()
	// A valid schema the file:// ref could load, as /etc/passwd would be
	// read if it were one.
	outside := filepath.Join(dir, "outside.json")
	if err := os.WriteFile(outside, []byte(`{"type":"object"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"file://" + outside, "http://127.0.0.1:1/schema.json"} {
		schema, text := sdk100With(t, dir, `"$ref": "#/$defs/ClientCapabilities"`, `"$ref": "`+ref+`"`)
		line := strings.Count(text[:strings.Index(text, ref)], "\n") + 1
		_, err := LoadSchema(schema)
		if err == nil {
			t.Errorf("LoadSchema with $ref %s succeeded", ref)
			continue
		}
		for _, want := range []string{fmt.Sprintf("%s:%d:", schema, line), "/$defs/InitializeRequest/", "/$ref", ref, "outside the file"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error lacks %q: %v", want, err)
			}
		}
	}
}

// TestLoadSchemaLoadsNoMetaSchema: "$schema" is no ref, but a validator
// would load a meta-schema it does not know from its URL, a local file
// included; --schema knows draft 2020-12 alone and refuses any other.
func TestLoadSchemaLoadsNoMetaSchema(t *testing.T) {
	dir := t.TempDir()
	meta := filepath.Join(dir, "meta.json")
	if err := os.WriteFile(meta, []byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	schema, _ := sdk100With(t, dir, `"$schema": "https://json-schema.org/draft/2020-12/schema"`, `"$schema": "file://`+meta+`"`)
	_, err := LoadSchema(schema)
	if err == nil || !strings.Contains(err.Error(), "file://"+meta) || !strings.Contains(err.Error(), "only JSON Schema draft 2020-12") {
		t.Errorf("LoadSchema with a local meta-schema: %v, want it refused", err)
	}
}

// sdk100With writes SDK 1.0.0's schema with the first old replaced by new
// to dir/schema.json, and returns its path and text.
func sdk100With(t *testing.T, dir, old, new string) (path, text string) {
	t.Helper()
	src, err := os.ReadFile(sdk100)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), old) {
		t.Fatalf("%s has no %s to replace", sdk100, old)
	}
	text = strings.Replace(string(src), old, new, 1)
	path = filepath.Join(dir, "schema.json")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, text
}
