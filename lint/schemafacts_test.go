package lint

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/transcript"
)

// npmSchema is the schema file SDK version v ships (schemadiff/testdata/npm).
func npmSchema(v string) string { return "../schemadiff/testdata/npm/" + v + "/schema/schema.json" }

// jsonlInit is initLines with the sender of every line recorded, so that
// the rows below judge methods, not how lint guesses who sent them.
var jsonlInit = withDirs(initLines, "client", "agent", "client", "agent")

// withDirs wraps the NDJSON lines of text in transcript records of the
// given senders.
func withDirs(text string, dirs ...string) string {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) != len(dirs) {
		panic(fmt.Sprintf("withDirs: %d lines, %d senders", len(lines), len(dirs)))
	}
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, `{"ts":"2026-01-01T00:00:0%dZ","dir":%q,"msg":%s}`+"\n", i%10, dirs[i], l)
	}
	return b.String()
}

// TestSchemaFacts lints traffic past the initialization (lines 5 on)
// under schema versions that disagree about it, and under the compiled-in
// tables (schema ""). Every fact that decides a finding here (which
// methods exist, stable or not, who sends them, where "_meta" must be an
// object, whether a result may be null) must come from the schema given.
func TestSchemaFacts(t *testing.T) {
	dir := t.TempDir()
	// SDK 1.0.0 with fs/read_text_file implemented by the agent: a
	// schema where the client is the one to send it.
	readByAgent, _ := sdk100With(t, dir, "\"x-side\": \"client\",\n      \"x-method\": \"fs/read_text_file\"", "\"x-side\": \"agent\",\n      \"x-method\": \"fs/read_text_file\"")

	const (
		didOpen      = `{"jsonrpc":"2.0","method":"document/didOpen","params":{"sessionId":"sess_1","uri":"file:///home/dev/project/main.go","languageId":"go","version":1,"text":"package main\n"}}`
		elicComplete = `{"jsonrpc":"2.0","method":"session/elicitation/complete","params":{"elicitationId":"elic_1"}}`
		metaString   = `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"sess_1","prompt":[{"type":"text","text":"Run the tests","_meta":"t-1"}],"_meta":"trace-4bf92f35"}}` + "\n" +
			`{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`
		// mcp/message params as SDK 1.0.0 and 1.6.0 name them.
		mcpNull100 = `{"jsonrpc":"2.0","id":2,"method":"mcp/message","params":{"connectionId":"conn_1","method":"tools/list"}}` + "\n" +
			`{"jsonrpc":"2.0","id":2,"result":null}`
		mcpNull160 = `{"jsonrpc":"2.0","id":2,"method":"mcp/message","params":{"serverId":"tools","requestId":"r1","method":"tools/list"}}` + "\n" +
			`{"jsonrpc":"2.0","id":2,"result":null}`
		agentReads = `{"jsonrpc":"2.0","id":0,"method":"fs/read_text_file","params":{"sessionId":"sess_1","path":"/home/dev/project/main.go"}}` + "\n" +
			`{"jsonrpc":"2.0","id":0,"result":{"content":"package main\n"}}`
	)
	cases := []struct {
		name   string
		schema string // "" for the compiled-in tables
		lines  string // NDJSON, appended as line 5 on
		dirs   []string
		want   []string // "LINE RULE POINTER" of lines 5 on, sorted
		msg    string   // in the message of the first of want
	}{
		{name: "document/didOpen, compiled tables", lines: didOpen, dirs: []string{"client"},
			want: []string{"5 ACP-EXTN-001 /method"}, msg: "not an ACP v1 method"},
		{name: "document/didOpen, SDK 1.6.0 defines it (unstable)", schema: npmSchema("1.6.0"), lines: didOpen, dirs: []string{"client"},
			want: []string{"5 ACP-CAP-020 /method"}},
		{name: "document/didOpen, SDK 1.9.0 removed it", schema: npmSchema("1.9.0"), lines: didOpen, dirs: []string{"client"},
			want: []string{"5 ACP-EXTN-001 /method"}, msg: `method "document/didOpen" is not defined by the schema ` + npmSchema("1.9.0")},

		{name: "session/elicitation/complete, compiled tables", lines: elicComplete, dirs: []string{"agent"},
			want: []string{"5 ACP-EXTN-001 /method"}, msg: "not an ACP v1 method"},
		{name: "session/elicitation/complete, SDK 0.17.0 defines it (unstable)", schema: npmSchema("0.17.0"), lines: elicComplete, dirs: []string{"agent"},
			want: []string{"5 ACP-CAP-020 /method"}},
		{name: "session/elicitation/complete, SDK 0.22.0 renamed it", schema: npmSchema("0.22.0"), lines: elicComplete, dirs: []string{"agent"},
			want: []string{"5 ACP-EXTN-001 /method"}, msg: "not defined by the schema"},

		{name: "_meta a string, compiled tables", lines: metaString, dirs: []string{"client", "agent"},
			want: []string{"5 ACP-EXTN-004 /params/_meta", "5 ACP-EXTN-004 /params/prompt/0/_meta"}, msg: `"_meta" is a string; want an object or null`},
		{name: "_meta a string, SDK 0.5.1 declares _meta without a type", schema: npmSchema("0.5.1"), lines: metaString, dirs: []string{"client", "agent"}},
		{name: "_meta a string, SDK 0.7.0 wants an object or null", schema: npmSchema("0.7.0"), lines: metaString, dirs: []string{"client", "agent"},
			want: []string{"5 ACP-EXTN-004 /params/_meta", "5 ACP-EXTN-004 /params/prompt/0/_meta"}, msg: `"_meta" is a string; want an object or null`},

		{name: "mcp/message result null, SDK 1.0.0 admits any result", schema: npmSchema("1.0.0"), lines: mcpNull100, dirs: []string{"client", "agent"},
			want: []string{"5 ACP-CAP-020 /method"}},
		{name: "mcp/message result null, SDK 1.6.0 wants an object", schema: npmSchema("1.6.0"), lines: mcpNull160, dirs: []string{"client", "agent"},
			want: []string{"5 ACP-CAP-020 /method", "6 ACP-SCH-003 /result"}},

		{name: "fs/read_text_file from the agent, compiled tables", lines: agentReads, dirs: []string{"agent", "client"}},
		{name: "fs/read_text_file from the agent, a schema where the agent implements it", schema: readByAgent, lines: agentReads, dirs: []string{"agent", "client"},
			want: []string{"5 ACP-EXTN-001 /method"}, msg: "a method only the client may send"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{File: "t.jsonl", Format: transcript.FormatJSONL, CleanEnd: true}
			if tc.schema != "" {
				opts.Schema = mustSchema(t, tc.schema)
			}
			res, err := Transcript(strings.NewReader(jsonlInit+withDirs(tc.lines, tc.dirs...)), opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			firstMsg := ""
			for _, f := range res.Findings {
				if f.Location.Line < 5 {
					continue
				}
				key := fmt.Sprintf("%d %s %s", f.Location.Line, f.RuleID, f.Location.Pointer)
				if len(tc.want) > 0 && key == tc.want[0] && firstMsg == "" {
					firstMsg = f.Message
				}
				got = append(got, key)
			}
			sort.Strings(got)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				var all []string
				for _, f := range res.Findings {
					if f.Location.Line >= 5 {
						all = append(all, fmt.Sprintf("%d %s %s: %s", f.Location.Line, f.RuleID, f.Location.Pointer, f.Message))
					}
				}
				t.Fatalf("findings from line 5 on:\n\t%s\nwant:\n\t%s", strings.Join(all, "\n\t"), strings.Join(tc.want, "\n\t"))
			}
			if tc.msg != "" && !strings.Contains(firstMsg, tc.msg) {
				t.Errorf("%s says %q; want it to say %q", tc.want[0], firstMsg, tc.msg)
			}
		})
	}
}

// TestMethodTable checks the table a schema file gives the protocol
// machine: its own methods, sides and stability, and for a stable file
// the unstable methods acplint knows, which such a file does not cover.
func TestMethodTable(t *testing.T) {
	type fact struct {
		method   domain.Method
		stable   bool
		unstable bool
		receiver domain.Side
		notify   bool
	}
	cases := []struct {
		schema string
		facts  []fact
	}{
		{npmSchema("1.6.0"), []fact{
			{method: "session/prompt", stable: true, receiver: domain.SideAgent},
			{method: "session/update", stable: true, receiver: domain.SideClient, notify: true},
			{method: "$/cancel_request", stable: true, receiver: domain.SideEither, notify: true},
			{method: "document/didOpen", unstable: true, receiver: domain.SideAgent},
			// Requests go to the agent, notifications to the client.
			{method: "mcp/message", unstable: true, receiver: domain.SideEither},
			{method: "session/set_model"}, // gone since 1.0.0
			{method: "document/did_open"}, // never published under that name
		}},
		{npmSchema("1.9.0"), []fact{
			{method: "document/didOpen"},
			{method: "elicitation/complete", stable: true, receiver: domain.SideClient, notify: true},
		}},
		{npmSchema("0.17.0"), []fact{
			{method: "session/elicitation/complete", unstable: true, receiver: domain.SideClient},
			{method: "elicitation/complete"},
		}},
		{stableRef, []fact{
			{method: "session/prompt", stable: true, receiver: domain.SideAgent},
			{method: "session/fork", unstable: true, receiver: domain.SideAgent},
		}},
	}
	for _, tc := range cases {
		table := methodTable(mustSchema(t, tc.schema).model)
		for _, f := range tc.facts {
			mi, stable := table.Lookup(f.method)
			side, unstable := table.Unstable(f.method)
			if stable != f.stable || unstable != f.unstable {
				t.Errorf("%s: %s stable %v, unstable %v; want %v, %v", tc.schema, f.method, stable, unstable, f.stable, f.unstable)
				continue
			}
			switch {
			case stable && (mi.Receiver != f.receiver || mi.Notification != f.notify || mi.Name != f.method):
				t.Errorf("%s: %s is %+v; want receiver %v, notification %v", tc.schema, f.method, *mi, f.receiver, f.notify)
			case unstable && side != f.receiver:
				t.Errorf("%s: unstable %s is implemented by the %v; want the %v", tc.schema, f.method, side, f.receiver)
			}
		}
	}
}

// TestUnstableSidesAgreeWithPublishedSchemas holds the compiled table of
// unstable methods, which lint uses without --schema, to the x-side of
// every published schema that defines the method.
func TestUnstableSidesAgreeWithPublishedSchemas(t *testing.T) {
	files, err := filepath.Glob("../schemadiff/testdata/npm/*/schema/schema.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no published schemas: %v", err)
	}
	files = append(files, unstableRef)
	checked := 0
	for _, file := range files {
		table := methodTable(mustSchema(t, file).model)
		for method, want := range domain.UnstableMethods {
			got, ok := receiverIn(table, method)
			if !ok {
				continue
			}
			checked++
			if got != want {
				t.Errorf("%s: %s is implemented by the %v (x-side); domain.UnstableMethods says the %v", file, method, got, want)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no unstable method of domain.UnstableMethods is in any published schema")
	}
}
