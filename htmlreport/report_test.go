package htmlreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/transcript"
)

// payloads are strings an attacker controls in a transcript, each meant to
// end the data's element or start markup or a script if it were pasted
// into the page.
var payloads = []string{
	`</script><script>alert(1)</script>`,
	`<!--<script>alert(2)//`,
	`javascript:alert(3)`,
	`<img src=x onerror=alert(4)>`,
	"\u2028alert(5)\u2029",
	`]]></script><svg onload=alert(6)>`,
}

// hostileTranscript is a transcript whose methods, ids, session ids and
// text carry the payloads, and whose lines break rules that quote them.
func hostileTranscript() string {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{},"clientInfo":{"name":"x","version":"1"}}}` + "\n")
	b.WriteString(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[]}}` + "\n")
	b.WriteString(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}` + "\n")
	for i, p := range payloads {
		q, _ := json.Marshal(p)
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":%s}}`+"\n", q)
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%s,"method":%s,"params":{"uri":%s}}`+"\n", q, q, q)
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%s,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"resource_link","uri":%s,"name":%s}}}}`+"\n", q, q, q)
		fmt.Fprintf(&b, "%s %d\n", p, i) // not JSON at all
	}
	return b.String()
}

func writePage(t *testing.T, input string, lo lint.Options, opts Options) string {
	t.Helper()
	var out bytes.Buffer
	w := New(&out, opts)
	if _, err := w.Lint(strings.NewReader(input), lo); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

var dataBlock = regexp.MustCompile(`(?s)<script type="application/json" class="acp-data">(.*?)</script>`)

// records decodes every data record of page.
func records(t *testing.T, page string) [][]any {
	t.Helper()
	var all [][]any
	for _, m := range dataBlock.FindAllStringSubmatch(page, -1) {
		var recs [][]any
		if err := json.Unmarshal([]byte(m[1]), &recs); err != nil {
			t.Fatalf("a data block is not a JSON array of records: %v", err)
		}
		all = append(all, recs...)
	}
	return all
}

// TestUntrustedTextStaysData: whatever a transcript and its file name hold,
// the page has no element but its own, no data block holds a character
// that could end it, and every string comes back whole from the data.
func TestUntrustedTextStaysData(t *testing.T) {
	name := `</title><script>alert("file")</script>.ndjson`
	page := writePage(t, hostileTranscript(), lint.Options{File: name, Format: transcript.FormatNDJSON}, Options{})
	blocks := dataBlock.FindAllStringSubmatch(page, -1)
	if len(blocks) == 0 {
		t.Fatal("no data block")
	}
	// The page's own script elements: the data blocks, the metadata and
	// the script. One more means a payload made one.
	if n, want := strings.Count(page, "<script"), len(blocks)+2; n != want {
		t.Errorf("%d <script elements, want %d", n, want)
	}
	for _, bad := range []string{"<img", "<svg", "<!--", "alert(1)</script>"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q outside escaped data", bad)
		}
	}
	for _, m := range blocks {
		if i := strings.IndexAny(m[1], "<>&\u2028\u2029"); i >= 0 {
			t.Errorf("a data block holds %q unescaped", m[1][i:min(len(m[1]), i+20)])
		}
	}
	if !strings.Contains(page, "<title>&lt;/title&gt;&lt;script&gt;alert(&#34;file&#34;)&lt;/script&gt;.ndjson · acplint report</title>") {
		t.Errorf("the file name is not escaped in the title:\n%s", page[:min(len(page), 600)])
	}
	var text strings.Builder
	rows, findingsSeen := 0, 0
	for _, r := range records(t, page) {
		fmt.Fprintln(&text, r...)
		switch r[0] {
		case "M":
			rows++
		case "R":
			findingsSeen++
		}
	}
	for _, p := range payloads {
		if !strings.Contains(text.String(), p) {
			t.Errorf("payload %q did not come back whole from the data", p)
		}
	}
	if want := 3 + 4*len(payloads); rows != want {
		t.Errorf("%d message rows, want %d", rows, want)
	}
	if findingsSeen == 0 {
		t.Error("the hostile transcript gave no findings; the test checks their escaping too")
	}
}

// TestRedact: with Redact, secrets are replaced in the messages and in the
// findings that quote them, as tap --redact does in a recording.
func TestRedact(t *testing.T) {
	const secret = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	input := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{},"clientInfo":{"name":"x","version":"1"}}}
{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[]}}
{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[{"name":"gh","command":"gh-mcp","args":[],"env":[{"name":"GITHUB_TOKEN","value":"` + secret + `"}]}]}}
token ` + secret + ` on stdout
`
	lo := lint.Options{Format: transcript.FormatNDJSON}
	plain := writePage(t, input, lo, Options{})
	if !strings.Contains(plain, secret) {
		t.Fatal("without Redact the secret should be in the page; the test input is wrong")
	}
	redacted := writePage(t, input, lo, Options{Redact: true})
	if strings.Contains(redacted, secret) || strings.Contains(redacted, "ghp_0123") {
		t.Error("with Redact the secret is still in the page")
	}
	if !strings.Contains(redacted, "[REDACTED]") || !strings.Contains(redacted, "secrets redacted") {
		t.Error("the redacted page neither shows [REDACTED] nor says it was redacted")
	}
}

// TestDataBlocksAreBounded: a long transcript is written in many blocks,
// none larger than the bound plus one record, and every message is in one.
func TestDataBlocksAreBounded(t *testing.T) {
	var b strings.Builder
	const n = 3 * blockRecords
	for i := range n {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","method":"x/note","params":{"i":%d}}`+"\n", i)
	}
	page := writePage(t, b.String(), lint.Options{Format: transcript.FormatNDJSON, MaxPerRule: 1}, Options{})
	blocks := dataBlock.FindAllStringSubmatch(page, -1)
	if len(blocks) < 3 {
		t.Errorf("%d data blocks for %d messages, want at least 3", len(blocks), n)
	}
	for _, m := range blocks {
		if len(m[1]) > blockBytes+4096 {
			t.Errorf("a data block of %d bytes", len(m[1]))
		}
	}
	rows := 0
	for _, r := range records(t, page) {
		if r[0] == "M" {
			rows++
		}
	}
	if rows != n {
		t.Errorf("%d rows, want %d", rows, n)
	}
}

// TestAppendString: the escaping reads back as the same string with
// encoding/json and leaves none of the characters that matter in HTML.
func TestAppendString(t *testing.T) {
	for _, s := range append(payloads, "", "plain", "tab\tnl\n\x00\x1f", "é€😀", `"\`, "a\u2028b\u2029c") {
		got := appendString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil || back != s {
			t.Errorf("appendString(%q) = %s, reads back as %q (%v)", s, got, back, err)
		}
		if bytes.ContainsAny(got, "<>&\u2028\u2029") {
			t.Errorf("appendString(%q) = %s keeps a character HTML cares about", s, got)
		}
	}
	// Bytes that are not UTF-8 become U+FFFD, as with encoding/json.
	bad := []byte("a\xffb\xc3")
	got := appendString(nil, bad)
	var back string
	if err := json.Unmarshal(got, &back); err != nil || back != "a\uFFFDb\uFFFD" || !utf8.Valid(got) {
		t.Errorf("appendString(%q) = %s, reads back as %q (%v)", bad, got, back, err)
	}
}

func FuzzAppendString(f *testing.F) {
	for _, p := range payloads {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := appendString(nil, s)
		if bytes.ContainsAny(got, "<>&\u2028\u2029") {
			t.Fatalf("appendString(%q) = %s", s, got)
		}
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("appendString(%q) = %s: %v", s, got, err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("appendString(%q) reads back as %q", s, back)
		}
	})
}
