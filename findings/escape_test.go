package findings

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"plain session/new \"x\" 50% a:b", "plain session/new \"x\" 50% a:b"},
		{"a\nb\r\tc\x00\x1b[31m", `a\nb\r\tc\x00\x1b[31m`},
		{"del\x7f c1\u0085\u009b", `del\x7f c1\u0085\u009b`},
		{"ls\u2028ps\u2029", `ls\u2028ps\u2029`},
		{"rlo\u202eabc\u202c lri\u2067x\u2069 lrm\u200e bom\ufeff", `rlo\u202eabc\u202c lri\u2067x\u2069 lrm\u200e bom\ufeff`},
		{"bad\xff\xfe utf8 \xe2\x80", `bad\xff\xfe utf8 \xe2\x80`},
		{"::error file=x::y", `\x3a:error file=x::y`},
		{"  \u00a0::warning::y", "  \u00a0\\x3a:warning::y"},
		{"mid ::error:: stays", "mid ::error:: stays"},
		{"v1 ##[error]boom and ## [ and #[", `v1 ##\x5berror]boom and ## [ and #[`},
		{`back\slash \u0061`, `back\slash \u0061`},
		{"é ü 日本 😀", "é ü 日本 😀"},
	} {
		if got := Escape(c.in); got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestEscapeDoesNotAllocateForSafeText(t *testing.T) {
	s := strings.Repeat("session/prompt request (id 7) is never answered; ", 20)
	if n := testing.AllocsPerRun(100, func() { _ = Escape(s) }); n != 0 {
		t.Errorf("Escape allocated %v times for text that needs no escaping", n)
	}
}

// hostile is what a peer can put into a method or member name: a terminal
// control sequence, a forged finding line, a GitHub workflow command in both
// syntaxes, CR, NUL, invalid UTF-8, a line separator and a bidi override.
const hostile = "m\x1b[2J\n::error file=x,line=1::pwned\r\x00\xff\u2028##[error]v1\u202eevil"

// hostileReport holds every untrusted string a reporter prints: file
// names, messages, pointers and related lines.
func hostileReport() Report {
	f := New(RPCErrorMessage, Location{File: "::" + hostile, Line: 2, Pointer: "/params/" + hostile},
		`member "`+hostile+`" is unknown`,
		Related{Location: Location{File: hostile, Line: 1}, Message: "request " + hostile + " here"})
	info := New(WIREWhitespace, Location{File: hostile}, hostile)
	return Report{Files: []string{hostile}, Findings: []ValidationFinding{f, info}}
}

// checkLines asserts what makes line-oriented output safe: every line is
// valid UTF-8 with no control character but a leading tab, holds no Unicode
// line break or bidi control, and cannot be read as a workflow command
// (the Actions runner trims leading white space, then looks for "::" at the
// start and for "##[" anywhere).
func checkLines(t *testing.T, out string) []string {
	t.Helper()
	if !strings.HasSuffix(out, "\n") {
		t.Fatalf("output does not end in a newline: %q", out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for _, line := range lines {
		if !utf8.ValidString(line) {
			t.Errorf("invalid UTF-8 in %q", line)
		}
		for i, r := range line {
			if r == '\t' && i == 0 {
				continue
			}
			if unsafeRune(r) {
				t.Errorf("character %U at offset %d in %q", r, i, line)
				break
			}
		}
		if strings.Contains(line, "##[") {
			t.Errorf("a v1 workflow command in %q", line)
		}
	}
	return lines
}

func TestTextEscapesUntrustedText(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, FormatText, hostileReport()); err != nil {
		t.Fatal(err)
	}
	var heads []string
	for _, line := range checkLines(t, buf.String()) {
		if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") {
			t.Errorf("line reads as a workflow command: %q", line)
		}
		if !strings.HasPrefix(line, "\t") {
			heads = append(heads, line)
		}
	}
	if len(heads) != 2 {
		t.Errorf("got %d finding lines, want 2:\n%s", len(heads), buf.String())
	}
	if want := `\x3a:m\x1b[2J\n::error file=x,line=1::pwned\r\x00\xff\u2028##\x5berror]v1\u202eevil:2: warning: [either] member "m\x1b`; !strings.HasPrefix(heads[0], want) {
		t.Errorf("first finding line\n%s\ndoes not start with\n%s", heads[0], want)
	}
}

func TestGitHubEscapesUntrustedText(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, FormatGitHub, hostileReport()); err != nil {
		t.Fatal(err)
	}
	lines := checkLines(t, buf.String())
	if len(lines) != 2 {
		t.Fatalf("got %d lines, want one per finding:\n%s", len(lines), buf.String())
	}
	for _, line := range lines {
		// The command and its properties end at the second "::"; the
		// data after it may hold "::" harmlessly. Properties are
		// separated by ",", so each part must be one acplint wrote.
		if !strings.HasPrefix(line, "::warning file=") && !strings.HasPrefix(line, "::notice file=") {
			t.Errorf("line is not one workflow command: %q", line)
		}
		cmd, _, _ := strings.Cut(strings.TrimPrefix(line, "::"), "::")
		_, props, _ := strings.Cut(cmd, " ")
		for _, p := range strings.Split(props, ",") {
			if !strings.HasPrefix(p, "file=") && !strings.HasPrefix(p, "line=") && !strings.HasPrefix(p, "title=") {
				t.Errorf("forged property %q in %q", p, line)
			}
		}
	}
}

func TestJUnitEscapesUntrustedText(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, FormatJUnit, hostileReport()); err != nil {
		t.Fatal(err)
	}
	// The reader's view of the document, independent of how it is written.
	var doc struct {
		Suites []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				ClassName string `xml:"classname,attr"`
				Failure   *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("not well-formed XML: %v\n%s", err, buf.String())
	}
	// XML 1.0 allows only tab, newline and CR below 0x20, even as
	// character references; encoding/xml writes those three as &#x9; etc.
	for i, r := range buf.String() {
		if r < 0x20 && r != '\n' {
			t.Fatalf("character %U at offset %d", r, i)
		}
	}
	var msg string
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			if c.Failure != nil {
				msg = c.Failure.Message
				if c.ClassName != Escape("::"+hostile) {
					t.Errorf("classname %q, want the escaped file name", c.ClassName)
				}
			}
		}
	}
	// Shown, not silently replaced by U+FFFD as encoding/xml would.
	if want := Escape(`member "` + hostile + `" is unknown`); msg != want {
		t.Errorf("failure message %q, want %q", msg, want)
	}
}

func TestJSONAndSARIFCarryUntrustedTextExactly(t *testing.T) {
	r := hostileReport()
	// encoding/json writes each invalid UTF-8 byte as U+FFFD; everything
	// else must round-trip exactly.
	want := string([]rune(r.Findings[0].Message))

	var buf bytes.Buffer
	if err := Write(&buf, FormatJSON, r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d JSON lines, want 2:\n%s", len(lines), buf.String())
	}
	var got ValidationFinding
	if err := json.Unmarshal([]byte(lines[0]), &got); err != nil {
		t.Fatal(err)
	}
	if got.Message != want || got.Location.Pointer != string([]rune(r.Findings[0].Location.Pointer)) {
		t.Errorf("JSON round trip: message %q pointer %q", got.Message, got.Location.Pointer)
	}

	buf.Reset()
	if err := Write(&buf, FormatSARIF, r); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				Message struct{ Text string }
			}
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if got := log.Runs[0].Results[0].Message.Text; got != want {
		t.Errorf("SARIF round trip: message %q, want %q", got, want)
	}
	// Both are JSON: no raw control character or line separator survives.
	for i, r := range buf.String() {
		if (r < 0x20 && r != '\n') || r == 0x2028 || r == 0x2029 {
			t.Fatalf("raw %U at offset %d of the SARIF log", r, i)
		}
	}
}
