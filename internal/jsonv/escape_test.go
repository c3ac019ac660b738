package jsonv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// referenceEscape is the escaper spelled out one character at a time, with
// no table and no runs: slow and plain enough to read as the definition of
// each mode.
func referenceEscape(s []byte, mode Mode) []byte {
	var out bytes.Buffer
	out.WriteByte('"')
	for len(s) > 0 {
		r, size := utf8.DecodeRune(s)
		switch {
		case r == utf8.RuneError && size == 1:
			if mode&ReplaceInvalidUTF8 != 0 {
				out.WriteString(`\ufffd`)
			} else {
				out.WriteByte(s[0])
			}
		case r == '"':
			out.WriteString(`\"`)
		case r == '\\':
			out.WriteString(`\\`)
		case r == '\n':
			out.WriteString(`\n`)
		case r == '\r':
			out.WriteString(`\r`)
		case r == '\t':
			out.WriteString(`\t`)
		case r == '\b' && mode&NameBackspaceFormFeed != 0:
			out.WriteString(`\b`)
		case r == '\f' && mode&NameBackspaceFormFeed != 0:
			out.WriteString(`\f`)
		case r < 0x20, mode&EscapeHTML != 0 && (r == '<' || r == '>' || r == '&'):
			fmt.Fprintf(&out, `\u%04x`, r)
		case (r == '\u2028' || r == '\u2029') && mode&EscapeLineSeparators != 0:
			fmt.Fprintf(&out, `\u%04x`, r)
		default:
			out.Write(s[:size])
		}
		s = s[size:]
	}
	out.WriteByte('"')
	return out.Bytes()
}

// encodingJSON is how encoding/json writes s, for the modes it has.
func encodingJSON(t *testing.T, s string, escapeHTML bool) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

var escapeSeeds = []string{
	"", "plain", `"quoted" \back\slash/`, "\x00\x01\b\f\n\r\t\x1f\x7f",
	"<script>&amp;</script>", "\u2028\u2029\u2027\u202a", "é€😀",
	"\xff", "a\xe2\x80", "\xe2\x80\xa8\xe2", "\xf0\xe2\x80\xa8", "\xed\xa0\x80",
	"\xef\xbf\xbd", "\xc0\xaf", "\xe2\x82", "\xe2\xe2\x80\xa9",
}

func checkEscape(t *testing.T, s string) {
	t.Helper()
	for mode := range Mode(modeCount) {
		want := string(referenceEscape([]byte(s), mode))
		if got := string(AppendString([]byte("x"), s, mode)); got != "x"+want {
			t.Fatalf("mode %04b, string %q:\ngot  %s\nwant x%s", mode, s, got, want)
		}
		if got := string(AppendString(nil, []byte(s), mode)); got != want {
			t.Fatalf("mode %04b, []byte %q:\ngot  %s\nwant %s", mode, s, got, want)
		}
	}
	checkReference(t, []byte(s))
	if got, want := string(AppendString(nil, s, EncodingJSON)), encodingJSON(t, s, false); got != want {
		t.Fatalf("EncodingJSON %q:\ngot  %s\nwant %s", s, got, want)
	}
	if got, want := string(AppendString(nil, s, EncodingJSON|EscapeHTML)), encodingJSON(t, s, true); got != want {
		t.Fatalf("EncodingJSON|EscapeHTML %q:\ngot  %s\nwant %s", s, got, want)
	}
}

func TestAppendString(t *testing.T) {
	for _, s := range escapeSeeds {
		checkEscape(t, s)
	}
	// Every byte alone and before a multi-byte character, so each table
	// entry of each mode is read at least once.
	for c := range 256 {
		checkEscape(t, string([]byte{byte(c)}))
		checkEscape(t, string([]byte{byte(c)})+"\u2028é")
	}
}

// FuzzAppendString: every mode, string or []byte, escapes as the
// reference does and as the escaper before it did (checkReference), and
// the modes encoding/json has as it does.
func FuzzAppendString(f *testing.F) {
	for _, s := range escapeSeeds {
		f.Add(s)
	}
	f.Fuzz(checkEscape)
}

func BenchmarkAppendString(b *testing.B) {
	text := strings.Repeat(`{"jsonrpc":"2.0","method":"session/update","params":{"text":"héllo <wörld>\n"}} `, 64)
	for _, mode := range []Mode{0, EscapeLineSeparators, EncodingJSON, EscapeHTML | ReplaceInvalidUTF8 | EscapeLineSeparators} {
		b.Run(fmt.Sprintf("mode=%04b", mode), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			var buf []byte
			for b.Loop() {
				buf = AppendString(buf[:0], text, mode)
			}
		})
	}
}
