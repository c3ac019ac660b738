package lint_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/acplint/acplint/internal/transcriptgen"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/transcript"
)

// BenchmarkRejoinWorstCase lints the worst case of rejoining split lines
// (issue 13, row 8: lines that open a value and never close it, then one
// message), raw at two sizes and in the jsonl form, next to a generated
// transcript of the same size in the same run. The worst case's MB/s must
// not fall as it grows (worst-ndjson against worst-ndjson-2x): before the
// search had a work budget, 1 MB of it took 17-30 s, and twice as much four
// times as long. It is slower per MB than normal traffic because its lines
// form runs of text, each a finding whose text is searched for telemetry.
func BenchmarkRejoinWorstCase(b *testing.B) {
	worst := openValueLines(9999)
	var jsonl strings.Builder
	for _, line := range strings.SplitAfter(worst, "\n") {
		if line == "" {
			continue
		}
		msg, _ := json.Marshal(strings.TrimSuffix(line, "\n"))
		jsonl.WriteString(`{"dir":"agent","msg":` + string(msg) + "}\n")
	}
	var normal bytes.Buffer
	if err := transcriptgen.Write(&normal, transcriptgen.Options{Seed: 1, Bytes: int64(len(worst))}); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name, input string
		format      transcript.Format
	}{
		{"worst-ndjson", worst, transcript.FormatNDJSON},
		{"worst-ndjson-2x", openValueLines(2 * 9999), transcript.FormatNDJSON},
		{"worst-jsonl", jsonl.String(), transcript.FormatJSONL},
		{"normal-ndjson", normal.String(), transcript.FormatNDJSON},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.input)))
			for b.Loop() {
				if _, err := lint.Transcript(strings.NewReader(tc.input), lint.Options{Format: tc.format}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
