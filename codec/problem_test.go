package codec_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/domain"
)

const (
	initOK = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`
)

// problemCases are lines with something wrong, and the problems each must
// give: "kind pointer" (pointer "" for the whole line), in order. result
// names the method whose result a response line carries.
var problemCases = []struct {
	name   string
	line   string
	crlf   bool
	result domain.Method
	want   []string
}{
	// Framing and encoding.
	{name: "blank", line: "", want: []string{"blank "}},
	{name: "white space only", line: " \t ", want: []string{"blank "}},
	{name: "crlf", line: initOK, crlf: true, want: []string{"crlf "}},
	{name: "bom", line: "\xEF\xBB\xBF" + initOK, want: []string{"bom "}},
	{name: "bom only", line: "\xEF\xBB\xBF", want: []string{"bom ", "blank "}},
	{name: "not utf-8", line: `{"jsonrpc":"2.0","method":"_x/log","params":{"text":"caf` + "\xe9" + `"}}`, want: []string{"not-utf8 "}},
	{name: "not json", line: `{"jsonrpc":"2.0","id":1,`, want: []string{"not-json "}},
	{name: "trailing garbage", line: initOK + " x", want: []string{"not-json "}},
	{name: "two values", line: initOK + initOK, want: []string{"not-json "}},
	{name: "too deep", line: strings.Repeat("[", 20000) + strings.Repeat("]", 20000), want: []string{"not-json "}},
	{name: "number", line: `42`, want: []string{"not-object "}},
	{name: "string", line: `"initialize"`, want: []string{"not-object "}},
	{name: "null", line: `null`, want: []string{"not-object "}},
	{name: "batch", line: `[` + initOK + `,{"jsonrpc":"2.0","method":"session/cancel","params":{}}]`,
		want: []string{"batch ", "missing /1/params/sessionId"}},
	{name: "batch of scalars", line: `[1]`, want: []string{"batch ", "not-object /0"}},
	{name: "empty batch", line: `[]`, want: []string{"batch "}},

	// JSON-RPC envelope.
	{name: "missing jsonrpc", line: `{"id":0,"method":"initialize","params":{"protocolVersion":1}}`, want: []string{"jsonrpc-version "}},
	{name: "jsonrpc 1.0", line: `{"jsonrpc":"1.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`, want: []string{"jsonrpc-version /jsonrpc"}},
	{name: "jsonrpc number", line: `{"jsonrpc":2.0,"id":0,"method":"initialize","params":{"protocolVersion":1}}`, want: []string{"jsonrpc-version /jsonrpc"}},
	{name: "envelope member case", line: `{"JSONRPC":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`,
		want: []string{"unknown-member /JSONRPC", "jsonrpc-version "}},
	{name: "null id", line: `{"jsonrpc":"2.0","id":null,"method":"initialize","params":{"protocolVersion":1}}`, want: []string{"id-null /id"}},
	{name: "fractional id", line: `{"jsonrpc":"2.0","id":1.5,"method":"initialize","params":{"protocolVersion":1}}`, want: []string{"id-fraction /id"}},
	{name: "exponent id", line: `{"jsonrpc":"2.0","id":1e3,"method":"initialize","params":{"protocolVersion":1}}`, want: []string{"id-fraction /id"}},
	{name: "object id", line: `{"jsonrpc":"2.0","id":{},"method":"initialize","params":{"protocolVersion":1}}`, want: []string{"envelope /id"}},
	{name: "method not a string", line: `{"jsonrpc":"2.0","id":1,"method":7}`, want: []string{"envelope /method"}},
	{name: "neither method nor id", line: `{"jsonrpc":"2.0","result":{}}`, want: []string{"envelope "}},
	{name: "result and error", line: `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`, want: []string{"envelope "}},
	{name: "response without outcome", line: `{"jsonrpc":"2.0","id":1}`, want: []string{"envelope "}},
	{name: "method with result", line: `{"jsonrpc":"2.0","id":1,"method":"_x","result":{}}`, want: []string{"envelope "}},
	{name: "params scalar", line: `{"jsonrpc":"2.0","id":1,"method":"_x","params":3}`, want: []string{"envelope /params"}},
	{name: "params null", line: `{"jsonrpc":"2.0","id":1,"method":"session/new","params":null}`, want: []string{"envelope /params"}},
	{name: "elicitation scope typo", line: `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m","mode":"url","elicitationId":"e","url":"https://x","sessionID":"s"}}`,
		want: []string{"unknown-variant /params", "unknown-member /params/sessionID"}},
	{name: "elicitation unknown mode hides members", line: `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m","mode":"qr","payload":"x","sessionId":"s"}}`,
		want: []string{"open-enum /params/mode"}},
	{name: "params array for an ACP method", line: `{"jsonrpc":"2.0","id":1,"method":"session/new","params":["/tmp",[]]}`, want: []string{"type /params"}},
	{name: "success with null id", line: `{"jsonrpc":"2.0","id":null,"result":{}}`, want: []string{"envelope /id"}},
	{name: "duplicate envelope member", line: `{"jsonrpc":"2.0","id":1,"id":2,"method":"_x"}`, want: []string{"duplicate-member /id"}},
	{name: "error not an object", line: `{"jsonrpc":"2.0","id":1,"error":"boom"}`, want: []string{"error-object /error"}},
	{name: "error without message", line: `{"jsonrpc":"2.0","id":1,"error":{"code":-32603}}`, want: []string{"error-object /error/message"}},
	{name: "error code fraction", line: `{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"x"}}`, want: []string{"error-object /error/code"}},
	{name: "error code string", line: `{"jsonrpc":"2.0","id":1,"error":{"code":"-32603","message":"x"}}`, want: []string{"error-object /error/code"}},

	// Member names are case-sensitive.
	{name: "params member case", line: `{"jsonrpc":"2.0","method":"session/cancel","params":{"SESSIONID":"s"}}`,
		want: []string{"unknown-member /params/SESSIONID", "missing /params/sessionId"}},
	{name: "both spellings", line: `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionid":"a","sessionId":"s"}}`,
		want: []string{"unknown-member /params/sessionid"}},
	{name: "discriminator case", line: `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"SessionUpdate":"plan","entries":[]}}}`,
		want: []string{"missing /params/update/sessionUpdate"}}, // the update is unknown, so its members are not judged

	// Wrong types, ranges and missing members.
	{name: "protocolVersion string", line: `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"1.0.0"}}`, want: []string{"type /params/protocolVersion"}},
	{name: "protocolVersion too big", line: `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":70000}}`, want: []string{"range /params/protocolVersion"}},
	{name: "protocolVersion negative", line: `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":-1}}`, want: []string{"range /params/protocolVersion"}},
	{name: "protocolVersion fraction", line: `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1.5}}`, want: []string{"range /params/protocolVersion"}},
	{name: "protocolVersion huge exponent", line: `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1e999999999999}}`, want: []string{"range /params/protocolVersion"}},
	{name: "protocolVersion tiny exponent", line: `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1e-999999999999}}`, want: []string{"range /params/protocolVersion"}},
	{name: "protocolVersion 1.0 is an integer", line: `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1.0}}`},
	{name: "protocolVersion 1e0 is an integer", line: `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1e0}}`},
	{name: "uint64 max", line: `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":18446744073709551615,"size":1}}}`},
	{name: "uint64 overflow", line: `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":18446744073709551616,"size":1}}}`,
		want: []string{"range /params/update/used"}},
	{name: "float overflow", line: `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":1,"size":1,"cost":{"amount":1e400,"currency":"USD"}}}}`,
		want: []string{"range /params/update/cost/amount"}},
	{name: "missing mcpServers", line: `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp"}}`, want: []string{"missing /params/mcpServers"}},
	{name: "missing params", line: `{"jsonrpc":"2.0","id":1,"method":"session/new"}`, want: []string{"missing /params/cwd", "missing /params/mcpServers"}},
	{name: "mcpServers not an array", line: `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":{}}}`, want: []string{"type /params/mcpServers"}},
	{name: "mcp server not an object", line: `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":["fs"]}}`, want: []string{"type /params/mcpServers/0"}},
	{name: "duplicate member", line: `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"a","sessionId":"b"}}`, want: []string{"duplicate-member /params/sessionId"}},
	{name: "meta not an object", line: `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"a","_meta":[1]}}`, want: []string{"meta /params/_meta"}},
	{name: "meta null is fine", line: `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"a","_meta":null}}`},
	{name: "notnull member null", line: `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":null}}`, want: []string{"type /params/clientCapabilities"}},
	{name: "nullable member null", line: `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientInfo":null}}`},
	{name: "pointer escaping", line: `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"a","a/b~c":1}}`, want: []string{"unknown-member /params/a~1b~0c"}},

	// Enums and unions.
	{name: "unknown stopReason", line: `{"jsonrpc":"2.0","id":2,"result":{"stopReason":"done"}}`, result: domain.MethodSessionPrompt, want: []string{"enum /result/stopReason"}},
	{name: "custom notice severity", line: `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"notice","severity":"_debug","title":"t"}}}`,
		want: []string{"open-enum /params/update/severity"}},
	{name: "unknown session update", line: `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"_progress","percent":3}}}`,
		want: []string{"unknown-variant /params/update/sessionUpdate"}},
	{name: "update not an object", line: `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":"plan"}}`, want: []string{"type /params/update"}},
	{name: "content without type", line: `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"text":"hi"}]}}`,
		want: []string{"missing /params/prompt/0/type"}},
	{name: "content type not a string", line: `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":1,"text":"hi"}]}}`,
		want: []string{"type /params/prompt/0/type"}},
	{name: "resource of no shape", line: `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"resource","resource":{"uri":"file:///a"}}]}}`,
		want: []string{"unknown-variant /params/prompt/0/resource"}},
	{name: "explicit stdio type", line: `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[{"type":"stdio","name":"fs","command":"mcp-fs","args":[],"env":[]}]}}`,
		want: []string{"unknown-member /params/mcpServers/0/type"}},
	{name: "unknown mcp transport", line: `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[{"type":"ws","name":"fs","url":"wss://x"}]}}`,
		want: []string{"unknown-variant /params/mcpServers/0/type"}},
	{name: "permission outcome missing", line: `{"jsonrpc":"2.0","id":1,"result":{"outcome":{"optionId":"allow"}}}`, result: domain.MethodSessionRequestPermission,
		want: []string{"missing /result/outcome/outcome"}},
	{name: "null result", line: `{"jsonrpc":"2.0","id":1,"result":null}`, result: domain.MethodSessionSetMode, want: []string{"null-result /result"}},
	{name: "result not an object", line: `{"jsonrpc":"2.0","id":1,"result":[]}`, result: domain.MethodSessionNew, want: []string{"type /result"}},

	// Inline unions.
	{name: "config option without type", line: `{"jsonrpc":"2.0","id":1,"result":{"configOptions":[{"id":"m","name":"Model","currentValue":"a","options":[]}]}}`,
		result: domain.MethodSessionSetConfigOption, want: []string{"missing /result/configOptions/0/type"}},
	{name: "config option unknown type", line: `{"jsonrpc":"2.0","id":1,"result":{"configOptions":[{"id":"m","name":"Model","type":"slider","min":0}]}}`,
		result: domain.MethodSessionSetConfigOption, want: []string{"unknown-variant /result/configOptions/0/type"}},
	{name: "select without options", line: `{"jsonrpc":"2.0","id":1,"result":{"configOptions":[{"id":"m","name":"Model","type":"select","currentValue":"a"}]}}`,
		result: domain.MethodSessionSetConfigOption, want: []string{"missing /result/configOptions/0/options"}},
	{name: "select options not an array", line: `{"jsonrpc":"2.0","id":1,"result":{"configOptions":[{"id":"m","name":"Model","type":"select","currentValue":"a","options":{"a":"A"}}]}}`,
		result: domain.MethodSessionSetConfigOption, want: []string{"type /result/configOptions/0/options"}},
	{name: "mixed select options", line: `{"jsonrpc":"2.0","id":1,"result":{"configOptions":[{"id":"m","name":"Model","type":"select","currentValue":"a","options":[{"group":"g","name":"G","options":[]},{"value":"a","name":"A"}]}]}}`,
		result: domain.MethodSessionSetConfigOption, want: []string{"unknown-member /result/configOptions/0/options/1/value", "missing /result/configOptions/0/options/1/group", "missing /result/configOptions/0/options/1/options"}},
	{name: "boolean value wrong type", line: `{"jsonrpc":"2.0","id":1,"method":"session/set_config_option","params":{"sessionId":"s","configId":"c","type":"boolean","value":"yes"}}`,
		want: []string{"type /params/value"}},
	{name: "config value missing", line: `{"jsonrpc":"2.0","id":1,"method":"session/set_config_option","params":{"sessionId":"s","configId":"c"}}`,
		want: []string{"missing /params/value"}},
	{name: "elicitation without mode", line: `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m","sessionId":"s","requestedSchema":{}}}`,
		want: []string{"missing /params/mode"}},
	{name: "elicitation custom mode", line: `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m","mode":"_qr","payload":"x"}}`,
		want: []string{"open-enum /params/mode"}},
	{name: "elicitation without scope", line: `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m","mode":"url","elicitationId":"e","url":"https://x"}}`,
		want: []string{"unknown-variant /params"}},
	{name: "elicitation url missing", line: `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m","mode":"url","elicitationId":"e","sessionId":"s"}}`,
		want: []string{"missing /params/url"}},
	{name: "elicitation request id object", line: `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m","mode":"url","elicitationId":"e","url":"https://x","requestId":{}}}`,
		want: []string{"type /params/requestId"}},
	{name: "elicitation member case", line: `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m","mode":"url","elicitationId":"e","URL":"https://x","sessionId":"s"}}`,
		want: []string{"unknown-member /params/URL", "missing /params/url"}},
	{name: "action missing", line: `{"jsonrpc":"2.0","id":1,"result":{"content":{}}}`, result: domain.MethodElicitationCreate,
		want: []string{"missing /result/action"}},
	{name: "content value object", line: `{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"a":{"b":1},"c":[1]}}}`, result: domain.MethodElicitationCreate,
		want: []string{"type /result/content/a", "type /result/content/c/0"}},

	// Verbatim ids.
	{name: "cancel request id object", line: `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":{}}}`, want: []string{"type /params/requestId"}},
	{name: "cancel request id fraction", line: `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1.5}}`, want: []string{"range /params/requestId"}},
	{name: "cancel request id null", line: `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":null}}`},
}

func TestProblems(t *testing.T) {
	for _, tc := range problemCases {
		t.Run(tc.name, func(t *testing.T) {
			d := codec.DecodeLine(codec.Line{Num: 5, Bytes: []byte(tc.line), CRLF: tc.crlf})
			probs := append([]codec.Problem(nil), d.Problems...)
			if tc.result != "" {
				mi, _ := domain.LookupMethod(tc.result)
				if len(d.Msgs) != 1 {
					t.Fatalf("%d messages", len(d.Msgs))
				}
				probs = append(probs, d.DecodeResult(0, mi)...)
			}
			var got []string
			for _, p := range probs {
				got = append(got, fmt.Sprintf("%s %s", p.Kind, p.Pointer))
				if p.Detail == "" {
					t.Errorf("%s has no detail", p.Kind)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s\nall: %v", diff, probs)
			}
			// Whatever was wrong, encoding what was decoded must not panic.
			for _, m := range d.Msgs {
				codec.Encode(m)
			}
		})
	}
}

// TestProblemDetails pins the facts a finding needs beyond kind and
// pointer: the definition and member that lint maps to specific rules.
func TestProblemDetails(t *testing.T) {
	tests := []struct {
		line      string
		def, memb string
		value     string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[{"type":"stdio","name":"fs","command":"c","args":[],"env":[]}]}}`, "McpServerStdio", "type", ""},
		{`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":70000}}`, "InitializeRequest", "protocolVersion", "70000"},
		{`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp"}}`, "NewSessionRequest", "mcpServers", ""},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"_x"}}}`, "SessionUpdate", "sessionUpdate", "_x"},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"current_mode_update","modeId":"m"}}}`, "CurrentModeUpdate", "modeId", ""},
	}
	for _, tc := range tests {
		d := codec.DecodeLine(codec.Line{Num: 1, Bytes: []byte(tc.line)})
		if len(d.Problems) == 0 {
			t.Errorf("%s: no problem", tc.line)
			continue
		}
		p := d.Problems[0]
		if p.Def != tc.def || p.Member != tc.memb || p.Value != tc.value {
			t.Errorf("%s:\n got def=%q member=%q value=%q\nwant def=%q member=%q value=%q", tc.line, p.Def, p.Member, p.Value, tc.def, tc.memb, tc.value)
		}
	}
}

func TestWholeNumbers(t *testing.T) {
	tests := map[string]string{ // literal -> the uint64 it decodes to, or "range"
		"1.0": "1", "1e0": "1", "1E+2": "100", "0.5e1": "5", "10e-1": "1", "-0": "0", "-0.0": "0", "0e-5000": "0",
		"1.5": "range", "1e-1": "range", "-1": "range", "18446744073709551615": "18446744073709551615",
		"18446744073709551616": "range", "1.8446744073709551615e19": "18446744073709551615",
		"1e20": "range", "1e9223372036854775807": "range", "10e9223372036854775807": "range",
		"1e-9223372036854775808": "range", "123456789012345678901234567890e-10": "range",
	}
	for lit, want := range tests {
		line := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":` + lit + `,"size":1}}}`
		d := codec.DecodeLine(codec.Line{Num: 1, Bytes: []byte(line)})
		got := "range"
		if len(d.Problems) == 0 {
			got = fmt.Sprint(d.Msgs[0].Params.(*domain.SessionNotification).Update.(domain.UsageUpdate).Used)
		} else if d.Problems[0].Kind != codec.ProbRange {
			got = d.Problems[0].String()
		}
		if got != want {
			t.Errorf("%s: got %s, want %s", lit, got, want)
		}
	}
}
