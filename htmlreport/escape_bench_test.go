package htmlreport

import (
	"strings"
	"testing"
)

// BenchmarkAppendStringBody is the page's cost per byte of traffic shown:
// every line goes through appendStringBody.
func BenchmarkAppendStringBody(b *testing.B) {
	line := []byte(strings.Repeat(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"content":{"type":"text","text":"if a < b && c > d { return \"héllo\" }\n"}}}}`, 8))
	b.SetBytes(int64(len(line)))
	var buf []byte
	for b.Loop() {
		buf = appendStringBody(buf[:0], line)
	}
}
