package lint

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/internal/gcpolicy"
	"github.com/acplint/acplint/internal/transcriptgen"
	"github.com/acplint/acplint/transcript"
)

// benchRecording and benchTokenRecording are benchTranscript's and
// benchTokenTranscript's traffic as `acplint tap --record` records it:
// the same lines, each a frame of acplint's format with its sender, one
// connection, a millisecond apart, after a header with a start time.
var (
	benchRecording = sync.OnceValues(func() (string, error) {
		return writeBenchRecording("", transcriptgen.Options{Seed: 1})
	})
	benchTokenRecording = sync.OnceValues(func() (string, error) {
		return writeBenchRecording("-tokens", transcriptgen.Options{Seed: 1, ChunkMin: 2, ChunkMax: 40})
	})
)

// writeBenchRecording writes the recording of the traffic writeBenchTranscript
// writes for suffix and opts, next to it.
func writeBenchRecording(suffix string, opts transcriptgen.Options) (string, error) {
	ndjson, err := writeBenchTranscript(suffix, opts)
	if err != nil {
		return "", err
	}
	mb, err := benchMB()
	if err != nil {
		return "", err
	}
	// The same traffic again, with its senders, which NDJSON does not keep.
	var traffic bytes.Buffer
	var sides []domain.Direction
	opts.Side = func(from domain.Direction) { sides = append(sides, from) }
	opts.Bytes = int64(mb) << 20
	if err := transcriptgen.Write(&traffic, opts); err != nil {
		return "", err
	}
	if same, err := os.ReadFile(ndjson); err != nil || !bytes.Equal(same, traffic.Bytes()) {
		return "", fmt.Errorf("the recording's traffic is not %s's (%v)", ndjson, err)
	}
	path := strings.TrimSuffix(ndjson, ".ndjson") + ".recording.jsonl"
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	w, err := transcript.NewWriter(bw, transcript.Header{Producer: "acplint bench", Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)})
	if err != nil {
		return "", err
	}
	lines := bytes.SplitAfter(traffic.Bytes(), []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	if len(lines) != len(sides) {
		return "", fmt.Errorf("%d lines, %d senders", len(lines), len(sides))
	}
	for i, l := range lines {
		w.Write(transcript.Frame{From: sides[i], T: time.Duration(i) * time.Millisecond, Conn: 1, Data: bytes.TrimSuffix(l, []byte("\n"))})
	}
	if err := w.Flush(); err != nil {
		return "", err
	}
	if err := bw.Flush(); err != nil {
		return "", err
	}
	return path, f.Close()
}

// BenchmarkLintRecordingVsNDJSON alternates a lint of the generated
// traffic as raw NDJSON (BenchmarkLint's transcript) and a lint of the
// same traffic as the tap records it (benchRecording), and reports the
// recording's time as a multiple of the NDJSON's (x-ndjson; cpu-x-ndjson
// for the process's CPU time), each lint's time and its allocations. MB/s
// counts the traffic, the NDJSON's bytes. Alternating puts the same load
// from other processes under both; run with -cpu 1,2:
//
//	go test ./lint -run '^$' -bench LintRecordingVsNDJSON -cpu 1,2
func BenchmarkLintRecordingVsNDJSON(b *testing.B) {
	for _, mix := range []struct {
		name              string
		ndjson, recording func() (string, error)
	}{{"realistic", benchTranscript, benchRecording}, {"tokens", benchTokenTranscript, benchTokenRecording}} {
		b.Run(mix.name, func(b *testing.B) {
			nd, size := openBenchFile(b, mix.ndjson)
			defer nd.Close()
			rec, recSize := openBenchFile(b, mix.recording)
			defer rec.Close()
			b.SetBytes(size)
			defer gcpolicy.Apply()()
			var ndT, recT, ndCPU, recCPU time.Duration
			var ndAllocs, recAllocs uint64
			var ms runtime.MemStats
			for b.Loop() {
				runtime.ReadMemStats(&ms)
				start, startCPU, startAllocs := time.Now(), processCPU(), ms.Mallocs
				lintOnce(b, nd)
				runtime.ReadMemStats(&ms)
				mid, midCPU, midAllocs := time.Now(), processCPU(), ms.Mallocs
				lintOnce(b, rec)
				end, endCPU := time.Now(), processCPU()
				runtime.ReadMemStats(&ms)
				ndT, recT = ndT+mid.Sub(start), recT+end.Sub(mid)
				ndCPU, recCPU = ndCPU+midCPU-startCPU, recCPU+endCPU-midCPU
				ndAllocs, recAllocs = ndAllocs+midAllocs-startAllocs, recAllocs+ms.Mallocs-midAllocs
			}
			b.ReportMetric(float64(recT)/float64(ndT), "x-ndjson")
			if ndCPU > 0 {
				b.ReportMetric(float64(recCPU)/float64(ndCPU), "cpu-x-ndjson")
			}
			n := float64(b.N)
			b.ReportMetric(float64(ndT.Microseconds())/1e3/n, "ndjson-ms/op")
			b.ReportMetric(float64(recT.Microseconds())/1e3/n, "rec-ms/op")
			b.ReportMetric(float64(ndAllocs)/n, "ndjson-allocs/op")
			b.ReportMetric(float64(recAllocs)/n, "rec-allocs/op")
			b.ReportMetric(float64(recSize)/float64(size), "rec-bytes-x")
		})
	}
}
