package codec_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/internal/jsonv"
)

// seedLines are the fuzz seeds: every line of the testdata transcripts and
// of the problem table.
func seedLines(f testing.TB) [][]byte {
	var out [][]byte
	for _, name := range []string{"testdata/full-session.ndjson", "testdata/extensions.ndjson"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))...)
	}
	for _, tc := range problemCases {
		if len(tc.line) < 1000 {
			out = append(out, []byte(tc.line))
		}
	}
	// Lines whose re-encoding would change what they say (Reencode).
	for _, l := range reencodeKeeps {
		out = append(out, []byte(l))
	}
	return out
}

// resultMethods are the methods that have a result, for typing results in
// the fuzz target.
var resultMethods = func() []*domain.MethodInfo {
	var out []*domain.MethodInfo
	for _, mi := range domain.Methods {
		if mi.NewResult != nil {
			out = append(out, mi)
		}
	}
	return out
}()

// FuzzDecodeLine: decoding and encoding never panic; every problem points
// into the line; the generated and the reflective decoders agree; a line
// without problems re-encodes to the same JSON.
func FuzzDecodeLine(f *testing.F) {
	for _, l := range seedLines(f) {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		d := codec.DecodeLine(codec.Line{Num: 9, Bytes: line})
		probs := append([]codec.Problem(nil), d.Problems...)
		for i, m := range d.Msgs {
			if m.Kind == domain.KindResult {
				// Type the result as that of some method, chosen by the
				// input so that the fuzzer can steer it.
				mi := resultMethods[len(line)%len(resultMethods)]
				probs = append(probs, d.DecodeResult(i, mi)...)
			}
			codec.Encode(m)
		}
		checkPointers(t, line, probs)
		// The generated decoders make the same of any input as the
		// reflective ones (decode_gen.go).
		sameDecoding(t, line, resultMethods[len(line)%len(resultMethods):][:1])
		if len(probs) > 0 || len(d.Msgs) != 1 {
			return
		}
		out := codec.Encode(d.Msgs[0])
		if diff := cmp.Diff(parsed(t, line), parsed(t, out), numericEquality); diff != "" {
			t.Fatalf("%s\nre-encodes as\n%s\n(-in +out):\n%s", line, out, diff)
		}
	})
}

// checkPointers checks that each problem's pointer names a value of the
// line or, for a missing member, a member of a value of the line.
func checkPointers(t *testing.T, line []byte, probs []codec.Problem) {
	t.Helper()
	src := bytes.TrimPrefix(line, []byte("\xEF\xBB\xBF"))
	root, err := jsonv.Parse(src)
	if err != nil {
		return
	}
	for _, p := range probs {
		if p.Kind == codec.ProbDuplicate {
			return // a pointer cannot tell repeated members apart
		}
	}
	for _, p := range probs {
		if _, ok := root.Lookup(p.Pointer); ok {
			continue
		}
		parent := p.Pointer[:strings.LastIndexByte(p.Pointer, '/')]
		if p.Kind == codec.ProbMissing || p.Kind == codec.ProbErrorObject {
			if _, ok := root.Lookup(parent); ok || parent == "" {
				continue
			}
			// A missing params member is reported under an absent "params".
			if strings.HasSuffix(parent, "/params") || parent == "/params" {
				continue
			}
		}
		t.Errorf("%s: pointer %q is not in the line %s", p.Kind, p.Pointer, line)
	}
}

// splitLines is the reference LineReader behaviour: split on "\n"; a
// final piece without "\n" is an unterminated line unless it is empty.
func splitLines(data []byte) []codec.Line {
	var out []codec.Line
	var off int64
	for n := 1; len(data) > 0; n++ {
		l := codec.Line{Num: n, Offset: off}
		i := bytes.IndexByte(data, '\n')
		var piece []byte
		if i < 0 {
			piece, data = data, nil
			l.Unterminated = true
			off += int64(len(piece))
		} else {
			piece, data = data[:i], data[i+1:]
			off += int64(i + 1)
			if bytes.HasSuffix(piece, []byte("\r")) {
				piece = piece[:len(piece)-1]
				l.CRLF = true
			}
		}
		l.Bytes = piece
		out = append(out, l)
	}
	return out
}

func readAll(t *testing.T, lr *codec.LineReader) []codec.Line {
	t.Helper()
	var out []codec.Line
	for {
		l, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, l)
	}
}

// FuzzLineReader: the reader yields the bytes, numbers and offsets that
// splitting on "\n" gives, whatever the buffer size and read sizes.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nb\r\n\nc"), uint8(0), false)
	f.Add([]byte("{\"jsonrpc\":\"2.0\"}\n"), uint8(3), true)
	f.Add([]byte("\r\n\r\n\r"), uint8(1), false)
	f.Add([]byte(strings.Repeat("x", 100)+"\n"+strings.Repeat("y", 40)), uint8(0), true)
	f.Add([]byte(""), uint8(0), false)
	f.Fuzz(func(t *testing.T, data []byte, size uint8, oneByte bool) {
		var r io.Reader = bytes.NewReader(data)
		if oneByte {
			r = iotest.OneByteReader(r)
		}
		got := readAll(t, codec.NewLineReaderSize(r, 16+int(size)))
		want := splitLines(data)
		if diff := deepDiff(want, got); diff != "" {
			t.Fatalf("%q (-split +reader):\n%s", data, diff)
		}
		// With SetAlloc, every line lands in memory alloc gave, which is
		// then scribbled on, as lint's reuse would: earlier lines must not
		// be in the memory of later ones.
		r = bytes.NewReader(data)
		if oneByte {
			r = iotest.OneByteReader(r)
		}
		lr := codec.NewLineReaderSize(r, 16+int(size))
		var given [][]byte
		lr.SetAlloc(func(n int) []byte {
			b := make([]byte, n, n+8)
			for i := range b[:cap(b)] {
				b[:cap(b)][i] = '#'
			}
			given = append(given, b)
			return b
		})
		got = readAll(t, lr)
		if len(given) != len(got) {
			t.Fatalf("%q: %d lines from %d allocations", data, len(got), len(given))
		}
		for i, l := range got {
			if len(l.Bytes) > 0 && &l.Bytes[0] != &given[i][0] {
				t.Fatalf("%q: line %d is not in the memory alloc gave", data, i+1)
			}
		}
		if diff := deepDiff(want, got); diff != "" {
			t.Fatalf("%q with SetAlloc (-split +reader):\n%s", data, diff)
		}
	})
}

func TestLineReaderEdgeCases(t *testing.T) {
	tests := map[string][]codec.Line{
		"":           nil,
		"\n":         {{Num: 1, Offset: 0, Bytes: []byte{}}},
		"a":          {{Num: 1, Offset: 0, Bytes: []byte("a"), Unterminated: true}},
		"a\r\nb\n":   {{Num: 1, Offset: 0, Bytes: []byte("a"), CRLF: true}, {Num: 2, Offset: 3, Bytes: []byte("b")}},
		"\r":         {{Num: 1, Offset: 0, Bytes: []byte("\r"), Unterminated: true}},
		"a\r\r\n\nb": {{Num: 1, Offset: 0, Bytes: []byte("a\r"), CRLF: true}, {Num: 2, Offset: 4, Bytes: []byte{}}, {Num: 3, Offset: 5, Bytes: []byte("b"), Unterminated: true}},
	}
	for in, want := range tests {
		got := readAll(t, codec.NewLineReader(strings.NewReader(in)))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", in, diff)
		}
		if diff := cmp.Diff(splitLines([]byte(in)), got); diff != "" {
			t.Errorf("%q: the reference split disagrees:\n%s", in, diff)
		}
	}
}

// TestLineReaderError passes a read error through, after the lines read
// before it.
func TestLineReaderError(t *testing.T) {
	boom := errors.New("disk on fire")
	r := io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(boom))
	lr := codec.NewLineReader(r)
	if l, err := lr.Next(); err != nil || string(l.Bytes) != "a" {
		t.Fatalf("first line: %q, %v", l.Bytes, err)
	}
	if _, err := lr.Next(); !errors.Is(err, boom) {
		t.Fatalf("got %v, want %v", err, boom)
	}
}
