package lint

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/acplint/acplint/transcript"
)

// A batch ends once its lines hold batchBytes, however few they are, so
// that long lines do not make every batch's reused memory large.
func TestBatchesEndAtBatchBytes(t *testing.T) {
	long := `{"jsonrpc":"2.0","method":"x","params":{"t":"` + strings.Repeat("a", batchBytes/3) + `"}}` + "\n"
	short := `{"jsonrpc":"2.0","method":"x"}` + "\n"
	input := strings.Repeat(long, 10) + strings.Repeat(short, 100)
	src := transcript.NewReader(strings.NewReader(input), transcript.FormatNDJSON, 0)
	// Every next line counts as buffered, which a reader of a live tap
	// cannot assume: batches end for their size alone.
	ra := startReadAhead(src, func() bool { return true }, nil)
	defer ra.stop()
	var sizes []int
	for b := ra.next(); b != nil; b = ra.next() {
		sizes = append(sizes, len(b.frames))
		bytes := 0
		for _, df := range b.frames[:max(len(b.frames)-1, 0)] {
			bytes += len(df.fr.Line.Bytes)
		}
		if bytes >= batchBytes {
			t.Errorf("a batch went on after %d bytes of lines", bytes)
		}
		done := b.err != nil
		ra.recycle(b)
		if done {
			break
		}
	}
	if sizes[0] != 3 || sizes[len(sizes)-1] < 30 {
		t.Errorf("batch sizes %v: want 3 long lines a batch, and the short lines in batches of up to %d", sizes, batchLines)
	}
}

// TestPanicOnALongLineDrains: after a panic the machine keeps the batch it
// was judging, never recycled; when that batch holds more than linesBudget
// of lines, drain must still get the batches after it (a worker waiting
// for room would otherwise wait for ever), and must read the whole input.
func TestPanicOnALongLineDrains(t *testing.T) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprintf("procs=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			testHookFrame = func(line int) {
				if line == 2 {
					panic("boom")
				}
			}
			defer func() { testHookFrame = nil }()
			long := `{"jsonrpc":"2.0","method":"x","params":{"t":"` + strings.Repeat("a", linesBudget+1) + `"}}` + "\n"
			short := `{"jsonrpc":"2.0","method":"x"}` + "\n"
			input := short + strings.Repeat(long+short, 8)
			done := make(chan error, 1)
			go func() {
				_, err := Transcript(strings.NewReader(input), Options{Format: transcript.FormatNDJSON})
				done <- err
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(time.Minute):
				t.Fatal("lint still running a minute after a panic on a long line: drain waits for room")
			}
		})
	}
}
