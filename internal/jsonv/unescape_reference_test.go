package jsonv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// unescapeReference is the parser's decoding of a string with escapes as
// it was before unescape read words: runs of plain bytes found with
// nextSpecial and appended, each escape appended. It is kept as the
// definition unescape must match, output, end and error alike
// (TestUnescapeReference, FuzzUnescape), and as the other half of
// BenchmarkUnescape.
func unescapeReference(buf, src []byte, i int) ([]byte, int, *SyntaxError) {
	p := &parser{src: src}
	for {
		if i >= len(p.src) {
			p.pos = i
			return buf, i, p.errf("unexpected end of input inside a string").(*SyntaxError)
		}
		c := p.src[i]
		switch {
		case c == '"':
			return buf, i, nil
		case c < 0x20:
			p.pos = i
			return buf, i, p.errf("control character 0x%02x in a string (must be escaped)", c).(*SyntaxError)
		case c != '\\':
			// Copy the run of plain bytes up to the next quote, escape or
			// control character.
			j := p.nextSpecial(i + 1)
			buf = append(buf, p.src[i:j]...)
			i = j
			continue
		}
		// escape
		if i+1 >= len(p.src) {
			p.pos = i
			return buf, i, p.errf("unexpected end of input in an escape").(*SyntaxError)
		}
		e := p.src[i+1]
		i += 2
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := hex4(p.src, i)
			if !ok {
				p.pos = i
				return buf, i, p.errf(`invalid \u escape`).(*SyntaxError)
			}
			i += 4
			if utf16.IsSurrogate(r) {
				// A high surrogate must pair with a following low one;
				// encoding/json and JavaScript both fall back to U+FFFD.
				if i+6 <= len(p.src) && p.src[i] == '\\' && p.src[i+1] == 'u' {
					if r2, ok := hex4(p.src, i+2); ok {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							i += 6
							buf = utf8.AppendRune(buf, d)
							continue
						}
					}
				}
				r = utf8.RuneError
			}
			buf = utf8.AppendRune(buf, r)
		default:
			p.pos = i - 1
			return buf, i - 1, p.errf("invalid escape '\\%c' in a string", e).(*SyntaxError)
		}
	}
}

// checkUnescape decodes src from i on with unescape and with the
// reference, after a prefix in a destination with no room to spare and in
// one with plenty, and fails if they differ in anything but where a
// failed decode stopped writing; a string decoded without error, valid
// UTF-8, must decode as encoding/json decodes it.
func checkUnescape(t *testing.T, src []byte, i int) {
	t.Helper()
	wantOut, wantEnd, wantErr := unescapeReference([]byte("pre"), src, i)
	for _, dst := range [][]byte{[]byte("pre"), append(make([]byte, 0, 4096), "pre"...)} {
		out, end, err := unescape(dst, src, i)
		if (err == nil) != (wantErr == nil) || err != nil && *err != *wantErr {
			t.Fatalf("unescape(%q, %d): error %v, the reference's %v", src, i, err, wantErr)
		}
		if err != nil {
			continue
		}
		if end != wantEnd || !bytes.Equal(out, wantOut) {
			t.Fatalf("unescape(%q, %d) = %q, %d; the reference gives %q, %d", src, i, out, end, wantOut, wantEnd)
		}
	}
	if wantErr != nil || !utf8.Valid(src[i:wantEnd]) {
		return
	}
	var s string
	if err := json.Unmarshal([]byte(`"`+string(src[i:wantEnd])+`"`), &s); err != nil {
		t.Fatalf("%q from %d: decoded, but encoding/json says %v", src, i, err)
	}
	if "pre"+s != string(wantOut) {
		t.Fatalf("%q from %d: decoded as %q, encoding/json reads %q", src, i, wantOut[3:], s)
	}
}

var unescapeSeeds = []string{
	`"`, ``, `abc"`, `a\"b\\c\/d\be\ff\ng\rh\ti"`, `\u00e9\u00E9\ud83d\ude00"`, `\ud800"`, `\ud800\u0041"`, `\udc00\ud800"`,
	`\ud800\udbff\udc00"`, `\u12"`, `\u12g4"`, `\x"`, `\`, `\u`, "a\x01\"", "a\tb\"", "\xff\xfe\"", `é€😀"`,
	`{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"text\":\"line\\nnext\"}}"}`,
	`0123456789abcdef0123456789abcdef`, `0123456789abcdef0123456789abcde"`, `01234567\"01234567\\0123"`,
}

// TestUnescapeReference: unescape decodes as the parser's loop before it
// did, on inputs made to reach each of its paths: every byte value, and
// every escape, at every place around a word, from every start, and random
// strings from alphabets dense in escapes.
func TestUnescapeReference(t *testing.T) {
	for _, s := range unescapeSeeds {
		for i := 0; i <= len(s); i++ {
			checkUnescape(t, []byte(s), i)
		}
	}
	plain := []byte(`{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"text\":\"ok\"}}"`)
	for c := range 256 {
		for at := range 40 {
			s := bytes.Clone(plain)
			s[at] = byte(c)
			for _, i := range []int{0, 1, 7, 9} {
				checkUnescape(t, s, i)
			}
		}
	}
	escapes := []string{`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u0041`, `\u00e9`, `\u2028`, `\ud83d\ude00`, `\ud83d`, `\ude00`, `\u`, `\x`, `\`, `"`, "\x00", "\x1f", "é"}
	for _, e := range escapes {
		for at := range 26 {
			for tail := range 20 {
				s := strings.Repeat("a", at) + e + strings.Repeat("b", tail) + `"`
				checkUnescape(t, []byte(s), 0)
				checkUnescape(t, []byte(s[:len(s)-1]), 0) // no closing quote
			}
		}
	}
	alphabets := []string{
		`abc :,{}[]0123456789\"\\\n`,
		`\"\u00e9\ud83d\ude00\ud800\u0041\/\b\f\r\tz`,
		"a\\\"\x00\x1f\x7f\x80\xff\xe2",
	}
	rnd := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		alphabet := alphabets[rnd.IntN(len(alphabets))]
		s := make([]byte, rnd.IntN(120))
		for k := range s {
			switch rnd.IntN(10) {
			case 0:
				s[k] = byte(rnd.IntN(256))
			case 1:
				s[k] = '"'
			default:
				s[k] = alphabet[rnd.IntN(len(alphabet))]
			}
		}
		checkUnescape(t, s, rnd.IntN(len(s)+1))
	}
}

// FuzzUnescape: unescape decodes any input from any start as the
// reference does, and as encoding/json does what it decodes.
func FuzzUnescape(f *testing.F) {
	for _, s := range unescapeSeeds {
		f.Add([]byte(s), uint16(0))
	}
	f.Fuzz(func(t *testing.T, src []byte, start uint16) {
		checkUnescape(t, src, int(start)%(len(src)+1))
	})
}

// ExampleAppendUnescaped is how a caller reads a string member in a
// known place: the body starts after its quote, and the decode ends at
// the closing one.
func ExampleAppendUnescaped() {
	line := []byte(`{"frame":"{\"id\":1}\u00e9","t":1}`)
	start := len(`{"frame":"`)
	text, end, err := AppendUnescaped(nil, line, start)
	fmt.Printf("%s %s %v\n", text, line[end:], err)
	// Output: {"id":1}é ","t":1} <nil>
}

// UnescapeReference lets the external benchmark run the reference.
func UnescapeReference(dst, src []byte, i int) ([]byte, int, error) {
	out, end, err := unescapeReference(dst, src, i)
	if err != nil {
		return out, end, err
	}
	return out, end, nil
}
