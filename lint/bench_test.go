package lint

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acplint/acplint/internal/transcriptgen"
)

// benchTranscript generates a realistic transcript once per run into a
// file in the temporary directory (ACPLINT_BENCH_MB megabytes, default 32; the issue's
// figure is for 200) and returns its path. A file, not a buffer, so the
// benchmarks measure reading the way a user runs acplint and the input
// does not count against lint's memory.
var benchTranscript = sync.OnceValues(func() (string, error) {
	mb := 32
	if s := os.Getenv("ACPLINT_BENCH_MB"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return "", err
		}
		mb = n
	}
	// One file per size, rewritten by each run, so repeated benchmark runs
	// do not pile up copies in the temporary directory.
	path := filepath.Join(os.TempDir(), fmt.Sprintf("acplint-bench-%dMB.ndjson", mb))
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

func openBench(b *testing.B) (*os.File, int64) {
	b.Helper()
	path, err := benchTranscript()
	if err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	st, _ := f.Stat()
	return f, st.Size()
}

// BenchmarkLint lints the generated transcript end to end: framing,
// decoding, schema checks and the protocol machine. Compare its MB/s with
// BenchmarkScan (GOEXPERIMENT=jsonv2), a plain tokenizing pass over the
// same file: the target is lint ≤ 3× the scan's time. peak-heap-MiB is the
// largest live heap seen while linting; it must not grow with the
// transcript (run with ACPLINT_BENCH_MB=64 and =256 to compare).
func BenchmarkLint(b *testing.B) {
	f, size := openBench(b)
	defer f.Close()
	b.SetBytes(size)
	b.ReportAllocs()
	var peak atomic.Uint64
	stop := sampleHeap(&peak)
	defer stop()
	for b.Loop() {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			b.Fatal(err)
		}
		res, err := Transcript(f, Options{File: "bench", CleanEnd: true})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Findings) != 0 {
			b.Fatalf("the generated transcript should lint clean; first finding: %s", res.Findings[0].Message)
		}
	}
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
}

// sampleHeap records the peak HeapAlloc every few milliseconds until stop.
func sampleHeap(peak *atomic.Uint64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-t.C:
				runtime.ReadMemStats(&ms)
				if ms.HeapAlloc > peak.Load() {
					peak.Store(ms.HeapAlloc)
				}
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// BenchmarkUnclosedGarbage lints 20,000 lines that each open a JSON value
// and never close it. Looking for messages split across lines must stay
// linear here: before join attempts remembered what they had scanned, this
// took seconds (each line rescanned up to 10,000 lines below it).
func BenchmarkUnclosedGarbage(b *testing.B) {
	input := []byte(strings.Repeat("{\"a\n", 20000))
	b.SetBytes(int64(len(input)))
	for b.Loop() {
		if _, err := Transcript(bytes.NewReader(input), Options{Format: FormatNDJSON}); err != nil {
			b.Fatal(err)
		}
	}
}
