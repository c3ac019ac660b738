package agents

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Fixture names one small agent of the kit corpus: the behaviour of one of
// the official conformance kit's v1 fixture agents (acp-tck,
// tests/fixtures/agents/v1/NAME.py, and the earlier top-level fixtures
// for the dead agents), written again in Go. The kit's agents are much
// simpler than the reference agent: a prompt is answered at once with one
// update and end_turn, and there are no tool calls. Each defect fixture is
// the conforming one with one deliberate bug, named as in the kit, so that
// `acplint check` can be held to the kit's verdict on the same behaviour.
type Fixture string

// The conforming fixtures: check must pass them.
const (
	// KitConforming mirrors conforming.py: no capabilities; a prompt gets one
	// update and end_turn at once (the text "__hang__" waits for a cancel).
	KitConforming Fixture = "conforming"
	// KitConformingFull mirrors v1/conforming_full.py: loadSession, every
	// session capability, prompt capabilities, modes, config options (the
	// boolean one only for a client that supports it) and an auth method.
	KitConformingFull Fixture = "conforming_full"
	// KitHangsUntilCancel mirrors v1/hangs_until_cancel.py: every prompt
	// waits for session/cancel and then ends "cancelled".
	KitHangsUntilCancel Fixture = "hangs_until_cancel"
	// KitAsksPermission mirrors v1/asks_permission.py: every prompt asks for
	// permission and ends "cancelled" or end_turn by the outcome.
	KitAsksPermission Fixture = "asks_permission"
	// KitAsksPermissionClosable mirrors v1/asks_permission_closable.py: the
	// same after a pause, with session/close, which ends a waiting prompt
	// "cancelled" (after answering the close).
	KitAsksPermissionClosable Fixture = "asks_permission_closable"
	// KitStderrChatter mirrors v1/stderr_chatter.py: logs every line it
	// reads to stderr.
	KitStderrChatter Fixture = "stderr_chatter"
	// KitPushesStatusNotifications mirrors
	// v1/pushes_status_notifications.py: an unprompted extension
	// notification after initialize and after every notification it reads.
	KitPushesStatusNotifications Fixture = "pushes_status_notifications"
	// KitRejectsSecondInitialize mirrors v1/rejects_second_initialize.py: a
	// repeated initialize gets -32600, which v1 allows.
	KitRejectsSecondInitialize Fixture = "rejects_second_initialize"
	// KitRouterRequiresInfo mirrors v1/router_requires_info.py: a request for
	// any version but 1 is handled as v2, whose initialize requires info.
	KitRouterRequiresInfo Fixture = "router_requires_info"
	// KitSupportsV1AndV2 mirrors v1/supports_v1_and_v2.py: answers 1 to a
	// request for 1 and 2 to any other.
	KitSupportsV1AndV2 Fixture = "supports_v1_and_v2"
	// KitNoisyStderrAndParseErrorReply mirrors
	// v1/noisy_stderr_and_parse_error_reply.py: logs to stderr and answers
	// a line that is not JSON with -32700.
	KitNoisyStderrAndParseErrorReply Fixture = "noisy_stderr_and_parse_error_reply"
)

// The defect fixtures: check must fail each with its defect's rules.
const (
	// KitExitsImmediately mirrors exits_immediately.py: exits 0 without
	// reading anything.
	KitExitsImmediately Fixture = "exits_immediately"
	// KitNeverResponds mirrors never_responds.py: reads stdin, never writes,
	// and does not exit when stdin closes.
	KitNeverResponds Fixture = "never_responds"
	// KitDiesOnBadJSON mirrors v1/dies_on_bad_json.py: answers initialize,
	// ignores every other message and exits on a line that is not JSON.
	KitDiesOnBadJSON Fixture = "dies_on_bad_json"
	// KitWrongIDEcho mirrors v1/wrong_id_echo.py: every response carries
	// the request's id plus one (or with a suffix, for a string id).
	KitWrongIDEcho Fixture = "wrong_id_echo"
	// KitBannerOnStdout mirrors v1/banner_on_stdout.py: a line of text on
	// stdout before the first message.
	KitBannerOnStdout Fixture = "banner_on_stdout"
	// KitInvalidUTF8 mirrors v1/invalid_utf8.py: a line of bytes that are
	// not UTF-8 before the first message.
	KitInvalidUTF8 Fixture = "invalid_utf8"
	// KitGarbageAfterResponse mirrors v1/garbage_after_response.py: a line
	// of text on stdout after stdin closed.
	KitGarbageAfterResponse Fixture = "garbage_after_response"
	// KitEchoesAnyVersion mirrors v1/echoes_any_version.py: answers
	// initialize with whatever version the client asked for.
	KitEchoesAnyVersion Fixture = "echoes_any_version"
	// KitVersionMismatchErrors mirrors v1/version_mismatch_errors.py:
	// refuses initialize with -32602 for any version but 1.
	KitVersionMismatchErrors Fixture = "version_mismatch_errors"
	// KitUnknownMethodNoError mirrors v1/unknown_method_no_error.py: answers
	// every method besides initialize, session/new and session/prompt with
	// an empty result instead of -32601.
	KitUnknownMethodNoError Fixture = "unknown_method_no_error"
	// KitUpdateWrongSession mirrors v1/update_wrong_session.py: its updates
	// name the session "other".
	KitUpdateWrongSession Fixture = "update_wrong_session"
	// KitDuplicateSessionID mirrors v1/duplicate_session_id.py: every
	// session/new returns the same sessionId.
	KitDuplicateSessionID Fixture = "duplicate_session_id"
	// KitCancelReturnsError mirrors v1/cancel_returns_error.py: every prompt
	// waits for session/cancel and then fails with -32800.
	KitCancelReturnsError Fixture = "cancel_returns_error"
	// KitCancelWrongStopReason mirrors v1/cancel_wrong_stop_reason.py: every
	// prompt waits for session/cancel and then, after a pause, ends
	// end_turn.
	KitCancelWrongStopReason Fixture = "cancel_wrong_stop_reason"
	// KitUpdateAfterResponse mirrors update_after_response.py: every prompt
	// waits for session/cancel, ends "cancelled", then sends one more update.
	KitUpdateAfterResponse Fixture = "update_after_response"
	// KitCallsFSUnadvertised mirrors v1/calls_fs_unadvertised.py: every
	// prompt calls fs/read_text_file, whatever the client advertised.
	KitCallsFSUnadvertised Fixture = "calls_fs_unadvertised"
	// KitCallsTerminalUnadvertised mirrors
	// v1/calls_terminal_unadvertised.py: every prompt calls terminal/create.
	KitCallsTerminalUnadvertised Fixture = "calls_terminal_unadvertised"
	// KitCallsElicitationUnadvertised mirrors
	// v1/calls_elicitation_unadvertised.py: every prompt calls
	// elicitation/create.
	KitCallsElicitationUnadvertised Fixture = "calls_elicitation_unadvertised"
	// KitBooleanOptionUnadvertised mirrors v1/boolean_option_unadvertised.py:
	// a boolean config option for every client.
	KitBooleanOptionUnadvertised Fixture = "boolean_option_unadvertised"
	// KitTerminalAuthUnadvertised mirrors v1/terminal_auth_unadvertised.py:
	// a terminal auth method for every client.
	KitTerminalAuthUnadvertised Fixture = "terminal_auth_unadvertised"
	// KitConfigPartialList mirrors v1/config_partial_list.py:
	// session/set_config_option answers with the changed option only.
	KitConfigPartialList Fixture = "config_partial_list"
	// KitModeUpdateUsesModeID mirrors v1/mode_update_uses_modeId.py: the
	// current_mode_update after session/set_mode names the mode modeId.
	KitModeUpdateUsesModeID Fixture = "mode_update_uses_modeId"
	// KitLoadReplaysAfterResponse mirrors
	// v1/load_replays_after_response.py: answers session/load, then
	// replays the history.
	KitLoadReplaysAfterResponse Fixture = "load_replays_after_response"
	// KitLoadReturnsNull mirrors v1/load_returns_null.py: answers
	// session/load with null.
	KitLoadReturnsNull Fixture = "load_returns_null"
	// KitAdvertisesLoadButErrors mirrors v1/advertises_load_but_errors.py:
	// advertises loadSession and answers session/load with -32601.
	KitAdvertisesLoadButErrors Fixture = "advertises_load_but_errors"
	// KitResumeReplaysHistory mirrors v1/resume_replays_history.py: replays
	// the history before answering session/resume.
	KitResumeReplaysHistory Fixture = "resume_replays_history"
	// KitPushesStatusAndAnswersNotifications mirrors
	// v1/pushes_status_and_answers_notifications.py: also answers every
	// notification it reads with a response of id null.
	KitPushesStatusAndAnswersNotifications Fixture = "pushes_status_and_answers_notifications"
)

// Fixtures lists the kit corpus, conforming ones first.
var Fixtures = []Fixture{
	KitConforming, KitConformingFull, KitHangsUntilCancel, KitAsksPermission, KitAsksPermissionClosable,
	KitStderrChatter, KitPushesStatusNotifications, KitRejectsSecondInitialize, KitRouterRequiresInfo,
	KitSupportsV1AndV2, KitNoisyStderrAndParseErrorReply,
	KitExitsImmediately, KitNeverResponds, KitDiesOnBadJSON, KitWrongIDEcho, KitBannerOnStdout,
	KitInvalidUTF8, KitGarbageAfterResponse, KitEchoesAnyVersion, KitVersionMismatchErrors,
	KitUnknownMethodNoError, KitUpdateWrongSession, KitDuplicateSessionID, KitCancelReturnsError,
	KitCancelWrongStopReason, KitUpdateAfterResponse, KitCallsFSUnadvertised, KitCallsTerminalUnadvertised,
	KitCallsElicitationUnadvertised, KitBooleanOptionUnadvertised, KitTerminalAuthUnadvertised,
	KitConfigPartialList, KitModeUpdateUsesModeID, KitLoadReplaysAfterResponse, KitLoadReturnsNull,
	KitAdvertisesLoadButErrors, KitResumeReplaysHistory, KitPushesStatusAndAnswersNotifications,
}

func knownFixture(f Fixture) bool {
	for _, x := range Fixtures {
		if x == f {
			return true
		}
	}
	return false
}

// kitPause is how long the fixtures that pause do so: asks_permission_closable
// before its permission request, cancel_wrong_stop_reason before its wrong
// answer. It is longer than check's default cancel grace, as the kit's
// pauses are longer than its race window.
const kitPause = 300 * time.Millisecond

// kitAgent is one connection of a kit fixture. It reads and answers one
// line at a time, as the kit's agents do: a pause holds up everything.
type kitAgent struct {
	f   Fixture
	out io.Writer
	log io.Writer

	initialized bool
	clientCaps  json.RawMessage
	sessions    map[string]*kitSession
	created     int
	modes       map[string]any
	config      []map[string]any
	// hanging is the prompt that waits for session/cancel, by session.
	hanging map[string]json.RawMessage
	// awaiting are prompts held until the client answers the agent's own
	// request, by that request's id.
	awaiting map[string]*kitHeldPrompt
	nextReq  int
}

type kitSession struct {
	cwd     string
	history []json.RawMessage // params of the updates sent, replayed by load
}

type kitHeldPrompt struct {
	prompt     json.RawMessage
	session    string
	permission bool
	// cancelled: a session/cancel came while the prompt was held.
	cancelled bool
}

// RunFixture runs kit fixture f on stdin and stdout until stdin closes and
// returns the exit status.
func RunFixture(f Fixture, in io.Reader, out, log io.Writer) int {
	k := &kitAgent{f: f, out: out, log: log, sessions: map[string]*kitSession{}, hanging: map[string]json.RawMessage{}, awaiting: map[string]*kitHeldPrompt{}}
	k.setUp()
	switch f {
	case KitExitsImmediately:
		return 0
	case KitBannerOnStdout:
		k.raw([]byte("Hello from a fixture agent that prints a banner first\n"))
	case KitInvalidUTF8:
		k.raw([]byte("\xff\xfe these bytes are not UTF-8\n"))
	}
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if trimmed := bytes.TrimRight(line, "\r\n"); len(trimmed) > 0 {
			if code, stop := k.handle(trimmed); stop {
				return code
			}
		}
		if err != nil {
			break
		}
	}
	switch f {
	case KitNeverResponds:
		for {
			time.Sleep(time.Hour) // only a signal ends it
		}
	case KitGarbageAfterResponse:
		k.raw([]byte("goodbye, written after stdin closed\n"))
	}
	return 0
}

// setUp gives the fixture its capabilities and session data.
func (k *kitAgent) setUp() {
	switch k.f {
	case KitConformingFull:
		k.modes = kitModes()
		k.config = []map[string]any{kitSelectOption("model", "Model", "fast", "slow"), kitBooleanOption()}
	case KitModeUpdateUsesModeID:
		k.modes = kitModes()
	case KitBooleanOptionUnadvertised:
		k.config = []map[string]any{kitBooleanOption()}
	case KitConfigPartialList:
		k.config = []map[string]any{kitSelectOption("model", "Model", "fast", "slow"), kitSelectOption("theme", "Theme", "light", "dark")}
	}
}

func kitModes() map[string]any {
	return map[string]any{
		"currentModeId": "default",
		"availableModes": []any{
			map[string]any{"id": "default", "name": "Default"},
			map[string]any{"id": "yolo", "name": "YOLO"},
		},
	}
}

func kitSelectOption(id, name, value, other string) map[string]any {
	return map[string]any{"id": id, "name": name, "type": "select", "currentValue": value, "options": []any{
		map[string]any{"value": value, "name": strings.ToUpper(value[:1]) + value[1:]},
		map[string]any{"value": other, "name": strings.ToUpper(other[:1]) + other[1:]},
	}}
}

func kitBooleanOption() map[string]any {
	return map[string]any{"id": "verbose", "name": "Verbose", "type": "boolean", "currentValue": false}
}

func (k *kitAgent) capabilities() map[string]any {
	switch k.f {
	case KitConformingFull:
		return map[string]any{
			"loadSession":         true,
			"sessionCapabilities": map[string]any{"list": map[string]any{}, "delete": map[string]any{}, "resume": map[string]any{}, "close": map[string]any{}, "additionalDirectories": map[string]any{}},
			"promptCapabilities":  map[string]any{"image": true, "audio": true, "embeddedContext": true},
			"auth":                map[string]any{"logout": map[string]any{}},
		}
	case KitAsksPermissionClosable:
		return map[string]any{"sessionCapabilities": map[string]any{"close": map[string]any{}}}
	case KitLoadReplaysAfterResponse, KitLoadReturnsNull, KitAdvertisesLoadButErrors:
		return map[string]any{"loadSession": true}
	case KitResumeReplaysHistory:
		return map[string]any{"sessionCapabilities": map[string]any{"resume": map[string]any{}}}
	}
	return map[string]any{}
}

func (k *kitAgent) authMethods() []any {
	switch k.f {
	case KitConformingFull:
		return []any{map[string]any{"id": "fixture", "name": "Fixture login", "description": nil}}
	case KitTerminalAuthUnadvertised:
		return []any{map[string]any{"id": "term", "name": "Terminal login", "type": "terminal"}}
	}
	return nil
}

type kitMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
}

// handle answers one line; stop ends the agent with code.
func (k *kitAgent) handle(line []byte) (code int, stop bool) {
	if k.f == KitStderrChatter || k.f == KitNoisyStderrAndParseErrorReply {
		fmt.Fprintf(k.log, "fixture read: %s\n", line)
	}
	if k.f == KitNeverResponds {
		return 0, false
	}
	var m kitMessage
	if err := json.Unmarshal(line, &m); err != nil {
		switch k.f {
		case KitDiesOnBadJSON:
			return 1, true
		case KitNoisyStderrAndParseErrorReply:
			k.send(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32700, "message": "Parse error"}})
		}
		return 0, false
	}
	hasID := len(m.ID) > 0
	switch {
	case k.f == KitDiesOnBadJSON:
		if m.Method == "initialize" && hasID {
			k.reply(m.ID, map[string]any{"protocolVersion": 1, "agentCapabilities": map[string]any{}, "agentInfo": k.info()})
		}
	case m.Method == "":
		k.clientAnswered(m)
	case hasID:
		k.request(m)
	default:
		k.notification(m)
	}
	return 0, false
}

func (k *kitAgent) info() map[string]any {
	return map[string]any{"name": "acplint-kit-fixture-" + string(k.f), "version": "0.0.0"}
}

func (k *kitAgent) request(m kitMessage) {
	if k.f == KitUnknownMethodNoError {
		switch m.Method {
		case "initialize", "session/new", "session/prompt":
		default:
			k.reply(m.ID, map[string]any{})
			return
		}
	}
	switch m.Method {
	case "initialize":
		k.initialize(m)
	case "session/new":
		k.newSession(m)
	case "session/prompt":
		k.prompt(m)
	case "session/load":
		k.load(m)
	case "session/resume":
		k.resume(m)
	case "session/list":
		k.list(m)
	case "session/delete":
		delete(k.sessions, kitSessionID(m.Params))
		k.reply(m.ID, map[string]any{})
	case "session/close":
		k.closeSession(m)
	case "session/set_mode":
		k.setMode(m)
	case "session/set_config_option":
		k.setConfigOption(m)
	case "authenticate":
		var p struct {
			MethodID string `json:"methodId"`
		}
		_ = json.Unmarshal(m.Params, &p)
		for _, a := range k.authMethods() {
			if a.(map[string]any)["id"] == p.MethodID {
				k.reply(m.ID, map[string]any{})
				return
			}
		}
		k.fail(m.ID, -32602, "Invalid params: unknown methodId")
	case "logout":
		k.reply(m.ID, map[string]any{})
	default:
		k.fail(m.ID, -32601, "Method not found")
	}
}

func (k *kitAgent) initialize(m kitMessage) {
	var p struct {
		ProtocolVersion    json.RawMessage `json:"protocolVersion"`
		ClientCapabilities json.RawMessage `json:"clientCapabilities"`
		Info               *struct {
			Name    *string `json:"name"`
			Version *string `json:"version"`
		} `json:"info"`
	}
	_ = json.Unmarshal(m.Params, &p)
	asked := strings.TrimSpace(string(p.ProtocolVersion))
	if k.f == KitRejectsSecondInitialize && k.initialized {
		k.fail(m.ID, -32600, "already initialized")
		return
	}
	k.initialized = true
	k.clientCaps = p.ClientCapabilities
	result := map[string]any{"protocolVersion": 1, "agentCapabilities": k.capabilities(), "agentInfo": k.info()}
	if am := k.authMethods(); am != nil {
		result["authMethods"] = am
	}
	switch k.f {
	case KitEchoesAnyVersion:
		result["protocolVersion"] = json.RawMessage(asked)
		result["agentCapabilities"] = map[string]any{}
	case KitVersionMismatchErrors:
		if asked != "1" {
			k.fail(m.ID, -32602, "Unsupported protocol version")
			return
		}
	case KitSupportsV1AndV2:
		if asked != "1" {
			result["protocolVersion"] = 2
		}
	case KitRouterRequiresInfo:
		if asked != "1" {
			switch {
			case p.Info == nil:
				k.fail(m.ID, -32602, "Invalid params: info is required")
				return
			case p.Info.Name == nil || p.Info.Version == nil:
				k.fail(m.ID, -32602, "Invalid params: info.name and info.version are required")
				return
			}
			result["protocolVersion"] = 2
		}
	}
	k.reply(m.ID, result)
	if k.pushesStatus() {
		k.pushStatus()
	}
}

func (k *kitAgent) pushesStatus() bool {
	return k.f == KitPushesStatusNotifications || k.f == KitPushesStatusAndAnswersNotifications
}

func (k *kitAgent) pushStatus() {
	k.send(map[string]any{"jsonrpc": "2.0", "method": "_fixture/status", "params": map[string]any{"status": "ready"}})
}

// clientSupportsBooleanOptions reports whether initialize advertised
// clientCapabilities.session.configOptions.boolean.
func (k *kitAgent) clientSupportsBooleanOptions() bool {
	var c struct {
		Session struct {
			ConfigOptions struct {
				Boolean json.RawMessage `json:"boolean"`
			} `json:"configOptions"`
		} `json:"session"`
	}
	_ = json.Unmarshal(k.clientCaps, &c)
	b := c.Session.ConfigOptions.Boolean
	return len(b) > 0 && string(b) != "null"
}

// visibleConfig is the session's config options as this client may see
// them: a boolean option only for a client that supports it.
func (k *kitAgent) visibleConfig() []any {
	out := []any{}
	for _, o := range k.config {
		if o["type"] == "boolean" && k.f != KitBooleanOptionUnadvertised && !k.clientSupportsBooleanOptions() {
			continue
		}
		out = append(out, o)
	}
	return out
}

func kitSessionID(params json.RawMessage) string {
	var p struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(params, &p)
	return p.SessionID
}

func (k *kitAgent) newSession(m kitMessage) {
	var p struct {
		Cwd string `json:"cwd"`
	}
	_ = json.Unmarshal(m.Params, &p)
	k.created++
	id := fmt.Sprintf("sess-%04d", k.created)
	if k.f == KitDuplicateSessionID {
		id = "sess-0001"
	}
	k.sessions[id] = &kitSession{cwd: p.Cwd}
	result := map[string]any{"sessionId": id}
	if k.modes != nil {
		result["modes"] = k.modes
	}
	if k.config != nil {
		result["configOptions"] = k.visibleConfig()
	}
	k.reply(m.ID, result)
}

func (k *kitAgent) prompt(m kitMessage) {
	var p struct {
		SessionID string            `json:"sessionId"`
		Prompt    []json.RawMessage `json:"prompt"`
	}
	_ = json.Unmarshal(m.Params, &p)
	if _, ok := k.sessions[p.SessionID]; !ok {
		k.fail(m.ID, -32602, "Invalid params: unknown sessionId "+p.SessionID)
		return
	}
	if len(p.Prompt) == 0 {
		k.fail(m.ID, -32602, "Invalid params: prompt must be a non-empty array")
		return
	}
	text := ""
	for _, b := range p.Prompt {
		var c struct {
			Type string  `json:"type"`
			Text *string `json:"text"`
		}
		if json.Unmarshal(b, &c) != nil || c.Type == "" {
			k.fail(m.ID, -32602, "Invalid params: malformed content block")
			return
		}
		if c.Type == "text" && c.Text != nil && text == "" {
			text = *c.Text
		}
	}
	k.echo(p.SessionID, text)
	switch k.f {
	case KitHangsUntilCancel, KitCancelReturnsError, KitCancelWrongStopReason, KitUpdateAfterResponse:
		k.hanging[p.SessionID] = m.ID
	case KitAsksPermission, KitAsksPermissionClosable:
		if k.f == KitAsksPermissionClosable {
			time.Sleep(kitPause)
		}
		k.ask(m.ID, p.SessionID, "session/request_permission", map[string]any{
			"sessionId": p.SessionID,
			"toolCall":  map[string]any{"toolCallId": "tool-1"},
			"options": []any{
				map[string]any{"optionId": "allow-once", "name": "Allow", "kind": "allow_once"},
				map[string]any{"optionId": "reject-once", "name": "Reject", "kind": "reject_once"},
			},
		})
	case KitCallsFSUnadvertised:
		k.ask(m.ID, p.SessionID, "fs/read_text_file", map[string]any{"sessionId": p.SessionID, "path": "/tmp/acplint-fixture-probe.txt"})
	case KitCallsTerminalUnadvertised:
		k.ask(m.ID, p.SessionID, "terminal/create", map[string]any{"sessionId": p.SessionID, "command": "true"})
	case KitCallsElicitationUnadvertised:
		// A well-formed form request (the kit's has no mode, which is a
		// second defect): the one wrong thing is to ask at all.
		k.ask(m.ID, p.SessionID, "elicitation/create", map[string]any{
			"sessionId": p.SessionID, "mode": "form", "message": "Which branch should I use?",
			"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"branch": map[string]any{"type": "string", "title": "Branch"}}},
		})
	default:
		if text == "__hang__" {
			k.hanging[p.SessionID] = m.ID
			return
		}
		k.reply(m.ID, map[string]any{"stopReason": "end_turn"})
	}
}

// echo sends the prompt's text back as one agent message chunk and keeps
// it as the session's history.
func (k *kitAgent) echo(sessionID, said string) {
	named := sessionID
	if k.f == KitUpdateWrongSession {
		named = "other"
	}
	params, _ := marshalSorted(map[string]any{"sessionId": named, "update": map[string]any{"sessionUpdate": "agent_message_chunk", "content": text(said)}})
	if s := k.sessions[sessionID]; s != nil {
		s.history = append(s.history, params)
	}
	k.notify("session/update", json.RawMessage(params))
}

// ask sends the agent's own request and holds the prompt until the client
// answers it.
func (k *kitAgent) ask(prompt json.RawMessage, sessionID, method string, params map[string]any) {
	k.nextReq++
	id := fmt.Sprintf("fixture-%d", k.nextReq)
	k.awaiting[strconv.Quote(id)] = &kitHeldPrompt{prompt: prompt, session: sessionID, permission: method == "session/request_permission"}
	k.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

// clientAnswered ends the prompt held for the answered request. A
// permission request ends the turn by its outcome; the other requests end
// it end_turn, or "cancelled" when a cancel came meanwhile (the kit's
// fixtures end those with end_turn even then, which is a second defect:
// ours show only the one they are named after).
func (k *kitAgent) clientAnswered(m kitMessage) {
	key := string(bytes.TrimSpace(m.ID))
	h, ok := k.awaiting[key]
	if !ok {
		return
	}
	delete(k.awaiting, key)
	stop := "end_turn"
	if h.permission {
		var r struct {
			Outcome struct {
				Outcome string `json:"outcome"`
			} `json:"outcome"`
		}
		_ = json.Unmarshal(m.Result, &r)
		if r.Outcome.Outcome == "cancelled" {
			stop = "cancelled"
		}
	} else if h.cancelled {
		stop = "cancelled"
	}
	k.reply(h.prompt, map[string]any{"stopReason": stop})
}

func (k *kitAgent) notification(m kitMessage) {
	if k.pushesStatus() {
		k.pushStatus()
	}
	if m.Method == "session/cancel" {
		k.cancel(kitSessionID(m.Params))
	}
	if k.f == KitPushesStatusAndAnswersNotifications {
		k.send(map[string]any{"jsonrpc": "2.0", "id": nil, "result": nil})
	}
}

func (k *kitAgent) cancel(sessionID string) {
	for _, h := range k.awaiting {
		if h.session == sessionID {
			// The turn ends when the client answers the request it waits
			// for (a permission request with the "cancelled" outcome).
			h.cancelled = true
			return
		}
	}
	id, ok := k.hanging[sessionID]
	if !ok {
		return
	}
	delete(k.hanging, sessionID)
	switch k.f {
	case KitCancelReturnsError:
		k.fail(id, -32800, "Request cancelled")
	case KitCancelWrongStopReason:
		time.Sleep(kitPause)
		k.reply(id, map[string]any{"stopReason": "end_turn"})
	case KitUpdateAfterResponse:
		k.reply(id, map[string]any{"stopReason": "cancelled"})
		k.echo(sessionID, "one more update, after the turn ended")
	default:
		k.reply(id, map[string]any{"stopReason": "cancelled"})
	}
}

func (k *kitAgent) load(m kitMessage) {
	if k.f == KitAdvertisesLoadButErrors {
		k.fail(m.ID, -32601, "Method not found")
		return
	}
	s := k.reopen(m.Params)
	if k.f == KitLoadReplaysAfterResponse {
		k.reply(m.ID, map[string]any{})
		k.replay(s)
		return
	}
	k.replay(s)
	if k.f == KitLoadReturnsNull {
		k.reply(m.ID, nil)
		return
	}
	k.reply(m.ID, map[string]any{})
}

func (k *kitAgent) resume(m kitMessage) {
	s := k.reopen(m.Params)
	if k.f == KitResumeReplaysHistory {
		k.replay(s)
	}
	k.reply(m.ID, map[string]any{})
}

// reopen returns the session that load or resume names, creating an
// empty one for an id it does not know, as the kit's agents do.
func (k *kitAgent) reopen(params json.RawMessage) *kitSession {
	var p struct {
		SessionID string `json:"sessionId"`
		Cwd       string `json:"cwd"`
	}
	_ = json.Unmarshal(params, &p)
	s, ok := k.sessions[p.SessionID]
	if !ok {
		s = &kitSession{cwd: p.Cwd}
		k.sessions[p.SessionID] = s
	}
	return s
}

func (k *kitAgent) replay(s *kitSession) {
	for _, h := range s.history {
		k.notify("session/update", h)
	}
}

func (k *kitAgent) list(m kitMessage) {
	var p struct {
		Cwd *string `json:"cwd"`
	}
	_ = json.Unmarshal(m.Params, &p)
	sessions := []any{}
	for id, s := range k.sessions {
		if p.Cwd == nil || *p.Cwd == s.cwd {
			sessions = append(sessions, map[string]any{"sessionId": id, "cwd": s.cwd})
		}
	}
	k.reply(m.ID, map[string]any{"sessions": sessions})
}

func (k *kitAgent) closeSession(m kitMessage) {
	id := kitSessionID(m.Params)
	delete(k.sessions, id)
	if k.f == KitAsksPermissionClosable {
		// The close is answered first, then the waiting prompt ends.
		k.reply(m.ID, map[string]any{})
		for key, h := range k.awaiting {
			if h.session == id {
				delete(k.awaiting, key)
				k.reply(h.prompt, map[string]any{"stopReason": "cancelled"})
			}
		}
		return
	}
	if prompt, ok := k.hanging[id]; ok {
		delete(k.hanging, id)
		k.reply(prompt, map[string]any{"stopReason": "cancelled"})
	}
	k.reply(m.ID, map[string]any{})
}

func (k *kitAgent) setMode(m kitMessage) {
	var p struct {
		SessionID string `json:"sessionId"`
		ModeID    string `json:"modeId"`
	}
	_ = json.Unmarshal(m.Params, &p)
	if k.modes != nil {
		k.modes["currentModeId"] = p.ModeID
	}
	k.reply(m.ID, map[string]any{})
	if k.f == KitModeUpdateUsesModeID {
		k.notify("session/update", map[string]any{"sessionId": p.SessionID, "update": map[string]any{"sessionUpdate": "current_mode_update", "modeId": p.ModeID}})
	}
}

func (k *kitAgent) setConfigOption(m kitMessage) {
	var p struct {
		ConfigID string          `json:"configId"`
		Value    json.RawMessage `json:"value"`
	}
	_ = json.Unmarshal(m.Params, &p)
	var changed map[string]any
	for _, o := range k.config {
		if o["id"] == p.ConfigID {
			o["currentValue"] = p.Value
			changed = o
		}
	}
	if k.f == KitConfigPartialList {
		partial := []any{}
		if changed != nil {
			partial = append(partial, changed)
		}
		k.reply(m.ID, map[string]any{"configOptions": partial})
		return
	}
	k.reply(m.ID, map[string]any{"configOptions": k.visibleConfig()})
}

// mangle is wrong_id_echo's defect: the id plus one, or with a suffix.
func mangle(id json.RawMessage) json.RawMessage {
	s := strings.TrimSpace(string(id))
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return json.RawMessage(strconv.FormatInt(n+1, 10))
	}
	if str, err := strconv.Unquote(s); err == nil {
		return json.RawMessage(strconv.Quote(str + "-wrong"))
	}
	return id
}

func (k *kitAgent) reply(id json.RawMessage, result any) {
	if k.f == KitWrongIDEcho {
		id = mangle(id)
	}
	k.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (k *kitAgent) fail(id json.RawMessage, code int64, msg string) {
	if k.f == KitWrongIDEcho {
		id = mangle(id)
	}
	k.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": rpcError{Code: code, Message: msg}})
}

func (k *kitAgent) notify(method string, params any) {
	k.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

func (k *kitAgent) send(m map[string]any) {
	b, err := marshalSorted(m)
	if err != nil {
		fmt.Fprintf(k.log, "fixture: encoding a message: %v\n", err)
		return
	}
	k.raw(append(b, '\n'))
}

func (k *kitAgent) raw(b []byte) {
	if _, err := k.out.Write(b); err != nil && !errors.Is(err, io.ErrClosedPipe) {
		fmt.Fprintf(k.log, "fixture: writing: %v\n", err)
	}
}
