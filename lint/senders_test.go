package lint_test

import (
	"strings"
	"testing"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/transcript"
)

// TestReadFramesInfersDirections: ReadFrames with InferSenders gives raw
// NDJSON the directions lint infers, keeps a split message's lines as they are with
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
	var got []transcript.RawFrame
	if _, err := transcript.ReadFrames(strings.NewReader(in), transcript.FormatNDJSON, lint.InferSenders(), func(fr transcript.RawFrame) error {
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
