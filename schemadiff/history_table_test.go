package schemadiff

import (
	"strings"
	"testing"

	"github.com/acplint/acplint/findings"
)

// npmSchema is the schema file a published package version ships
// (testdata/PROVENANCE.md): schema/schema.json before SDK 2.0.0.
func npmSchema(version string) string { return "testdata/npm/" + version + "/schema/schema.json" }

// Helpers for the documented changes of the table below.
func optionalAdded(surface Surface, where string) expect {
	return expect{check: "ACP-DIFF-011", where: where, surface: surface, category: NonBreaking, severity: findings.SeverityInfo}
}

func optionalRemoved(surface Surface, where string) expect {
	return expect{check: "ACP-DIFF-012", where: where, surface: surface, category: Unclassified, severity: findings.SeverityWarning}
}

func nullResultNowObject(where string) expect {
	return expect{check: "ACP-DIFF-041", where: where, surface: Stable, category: Breaking, breaks: BreaksWriters, severity: findings.SeverityError}
}

func closedValueAdded(surface Surface, where string) expect {
	return expect{check: "ACP-DIFF-020", where: where, surface: surface, category: Breaking, breaks: BreaksReaders, severity: findings.SeverityWarning}
}

func openValueAdded(surface Surface, where string) expect {
	return expect{check: "ACP-DIFF-020", where: where, surface: surface, category: NonBreaking, severity: findings.SeverityInfo}
}

func enumOpened(surface Surface, where string) expect {
	return expect{check: "ACP-DIFF-022", where: where, surface: surface, category: Breaking, breaks: BreaksReaders, severity: findings.SeverityWarning}
}

func lenientAdded(surface Surface, where string) expect {
	return expect{check: "ACP-DIFF-050", where: where, surface: surface, category: NonBreaking, severity: findings.SeverityInfo}
}

func lenientRemoved(surface Surface, where string) expect {
	return expect{check: "ACP-DIFF-051", where: where, surface: surface, category: Unclassified, severity: findings.SeverityWarning}
}

// TestHistoryTable is issue 15's acceptance table: every consecutive pair
// of the published history, and for each the changes upstream documents
// between them (its CHANGELOG.md and schema/v1/CHANGELOG.md, the SDK's
// CHANGELOG.md, and acp-spec.md §f.2, §f.3, which compared the files), each
// found on the right surface, with the right side and category. Which
// upstream release an SDK version bundles is known for some (acp-spec.md
// §f.1); for the others the changelog entries are placed by the schema
// content. Where a published file does not mark a change the way the
// changelog names it, the row follows the file and says so.
func TestHistoryTable(t *testing.T) {
	const (
		update = "session/update notification params.update"
		caps   = "initialize response result.agentCapabilities"
		ccaps  = "initialize request params.clientCapabilities"
	)
	pairs := []struct {
		old, new string
		want     []expect
	}{
		{
			// acp-spec.md §f.2 "v0.1.2 → 0.2.0", and issue 15 item 3: the
			// result types that appeared for authenticate, session/load and
			// fs/write_text_file replace a null result.
			old: npmSchema("0.1.2"), new: npmSchema("0.3.1"),
			want: []expect{
				addedMethod(Stable, "terminal/create request"), addedMethod(Stable, "terminal/output request"),
				addedMethod(Stable, "terminal/release request"), addedMethod(Stable, "terminal/wait_for_exit request"),
				addedMethod(Stable, "terminal/kill request"), addedMethod(Stable, "session/set_mode request"),
				optionalAdded(Stable, ccaps+".terminal"),
				variantAdded(Stable, `session/new request params.mcpServers[]<type="http">`),
				variantAdded(Stable, `session/new request params.mcpServers[]<type="sse">`),
				closedValueAdded(Stable, "session/update notification params.update<sessionUpdate=\"tool_call\">.kind"),
				optionalAdded(Stable, "session/new response result.modes"),
				variantAdded(Stable, update+`<sessionUpdate="available_commands_update">`),
				variantAdded(Stable, update+`<sessionUpdate="current_mode_update">`),
				nullResultNowObject("authenticate response result"),
				nullResultNowObject("session/load response result"),
				nullResultNowObject("fs/write_text_file response result"),
			},
		},
		// 0.3.1 → 0.4.5: nothing documented on the wire (the result types
		// of §f.2 "0.2.0 → 0.4.0" are in 0.3.1 already); nothing found.
		{old: npmSchema("0.3.1"), new: npmSchema("0.4.5")},
		{
			// SDK CHANGELOG 0.5.1: implementation information; the
			// SetSessionModeResponse "meta" that should have been "_meta".
			old: npmSchema("0.4.5"), new: npmSchema("0.5.1"),
			want: []expect{
				optionalAdded(Stable, "initialize request params.clientInfo"),
				optionalAdded(Stable, "initialize response result.agentInfo"),
				optionalRemoved(Stable, "session/set_mode response result.meta"),
			},
		},
		{
			// Upstream 0.9.0 "[breaking] Provide clearer schema for _meta
			// properties" (§f.2 "0.8.0 / 0.9.0"); 0.7.0's sessionCapabilities;
			// unstable session/list.
			old: npmSchema("0.5.1"), new: npmSchema("0.7.0"),
			want: []expect{
				{check: "ACP-DIFF-043", where: "initialize response result.agentCapabilities._meta", surface: Stable, category: Breaking, breaks: BreaksWriters, severity: findings.SeverityError},
				{check: "ACP-DIFF-043", where: "session/prompt request params._meta", surface: Stable, category: Breaking, breaks: BreaksWriters, severity: findings.SeverityError},
				optionalAdded(Stable, caps+".sessionCapabilities"),
				addedMethod(Unstable, "session/list request"),
			},
		},
		{
			// Upstream 0.10.0 session/fork, 0.10.1 $/cancel_request, 0.10.2
			// session/resume (SDK 0.8.0–0.10.0), all unstable.
			old: npmSchema("0.7.0"), new: npmSchema("0.10.0"),
			want: []expect{
				addedMethod(Unstable, "session/fork request"),
				addedMethod(Unstable, "$/cancel_request notification"),
				addedMethod(Unstable, "session/resume request"),
				optionalAdded(Unstable, caps+".sessionCapabilities.fork"),
				optionalAdded(Unstable, caps+".sessionCapabilities.resume"),
			},
		},
		{
			// Upstream 0.10.3 session_info_update (the changelog says
			// unstable; the published file does not mark the variant, so
			// it is on the stable surface), 0.10.4 session config options.
			old: npmSchema("0.10.0"), new: npmSchema("0.13.0"),
			want: []expect{
				variantAdded(Stable, update+`<sessionUpdate="session_info_update">`),
				variantAdded(Unstable, update+`<sessionUpdate="config_option_update">`),
				addedMethod(Unstable, "session/set_config_option request"),
				optionalAdded(Unstable, "session/new response result.configOptions"),
			},
		},
		{
			// Upstream 0.10.6–0.11.3: config options and session/list
			// stable (0.10.8, 0.11.1), the open category (0.10.6/7), boolean
			// config options and auth methods (0.11.0/1), usage (0.10.8),
			// message IDs (0.11.0), session/stop → session/close (0.11.1/2),
			// logout (0.11.3), elicitation (0.11.3), the URL elicitation
			// error code.
			old: npmSchema("0.13.0"), new: npmSchema("0.17.0"),
			want: []expect{
				stabilized("session/list request"),
				stabilized("session/set_config_option request"),
				stabilized(update + `<sessionUpdate="config_option_update">`),
				enumOpened(Unstable, "session/new response result.configOptions[].category"),
				variantAdded(Unstable, `session/new response result.configOptions[]<type="boolean">`),
				variantAdded(Unstable, `initialize response result.authMethods[]<type="env_var">`),
				variantAdded(Unstable, `initialize response result.authMethods[]<type="terminal">`),
				variantAdded(Unstable, update+`<sessionUpdate="usage_update">`),
				optionalAdded(Unstable, "session/prompt response result.usage"),
				optionalAdded(Unstable, "session/prompt request params.messageId"),
				addedMethod(Unstable, "session/close request"),
				addedMethod(Unstable, "logout request"),
				addedMethod(Unstable, "session/elicitation request"),
				openValueAdded(Unstable, "error.code"),
			},
		},
		{
			// Upstream 0.11.4–0.13.1: NES and document notifications,
			// additional directories (0.11.4), elicitation moved to
			// elicitation/create (0.11.5/6), providers (0.11.7), resume and
			// close stable (0.12.2), MCP-over-ACP (0.13.0), session/delete
			// (0.13.1).
			old: npmSchema("0.17.0"), new: npmSchema("0.22.0"),
			want: []expect{
				stabilized("session/resume request"),
				stabilized("session/close request"),
				removedMethod(Unstable, "session/elicitation request"),
				addedMethod(Unstable, "elicitation/create request"),
				addedMethod(Unstable, "nes/start request"),
				addedMethod(Unstable, "document/didOpen notification"),
				addedMethod(Unstable, "providers/list request"),
				addedMethod(Unstable, "mcp/connect request"),
				addedMethod(Unstable, "session/delete request"),
				variantAdded(Unstable, `session/new request params.mcpServers[]<type="acp">`),
				optionalAdded(Unstable, "session/new request params.additionalDirectories"),
			},
		},
		{
			// Upstream 0.13.3–schema 1.14.0: logout stable (0.13.3), plan
			// operations (0.13.4), session/set_model removed, lenient
			// deserialization annotated, additionalDirectories stable
			// (0.13.5), session/delete, usage and message IDs stable
			// (0.13.6), model_config as an unstable category (1.14.0).
			old: npmSchema("0.22.0"), new: npmSchema("0.29.0"),
			want: []expect{
				stabilized("logout request"),
				stabilized("session/delete request"),
				stabilized(update + `<sessionUpdate="usage_update">`),
				stabilized(update + `<sessionUpdate="agent_message_chunk">.messageId`),
				stabilized(caps + ".sessionCapabilities.additionalDirectories"),
				removedMethod(Unstable, "session/set_model request"),
				variantAdded(Unstable, update+`<sessionUpdate="plan_update">`),
				variantAdded(Unstable, update+`<sessionUpdate="plan_removed">`),
				lenientAdded(Stable, "initialize request params.clientInfo"),
				openValueAdded(Unstable, "session/new response result.configOptions[].category"),
			},
		},
		{
			// Schema 1.15.0 boolean config option capabilities (unstable),
			// 1.16.0 model_config stable.
			old: npmSchema("0.29.0"), new: npmSchema("1.0.0"),
			want: []expect{
				stabilized("session/new response result.configOptions[].category"),
				optionalAdded(Unstable, ccaps+".session"),
			},
		},
		{
			// Schema 1.17.0 request cancellation stable; 1.18.0 boolean
			// config options stable, URL elicitation error removed, ID
			// naming unified (acp-spec.md §f.3); 1.20.0 tool call name.
			old: npmSchema("1.0.0"), new: npmSchema("1.3.0"),
			want: append(append(append([]expect{
				stabilized("$/cancel_request notification"),
				stabilized("error.code"),
				stabilized(`session/new response result.configOptions[]<type="boolean">`),
				{check: "ACP-DIFF-021", where: "error.code", surface: Unstable, category: Unclassified, severity: findings.SeverityWarning},
				optionalAdded(Unstable, "session/request_permission request params.toolCall.name"),
			}, renamed(Unstable, "providers/set request", "params", "id", "providerId")...),
				renamed(Unstable, "session/new request", `params.mcpServers[]<type="acp">`, "id", "serverId")...),
				renamed(Unstable, "session/update notification", `params.update<sessionUpdate="plan_removed">`, "id", "planId")...),
		},
		{
			// Schema 1.21.0: elicitation and terminal auth stable, session
			// compaction updates (unstable); acp-spec.md §f.3: mcp/connect
			// and mcp/disconnect removed, mcp/message reworked, env_var
			// auth removed, notice and subagent updates.
			old: npmSchema("1.3.0"), new: npmSchema("1.6.0"),
			want: []expect{
				stabilized("elicitation/create request"),
				stabilized("elicitation/complete notification"),
				stabilized(`initialize response result.authMethods[]<type="terminal">`),
				stabilized(ccaps + ".elicitation"),
				variantAdded(Unstable, update+`<sessionUpdate="compaction_update">`),
				variantAdded(Unstable, update+`<sessionUpdate="compaction_summary_chunk">`),
				variantAdded(Unstable, update+`<sessionUpdate="notice">`),
				variantAdded(Unstable, update+`<sessionUpdate="subagent_update">`),
				removedMethod(Unstable, "mcp/connect request"),
				removedMethod(Unstable, "mcp/disconnect request"),
				{check: "ACP-DIFF-003", where: "mcp/message request", surface: Unstable, category: Breaking, breaks: BreaksBoth, severity: findings.SeverityError},
				{check: "ACP-DIFF-031", where: `initialize response result.authMethods[]<type="env_var">`, surface: Unstable, category: Breaking, breaks: BreaksWriters, severity: findings.SeverityError},
			},
		},
		{
			// acp-spec.md §f.2 "1.21.0 → sdk 2.4.0" and §f.3: notices and
			// compaction stable, default-on-error dropped from
			// fs/read_text_file and terminal/create members, NES and
			// document notifications and their capabilities removed,
			// systemPrompt, the ErrorStopReason machinery (issue 15 item 2).
			old: npmSchema("1.6.0"), new: npmSchema("1.9.0"),
			want: []expect{
				stabilized(update + `<sessionUpdate="notice">`),
				stabilized(ccaps + ".session.notices"),
				lenientRemoved(Stable, "fs/read_text_file request params.line"),
				lenientRemoved(Stable, "terminal/create request params.cwd"),
				removedMethod(Unstable, "nes/start request"),
				removedMethod(Unstable, "document/didOpen notification"),
				optionalRemoved(Unstable, ccaps+".nes"),
				optionalRemoved(Unstable, caps+".positionEncoding"),
				optionalAdded(Unstable, "session/new request params.systemPrompt"),
				closedValueAdded(Unstable, update+`<sessionUpdate="subagent_update">.state<state="idle">.stopReason`),
				enumOpened(Unstable, update+`<sessionUpdate="subagent_update">.state<state="idle">.stopReason`),
			},
		},
		// 1.9.0 → 2.0.0: 2.0.0's schema/v1/schema.unstable.json is 1.9.0's
		// schema.json byte for byte (PROVENANCE.md): no change.
		{
			// 2.0.0 → 2.4.0, stable files: §f.2's default-on-null moves.
			old: "testdata/npm/2.0.0/schema/v1/schema.json", new: sdk240Stable,
			want: []expect{
				lenientAdded(Stable, "session/new request params.mcpServers"),
				lenientAdded(Stable, `initialize response result.authMethods[]<type="terminal">.args`),
			},
		},
		{
			// 2.0.0 (= 1.9.0) → 2.4.0, unstable supersets: §f.3's added
			// methods and session/list archived.
			old: npmSchema("1.9.0"), new: sdk240Unstable,
			want: []expect{
				addedMethod(Unstable, "auth/status request"),
				addedMethod(Unstable, "auth/status_update notification"),
				addedMethod(Unstable, "session/archive request"),
				addedMethod(Unstable, "session/unarchive request"),
				addedMethod(Unstable, "session/status request"),
				addedMethod(Unstable, "session/set_title request"),
				addedMethod(Unstable, "proxy/initialize request"),
				addedMethod(Unstable, "proxy/successor request"),
				optionalAdded(Unstable, "session/list request params.archived"),
			},
		},
	}
	for _, p := range pairs {
		name := strings.TrimPrefix(p.old, "testdata/npm/") + " → " + strings.TrimPrefix(p.new, "testdata/npm/")
		t.Run(name, func(t *testing.T) {
			res := diffFiles(t, p.old, p.new)
			if p.want == nil && len(res.Changes) != 0 {
				t.Errorf("nothing documented, yet:\n%s", dump(res.Changes))
			}
			found := 0
			for _, e := range p.want {
				if c := findChange(res, e); c != nil && c.Category == e.category && c.Breaks == e.breaks && c.Severity == e.severity {
					found++
				}
			}
			checkHistory(t, res, p.want)
			t.Logf("%d of %d documented changes found, on the right surface and side; %d changes reported", found, len(p.want), len(res.Changes))
		})
	}
}

// TestHistoryErrorCodeRange: sdk 0.10.0 turned the error code (an int32)
// into an open enum of int32 constants with an int32 catch-all. The range
// of the union is the range of its members: no "range widened".
func TestHistoryErrorCodeRange(t *testing.T) {
	res := diffFiles(t, npmSchema("0.7.0"), npmSchema("0.10.0"))
	for _, c := range res.Changes {
		if strings.HasPrefix(c.Path, "error") {
			t.Errorf("%s %s: %s", c.CheckID, where(&c), c.Message)
		}
	}
}
