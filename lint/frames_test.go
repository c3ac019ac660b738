package lint_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/transcript"
)

// readOneFrame reads data, a transcript of one frame, with ReadFrames.
func readOneFrame(t *testing.T, data []byte, f lint.Format) lint.RawFrame {
	t.Helper()
	var got []lint.RawFrame
	if _, err := lint.ReadFrames(bytes.NewReader(data), f, func(fr lint.RawFrame) error {
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
		got := readOneFrame(t, rec, lint.FormatJSONL)
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
		got = readOneFrame(t, b.Bytes(), lint.FormatTranscript)
		if !bytes.Equal(got.Data, data) || (dir != domain.DirUnknown && got.Dir != dir) {
			t.Fatalf("acplint format %q read back as %q from %v, want %q from %v", b.Bytes(), got.Data, got.Dir, data, dir)
		}
	})
}

// TestReadFramesInfersDirections: ReadFrames gives raw NDJSON the
// directions lint infers, keeps a split message's lines as they are with
// the direction of the message they form, and says why for a frame whose
// sender nobody can tell.
func TestReadFramesInfersDirections(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"a`,
		`b","mcpServers":[]}}`,
		`log text`,
	}, "\n") + "\n"
	var got []lint.RawFrame
	if _, err := lint.ReadFrames(strings.NewReader(in), lint.FormatNDJSON, func(fr lint.RawFrame) error {
		got = append(got, fr)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []domain.Direction{domain.FromClient, domain.FromAgent, domain.FromClient, domain.FromClient, domain.DirUnknown}
	lines := strings.Split(strings.TrimSuffix(in, "\n"), "\n")
	if len(got) != len(want) {
		t.Fatalf("%d frames, want %d: %+v", len(got), len(want), got)
	}
	for i, fr := range got {
		if fr.Dir != want[i] || string(fr.Data) != lines[i] || fr.Line != i+1 {
			t.Errorf("frame %d: line %d %v %q, want line %d %v %q", i, fr.Line, fr.Dir, fr.Data, i+1, want[i], lines[i])
		}
		if (fr.Unknown != "") != (want[i] == domain.DirUnknown) {
			t.Errorf("frame %d: Unknown %q for direction %v", i, fr.Unknown, fr.Dir)
		}
	}
}
