package htmlreport

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/acplint/acplint/internal/gcpolicy"
	"github.com/acplint/acplint/internal/transcriptgen"
	"github.com/acplint/acplint/lint"
)

// benchTranscript generates a realistic transcript of ACPLINT_BENCH_MB
// megabytes (default 32; the figure is for 100) once per run, into
// a file, so that the benchmarks read it as a user's acplint would.
var benchTranscript = sync.OnceValues(func() (string, error) {
	mb := 32
	if s := os.Getenv("ACPLINT_BENCH_MB"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return "", err
		}
		mb = n
	}
	path := filepath.Join(os.TempDir(), fmt.Sprintf("acplint-html-bench-%dMB.ndjson", mb))
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := transcriptgen.Write(w, transcriptgen.Options{Seed: 1, Bytes: int64(mb) << 20}); err != nil {
		return "", err
	}
	if err := w.Flush(); err != nil {
		return "", err
	}
	return path, f.Close()
})

// BenchmarkReportVsLint alternates plain lint of the generated transcript
// and lint writing the HTML report in the same pass (to io.Discard), so
// both see the machine in the same minutes; x-lint is the report's time
// over lint's (the issue asks for at most 2: at least half lint's speed).
func BenchmarkReportVsLint(b *testing.B) {
	path, err := benchTranscript()
	if err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	b.SetBytes(st.Size())
	defer gcpolicy.Apply()()
	var plain, report time.Duration
	var pageBytes int64
	for b.Loop() {
		start := time.Now()
		lintOnce(b, f, nil)
		mid := time.Now()
		var out countWriter
		lintOnce(b, f, &out)
		plain, report = plain+mid.Sub(start), report+time.Since(mid)
		pageBytes = out.n
	}
	b.ReportMetric(float64(report)/float64(plain), "x-lint")
	b.ReportMetric(float64(plain.Milliseconds())/float64(b.N), "lint-ms/op")
	b.ReportMetric(float64(report.Milliseconds())/float64(b.N), "report-ms/op")
	b.ReportMetric(float64(pageBytes)/float64(st.Size()), "page/transcript")
}

// lintOnce lints f from its start; with page set, it writes the report
// there too.
func lintOnce(b *testing.B, f *os.File, page io.Writer) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		b.Fatal(err)
	}
	opts := lint.Options{File: "bench", CleanEnd: true}
	if page == nil {
		if _, err := lint.Transcript(f, opts); err != nil {
			b.Fatal(err)
		}
		return
	}
	w := New(page, Options{})
	if _, err := w.Lint(f, opts); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}
