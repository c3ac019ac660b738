package schemadiff

import (
	"strings"
	"testing"

	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/schemamodel"
)

// The published schemas of @agentclientprotocol/sdk (testdata/PROVENANCE.md).
// 0.14.1 and 1.0.0 ship the unstable superset as schema/schema.json; 2.4.0
// ships schema/v1/schema.json (stable) and schema.unstable.json, which are
// byte for byte the reference files acplint embeds.
const (
	sdk0141         = "testdata/npm/0.14.1/schema/schema.json"
	sdk100          = "testdata/npm/1.0.0/schema/schema.json"
	sdk240Stable    = "../internal/reference/acp-schema.json"
	sdk240Unstable  = "../internal/reference/acp-schema.unstable.json"
	paramsOfSession = "session/new request"
)

func loadFile(t *testing.T, name string) *schemamodel.Schema {
	t.Helper()
	s, err := schemamodel.LoadFile(name, schemamodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func diffFiles(t *testing.T, old, new string) *Result {
	t.Helper()
	return Diff(loadFile(t, old), loadFile(t, new))
}

// expect is a change the history must contain. where matches the primary
// place of the change or one of its further occurrences.
type expect struct {
	check    string
	where    string
	surface  Surface
	category Category
	breaks   Breaks
	severity findings.Severity
}

func (e expect) String() string {
	return e.check + " " + e.where + " [" + string(e.surface) + "]"
}

func findChange(res *Result, e expect) *Change {
	for i := range res.Changes {
		c := &res.Changes[i]
		if c.CheckID != e.check || c.Surface != e.surface {
			continue
		}
		if where(c) == e.where {
			return c
		}
		for _, o := range c.Also {
			if strings.TrimSpace(o.Method+" "+string(o.Kind)+" "+o.Path) == e.where {
				return c
			}
		}
	}
	return nil
}

func checkHistory(t *testing.T, res *Result, want []expect) {
	t.Helper()
	for _, e := range want {
		c := findChange(res, e)
		if c == nil {
			t.Errorf("not found: %s", e)
			continue
		}
		if c.Category != e.category || c.Breaks != e.breaks || c.Severity != e.severity {
			t.Errorf("%s: classified %s/%q/%s; want %s/%q/%s (%s)", e, c.Category, c.Breaks, c.Severity, e.category, e.breaks, e.severity, c.Message)
		}
	}
}

// renamed expects a required member renamed from old to new at path: the
// diff shows the old name removed (breaking old readers) and the new one
// added as required (breaking old writers).
func renamed(surface Surface, msg, path, old, new string) []expect {
	return []expect{
		{check: "ACP-DIFF-012", where: msg + " " + path + "." + old, surface: surface, category: Breaking, breaks: BreaksReaders, severity: findings.SeverityError},
		{check: "ACP-DIFF-010", where: msg + " " + path + "." + new, surface: surface, category: Breaking, breaks: BreaksWriters, severity: findings.SeverityError},
	}
}

func removedMethod(surface Surface, where string) expect {
	return expect{check: "ACP-DIFF-001", where: where, surface: surface, category: Breaking, breaks: BreaksBoth, severity: findings.SeverityError}
}

func addedMethod(surface Surface, where string) expect {
	return expect{check: "ACP-DIFF-002", where: where, surface: surface, category: NonBreaking, severity: findings.SeverityInfo}
}

func stabilized(where string) expect {
	return expect{check: "ACP-DIFF-004", where: where, surface: Stable, category: NonBreaking, severity: findings.SeverityInfo}
}

func variantAdded(surface Surface, where string) expect {
	return expect{check: "ACP-DIFF-030", where: where, surface: surface, category: Breaking, breaks: BreaksReaders, severity: findings.SeverityWarning}
}

// TestHistory0141To100 checks the documented changes from SDK 0.14.1
// (schema v0.10.8, Feb 2026) to 1.0.0 (schema-v1.16.0): acp-spec.md §f.3b.
func TestHistory0141To100(t *testing.T) {
	res := diffFiles(t, sdk0141, sdk100)
	want := []expect{
		// session/set_model went away on the unstable surface, and with it
		// the models member of the session results.
		removedMethod(Unstable, "session/set_model request"),
		{check: "ACP-DIFF-012", where: "session/new response result.models", surface: Unstable, category: Unclassified, severity: findings.SeverityWarning},
		{check: "ACP-DIFF-012", where: "session/load response result.models", surface: Unstable, category: Unclassified, severity: findings.SeverityWarning},
		// session/list and session/resume became stable, and so did the
		// usage_update variant of session/update.
		stabilized("session/list request"),
		stabilized("session/resume request"),
		stabilized(`session/update notification params.update<sessionUpdate="usage_update">`),
		// session/set_config_option gained the boolean variant beside
		// the string value: wire-compatible for the old string values.
		variantAdded(Stable, `session/set_config_option request params<type="boolean">`),
		// New methods: stable logout, close and delete; unstable
		// providers, NES and document notifications.
		addedMethod(Stable, "logout request"),
		addedMethod(Stable, "session/close request"),
		addedMethod(Stable, "session/delete request"),
		addedMethod(Unstable, "providers/set request"),
		addedMethod(Unstable, "nes/start request"),
		addedMethod(Unstable, "document/didOpen notification"),
		addedMethod(Unstable, "mcp/connect request"),
		// New unstable variants: the ACP MCP transport, plan updates,
		// the env_var and terminal auth methods.
		variantAdded(Unstable, paramsOfSession+` params.mcpServers[]<type="acp">`),
		variantAdded(Unstable, `session/update notification params.update<sessionUpdate="plan_update">`),
		variantAdded(Unstable, `session/update notification params.update<sessionUpdate="plan_removed">`),
		variantAdded(Unstable, `initialize response result.authMethods[]<type="env_var">`),
		variantAdded(Unstable, `initialize response result.authMethods[]<type="terminal">`),
		{check: "ACP-DIFF-011", where: paramsOfSession + " params.additionalDirectories", surface: Stable, category: NonBreaking, severity: findings.SeverityInfo},
	}
	checkHistory(t, res, want)
	noStableErrors(t, res)
}

// TestHistory100To240Unstable checks the breaking changes of the unstable
// surface from SDK 1.0.0 to 2.4.0 (acp-spec.md §f.3): the ID renames, the
// removed methods and capabilities, and what became stable.
func TestHistory100To240Unstable(t *testing.T) {
	res := diffFiles(t, sdk100, sdk240Unstable)
	if len(res.Notes) != 0 {
		t.Errorf("two supersets need no note; got %q", res.Notes)
	}
	var want []expect
	want = append(want, renamed(Unstable, "providers/set request", "params", "id", "providerId")...)
	want = append(want, renamed(Unstable, "providers/disable request", "params", "id", "providerId")...)
	want = append(want, renamed(Unstable, "providers/list response", "result.providers[]", "id", "providerId")...)
	want = append(want, renamed(Unstable, paramsOfSession, `params.mcpServers[]<type="acp">`, "id", "serverId")...)
	want = append(want, renamed(Unstable, "session/update notification", `params.update<sessionUpdate="plan_removed">`, "id", "planId")...)
	want = append(want, renamed(Unstable, "session/update notification", `params.update<sessionUpdate="plan_update">.plan<type="items">`, "id", "planId")...)
	want = append(want, renamed(Unstable, "mcp/message request", "params", "connectionId", "serverId")...)
	want = append(want, expect{check: "ACP-DIFF-010", where: "mcp/message request params.requestId", surface: Unstable, category: Breaking, breaks: BreaksWriters, severity: findings.SeverityError})
	for _, m := range []string{"mcp/connect request", "mcp/disconnect request", "nes/start request", "nes/suggest request", "nes/close request",
		"nes/accept notification", "nes/reject notification", "document/didOpen notification", "document/didChange notification",
		"document/didClose notification", "document/didSave notification", "document/didFocus notification"} {
		want = append(want, removedMethod(Unstable, m))
	}
	for _, p := range []string{"initialize request params.clientCapabilities.nes", "initialize request params.clientCapabilities.positionEncodings",
		"initialize response result.agentCapabilities.nes", "initialize response result.agentCapabilities.positionEncoding"} {
		want = append(want, expect{check: "ACP-DIFF-012", where: p, surface: Unstable, category: Unclassified, severity: findings.SeverityWarning})
	}
	want = append(want,
		expect{check: "ACP-DIFF-031", where: `initialize response result.authMethods[]<type="env_var">`, surface: Unstable, category: Breaking, breaks: BreaksWriters, severity: findings.SeverityError},
		expect{check: "ACP-DIFF-003", where: "mcp/message request", surface: Unstable, category: Breaking, breaks: BreaksBoth, severity: findings.SeverityError},
	)
	for _, m := range []string{"auth/status request", "auth/status_update notification", "session/archive request", "session/unarchive request",
		"session/status request", "session/set_title request", "proxy/initialize request", "proxy/successor request"} {
		want = append(want, addedMethod(Unstable, m))
	}
	for _, v := range []string{"notice", "compaction_update", "compaction_summary_chunk"} {
		want = append(want, variantAdded(Stable, `session/update notification params.update<sessionUpdate="`+v+`">`))
	}
	for _, v := range []string{"subagent_update", "session_message", "session_message_chunk"} {
		want = append(want, variantAdded(Unstable, `session/update notification params.update<sessionUpdate="`+v+`">`))
	}
	want = append(want,
		stabilized("elicitation/create request"),
		stabilized("elicitation/complete notification"),
		stabilized("$/cancel_request notification"),
		stabilized(`initialize response result.authMethods[]<type="terminal">`),
	)
	checkHistory(t, res, want)
	noStableErrors(t, res)
}

// TestHistory100To240Stable compares the 1.0.0 superset with the 2.4.0
// stable file: only the stable surface, with a note saying so.
func TestHistory100To240Stable(t *testing.T) {
	res := diffFiles(t, sdk100, sdk240Stable)
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "only the stable surface") {
		t.Errorf("notes %q; want the surface note", res.Notes)
	}
	for _, c := range res.Changes {
		if c.Surface != Stable {
			t.Errorf("unstable change reported: %s %s", c.CheckID, where(&c))
		}
	}
	checkHistory(t, res, []expect{
		variantAdded(Stable, `session/update notification params.update<sessionUpdate="notice">`),
		{check: "ACP-DIFF-011", where: `session/update notification params.update<sessionUpdate="tool_call">.name`, surface: Stable, category: NonBreaking, severity: findings.SeverityInfo},
		// mcpServers: null now reads as [] in reference agents.
		{check: "ACP-DIFF-050", where: paramsOfSession + " params.mcpServers", surface: Stable, category: NonBreaking, severity: findings.SeverityInfo},
		stabilized("elicitation/create request"),
	})
	noStableErrors(t, res)
}

// noStableErrors holds the diff to acp-spec.md §f.3b's take-away: on the
// stable surface these releases only grew (no removal, no new required
// member), so nothing on it fails the default gate.
func noStableErrors(t *testing.T, res *Result) {
	t.Helper()
	for _, c := range res.Changes {
		if c.Surface == Stable && c.Severity == findings.SeverityError {
			t.Errorf("stable change at error severity: %s %s: %s", c.CheckID, where(&c), c.Message)
		}
	}
}

// TestHistoryInvariants pins two facts the field reports rest on,
// which are not changes between these three files: mcpServers is required
// in session/new params in all of them (old clients that omit it were
// already wrong at 0.14.1), and usage_update.used is a non-null integer in
// all of them (a used: null is rejected by every version; the newer SDK that
// rejected it only enforced what the schema always said).
func TestHistoryInvariants(t *testing.T) {
	for _, file := range []string{sdk0141, sdk100, sdk240Stable, sdk240Unstable} {
		s := loadFile(t, file)
		newSession := s.Message("session/new", schemamodel.KindRequest)
		if p := newSession.Shape.PropNamed("mcpServers"); p == nil || !p.Required {
			t.Errorf("%s: session/new mcpServers is not required", file)
		}
		update := s.Message("session/update", schemamodel.KindNotification).Shape.PropNamed("update").Shape
		var used *schemamodel.Prop
		for _, v := range update.Variants {
			if v.TagValue == `"usage_update"` {
				used = v.Shape.PropNamed("used")
			}
		}
		switch {
		case used == nil:
			t.Errorf("%s: no usage_update variant with used", file)
		case !used.Required || used.Shape.Types&schemamodel.TypeNull != 0 || used.Shape.Types&schemamodel.TypeInteger == 0:
			t.Errorf("%s: usage_update.used is %s (required %v); want a required non-null integer", file, used.Shape.Types, used.Required)
		}
	}
}

// TestSameSchemaNoChanges: a schema compared with itself has no change.
func TestSameSchemaNoChanges(t *testing.T) {
	for _, file := range []string{sdk0141, sdk100, sdk240Unstable} {
		if res := diffFiles(t, file, file); len(res.Changes) != 0 {
			t.Errorf("%s against itself: %s", file, dump(res.Changes))
		}
	}
}

// TestHistory160To190StopReason is issue 15's false error: sdk 1.9.0
// restructured the subagent idle state's stopReason (a closed enum in
// 1.6.0) into object variants tagged by it, with a catch-all. Every old
// value still validates: no error, no old value reported as added; the
// new value "error" and the catch-all are what old clients may not read.
func TestHistory160To190StopReason(t *testing.T) {
	res := diffFiles(t, "testdata/npm/1.6.0/schema/schema.json", "testdata/npm/1.9.0/schema/schema.json")
	const idle = `session/update notification params.update<sessionUpdate="subagent_update">.state<state="idle">`
	for _, c := range res.Changes {
		if c.Severity == findings.SeverityError && strings.HasPrefix(where(&c), idle) {
			t.Errorf("false error: %s %s: %s", c.CheckID, where(&c), c.Message)
		}
		for _, v := range []string{"end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"} {
			if strings.Contains(c.Message, `"`+v+`"`) && strings.Contains(c.Message, "added") {
				t.Errorf("old value %s reported as added: %s %s: %s", v, c.CheckID, where(&c), c.Message)
			}
		}
	}
	checkHistory(t, res, []expect{
		{check: "ACP-DIFF-020", where: idle + ".stopReason", surface: Unstable, category: Breaking, breaks: BreaksReaders, severity: findings.SeverityWarning},
		{check: "ACP-DIFF-022", where: idle + ".stopReason", surface: Unstable, category: Breaking, breaks: BreaksReaders, severity: findings.SeverityWarning},
	})
}

// TestHistoryOneReportPerChange is issue 15's noise: sdk 0.7.0 typed every
// _meta as an object (reported 76 times), 0.29.0 added deserialization
// hints to some 92 members (92 reports). Each is now one report per
// classification, listing its places.
func TestHistoryOneReportPerChange(t *testing.T) {
	res := diffFiles(t, "testdata/npm/0.5.1/schema/schema.json", "testdata/npm/0.7.0/schema/schema.json")
	var meta []Change
	for _, c := range res.Changes {
		if strings.HasSuffix(c.Path, "._meta") {
			meta = append(meta, c)
		}
	}
	// One per surface: _meta of unstable definitions is unstable.
	if len(meta) != 2 || len(meta[0].Also)+len(meta[1].Also) < 75 {
		t.Errorf("_meta typed as an object: %d changes; want 2 (stable, unstable) listing the 76+ places:\n%s", len(meta), dump(meta))
	}
	res = diffFiles(t, "testdata/npm/0.22.0/schema/schema.json", "testdata/npm/0.29.0/schema/schema.json")
	hints, places := 0, 0
	for _, c := range res.Changes {
		if c.CheckID == "ACP-DIFF-050" || c.CheckID == "ACP-DIFF-051" {
			hints++
			places += 1 + len(c.Also)
		}
	}
	if hints > 8 || places < 92 {
		t.Errorf("deserialization hints: %d changes at %d places; want at most 8 changes covering 92+ places", hints, places)
	}
	for _, c := range res.Changes {
		if strings.Contains(where(&c), "<>") {
			t.Errorf("unnamed variant in %s", where(&c))
		}
	}
}
