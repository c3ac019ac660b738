package jsonv_test

import (
	"fmt"
	"testing"

	"github.com/acplint/acplint/internal/jsonv"
)

// BenchmarkAppendStringBody escapes realistic ACP lines (transcriptgen's,
// as the tap forwards them) one line at a time, through the reference
// (the escaper before it wrote by index) and through AppendStringBody in
// the same run, so the two figures compare. The destination has room for
// the worst case, as the recorder's buffered writer gives it; codec's and
// htmlreport's modes run too.
func BenchmarkAppendStringBody(b *testing.B) {
	lines := lintLines()
	size, longest := 0, 0
	for _, l := range lines {
		size += len(l)
		longest = max(longest, len(l))
	}
	buf := make([]byte, 0, longest*jsonv.MaxEscapedLen)
	impls := []struct {
		name string
		f    func(dst, s []byte, mode jsonv.Mode) []byte
	}{
		{"reference", jsonv.AppendStringBodyReference},
		{"new", jsonv.AppendStringBody[[]byte]},
	}
	modes := []struct {
		name string
		mode jsonv.Mode
	}{
		{"zero", 0}, // the recorder's
		{"codec", jsonv.EscapeLineSeparators},
		{"script", jsonv.EscapeHTML | jsonv.ReplaceInvalidUTF8 | jsonv.EscapeLineSeparators}, // htmlreport's
	}
	for _, m := range modes {
		for _, impl := range impls {
			b.Run(fmt.Sprintf("mode=%s/impl=%s", m.name, impl.name), func(b *testing.B) {
				b.SetBytes(int64(size))
				for b.Loop() {
					for _, l := range lines {
						buf = impl.f(buf[:0], l, m.mode)
					}
				}
			})
		}
	}
}
