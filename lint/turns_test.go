package lint

import (
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/internal/gcpolicy"
	"github.com/acplint/acplint/internal/proctest"
	"github.com/acplint/acplint/internal/transcriptgen"
	"github.com/acplint/acplint/transcript"
)

// longSessions returns generated traffic of three sessions that take
// turns until it reaches mb megabytes (thousands of turns each for a few
// hundred), written as it is read, so that the transcript itself takes no
// memory.
func longSessions(mb int64) io.Reader {
	r, w := io.Pipe()
	go func() {
		w.CloseWithError(transcriptgen.Write(w, transcriptgen.Options{Seed: 1, Bytes: mb << 20, Sessions: 3}))
	}()
	return r
}

// liveHeapLate lints mb megabytes of long sessions and returns the live
// heap late in the run: the least of the live heaps measured, after a
// collection, every few thousand lines of the last fifth of the input.
// The least, because the machine's windows (answered ids, items of past
// turns) fill and are halved in cycles; state that grows with the
// turns raises every sample.
func liveHeapLate(t *testing.T, mb int64) (live uint64, lines int) {
	const every = 2000
	var samples []uint64
	res, err := Transcript(longSessions(mb), Options{File: "long", CleanEnd: true,
		OnEntry: func(fr transcript.Entry, _ []*domain.Message) {
			if lines++; lines%every != 0 {
				return
			}
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			samples = append(samples, ms.HeapAlloc)
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 0 {
		t.Fatalf("the generated transcript should lint clean; first finding: %s %s", res.Findings[0].RuleID, res.Findings[0].Message)
	}
	if len(samples) < 5 {
		t.Fatalf("%d MB gave %d lines, too few to sample", mb, lines)
	}
	return slices.Min(samples[len(samples)*4/5:]), lines
}

// TestLintMemoryFlatInTurns lints three sessions through about 1,000
// turns and through 10 times as many: what lint keeps alive must not grow
// with the number of turns (before the machine forgot the items of past
// turns and released terminals, it grew by about 1 MiB per 1,000 turns).
func TestLintMemoryFlatInTurns(t *testing.T) {
	if testing.Short() {
		t.Skip("lints 176 MB")
	}
	if proctest.RaceEnabled {
		t.Skip("the race detector changes what is allocated; .ci/run runs this test without it")
	}
	const mb = 16
	short, shortLines := liveHeapLate(t, mb)
	long, longLines := liveHeapLate(t, 10*mb)
	const slack = 2 << 20
	t.Logf("live heap late in the run: %.2f MiB after %d lines, %.2f MiB after %d lines",
		float64(short)/(1<<20), shortLines, float64(long)/(1<<20), longLines)
	if long > short+slack {
		t.Errorf("the live heap grows with the turns: %.2f MiB after %d lines, %.2f MiB after %d lines (allowed: %.0f MiB more)",
			float64(short)/(1<<20), shortLines, float64(long)/(1<<20), longLines, float64(slack)/(1<<20))
	}
}

// BenchmarkLongSessions lints ACPLINT_LONG_MB megabytes (default
// 1024) of three sessions that take turns, generated while lint reads it
// (MB/s includes the generator's time): the shape, thousands of
// turns per session. Besides BenchmarkLint's heap figures it reports
// peak-rss-MiB, the process's peak resident memory during the runs (test
// binary and generator included; Linux only). None may grow with
// ACPLINT_LONG_MB. (Its name leaves out "Lint", so that a run of
// -bench Lint at small sizes does not pick up its gigabyte.)
func BenchmarkLongSessions(b *testing.B) {
	mb := int64(1024)
	if s := os.Getenv("ACPLINT_LONG_MB"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		mb = n
	}
	b.SetBytes(mb << 20)
	defer gcpolicy.Apply()()
	runtime.GC()
	rss := proctest.ResetPeak()
	heap := watchHeap()
	for b.Loop() {
		res, err := Transcript(longSessions(mb), Options{File: "long", CleanEnd: true})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Findings) != 0 {
			b.Fatalf("the generated transcript should lint clean; first finding: %s", res.Findings[0].Message)
		}
	}
	heap.report(b)
	if rss {
		b.ReportMetric(float64(proctest.PeakKiB(os.Getpid()))/(1<<10), "peak-rss-MiB")
	}
}
