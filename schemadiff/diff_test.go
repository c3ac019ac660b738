package schemadiff

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/schemamodel"
)

// base is a small schema in the upstream format: session/new (a request
// the agent handles), its response, and session/update (a notification
// the client handles) with a tagged union. Cases edit a fresh copy.
func base() map[string]any {
	return obj(`{
	  "$schema": "https://json-schema.org/draft/2020-12/schema",
	  "$defs": {
	    "NewSessionRequest": {
	      "x-method": "session/new", "x-side": "agent",
	      "type": "object",
	      "properties": {
	        "cwd": {"type": "string"},
	        "mcpServers": {"type": "array", "items": {"$ref": "#/$defs/McpServer"}},
	        "title": {"type": ["string", "null"], "x-deserialize-default-on-error": true},
	        "limit": {"type": "integer", "format": "uint64", "minimum": 0},
	        "_meta": {"type": ["object", "null"], "additionalProperties": true}
	      },
	      "required": ["cwd", "mcpServers"]
	    },
	    "NewSessionResponse": {
	      "x-method": "session/new", "x-side": "agent",
	      "type": "object",
	      "properties": {
	        "sessionId": {"$ref": "#/$defs/SessionId"},
	        "stopReason": {"$ref": "#/$defs/StopReason"},
	        "category": {"$ref": "#/$defs/Category"}
	      },
	      "required": ["sessionId"]
	    },
	    "SessionNotification": {
	      "x-method": "session/update", "x-side": "client",
	      "type": "object",
	      "properties": {
	        "sessionId": {"$ref": "#/$defs/SessionId"},
	        "update": {"$ref": "#/$defs/SessionUpdate"}
	      },
	      "required": ["sessionId", "update"]
	    },
	    "SessionId": {"type": "string"},
	    "StopReason": {"oneOf": [
	      {"type": "string", "const": "end_turn"},
	      {"type": "string", "const": "cancelled"}
	    ]},
	    "Category": {"anyOf": [
	      {"type": "string", "const": "mode"},
	      {"type": "string", "const": "model"},
	      {"title": "other", "type": "string"}
	    ]},
	    "McpServer": {"anyOf": [
	      {"type": "object", "properties": {"type": {"type": "string", "const": "http"}}, "required": ["type"],
	       "allOf": [{"$ref": "#/$defs/McpServerHttp"}]},
	      {"title": "stdio", "allOf": [{"$ref": "#/$defs/McpServerStdio"}]}
	    ]},
	    "McpServerHttp": {"type": "object", "properties": {"name": {"type": "string"}, "url": {"type": "string"}}, "required": ["name", "url"]},
	    "McpServerStdio": {"type": "object", "properties": {"name": {"type": "string"}, "command": {"type": "string"}}, "required": ["name", "command"]},
	    "SessionUpdate": {"oneOf": [
	      {"type": "object", "properties": {"sessionUpdate": {"type": "string", "const": "agent_message_chunk"}}, "required": ["sessionUpdate"],
	       "allOf": [{"$ref": "#/$defs/ContentChunk"}]},
	      {"type": "object", "properties": {"sessionUpdate": {"type": "string", "const": "usage_update"}}, "required": ["sessionUpdate"],
	       "allOf": [{"$ref": "#/$defs/UsageUpdate"}]}
	    ]},
	    "ContentChunk": {"type": "object", "properties": {"content": {"type": "string"}}, "required": ["content"]},
	    "UsageUpdate": {"type": "object", "properties": {"used": {"type": "integer", "format": "uint64", "minimum": 0}, "size": {"type": "integer"}}, "required": ["used", "size"]}
	  }
	}`)
}

func obj(s string) map[string]any {
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		panic(err)
	}
	return m
}

// at returns the map at a slash-separated path of the document.
func at(doc map[string]any, path string) map[string]any {
	cur := doc
	for _, tok := range strings.Split(path, "/") {
		switch next := cur[tok].(type) {
		case map[string]any:
			cur = next
		default:
			panic(fmt.Sprintf("no object at %s (stuck at %s)", path, tok))
		}
	}
	return cur
}

func oneOf(doc map[string]any, path string) []any {
	m := at(doc, path)
	for _, k := range []string{"oneOf", "anyOf"} {
		if l, ok := m[k].([]any); ok {
			return l
		}
	}
	panic("no union at " + path)
}

func load(t *testing.T, name string, doc map[string]any) *schemamodel.Schema {
	t.Helper()
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	s, err := schemamodel.Parse(name, b, schemamodel.Options{StableMethods: map[string]bool{"session/new": true, "session/update": true}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// want describes one expected change.
type want struct {
	check    string
	path     string // method kind path, e.g. "session/new request params.cwd"
	category Category
	breaks   Breaks
	severity findings.Severity
	surface  Surface
	message  string // substring
}

func TestDiffChecks(t *testing.T) {
	cases := []struct {
		name string
		edit func(old, new map[string]any)
		want []want
	}{
		{
			name: "required member added breaks old writers (clients sending params)",
			edit: func(_, n map[string]any) {
				at(n, "$defs/NewSessionRequest/properties")["mode"] = obj(`{"type":"string"}`)
				req := at(n, "$defs/NewSessionRequest")
				req["required"] = append(req["required"].([]any), "mode")
			},
			want: []want{{check: "ACP-DIFF-010", path: "session/new request params.mode", category: Breaking, breaks: BreaksWriters, severity: findings.SeverityError,
				message: `required member "mode" added: old clients do not send it, so new agents reject their messages`}},
		},
		{
			name: "optional member added is non-breaking",
			edit: func(_, n map[string]any) {
				at(n, "$defs/NewSessionRequest/properties")["mode"] = obj(`{"type":"string"}`)
			},
			want: []want{{check: "ACP-DIFF-011", path: "session/new request params.mode", category: NonBreaking, severity: findings.SeverityInfo}},
		},
		{
			name: "optional member added to an object the old schema closes breaks old readers",
			edit: func(o, n map[string]any) {
				at(o, "$defs/ContentChunk")["additionalProperties"] = false
				at(n, "$defs/ContentChunk")["additionalProperties"] = false
				at(n, "$defs/ContentChunk/properties")["messageId"] = obj(`{"type":"string"}`)
			},
			want: []want{{check: "ACP-DIFF-011", path: `session/update notification params.update<sessionUpdate="agent_message_chunk">.messageId`,
				category: Breaking, breaks: BreaksReaders, severity: findings.SeverityError, message: "old clients reject"}},
		},
		{
			name: "rename of a required member is removed + added, each naming the other",
			edit: func(_, n map[string]any) {
				p := at(n, "$defs/McpServerStdio/properties")
				p["serverName"] = p["name"]
				delete(p, "name")
				at(n, "$defs/McpServerStdio")["required"] = []any{"serverName", "command"}
			},
			want: []want{
				{check: "ACP-DIFF-010", path: "session/new request params.mcpServers[]<stdio>.serverName", category: Breaking, breaks: BreaksWriters,
					severity: findings.SeverityError, message: `lost "name": a rename`},
				{check: "ACP-DIFF-012", path: "session/new request params.mcpServers[]<stdio>.name", category: Breaking, breaks: BreaksReaders,
					severity: findings.SeverityError, message: `gained "serverName": a rename`},
			},
		},
		{
			name: "optional member removed is unclassified",
			edit: func(_, n map[string]any) { delete(at(n, "$defs/NewSessionRequest/properties"), "limit") },
			want: []want{{check: "ACP-DIFF-012", path: "session/new request params.limit", category: Unclassified, severity: findings.SeverityWarning,
				message: "still accepted (as an unknown member) but new agents ignore it"}},
		},
		{
			name: "optional to required and back",
			edit: func(o, n map[string]any) {
				at(n, "$defs/NewSessionResponse")["required"] = []any{"sessionId", "stopReason"}
				at(n, "$defs/NewSessionRequest")["required"] = []any{"cwd"}
			},
			want: []want{
				{check: "ACP-DIFF-013", path: "session/new response result.stopReason", category: Breaking, breaks: BreaksWriters, severity: findings.SeverityError,
					message: "old agents that leave it out are rejected by new clients"},
				{check: "ACP-DIFF-014", path: "session/new request params.mcpServers", category: Breaking, breaks: BreaksReaders, severity: findings.SeverityWarning,
					message: "new clients may leave it out and old agents that require it reject the message"},
			},
		},
		{
			name: "closed enum value added warns, removed fails",
			edit: func(_, n map[string]any) {
				at(n, "$defs/StopReason")["oneOf"] = []any{obj(`{"type":"string","const":"end_turn"}`), obj(`{"type":"string","const":"refusal"}`)}
			},
			want: []want{
				{check: "ACP-DIFF-020", path: "session/new response result.stopReason", category: Breaking, breaks: BreaksReaders, severity: findings.SeverityWarning,
					message: `value "refusal" added`},
				{check: "ACP-DIFF-021", path: "session/new response result.stopReason", category: Breaking, breaks: BreaksWriters, severity: findings.SeverityError,
					message: `value "cancelled" removed: old agents that send it are rejected by new clients`},
			},
		},
		{
			name: "open enum value added is a note",
			edit: func(_, n map[string]any) {
				u := at(n, "$defs/Category")
				u["anyOf"] = append([]any{obj(`{"type":"string","const":"thought_level"}`)}, u["anyOf"].([]any)...)
			},
			want: []want{{check: "ACP-DIFF-020", path: "session/new response result.category", category: NonBreaking, severity: findings.SeverityInfo}},
		},
		{
			name: "enum opened and closed",
			edit: func(o, n map[string]any) {
				u := at(n, "$defs/StopReason")
				u["oneOf"] = append(u["oneOf"].([]any), obj(`{"title":"other","type":"string"}`))
				c := at(n, "$defs/Category")
				c["anyOf"] = c["anyOf"].([]any)[:2]
			},
			want: []want{
				{check: "ACP-DIFF-022", path: "session/new response result.stopReason", category: Breaking, breaks: BreaksReaders, severity: findings.SeverityWarning},
				{check: "ACP-DIFF-023", path: "session/new response result.category", category: Breaking, breaks: BreaksWriters, severity: findings.SeverityError},
			},
		},
		{
			name: "union variant added warns, removed fails",
			edit: func(_, n map[string]any) {
				v := oneOf(n, "$defs/SessionUpdate")
				at(n, "$defs/SessionUpdate")["oneOf"] = []any{v[0], obj(`{"type":"object","properties":{"sessionUpdate":{"type":"string","const":"notice"},"text":{"type":"string"}},"required":["sessionUpdate","text"]}`)}
			},
			want: []want{
				{check: "ACP-DIFF-030", path: `session/update notification params.update<sessionUpdate="notice">`, category: Breaking, breaks: BreaksReaders,
					severity: findings.SeverityWarning, message: "old clients that decode the union exhaustively reject the message"},
				{check: "ACP-DIFF-031", path: `session/update notification params.update<sessionUpdate="usage_update">`, category: Breaking, breaks: BreaksWriters,
					severity: findings.SeverityError, message: "old agents that send it are rejected by new clients"},
			},
		},
		{
			name: "variant added to a union with a catch-all is a note",
			edit: func(o, n map[string]any) {
				other := obj(`{"title":"other","type":"object","properties":{"sessionUpdate":{"type":"string"}},"required":["sessionUpdate"]}`)
				at(o, "$defs/SessionUpdate")["oneOf"] = append(oneOf(o, "$defs/SessionUpdate"), other)
				at(n, "$defs/SessionUpdate")["oneOf"] = append(oneOf(n, "$defs/SessionUpdate"), other,
					obj(`{"type":"object","properties":{"sessionUpdate":{"type":"string","const":"notice"}},"required":["sessionUpdate"]}`))
			},
			want: []want{{check: "ACP-DIFF-030", path: `session/update notification params.update<sessionUpdate="notice">`, category: NonBreaking, severity: findings.SeverityInfo,
				message: "catch-all"}},
		},
		{
			name: "a plain object that becomes a union matches its untagged variant",
			edit: func(o, n map[string]any) {
				// old: the MCP server entry is the plain stdio object
				at(o, "$defs")["McpServer"] = obj(`{"allOf":[{"$ref":"#/$defs/McpServerStdio"}]}`)
			},
			want: []want{{check: "ACP-DIFF-030", path: `session/new request params.mcpServers[]<type="http">`, category: Breaking, breaks: BreaksReaders,
				severity: findings.SeverityWarning}},
		},
		{
			name: "nullability both ways",
			edit: func(o, n map[string]any) {
				at(n, "$defs/UsageUpdate/properties/used")["type"] = []any{"integer", "null"}
				at(n, "$defs/NewSessionRequest/properties/title")["type"] = "string"
			},
			want: []want{
				{check: "ACP-DIFF-040", path: `session/update notification params.update<sessionUpdate="usage_update">.used`, category: Breaking, breaks: BreaksReaders,
					severity: findings.SeverityError, message: "new agents may send null and old clients reject it"},
				{check: "ACP-DIFF-041", path: "session/new request params.title", category: Breaking, breaks: BreaksWriters, severity: findings.SeverityError,
					message: "old clients that send null are rejected by new agents"},
			},
		},
		{
			name: "type widened, narrowed and changed",
			edit: func(_, n map[string]any) {
				at(n, "$defs/UsageUpdate/properties/size")["type"] = "number"
				at(n, "$defs/McpServerHttp/properties/url")["type"] = []any{"string", "object"}
				at(n, "$defs/NewSessionRequest/properties/cwd")["type"] = "boolean"
			},
			want: []want{
				{check: "ACP-DIFF-042", path: `session/update notification params.update<sessionUpdate="usage_update">.size`, category: Breaking, breaks: BreaksReaders, severity: findings.SeverityError},
				{check: "ACP-DIFF-042", path: `session/new request params.mcpServers[]<type="http">.url`, category: Breaking, breaks: BreaksReaders, severity: findings.SeverityError},
				{check: "ACP-DIFF-044", path: "session/new request params.cwd", category: Breaking, breaks: BreaksBoth, severity: findings.SeverityError},
			},
		},
		{
			name: "number range narrowed by a smaller integer format",
			edit: func(_, n map[string]any) { at(n, "$defs/NewSessionRequest/properties/limit")["format"] = "uint32" },
			want: []want{{check: "ACP-DIFF-045", path: "session/new request params.limit", category: Breaking, breaks: BreaksWriters, severity: findings.SeverityError}},
		},
		{
			name: "number range widened",
			edit: func(o, _ map[string]any) { at(o, "$defs/NewSessionRequest/properties/limit")["format"] = "uint32" },
			want: []want{{check: "ACP-DIFF-046", path: "session/new request params.limit", category: Breaking, breaks: BreaksReaders, severity: findings.SeverityWarning}},
		},
		{
			name: "leniency hints dropped and added",
			edit: func(_, n map[string]any) {
				delete(at(n, "$defs/NewSessionRequest/properties/title"), "x-deserialize-default-on-error")
				at(n, "$defs/NewSessionRequest/properties/mcpServers")["x-deserialize-default-on-null"] = true
			},
			want: []want{
				{check: "ACP-DIFF-051", path: "session/new request params.title", category: Unclassified, severity: findings.SeverityWarning,
					message: "reference agents no longer replace a malformed value with its default"},
				{check: "ACP-DIFF-050", path: "session/new request params.mcpServers", category: NonBreaking, severity: findings.SeverityInfo,
					message: "read null as the default"},
			},
		},
		{
			name: "method removed, added, and direction changed",
			edit: func(o, n map[string]any) {
				defs := at(n, "$defs")
				delete(defs, "NewSessionRequest")
				delete(defs, "NewSessionResponse")
				defs["LogoutRequest"] = obj(`{"x-method":"logout","x-side":"agent","type":"object"}`)
				defs["SessionNotification"].(map[string]any)["x-side"] = "agent"
			},
			want: []want{
				{check: "ACP-DIFF-001", path: "session/new request", category: Breaking, breaks: BreaksBoth, severity: findings.SeverityError,
					message: "old clients that send it get -32601"},
				// Both files are stable schemas, so the new method is stable.
				{check: "ACP-DIFF-002", path: "logout request", category: NonBreaking, severity: findings.SeverityInfo},
				{check: "ACP-DIFF-003", path: "session/update notification", category: Breaking, breaks: BreaksBoth, severity: findings.SeverityError},
			},
		},
		{
			name: "renaming a definition without changing the wire is no change",
			edit: func(_, n map[string]any) {
				defs := at(n, "$defs")
				defs["ServerStdio"] = defs["McpServerStdio"]
				delete(defs, "McpServerStdio")
				oneOf(n, "$defs/McpServer")[1] = obj(`{"title":"stdio","allOf":[{"$ref":"#/$defs/ServerStdio"}]}`)
			},
		},
		{
			name: "changes under an UNSTABLE marker are on the unstable surface; losing it is a note",
			edit: func(o, n map[string]any) {
				// Both files are supersets: usage_update is unstable in
				// both, agent_message_chunk only in the old one.
				at(o, "$defs/UsageUpdate")["description"] = "**UNSTABLE**\n\nContext window usage."
				at(n, "$defs/UsageUpdate")["description"] = "**UNSTABLE**\n\nContext window usage."
				at(n, "$defs/UsageUpdate/properties")["cost"] = obj(`{"type":"number"}`)
				at(n, "$defs/UsageUpdate")["required"] = []any{"used", "size", "cost"}
				oneOf(o, "$defs/SessionUpdate")[0].(map[string]any)["description"] = "**UNSTABLE**"
			},
			want: []want{
				{check: "ACP-DIFF-010", path: `session/update notification params.update<sessionUpdate="usage_update">.cost`, category: Breaking, breaks: BreaksWriters,
					severity: findings.SeverityError, surface: Unstable},
				{check: "ACP-DIFF-004", path: `session/update notification params.update<sessionUpdate="agent_message_chunk">`, category: NonBreaking, severity: findings.SeverityInfo,
					message: "now part of the stable surface"},
			},
		},
		{
			// Issue 15, item 2: sdk 1.6.0 → 1.9.0 restructured the subagent
			// stopReason like this. Every old value still validates, so the
			// only changes are the values that are new.
			name: "a closed enum member restructured into tagged variants with a catch-all is compared by the values admitted",
			edit: func(o, n map[string]any) {
				at(o, "$defs/NewSessionResponse/properties")["stopReason"] = obj(`{"anyOf":[{"$ref":"#/$defs/StopReason"},{"type":"null"}]}`)
				resp := at(n, "$defs/NewSessionResponse")
				at(n, "$defs/NewSessionResponse/properties")["stopReason"] = obj(`{"type":["string","null"]}`)
				resp["anyOf"] = []any{
					obj(`{"type":"object","properties":{"stopReason":{"type":"string","const":"end_turn"}},"required":["stopReason"]}`),
					obj(`{"type":"object","properties":{"stopReason":{"type":"string","const":"cancelled"}},"required":["stopReason"]}`),
					obj(`{"type":"object","properties":{"stopReason":{"type":"string","const":"error"},"error":{"type":"object"}},"required":["stopReason"]}`),
					obj(`{"title":"other","type":"object","properties":{"stopReason":{"type":"string"}},"required":["stopReason"]}`),
					obj(`{"title":"none","type":"object","properties":{"stopReason":{"type":"null"}}}`),
				}
			},
			want: []want{
				{check: "ACP-DIFF-020", path: "session/new response result.stopReason", category: Breaking, breaks: BreaksReaders, severity: findings.SeverityWarning,
					message: `value "error" of "stopReason" added`},
				{check: "ACP-DIFF-022", path: "session/new response result.stopReason", category: Breaking, breaks: BreaksReaders, severity: findings.SeverityWarning,
					message: `"stopReason" now admits any value beyond`},
			},
		},
		{
			name: "an open enum admits the same values as its plain type",
			edit: func(o, _ map[string]any) {
				at(o, "$defs")["Category"] = obj(`{"type":"string"}`)
			},
		},
		{
			name: "a result that admitted any value and now is a union of objects is narrowed, not a variant removed",
			edit: func(o, n map[string]any) {
				at(o, "$defs")["NewSessionResponse"] = obj(`{"x-method":"session/new","x-side":"agent"}`)
				at(n, "$defs")["NewSessionResponse"] = obj(`{"x-method":"session/new","x-side":"agent","anyOf":[
					{"title":"Result","type":"object","properties":{"result":{}},"required":["result"]},
					{"title":"Error","type":"object","properties":{"error":{"type":"object"}},"required":["error"]}]}`)
			},
			want: []want{
				{check: "ACP-DIFF-043", path: "session/new response result", category: Breaking, breaks: BreaksWriters, severity: findings.SeverityError,
					message: "type narrowed from object or array or string or number or boolean to object"},
				{check: "ACP-DIFF-041", path: "session/new response result", category: Breaking, breaks: BreaksWriters, severity: findings.SeverityError},
			},
		},
		{
			// Issue 15, item 3: zed 0.1.2 had no result type for
			// authenticate, session/load and fs/write_text_file (null);
			// 0.3.1 made them objects.
			name: "a null result that became an object breaks old writers",
			edit: func(o, _ map[string]any) { delete(at(o, "$defs"), "NewSessionResponse") },
			want: []want{{check: "ACP-DIFF-041", path: "session/new response result", category: Breaking, breaks: BreaksWriters, severity: findings.SeverityError,
				message: "the result was null (the old schema defines no result type for session/new) and is now object: old agents that answer null are rejected by new clients"}},
		},
		{
			name: "an object result that became null breaks old readers",
			edit: func(_, n map[string]any) { delete(at(n, "$defs"), "NewSessionResponse") },
			want: []want{{check: "ACP-DIFF-040", path: "session/new response result", category: Breaking, breaks: BreaksReaders, severity: findings.SeverityError,
				message: "the result is null now"}},
		},
		{
			name: "a result type without x-method is still the result type",
			edit: func(o, _ map[string]any) { delete(at(o, "$defs/NewSessionResponse"), "x-method") },
		},
		{
			// Issue 15, item 3: the error-code enum was not compared at all
			// (-32042, marked UNSTABLE, removed in sdk 1.3.0; -32800 lost
			// its marker at the same time).
			name: "the error object's code enum is compared, each value on its own surface",
			edit: func(o, n map[string]any) {
				for _, doc := range []map[string]any{o, n} {
					at(doc, "$defs")["Error"] = obj(`{"type":"object","properties":{"code":{"$ref":"#/$defs/ErrorCode"},"message":{"type":"string"}},"required":["code","message"]}`)
				}
				at(o, "$defs")["ErrorCode"] = obj(`{"anyOf":[
					{"type":"integer","const":-32602},
					{"type":"integer","const":-32800,"description":"**UNSTABLE** Request cancelled"},
					{"type":"integer","const":-32042,"description":"**UNSTABLE** URL elicitation required"},
					{"title":"Other","type":"integer"}]}`)
				at(n, "$defs")["ErrorCode"] = obj(`{"anyOf":[
					{"type":"integer","const":-32602},
					{"type":"integer","const":-32800,"description":"Request cancelled"},
					{"title":"Other","type":"integer"}]}`)
				at(n, "$defs")["Unused"] = obj(`{"description":"**UNSTABLE** keeps the new file a superset"}`)
			},
			want: []want{
				{check: "ACP-DIFF-021", path: "error.code", category: Unclassified, severity: findings.SeverityWarning, surface: Unstable,
					message: "value -32042 is no longer listed"},
				{check: "ACP-DIFF-004", path: "error.code", category: NonBreaking, severity: findings.SeverityInfo,
					message: "value -32800 is now part of the stable surface"},
			},
		},
		{
			// Issue 15, item 3: model_config was added to the open category
			// enum as an UNSTABLE value (sdk 0.29.0) and stabilized later.
			name: "an enum value marked UNSTABLE is added on the unstable surface",
			edit: func(o, n map[string]any) {
				at(o, "$defs")["Unused"] = obj(`{"description":"**UNSTABLE** keeps the old file a superset"}`)
				at(n, "$defs")["Unused"] = obj(`{"x-unstable":true}`)
				at(n, "$defs/Category")["anyOf"] = append(oneOf(n, "$defs/Category"), obj(`{"type":"string","const":"model_config","description":"**UNSTABLE**"}`))
			},
			want: []want{{check: "ACP-DIFF-020", path: "session/new response result.category", category: NonBreaking, severity: findings.SeverityInfo, surface: Unstable,
				message: `value "model_config" added`}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, n := base(), base()
			tc.edit(o, n)
			res := Diff(load(t, "old.json", o), load(t, "new.json", n))
			got := map[string]Change{}
			for _, c := range res.Changes {
				got[c.CheckID+" "+where(&c)] = c
			}
			for _, w := range tc.want {
				c, ok := got[w.check+" "+w.path]
				if !ok {
					t.Errorf("missing %s at %s; got:\n%s", w.check, w.path, dump(res.Changes))
					continue
				}
				delete(got, w.check+" "+w.path)
				surface := w.surface
				if surface == "" {
					surface = Stable
				}
				if c.Category != w.category || c.Breaks != w.breaks || c.Severity != w.severity || c.Surface != surface {
					t.Errorf("%s at %s: got %s/%q/%s/%s; want %s/%q/%s/%s", w.check, w.path,
						c.Category, c.Breaks, c.Severity, c.Surface, w.category, w.breaks, w.severity, surface)
				}
				if !strings.Contains(c.Message, w.message) {
					t.Errorf("%s at %s: message %q lacks %q", w.check, w.path, c.Message, w.message)
				}
			}
			for k := range got {
				t.Errorf("unexpected change %s: %s", k, got[k].Message)
			}
		})
	}
}

func dump(cs []Change) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "\t%s %s [%s %s %s %s] %s\n", c.CheckID, where(&c), c.Category, c.Breaks, c.Severity, c.Surface, c.Message)
	}
	return b.String()
}

// TestSharedDefinitionGroups checks that a change to a definition used by
// several messages is one change listing the other places.
func TestSharedDefinitionGroups(t *testing.T) {
	o, n := base(), base()
	at(n, "$defs/SessionId")["type"] = "integer"
	res := Diff(load(t, "old.json", o), load(t, "new.json", n))
	var found []Change
	for _, c := range res.Changes {
		if c.CheckID == "ACP-DIFF-044" {
			found = append(found, c)
		}
	}
	// The session/new result and the session/update params both carry a
	// SessionId that agents write and clients read: one change, one more
	// occurrence.
	if len(found) != 1 || len(found[0].Also) != 1 {
		t.Fatalf("got %d changes (%s); want one with one more occurrence", len(found), dump(found))
	}
	if found[0].New.Pointer != "/$defs/SessionId/type" || found[0].Old.Pointer != "/$defs/SessionId/type" {
		t.Errorf("pointers %q, %q; want /$defs/SessionId/type in both", found[0].Old.Pointer, found[0].New.Pointer)
	}
}

// TestPointersAndLines checks that every change points into both files
// with pointers that resolve, and at the line of that member.
func TestPointersAndLines(t *testing.T) {
	o, n := base(), base()
	at(n, "$defs/NewSessionRequest/properties")["mode"] = obj(`{"type":"string"}`)
	at(n, "$defs/NewSessionRequest")["required"] = []any{"cwd", "mcpServers", "mode"}
	old, new := load(t, "old.json", o), load(t, "new.json", n)
	res := Diff(old, new)
	if len(res.Changes) != 1 {
		t.Fatalf("got %s", dump(res.Changes))
	}
	c := res.Changes[0]
	if c.New.Pointer != "/$defs/NewSessionRequest/properties/mode" || c.Old.Pointer != "/$defs/NewSessionRequest/properties" {
		t.Fatalf("pointers old %q new %q", c.Old.Pointer, c.New.Pointer)
	}
	lines := strings.Split(string(new.Raw), "\n")
	if c.New.Line < 1 || !strings.Contains(lines[c.New.Line-1], `"mode"`) {
		t.Errorf("new line %d is %q; want the line of \"mode\"", c.New.Line, lines[max(c.New.Line-1, 0)])
	}
	oldLines := strings.Split(string(old.Raw), "\n")
	if c.Old.Line < 1 || !strings.Contains(oldLines[c.Old.Line-1], `"properties"`) {
		t.Errorf("old line %d is %q; want the line of \"properties\"", c.Old.Line, oldLines[max(c.Old.Line-1, 0)])
	}
}

// TestSurfaceMismatch checks that an unstable superset compared with a
// stable file reports the stable surface only, and says so.
func TestSurfaceMismatch(t *testing.T) {
	o, n := base(), base()
	at(o, "$defs")["ForkSessionRequest"] = obj(`{"x-method":"session/fork","x-side":"agent","description":"**UNSTABLE**","type":"object"}`)
	at(n, "$defs/NewSessionRequest/properties")["mode"] = obj(`{"type":"string"}`)
	res := Diff(load(t, "old.json", o), load(t, "new.json", n))
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "only the stable surface is compared") {
		t.Errorf("notes %q", res.Notes)
	}
	for _, c := range res.Changes {
		if c.Surface != Stable || c.Method == "session/fork" {
			t.Errorf("unexpected change %s %s on the %s surface", c.CheckID, where(&c), c.Surface)
		}
	}
	if len(res.Changes) != 1 {
		t.Errorf("got %s; want the optional member only", dump(res.Changes))
	}
}

// TestCrossVersion checks that a v1 and a v2 schema are told apart by
// their method names, and that files of one major version pass.
func TestCrossVersion(t *testing.T) {
	v1, v2 := base(), base()
	at(v1, "$defs")["AuthenticateRequest"] = obj(`{"x-method":"authenticate","x-side":"agent","type":"object"}`)
	at(v2, "$defs")["LoginRequest"] = obj(`{"x-method":"auth/login","x-side":"agent","type":"object"}`)
	one, two := load(t, "v1.json", v1), load(t, "v2.json", v2)
	if err := CrossVersion(one, two); err == nil || !strings.Contains(err.Error(), "v1.json describes protocol v1") || !strings.Contains(err.Error(), "v2.json protocol v2") {
		t.Errorf("v1 against v2: %v; want a refusal naming both versions", err)
	}
	if err := CrossVersion(one, one); err != nil {
		t.Errorf("v1 against v1: %v", err)
	}
	if err := CrossVersion(load(t, "plain.json", base()), two); err != nil {
		t.Errorf("a file that names no version against v2: %v; want no refusal", err)
	}
}

// TestSameChangeAtManyPlacesIsOneReport: the same change made to several
// definitions (upstream typed every _meta at once) is one change with its
// places listed, also when clients write some of them and agents others.
func TestSameChangeAtManyPlacesIsOneReport(t *testing.T) {
	o, n := base(), base()
	at(o, "$defs/NewSessionRequest/properties")["_meta"] = obj(`{}`)
	at(o, "$defs/SessionNotification/properties")["_meta"] = obj(`{}`)
	at(n, "$defs/SessionNotification/properties")["_meta"] = obj(`{"type":["object","null"]}`)
	res := Diff(load(t, "old.json", o), load(t, "new.json", n))
	if len(res.Changes) != 1 {
		t.Fatalf("got %d changes; want one:\n%s", len(res.Changes), dump(res.Changes))
	}
	c := res.Changes[0]
	if c.CheckID != "ACP-DIFF-043" || len(c.Also) != 1 || where(&c) != "session/new request params._meta" || placeText(c.Also[0]) != "session/update notification params._meta" {
		t.Fatalf("got %s also %v", dump(res.Changes), c.Also)
	}
	if c.Reader != schemamodel.SideEither || c.Writer != schemamodel.SideEither || !strings.Contains(c.Message, "old peers that send the rest are rejected by new peers") {
		t.Errorf("places written by clients and by agents: sides %s/%s, message %q; want either side, peers", c.Reader, c.Writer, c.Message)
	}
	if c.Also[0].Writer != schemamodel.SideAgent || c.Also[0].New.Pointer != "/$defs/SessionNotification/properties/_meta/type" || c.Also[0].New.Line == 0 {
		t.Errorf("place %+v; want the agent-written notification's _meta type, with its line", c.Also[0])
	}
}
