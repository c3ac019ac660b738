package tap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/internal/jsonv"
	"github.com/acplint/acplint/internal/third_party/rapid"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/transcript"
)

// redactCases are the leaks of issue 13, row 12, and their neighbours:
// each line must come out exactly as want.
var redactCases = []struct{ name, in, want string }{
	{
		"secret flag, then its value",
		`{"mcpServers":[{"name":"gh","command":"gh-mcp","args":["--token","abc123","--verbose"],"env":[]}]}`,
		`{"mcpServers":[{"name":"gh","command":"gh-mcp","args":["--token","[REDACTED]","--verbose"],"env":[]}]}`,
	},
	{
		"secret flag with =",
		`{"args":["--api-key=abc123","--port=8080","-p","x"]}`,
		`{"args":["--api-key=[REDACTED]","--port=8080","-p","x"]}`,
	},
	{
		"token formats in args and prose",
		`{"args":["ghp_0123456789abcdefABCDEF0123456789abcd","AKIAIOSFODNN7EXAMPLE"],"text":"use sk-proj-abcdefgh12345678 or xoxb-1234-5678-abcdefgh\nthen github_pat_11ABCDEFG_0123456789"}`,
		`{"args":["[REDACTED]","[REDACTED]"],"text":"use [REDACTED] or [REDACTED]\nthen [REDACTED]"}`,
	},
	{
		"Bearer and JWT",
		`{"headers2":"Authorization: Bearer abc.def-ghi_jkl","jwt":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig_nature"}`,
		`{"headers2":"Authorization: [REDACTED]","jwt":"[REDACTED]"}`,
	},
	{
		"URL userinfo and secret query values",
		`{"url":"https://user:hunter22@example.com/x?api_key=K123&page=2&access_token=T9","escaped":"https:\/\/bob:pw@host\/"}`,
		`{"url":"https://user:[REDACTED]@example.com/x?api_key=[REDACTED]&page=2&access_token=[REDACTED]","escaped":"https:\/\/bob:[REDACTED]@host\/"}`,
	},
	{
		"object-valued apiKey keeps its shape",
		`{"_meta":{"apiKey":{"value":"sk-1","expires":3},"count":3}}`,
		`{"_meta":{"apiKey":{"value":"[REDACTED]","expires":3},"count":3}}`,
	},
	{
		"credential member names",
		`{"auth":"a1","bearer":"b1","key":"k1","accessKeyId":"i1","sessionKey":"s1","sshKey":"h1","client_secret":"c1","X-Api-Key":"x1","keyboard":"us","monkey":"m","name":"n"}`,
		`{"auth":"[REDACTED]","bearer":"[REDACTED]","key":"[REDACTED]","accessKeyId":"[REDACTED]","sessionKey":"[REDACTED]","sshKey":"[REDACTED]","client_secret":"[REDACTED]","X-Api-Key":"[REDACTED]","keyboard":"us","monkey":"m","name":"n"}`,
	},
	{
		"env as an object map",
		`{"env":{"GITHUB_TOKEN":"t1","PATH":"/usr/bin"},"other":"kept"}`,
		`{"env":{"GITHUB_TOKEN":"[REDACTED]","PATH":"[REDACTED]"},"other":"kept"}`,
	},
	{
		"duplicate value members",
		`{"env":[{"name":"A","value":"v1","value":"v2"}],"headers":[{"name":"Cookie","value":"c1"}]}`,
		`{"env":[{"name":"A","value":"[REDACTED]","value":"[REDACTED]"}],"headers":[{"name":"Cookie","value":"[REDACTED]"}]}`,
	},
	{
		"name/value pair outside env",
		`{"_meta":{"vars":[{"name":"OPENAI_API_KEY","value":"v1"},{"name":"HOME","value":"/home/x"}]},"options":[{"name":"Save tokens","value":"low"}]}`,
		`{"_meta":{"vars":[{"name":"OPENAI_API_KEY","value":"[REDACTED]"},{"name":"HOME","value":"/home/x"}]},"options":[{"name":"Save tokens","value":"low"}]}`,
	},
	{
		"an elicitation asks for a password, the answer holds one",
		`{"requestedSchema":{"type":"object","properties":{"dbPassword":{"type":"string","title":"Password"}}},"content":{"dbPassword":"hunter2"}}`,
		`{"requestedSchema":{"type":"object","properties":{"dbPassword":{"type":"string","title":"Password"}}},"content":{"dbPassword":"[REDACTED]"}}`,
	},
	{
		"BOM before the line",
		"\ufeff" + `{"token":"t1","env":[{"name":"A","value":"v1"}]}`,
		"\ufeff" + `{"token":"[REDACTED]","env":[{"name":"A","value":"[REDACTED]"}]}`,
	},
	{
		"truncated line",
		`{"jsonrpc":"2.0","params":{"apiKey":"sk-abc","password":"hunter2`,
		`{"jsonrpc":"2.0","params":{"apiKey":"[REDACTED]","password":"[REDACTED]`,
	},
	{
		"JSON escaped into a string",
		`{"rawInput":"{\"token\":\"t1\",\"n\":\"ok\"}"}`,
		`{"rawInput":"{\"token\":\"[REDACTED]\",\"n\":\"ok\"}"}`,
	},
	{
		"command line in a string",
		`{"command":"deploy --password hunter2 --region eu"}`,
		`{"command":"deploy --password [REDACTED] --region eu"}`,
	},
	{
		"usage counts are not secrets",
		`{"usage":{"inputTokens":12,"outputTokens":3,"totalTokens":15}}`,
		`{"usage":{"inputTokens":12,"outputTokens":3,"totalTokens":15}}`,
	},
	{
		"private key block",
		`{"text":"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE\n-----END OPENSSH PRIVATE KEY-----\n"}`,
		`{"text":"[REDACTED]\n"}`,
	},
}

func TestRedactCases(t *testing.T) {
	for _, c := range redactCases {
		t.Run(c.name, func(t *testing.T) {
			if got := string(Redact([]byte(c.in))); got != c.want {
				t.Errorf("Redact\n  in: %s\n got: %s\nwant: %s", c.in, got, c.want)
			}
		})
	}
}

func TestRedactCommand(t *testing.T) {
	in := []string{"env", "OPENAI_API_KEY=sk1", "LANG=C", "my-agent", "--token", "abc", "--api-key=def", "--url", "https://u:pw@h/?key=k", "ghp_0123456789abcdef", "--acp"}
	want := []string{"env", "OPENAI_API_KEY=" + Redacted, "LANG=C", "my-agent", "--token", Redacted, "--api-key=" + Redacted, "--url", "https://u:" + Redacted + "@h/?key=" + Redacted, Redacted, "--acp"}
	got := RedactCommand(in)
	if !slices.Equal(got, want) {
		t.Errorf("RedactCommand\n got %q\nwant %q", got, want)
	}
	if in[5] != "abc" {
		t.Error("RedactCommand changed its argument")
	}
}

// TestRedactKeepsTheGoldenCorpus: real traffic without credentials comes
// out unchanged, and lines with them change only in string text.
func TestRedactKeepsTheGoldenCorpus(t *testing.T) {
	files, err := filepath.Glob("../conformance/testdata/*/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden corpus: %v", err)
	}
	changed := 0
	for _, file := range files {
		a, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Files {
			if !strings.HasPrefix(f.Name, "transcript.") {
				continue
			}
			for _, line := range bytes.Split(f.Data, []byte("\n")) {
				got := Redact(line)
				if bytes.Equal(got, line) {
					continue
				}
				changed++
				// The credentials the corpus holds are MCP header values;
				// a "token" or "key" is redacted whatever it holds.
				if !containsAny(line, literals(`"headers":[{`, `"env":[{`, `"token":`, `"key":`)) {
					t.Errorf("%s: line without credentials changed:\n  in: %s\n got: %s", file, line, got)
				}
				checkSameShape(t, line, got)
			}
		}
	}
	t.Logf("%d corpus lines redacted", changed)
}

// checkSameShape fails when in is JSON and out is not, or out differs
// from in other than in the text of strings.
func checkSameShape(t interface {
	Helper()
	Fatalf(string, ...any)
}, in, out []byte) {
	t.Helper()
	body := bytes.TrimPrefix(in, utf8BOM)
	v, err := jsonv.Parse(body)
	if err != nil {
		return
	}
	w, err := jsonv.Parse(bytes.TrimPrefix(out, utf8BOM))
	if err != nil {
		t.Fatalf("valid JSON became invalid (%v):\n  in: %q\n out: %q", err, in, out)
	}
	if a, b := shape(&v, body), shape(&w, bytes.TrimPrefix(out, utf8BOM)); a != b {
		t.Fatalf("shape changed:\n  in: %q\n out: %q", in, out)
	}
}

// shape writes v with every string's text left out.
func shape(v *jsonv.Value, src []byte) string {
	var b strings.Builder
	var walk func(v *jsonv.Value)
	walk = func(v *jsonv.Value) {
		switch v.Kind {
		case jsonv.String:
			b.WriteString(`""`)
		case jsonv.Array:
			b.WriteByte('[')
			for i := range v.Elems() {
				walk(&v.Elems()[i])
				b.WriteByte(',')
			}
			b.WriteByte(']')
		case jsonv.Object:
			b.WriteByte('{')
			for i := range v.Members() {
				m := &v.Members()[i]
				fmt.Fprintf(&b, "%q:", m.Key)
				walk(&m.Value)
				b.WriteByte(',')
			}
			b.WriteByte('}')
		default:
			b.Write(v.Raw(src))
		}
	}
	walk(v)
	return b.String()
}

// safeJSON generates JSON texts whose names and strings hold no
// credential: Redact must return them unchanged.
func safeJSON(depth int) *rapid.Generator[string] {
	names := rapid.SampledFrom([]string{"jsonrpc", "id", "method", "params", "sessionId", "cwd", "mcpServers", "name", "command", "args", "env", "headers", "value", "url", "text", "usage", "monkey", "keyboard", "title"})
	words := rapid.SampledFrom([]string{"", "2.0", "session/new", "/home/dev", "--root", "--port=80", "https://example.com/a?page=2", "hello world", "sk", "ghp", "Bearer", "a\\\"b", "é\\u00e9", "line\\nnext", "--verbose"})
	return rapid.Custom(func(t *rapid.T) string {
		return genJSON(t, depth, names, words, false)
	})
}

func genJSON(t *rapid.T, depth int, names, words *rapid.Generator[string], inEnv bool) string {
	kind := rapid.IntRange(0, 5).Draw(t, "kind")
	if depth == 0 {
		kind %= 3
	}
	switch kind {
	case 0:
		return rapid.SampledFrom([]string{"1", "-2.5e3", "true", "null", "0"}).Draw(t, "scalar")
	case 1, 2:
		return `"` + words.Draw(t, "word") + `"`
	case 3:
		n := rapid.IntRange(0, 3).Draw(t, "n")
		parts := make([]string, n)
		for i := range parts {
			parts[i] = genJSON(t, depth-1, names, words, false)
		}
		return "[" + strings.Join(parts, ",") + "]"
	default:
		n := rapid.IntRange(0, 4).Draw(t, "n")
		parts := make([]string, n)
		for i := range parts {
			name := names.Draw(t, "name")
			if name == "env" || name == "headers" {
				// Their values are secrets by position; keep them empty.
				parts[i] = `"` + name + `":[]`
				continue
			}
			parts[i] = `"` + name + `": ` + genJSON(t, depth-1, names, words, false)
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
}

func TestRedactKeepsLinesWithoutSecrets(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		line := safeJSON(4).Draw(t, "line")
		if got := string(Redact([]byte(line))); got != line {
			t.Fatalf("changed a line without secrets:\n  in: %s\n got: %s", line, got)
		}
	})
}

// TestRedactKeepsJSONValid mixes credentials into the names and strings
// of generated JSON: the output must be valid JSON of the same shape, and
// hold none of the credentials.
func TestRedactKeepsJSONValid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		names := rapid.SampledFrom([]string{"args", "env", "headers", "apiKey", "auth", "value", "name", "text", "url", "token", "x"})
		words := rapid.SampledFrom([]string{"--token", "--api-key=SECRET1", "ghp_SECRET2abcdefgh", "https://u:SECRET3@h/?token=SECRET4", "Bearer SECRET5xyzw", "\\\"token\\\":\\\"SECRET6", "a\\\\", "\\u0041", "x\\n", "-----BEGIN RSA PRIVATE KEY-----\\nSECRET7\\n-----END RSA PRIVATE KEY-----", "plain", ""})
		line := genJSON(t, 4, names, words, false)
		got := Redact([]byte(line))
		checkSameShape(t, []byte(line), got)
		for _, secret := range []string{"SECRET1", "SECRET2", "SECRET3", "SECRET4", "SECRET5", "SECRET6", "SECRET7"} {
			if bytes.Contains(got, []byte(secret)) {
				t.Fatalf("%s survived:\n  in: %s\n got: %s", secret, line, got)
			}
		}
	})
}

// TestRedactLintsTheSame: a recording redacted line by line gives the
// same findings as the traffic itself.
func TestRedactLintsTheSame(t *testing.T) {
	var in, out bytes.Buffer
	for _, c := range redactCases {
		if _, err := jsonv.Parse([]byte(c.in)); err != nil {
			continue
		}
		in.WriteString(c.in + "\n")
		out.Write(Redact([]byte(c.in)))
		out.WriteString("\n")
	}
	session := `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/p","mcpServers":[{"name":"gh","command":"/bin/gh","args":["--token","t"],"env":[{"name":"GITHUB_TOKEN","value":"ghp_secret","value":"x"}]},{"type":"http","name":"x","url":"https://u:p@x","headers":[{"name":"Authorization","value":"Bearer abc"}]}],"_meta":{"apiKey":{"k":"sk-1"}}}}`
	in.WriteString(session + "\n")
	out.Write(Redact([]byte(session)))
	out.WriteString("\n")
	before, err := lint.Transcript(&in, lint.Options{Format: transcript.FormatNDJSON, File: "t"})
	if err != nil {
		t.Fatal(err)
	}
	after, err := lint.Transcript(&out, lint.Options{Format: transcript.FormatNDJSON, File: "t"})
	if err != nil {
		t.Fatal(err)
	}
	key := func(r *lint.Result) []string {
		var ks []string
		for _, f := range r.Findings {
			ks = append(ks, fmt.Sprintf("%d %s %s", f.Location.Line, f.RuleID, f.Location.Pointer))
		}
		return ks
	}
	if a, b := key(before), key(after); !slices.Equal(a, b) || len(a) == 0 {
		t.Errorf("findings differ after redaction (or none):\nbefore %q\n after %q", a, b)
	}
}

// FuzzRedact: Redact never panics, keeps valid JSON valid and of the same
// shape, and redacting twice changes nothing more.
func FuzzRedact(f *testing.F) {
	for _, c := range redactCases {
		f.Add([]byte(c.in))
	}
	f.Add([]byte(`"\ud800"`))
	f.Add([]byte("{\"a\":\"\\\\\\\"token\\\\\\\":\\\\\\\"x\"}"))
	if data, err := os.ReadFile("../examples/session-without-mcp-servers.ndjson"); err == nil {
		for _, line := range bytes.Split(data, []byte("\n")) {
			f.Add(line)
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		got := Redact(line)
		checkSameShape(t, line, got)
		if again := Redact(got); !bytes.Equal(again, got) {
			t.Fatalf("not idempotent:\n  in: %q\nonce: %q\ntwice: %q", line, got, again)
		}
	})
}

// BenchmarkRedact redacts the golden corpus line by line, as tap --redact
// does; BenchmarkRedactParseOnly is the parse alone, for scale.
func BenchmarkRedact(b *testing.B) {
	lines, n := corpusLines(b)
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, l := range lines {
			Redact(l)
		}
	}
}

func BenchmarkRedactParseOnly(b *testing.B) {
	lines, n := corpusLines(b)
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, l := range lines {
			jsonv.Parse(l)
		}
	}
}

func corpusLines(b *testing.B) (lines [][]byte, n int) {
	files, err := filepath.Glob("../conformance/testdata/*/*.txtar")
	if err != nil || len(files) == 0 {
		b.Fatalf("no golden corpus: %v", err)
	}
	for _, file := range files {
		a, err := txtar.ParseFile(file)
		if err != nil {
			b.Fatal(err)
		}
		for _, f := range a.Files {
			if strings.HasPrefix(f.Name, "transcript.") {
				for _, l := range bytes.Split(f.Data, []byte("\n")) {
					lines = append(lines, l)
					n += len(l)
				}
			}
		}
	}
	return lines, n
}

// A line with more values than acplint parses of a line is still JSON,
// and its secrets are still secrets: one that only the JSON rules find
// (an MCP server's environment variable) must not reach the recording
// because a long array sits next to it.
func TestRedactLineWithTooManyValues(t *testing.T) {
	var line bytes.Buffer
	line.WriteString(`{"jsonrpc":"2.0","id":"req-1","method":"session/new","params":{"cwd":"/w","mcpServers":[{"name":"db","command":"srv","args":[],"env":[{"name":"PLAIN","value":"hunter2"}]}],"_meta":{"pad":[0`)
	for range codec.MaxValues(codec.DefaultMaxLine) {
		line.WriteString(",0")
	}
	line.WriteString(`]}}}`)
	if _, err := jsonv.ParseMax(line.Bytes(), codec.MaxValues(codec.DefaultMaxLine)); err == nil {
		t.Fatal("the line is within the parse's bound: the test tests nothing")
	}
	out := Redact(line.Bytes())
	if bytes.Contains(out, []byte("hunter2")) {
		t.Error("an env value of a line with too many values to parse reached the recording")
	}
	if !bytes.Contains(out, []byte(`"id":"req-1","method":"session/new"`)) {
		t.Errorf("the envelope changed: %.200s", out)
	}
	if !json.Valid(out) {
		t.Error("the redacted line is no longer JSON")
	}
}
