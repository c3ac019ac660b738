package jsonv_test

import (
	"bytes"
	"sync"
	"testing"

	"github.com/acplint/acplint/internal/jsonv"
	"github.com/acplint/acplint/internal/transcriptgen"
)

// lintLines is a realistic transcript of about 4 MB, split into its lines:
// what lint hands the parser.
var lintLines = sync.OnceValue(func() [][]byte {
	var buf bytes.Buffer
	if err := transcriptgen.Write(&buf, transcriptgen.Options{Seed: 1, Bytes: 4 << 20}); err != nil {
		panic(err)
	}
	return bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))
})

// BenchmarkParseLintLines parses a realistic transcript the way lint's
// read-ahead does: 64 lines to a batch, each batch into an arena that the
// next one reuses.
func BenchmarkParseLintLines(b *testing.B) {
	lines := lintLines()
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	const batchLines = 64 // lint's batchLines
	var a jsonv.Arena
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for i, l := range lines {
			if i%batchLines == 0 {
				a.Reset()
			}
			if _, err := a.ParseNext(l); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkParseLintLinesNoArena is BenchmarkParseLintLines through Parse,
// as the protocol checks parse the params and results they look into.
func BenchmarkParseLintLinesNoArena(b *testing.B) {
	lines := lintLines()
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if _, err := jsonv.ParseOwned(l); err != nil {
				b.Fatal(err)
			}
		}
	}
}
