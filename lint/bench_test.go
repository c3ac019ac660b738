package lint

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/acplint/acplint/internal/gcpolicy"
	"github.com/acplint/acplint/internal/transcriptgen"
	"github.com/acplint/acplint/transcript"
)

// benchTranscript generates a realistic transcript once per run into a
// file in the temporary directory (ACPLINT_BENCH_MB megabytes, default 32; the issue's
// figure is for 200) and returns its path. A file, not a buffer, so the
// benchmarks measure reading the way a user runs acplint and the input
// does not count against lint's memory.
var benchTranscript = sync.OnceValues(func() (string, error) {
	return writeBenchTranscript("", transcriptgen.Options{Seed: 1})
})

// benchTokenTranscript is benchTranscript with the agent's text streamed
// in token-sized chunks (2 to 40 bytes), as agents that forward every
// model token send it: a third more messages per megabyte, so per-message
// costs weigh more than in the realistic mix.
var benchTokenTranscript = sync.OnceValues(func() (string, error) {
	return writeBenchTranscript("-tokens", transcriptgen.Options{Seed: 1, ChunkMin: 2, ChunkMax: 40})
})

// benchLongTranscript is benchTranscript's traffic in three sessions that
// take turns, thousands of turns each: the shape of a day-long editor
// session, in which issue 16 measured lint against the scan.
var benchLongTranscript = sync.OnceValues(func() (string, error) {
	return writeBenchTranscript("-long", transcriptgen.Options{Seed: 1, Sessions: 3})
})

// writeBenchTranscript writes the transcript opts describe, of
// ACPLINT_BENCH_MB megabytes, to a file whose name ends in suffix.
func writeBenchTranscript(suffix string, opts transcriptgen.Options) (string, error) {
	mb, err := benchMB()
	if err != nil {
		return "", err
	}
	// One file per size, rewritten by each run, so repeated benchmark runs
	// do not pile up copies in the temporary directory.
	path := filepath.Join(os.TempDir(), fmt.Sprintf("acplint-bench-%dMB%s.ndjson", mb, suffix))
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	opts.Bytes = int64(mb) << 20
	if err := transcriptgen.Write(w, opts); err != nil {
		return "", err
	}
	if err := w.Flush(); err != nil {
		return "", err
	}
	return path, f.Close()
}

// benchMB is ACPLINT_BENCH_MB, the size of the generated transcripts in
// megabytes: 32 unless set.
func benchMB() (int, error) {
	if s := os.Getenv("ACPLINT_BENCH_MB"); s != "" {
		return strconv.Atoi(s)
	}
	return 32, nil
}

func openBench(b *testing.B) (*os.File, int64) {
	b.Helper()
	return openBenchFile(b, benchTranscript)
}

// openBenchFile opens the transcript that transcript writes.
func openBenchFile(b *testing.B, transcript func() (string, error)) (*os.File, int64) {
	b.Helper()
	path, err := transcript()
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
// same file: the target is lint ≤ 3× the scan's time. live-heap-MiB is the
// largest heap that survived a collection while linting, peak-heap-MiB the
// largest the heap grew to between collections, runtime-MiB all the
// memory the Go runtime held; none may grow with the transcript (run with
// ACPLINT_BENCH_MB=8 and =1024 to compare). The idle acplint binary adds
// about 13 MiB of resident pages to runtime-MiB.
func BenchmarkLint(b *testing.B) {
	f, size := openBench(b)
	defer f.Close()
	b.SetBytes(size)
	b.ReportAllocs()
	// Measure what users run: the acplint command's collector setting.
	defer gcpolicy.Apply()()
	idle := readIdlePs()
	heap := watchHeap()
	cpu := processCPU()
	for b.Loop() {
		lintOnce(b, f)
	}
	heap.report(b)
	// Lint spreads over the cores; its wall time is about its CPU time
	// over their number. cpu-ms/op is what to make smaller.
	if used := processCPU() - cpu; used > 0 {
		b.ReportMetric(float64(used.Milliseconds())/float64(b.N), "cpu-ms/op")
	}
	// With more than one P, idle-Ps-% is the share of the Ps' time
	// (GOMAXPROCS times the wall time, as the Go scheduler sees it) in
	// which they had nothing to run: the read-ahead's workers and the
	// protocol machine waiting on each other, or on reads of the file.
	// Near zero, lint's CPU time and not the hand-over bounds its wall
	// time. Other processes on the machine inflate it a little: a thread
	// woken to run a goroutine may wait for a core.
	if share, ok := idle.since(); ok {
		b.ReportMetric(share, "idle-Ps-%")
	}
}

// idlePs is a reading of the runtime's idle and total P time.
type idlePs struct{ idle, total float64 }

// readIdlePs reads the idle and total P time. The runtime brings its CPU
// classes up to date only as a collection ends, so it forces one.
func readIdlePs() idlePs {
	runtime.GC()
	s := []metrics.Sample{{Name: "/cpu/classes/idle:cpu-seconds"}, {Name: "/cpu/classes/total:cpu-seconds"}}
	metrics.Read(s)
	return idlePs{idle: s[0].Value.Float64(), total: s[1].Value.Float64()}
}

// since is the percentage of the P time since the reading r that was idle.
func (r idlePs) since() (float64, bool) {
	now := readIdlePs()
	total := now.total - r.total
	if total <= 0 {
		return 0, false
	}
	return 100 * (now.idle - r.idle) / total, true
}

// BenchmarkLintSchema is BenchmarkLint with --schema set to the reference
// schema file the compiled-in schema was generated from: the same
// transcript, checked by package schemacheck instead of the compiled codec.
// Issue 15 wants it within 1.5× of BenchmarkLint's time; compare the two
// in the same minutes (the machine's speed drifts).
func BenchmarkLintSchema(b *testing.B) {
	schema, err := LoadSchema(stableRef)
	if err != nil {
		b.Fatal(err)
	}
	f, size := openBench(b)
	defer f.Close()
	b.SetBytes(size)
	b.ReportAllocs()
	defer gcpolicy.Apply()()
	cpu := processCPU()
	for b.Loop() {
		lintOnceWith(b, f, schema)
	}
	if used := processCPU() - cpu; used > 0 {
		b.ReportMetric(float64(used.Milliseconds())/float64(b.N), "cpu-ms/op")
	}
}

// lintOnce lints f from its start, which must lint clean.
func lintOnce(b *testing.B, f *os.File) { lintOnceWith(b, f, nil) }

// lintOnceWith lints f from its start with --schema schema (nil for the
// compiled-in one); f must lint clean.
func lintOnceWith(b *testing.B, f *os.File, schema *Schema) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		b.Fatal(err)
	}
	var res *Result
	var err error
	asMachine(func() { res, err = Transcript(f, Options{File: "bench", CleanEnd: true, Schema: schema}) })
	if err != nil {
		b.Fatal(err)
	}
	if len(res.Findings) != 0 {
		b.Fatalf("the generated transcript should lint clean; first finding: %s", res.Findings[0].Message)
	}
}

// heapWatch follows the heap through every garbage collection while a
// benchmark runs. Sampling on a timer instead (ReadMemStats stops the
// world; even runtime/metrics on a ticker preempts the lint goroutines on
// two cores) slowed BenchmarkLint by a fifth.
type heapWatch struct {
	stopped atomic.Bool
	// live is the largest heap that survived a collection; goal the
	// largest heap the collector let the program grow to before the next
	// one: the peak, to within what is allocated while it marks. mapped is
	// the most memory the runtime held from the OS (heap, stacks, its own
	// structures; not what it returned), which with the binary's pages
	// makes the process's resident size.
	live, goal, mapped atomic.Uint64
}

// watchHeap starts a heapWatch; it samples at the end of each collection.
func watchHeap() *heapWatch {
	w := new(heapWatch)
	w.arm()
	return w
}

func (w *heapWatch) arm() {
	sentinel := new([16]byte)
	runtime.AddCleanup(sentinel, func(struct{}) {
		if w.stopped.Load() {
			return
		}
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/heap/goal:bytes"},
			{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
		metrics.Read(sample)
		values := []uint64{sample[0].Value.Uint64(), sample[1].Value.Uint64(),
			sample[2].Value.Uint64() - sample[3].Value.Uint64()}
		for i, max := range []*atomic.Uint64{&w.live, &w.goal, &w.mapped} {
			if v := values[i]; v > max.Load() {
				max.Store(v)
			}
		}
		w.arm()
	}, struct{}{})
}

// report stops w and reports its figures in MiB.
func (w *heapWatch) report(b *testing.B) {
	w.stopped.Store(true)
	b.ReportMetric(float64(w.goal.Load())/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(w.live.Load())/(1<<20), "live-heap-MiB")
	b.ReportMetric(float64(w.mapped.Load())/(1<<20), "runtime-MiB")
}

// BenchmarkUnclosedGarbage lints 20,000 lines that each open a JSON value
// and never close it. Looking for messages split across lines must stay
// linear here: before join attempts remembered what they had scanned, this
// took seconds (each line rescanned up to 10,000 lines below it).
func BenchmarkUnclosedGarbage(b *testing.B) {
	input := []byte(strings.Repeat("{\"a\n", 20000))
	b.SetBytes(int64(len(input)))
	for b.Loop() {
		if _, err := Transcript(bytes.NewReader(input), Options{Format: transcript.FormatNDJSON}); err != nil {
			b.Fatal(err)
		}
	}
}
