package main

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/internal/third_party/rapid"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/transcript"
)

// acplintRun runs one acplint command in process on stdin.
func acplintRun(stdin []byte, args ...string) (stdout, stderr []byte, code int) {
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, bytes.NewReader(stdin), &out, &errOut)
	return out.Bytes(), errOut.Bytes(), code
}

// TestFmtKeepsWhatItCannotReencode: a line fmt cannot re-encode to the
// same JSON value comes out byte for byte, line endings included; a clean
// line comes out in the canonical compact form.
func TestFmtKeepsWhatItCannotReencode(t *testing.T) {
	kept := []string{
		`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":5,"prompt":"hello"}}`,
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"1"}}`,
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1e999999}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/tmp"}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"\ud800"}}}}`,
		"not JSON \xff <&>",
	}
	for _, line := range kept {
		for _, end := range []string{"\n", "\r\n", ""} {
			in := line + end
			out, _, _ := acplintRun([]byte(in), "fmt")
			if string(out) != in {
				t.Errorf("fmt changed %q into %q", in, out)
			}
		}
	}
	in := "{ \"params\":{\"mcpServers\":[],\"cwd\":\"/tmp\"}, \"method\":\"session/new\",\"id\":3,\"jsonrpc\":\"2.0\" }"
	want := `{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`
	if out, _, _ := acplintRun([]byte(in), "fmt"); string(out) != want {
		t.Errorf("fmt %q = %q, want %q", in, out, want)
	}
}

// unknownSenders is raw NDJSON with lines nobody can tell the sender of:
// text, a notification either side may send, a response to nothing.
const unknownSenders = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}
log line <&>
{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":3}}
{"jsonrpc":"2.0","id":77,"result":{}}
`

// TestConvertUnknownDirections: a frame whose sender cannot be inferred
// is reported as ACP-LINT-001 with its line and written so that convert
// and lint read it back, as the same bytes.
func TestConvertUnknownDirections(t *testing.T) {
	for _, to := range []string{"acplint", "jsonl"} {
		out, stderr, code := acplintRun([]byte(unknownSenders), "convert", "--to", to)
		if code != exitFindings {
			t.Errorf("--to %s: exit %d, want %d", to, code, exitFindings)
		}
		for _, line := range []int{2, 3, 4} {
			if want := fmt.Sprintf("-:%d: warning: ", line); !bytes.Contains(stderr, []byte(want)) {
				t.Errorf("--to %s: stderr lacks %q:\n%s", to, want, stderr)
			}
		}
		if n := bytes.Count(stderr, []byte("(ACP-LINT-001)")); n != 3 {
			t.Errorf("--to %s: %d ACP-LINT-001 reports, want 3:\n%s", to, n, stderr)
		}
		back, stderr, code := acplintRun(out, "convert", "--to", "ndjson")
		if code != exitClean || string(back) != unknownSenders {
			t.Errorf("--to %s and back: exit %d, %q, stderr:\n%s\nwant %q", to, code, back, stderr, unknownSenders)
		}
	}
}

// TestConvertJSONLKeepsBytes: jsonl embeds a JSON line with its white
// space and HTML characters untouched, and keeps bytes that are not UTF-8.
func TestConvertJSONLKeepsBytes(t *testing.T) {
	spaced := `{"jsonrpc":"2.0", "id":0, "method":"initialize","params":{"protocolVersion":1,"x":"<&>"}}`
	in := spaced + "\n" + "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":1,\"y\":\"\xff\"}}\n"
	out, stderr, _ := acplintRun([]byte(in), "convert", "--to", "jsonl")
	if !bytes.Contains(out, []byte(`"msg":`+spaced+`}`)) {
		t.Errorf("the jsonl output does not embed %s as it was:\n%s", spaced, out)
	}
	if !bytes.Contains(out, []byte("\xff")) {
		t.Errorf("the jsonl output lost the byte 0xff:\n%q", out)
	}
	back, stderr2, code := acplintRun(out, "convert", "--to", "ndjson")
	if code != exitClean || string(back) != in {
		t.Errorf("back to ndjson: exit %d, %q; want %q\n%s%s", code, back, in, stderr, stderr2)
	}
}

// genLine generates one line of raw traffic without its terminator:
// messages of both sides with odd numbers, escapes, invalid UTF-8 and
// white space, text, and halves of split messages.
func genLine(t *rapid.T) string {
	id := rapid.SampledFrom([]string{"0", "1", "2", "1.0", "-0", "1e2", "1e999999",
		"123456789012345678901234567890", `"a"`, `"\ud800"`, "null"}).Draw(t, "id")
	str := rapid.SampledFrom([]string{`"x"`, `"<&>"`, `"\u0000\\\/\n"`, `"\ud83d\ude00"`, `"\udc00"`,
		"\"\xff\xfe\"", "\"\u2028\"", `""`}).Draw(t, "str")
	num := rapid.SampledFrom([]string{"1", "1.0", "-0", "1E2", "1e999999", "0.1", "65536", `"1"`}).Draw(t, "num")
	sp := rapid.SampledFrom([]string{"", " ", "\t"}).Draw(t, "space")
	lines := []string{
		`{"jsonrpc":"2.0","id":` + id + `,"method":"initialize","params":{"protocolVersion":` + num + `,"clientCapabilities":{}}}`,
		`{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":` + num + `,"agentCapabilities":{},"authMethods":[]}}`,
		`{"jsonrpc":"2.0","id":` + id + `,"method":"session/new","params":{"cwd":` + str + `,"mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":` + id + `,"result":{"sessionId":` + str + `}}`,
		`{"jsonrpc":"2.0","id":` + id + `,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":` + str + `}]}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":` + str + `}}}}`,
		`{"jsonrpc":"2.0","id":` + id + `,"method":"fs/read_text_file","params":{"sessionId":"s","path":` + str + `}}`,
		`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32602,"message":` + str + `}}`,
		`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":` + id + `}}`,
		`{"jsonrpc":"2.0","id":` + id + `,"method":"_ext/` + strings.Trim(str, `"`) + `","params":{"n":` + num + `}}`,
		`{` + sp + `"jsonrpc"` + sp + `:` + sp + `"2.0",` + sp + `"method":"session/cancel","params":{"sessionId":` + str + `}}` + sp,
		`[{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}]`,
		// The two halves of a message split by a raw newline in a string.
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"one`,
		`two"}}}}`,
		"\xef\xbb\xbf" + `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`,
		"",
	}
	if rapid.IntRange(0, 9).Draw(t, "text?") == 0 {
		b := rapid.SliceOfN(rapid.Byte(), 0, 12).Draw(t, "text")
		return strings.ReplaceAll(string(b), "\n", " ")
	}
	return rapid.SampledFrom(lines).Draw(t, "line")
}

// findingKeys are the findings of a lint run as comparable keys, less
// those of the rules in skip; lineShift is added to every line number (the
// acplint format's header takes the first line).
func findingKeys(t *rapid.T, data []byte, format transcript.Format, lineShift int, skip ...*findings.Rule) []string {
	res, err := lint.Transcript(bytes.NewReader(data), lint.Options{Format: format, File: "x"})
	if err != nil {
		t.Fatalf("lint: %v", err)
	}
	var keys []string
	for _, f := range res.Findings {
		if slices.Contains(skip, f.Rule) {
			continue
		}
		keys = append(keys, fmt.Sprintf("%s@%d", f.RuleID, f.Location.Line+lineShift))
	}
	slices.Sort(keys)
	return keys
}

// directionDependent are the rules whose findings change, legitimately,
// once directions are recorded: which sender lint could not tell, and
// wire problems that lint counts per sender (a CRLF run is reported once
// per side, where raw NDJSON has one unknown side).
var directionDependent = []*findings.Rule{findings.LINTDirectionUnknown, findings.WIREWhitespace}

// TestConvertRoundTripProperty: any raw transcript converted to each
// format and back, through every other format on the way, gives the same
// bytes; each converted form reads without a wrapper problem and lints to
// the same findings as every other, and as the raw transcript save for
// what recorded directions change.
func TestConvertRoundTripProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var in bytes.Buffer
		for _, l := range rapid.SliceOfN(rapid.Custom(genLine), 1, 12).Draw(t, "lines") {
			in.WriteString(l)
			in.WriteString(rapid.SampledFrom([]string{"\n", "\r\n"}).Draw(t, "end"))
		}
		raw := findingKeys(t, in.Bytes(), transcript.FormatNDJSON, 0, directionDependent...)
		var converted []string // the findings of the first converted form
		cur, curFormat := in.Bytes(), "ndjson"
		path := rapid.Permutation([]string{"acplint", "jsonl", "acplint", "jsonl"}).Draw(t, "path")
		for _, to := range append(path, "ndjson") {
			out, stderr, code := acplintRun(cur, "convert", "--input", curFormat, "--to", to)
			if code == exitUsage || bytes.Contains(stderr, []byte(findings.LINTBadWrapper.ID)) {
				t.Fatalf("convert --input %s --to %s: exit %d\n%s\ninput:\n%q", curFormat, to, code, stderr, cur)
			}
			cur, curFormat = out, to
			if to == "ndjson" {
				break
			}
			shift := 0
			if to == "acplint" {
				shift = -1
			}
			if got := findingKeys(t, cur, transcript.FormatAuto, shift, directionDependent...); !slices.Equal(got, raw) {
				t.Fatalf("lint of the %s form:\n%v\nwant (as raw):\n%v\n%s", to, got, raw, cur)
			}
			got := findingKeys(t, cur, transcript.FormatAuto, shift)
			if converted == nil {
				converted = got
			} else if !slices.Equal(got, converted) {
				t.Fatalf("lint of the %s form:\n%v\nwant (as first converted):\n%v\n%s", to, got, converted, cur)
			}
		}
		if !bytes.Equal(cur, in.Bytes()) {
			t.Fatalf("round trip changed the transcript:\n%q\nbecame\n%q", in.Bytes(), cur)
		}
	})
}

// TestConvertKeepsSplitJSONLFrames: a jsonl frame holding raw newlines (a
// message its sender split, recorded as one string) is converted as it
// was recorded, not as the message lint rebuilds from it.
func TestConvertKeepsSplitJSONLFrames(t *testing.T) {
	rec := `{"dir":"client","msg":"{\"jsonrpc\":\"2.0\",\"method\":\"session/cancel\",\"params\":{\"sessionId\":\"a\r\nb\"}}\n"}` + "\n"
	wire := "{\"jsonrpc\":\"2.0\",\"method\":\"session/cancel\",\"params\":{\"sessionId\":\"a\r\nb\"}}\n"
	if out, stderr, _ := acplintRun([]byte(rec), "convert", "--to", "ndjson"); string(out) != wire {
		t.Errorf("--to ndjson: %q, want %q\n%s", out, wire, stderr)
	}
	if out, stderr, _ := acplintRun([]byte(rec), "convert", "--to", "jsonl"); string(out) != rec {
		t.Errorf("--to jsonl: %q, want %q\n%s", out, rec, stderr)
	}
	canonical, _, _ := acplintRun([]byte(rec), "convert", "--to", "acplint")
	if out, stderr, _ := acplintRun(canonical, "convert", "--to", "ndjson"); string(out) != wire {
		t.Errorf("--to acplint, then ndjson: %q, want %q\n%s", out, wire, stderr)
	}
}

// TestFmtCopiesOverlongLines: a line longer than --max-line is not decoded
// and not held, but it is copied exactly, in its place, terminator and all.
func TestFmtCopiesOverlongLines(t *testing.T) {
	long := `{"jsonrpc":"2.0","method":"_x/big","params":{"s":"` + strings.Repeat("z", 3<<20) + `"}}`
	in := `{"jsonrpc":"2.0","method":"_x/before"}` + "\n" + long + "\r\n" + `{"jsonrpc":"2.0","method":"_x/after"}` + "\n" + long
	var out, stderr bytes.Buffer
	code := run(context.Background(), []string{"fmt", "--max-line", "1048576"}, strings.NewReader(in), &out, &stderr)
	if code != exitFindings {
		t.Errorf("exit code %d, want 1 (lines not decoded)", code)
	}
	if out.String() != in {
		t.Errorf("fmt changed the input: %d bytes out, %d in", out.Len(), len(in))
	}
	for _, want := range []string{"-:2: the line is 3145781 bytes", "-:4: the line is 3145781 bytes"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}
