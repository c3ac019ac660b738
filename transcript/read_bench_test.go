package transcript_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/acplint/acplint/internal/slab"
	"github.com/acplint/acplint/transcript"
)

// BenchmarkReadNDJSON is lint's reading path alone: a file of raw NDJSON
// (ACPLINT_BENCH_FILE, else lint's benchmark transcript in the temporary
// directory, which `go test ./lint -bench Lint` writes, of ACPLINT_BENCH_MB
// megabytes) read into batches
// of 64 lines whose memory is reused, as lint's read-ahead does.
func BenchmarkReadNDJSON(b *testing.B) {
	path := os.Getenv("ACPLINT_BENCH_FILE")
	if path == "" {
		mb := os.Getenv("ACPLINT_BENCH_MB")
		if mb == "" {
			mb = "32"
		}
		path = filepath.Join(os.TempDir(), "acplint-bench-"+mb+"MB.ndjson")
	}
	f, err := os.Open(path)
	if err != nil {
		b.Skip(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	b.SetBytes(st.Size())
	var lines slab.Slab[byte]
	batch := make([]transcript.Entry, 64)
	for b.Loop() {
		f.Seek(0, io.SeekStart)
		rd := transcript.NewReader(f, transcript.FormatAuto, 0)
		rd.SetLineAlloc(lines.Take)
		for n := 0; ; n++ {
			if n == len(batch) {
				n = 0
				lines.Reset()
			}
			if err := rd.NextInto(&batch[n]); err != nil {
				if !errors.Is(err, io.EOF) {
					b.Fatal(err)
				}
				break
			}
			_ = rd.WholeLineBuffered()
		}
	}
}
