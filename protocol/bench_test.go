package protocol

import (
	"bytes"
	"sync"
	"testing"

	"github.com/acplint/acplint/internal/transcriptgen"
)

var benchEvents = sync.OnceValues(func() ([]Event, error) {
	var buf bytes.Buffer
	if err := transcriptgen.Write(&buf, transcriptgen.Options{Seed: 1, Bytes: 8 << 20}); err != nil {
		return nil, err
	}
	return append(transcriptEvents(buf.Bytes(), "bench"), Event{End: true}), nil
})

// BenchmarkStepInPlace runs the machine alone over the messages of a
// realistic 8 MB transcript, decoded beforehand; one op is the whole
// transcript. It is the machine's share of BenchmarkLint, on one
// goroutine, so it is steadier than BenchmarkLint on a shared machine.
func BenchmarkStepInPlace(b *testing.B) {
	events, err := benchEvents()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		p := newPhase()
		for _, ev := range events {
			_ = StepInPlace(&p, ev)
		}
	}
}
