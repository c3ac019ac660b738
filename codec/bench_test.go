package codec_test

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"sync"
	"testing"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/internal/transcriptgen"
)

// bigLine is a reader of one message line whose params carry n bytes of
// text, followed by a short second line. It makes the bytes as they are
// read, so the test holds no copy of the input.
type bigLine struct {
	prefix, suffix []byte
	n, off         int
}

func newBigLine(n int) *bigLine {
	return &bigLine{
		prefix: []byte(`{"jsonrpc":"2.0","method":"_example.com/blob","params":{"data":"`),
		suffix: []byte(`"}}` + "\n" + `{"jsonrpc":"2.0","method":"_example.com/done"}` + "\n"),
		n:      n,
	}
}

func (b *bigLine) size() int { return len(b.prefix) + b.n + len(b.suffix) }

func (b *bigLine) byteAt(i int) byte {
	switch {
	case i < len(b.prefix):
		return b.prefix[i]
	case i < len(b.prefix)+b.n:
		return 'a' + byte((i-len(b.prefix))%26)
	}
	return b.suffix[i-len(b.prefix)-b.n]
}

func (b *bigLine) Read(p []byte) (int, error) {
	if b.off >= b.size() {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && b.off < b.size() {
		p[n] = b.byteAt(b.off)
		n++
		b.off++
	}
	return n, nil
}

// TestFiftyMegabyteLine reads and decodes a 50 MB message: nothing splits
// or drops it, and the reader allocates about twice the line, not more.
func TestFiftyMegabyteLine(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a few hundred MB")
	}
	const n = 50 << 20
	src := newBigLine(n)
	lr := codec.NewLineReader(src)

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	l, err := lr.Next()
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	lineLen := len(src.prefix) + n + len(`"}}`)
	if len(l.Bytes) != lineLen || l.Num != 1 || l.Offset != 0 || l.Unterminated {
		t.Fatalf("line 1: %d bytes, num %d, offset %d, unterminated %v; want %d bytes", len(l.Bytes), l.Num, l.Offset, l.Unterminated, lineLen)
	}
	for i := 0; i < len(l.Bytes); i += 4093 {
		if l.Bytes[i] != src.byteAt(i) {
			t.Fatalf("byte %d is %q, want %q", i, l.Bytes[i], src.byteAt(i))
		}
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 3*uint64(lineLen) {
		t.Errorf("reading a %d-byte line allocated %d bytes", lineLen, alloc)
	}

	d := codec.DecodeLine(l)
	if len(d.Problems) != 0 || len(d.Msgs) != 1 || len(d.Msgs[0].RawParams) != len(`{"data":""}`)+n {
		t.Errorf("decoded %d messages, problems %v", len(d.Msgs), d.Problems)
	}

	l2, err := lr.Next()
	if err != nil || l2.Num != 2 || l2.Offset != int64(lineLen+1) || !bytes.Contains(l2.Bytes, []byte("_example.com/done")) {
		t.Fatalf("line 2: %+v, %v", l2, err)
	}
	if _, err := lr.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last line: %v", err)
	}
}

var (
	benchOnce  sync.Once
	benchLines [][]byte
	benchBytes int64
)

// benchTranscript is a generated 8 MB transcript, split into lines.
func benchTranscript(b testing.TB) ([][]byte, int64) {
	benchOnce.Do(func() {
		var buf bytes.Buffer
		if err := transcriptgen.Write(&buf, transcriptgen.Options{Seed: 1, Bytes: 8 << 20}); err != nil {
			b.Fatal(err)
		}
		benchBytes = int64(buf.Len())
		lr := codec.NewLineReader(&buf)
		for {
			l, err := lr.Next()
			if err != nil {
				break
			}
			benchLines = append(benchLines, l.Bytes)
		}
	})
	return benchLines, benchBytes
}

// BenchmarkDecodeLine decodes every line of a realistic transcript; one
// op is the whole transcript.
func BenchmarkDecodeLine(b *testing.B) {
	lines, size := benchTranscript(b)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for i, l := range lines {
			codec.DecodeLine(codec.Line{Num: i + 1, Bytes: l})
		}
	}
}

// BenchmarkEncode re-encodes every message of the transcript.
func BenchmarkEncode(b *testing.B) {
	lines, size := benchTranscript(b)
	var decoded []*codec.Decoded
	for i, l := range lines {
		decoded = append(decoded, codec.DecodeLine(codec.Line{Num: i + 1, Bytes: l}))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range decoded {
			for _, m := range d.Msgs {
				codec.Encode(m)
			}
		}
	}
}

// BenchmarkBatchDecode decodes the transcript the way lint does: 64 lines
// per batch, each batch in the memory of the one before. One goroutine,
// so it is steadier than BenchmarkLint on a shared machine.
func BenchmarkBatchDecode(b *testing.B) {
	lines, size := benchTranscript(b)
	b.SetBytes(size)
	b.ReportAllocs()
	var bd codec.BatchDecoder
	for b.Loop() {
		for i, l := range lines {
			if i%64 == 0 {
				bd.Reset()
			}
			bd.DecodeLine(codec.Line{Num: i + 1, Bytes: l})
		}
	}
}
