package findings

import (
	"fmt"
	"io"
	"testing"
)

// BenchmarkWriteSARIF is the SARIF writer's cost per finding, string
// escaping included: messages quote the traffic they are about.
func BenchmarkWriteSARIF(b *testing.B) {
	rules := All()
	fs := make([]ValidationFinding, 2000)
	for i := range fs {
		r := rules[i%len(rules)]
		fs[i] = New(r, Location{File: "session.jsonl", Line: i + 1, Column: 7, Pointer: "/params/update/content/0/text"},
			fmt.Sprintf(`"session/update" for session "sess_%d" names tool call "tc-%d" that was never started: <"kind":"edit"> at line %d`, i, i%17, i))
	}
	r := Report{Version: "1.2.3", Files: []string{"session.jsonl"}, Findings: fs}
	b.ReportAllocs()
	for b.Loop() {
		if err := Write(io.Discard, FormatSARIF, r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendSARIFResult is the part of BenchmarkWriteSARIF that is
// JSON writing alone: one result, its strings escaped.
func BenchmarkAppendSARIFResult(b *testing.B) {
	var s sarifStream
	f := New(All()[0], Location{File: "session.jsonl", Line: 42, Column: 7, Pointer: "/params/update/content/0/text"},
		`"session/update" for session "sess_1" names tool call "tc-é" that was never started: <"kind":"edit">`)
	res := s.resultOf(f)
	var buf []byte
	for b.Loop() {
		buf = appendSARIFResult(buf[:0], &res)
	}
}
