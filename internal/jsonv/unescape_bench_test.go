package jsonv_test

import (
	"testing"

	"github.com/acplint/acplint/internal/jsonv"
)

// BenchmarkUnescape decodes realistic ACP lines written as JSON strings,
// as a recording's frames hold them (a quote or backslash every few
// bytes), through the reference (the parser's decoder before it read
// words) and through AppendUnescaped in the same run. MB/s counts the
// escaped bytes.
func BenchmarkUnescape(b *testing.B) {
	var frames [][]byte
	size := 0
	for _, l := range lintLines() {
		f := jsonv.AppendString(nil, l, 0)
		frames = append(frames, f)
		size += len(f)
	}
	impls := []struct {
		name string
		f    func(dst, src []byte, i int) ([]byte, int, error)
	}{
		{"reference", jsonv.UnescapeReference},
		{"new", jsonv.AppendUnescaped},
	}
	var buf []byte
	for _, impl := range impls {
		b.Run("impl="+impl.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				for _, f := range frames {
					var err error
					if buf, _, err = impl.f(buf[:0], f, 1); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
