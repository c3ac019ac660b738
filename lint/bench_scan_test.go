//go:build goexperiment.jsonv2

package lint

import (
	"bufio"
	"errors"
	"io"
	"testing"

	"encoding/json/jsontext"
)

// BenchmarkScan is the physical floor for BenchmarkLint: it only
// tokenizes every line with encoding/json/jsontext, building nothing.
// encoding/json/jsontext needs GOEXPERIMENT=jsonv2 in this Go release:
//
//	GOEXPERIMENT=jsonv2 go test ./lint -run '^$' -bench 'Scan|Lint'
func BenchmarkScan(b *testing.B) {
	f, size := openBench(b)
	defer f.Close()
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			b.Fatal(err)
		}
		dec := jsontext.NewDecoder(bufio.NewReaderSize(f, 1<<20))
		for {
			_, err := dec.ReadToken()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}
