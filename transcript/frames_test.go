package transcript_test

import (
	"bytes"
	"testing"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/transcript"
)

// readOneFrame reads data, a transcript of one frame, with ReadFrames and
// the directions it records.
func readOneFrame(t *testing.T, data []byte, f transcript.Format) transcript.RawFrame {
	t.Helper()
	var got []transcript.RawFrame
	if _, err := transcript.ReadFrames(bytes.NewReader(data), f, nil, func(fr transcript.RawFrame) error {
		got = append(got, fr)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Bad != "" {
		t.Fatalf("%q: read %d frames %+v, want one good frame", data, len(got), got)
	}
	return got[0]
}

// FuzzWrittenFramesReadBack: a frame of any bytes (a line never holds a
// newline) written as acplint convert writes it, to jsonl or to the acplint
// format, with any direction, "unknown" included, reads back as the same
// bytes with the same recorded direction.
func FuzzWrittenFramesReadBack(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0", "id":1, "result":{"x":"<&>"}}`,
		` {"a":1} `, "{\"a\":\"\xff\"}", "\xef\xbb\xbf{}", "text \x00\x1b\u2028", "\r", "x\r\r", "",
		`"\ud800"`, `{"a":"\ud800"}`, `[1,2]`, `{"a":1`, "\\", `{"dir":"client","msg":1}`,
	} {
		for dir := range 3 {
			f.Add([]byte(s), uint8(dir))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, dirN uint8) {
		data = bytes.ReplaceAll(data, []byte("\n"), []byte(" "))
		dir := domain.Direction(dirN % 3)

		rec := []byte(`{"dir":"` + dir.String() + `","msg":`)
		rec = transcript.AppendJSONLMessage(rec, append(bytes.Clone(data), '\n'))
		rec = append(rec, "}\n"...)
		got := readOneFrame(t, rec, transcript.FormatJSONL)
		if !bytes.Equal(got.Data, data) || (dir != domain.DirUnknown && got.Dir != dir) {
			t.Fatalf("jsonl %q read back as %q from %v, want %q from %v", rec, got.Data, got.Dir, data, dir)
		}

		var b bytes.Buffer
		w, err := transcript.NewWriter(&b, transcript.Header{Producer: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(transcript.Frame{From: dir, Conn: 1, Data: data}); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		got = readOneFrame(t, b.Bytes(), transcript.FormatTranscript)
		if !bytes.Equal(got.Data, data) || (dir != domain.DirUnknown && got.Dir != dir) {
			t.Fatalf("acplint format %q read back as %q from %v, want %q from %v", b.Bytes(), got.Data, got.Dir, data, dir)
		}
	})
}
