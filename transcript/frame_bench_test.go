package transcript

import (
	"bytes"
	"io"
	"testing"

	"github.com/acplint/acplint/domain"
)

// benchFrames is agent traffic as the tap records it: JSON lines, a quote
// every few bytes.
func benchFrames() [][]byte {
	var frames [][]byte
	for i := range 64 {
		var b bytes.Buffer
		b.WriteString(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_1","update":{"sessionUpdate":"tool_call_update","toolCallId":"toolu_1","status":"completed","content":[{"type":"content","content":{"type":"text","text":"`)
		for j := range 20 + i {
			b.WriteString(`func f(ctx context.Context) error {\n\treturn fmt.Errorf(\"x: %w\", err)\n}\n`)
			_ = j
		}
		b.WriteString(`"}}]}}}`)
		frames = append(frames, b.Bytes())
	}
	return frames
}

// BenchmarkWriteFrame is the recorder's cost per byte of traffic.
func BenchmarkWriteFrame(b *testing.B) {
	frames := benchFrames()
	n := 0
	for _, f := range frames {
		n += len(f)
	}
	w, _ := NewWriter(io.Discard, Header{})
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, f := range frames {
			w.Write(Frame{From: domain.FromAgent, T: 123456789, Conn: 1, Data: f})
		}
	}
}

// BenchmarkParseFrame is the cost per byte of reading a recording's
// frames back.
func BenchmarkParseFrame(b *testing.B) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, Header{})
	n := 0
	for _, f := range benchFrames() {
		w.Write(Frame{From: domain.FromAgent, T: 123456789, Conn: 1, Data: f})
		n += len(f)
	}
	w.Flush()
	lines := bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))[1:]
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, l := range lines {
			if _, err := ParseFrame(l); err != nil {
				b.Fatal(err)
			}
		}
	}
}
