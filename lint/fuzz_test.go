package lint_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/transcript"
	"github.com/rogpeppe/go-internal/txtar"
)

// FuzzTranscript feeds arbitrary bytes to the linter in every input
// format. Whatever the input, lint must not panic, must not report an
// internal error (ACP-LINT-003), every finding must point at a line that
// exists, and reusing memory batch after batch must change nothing
// (sameWithReuse).
func FuzzTranscript(f *testing.F) {
	seeds, _ := filepath.Glob("../conformance/testdata/*/*.txtar")
	for i, p := range seeds {
		if i%4 != 0 { // a quarter of the corpus is plenty of shapes
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range txtar.Parse(data).Files {
			if file.Name != "want" && file.Name != "flags" {
				f.Add(uint8(0), file.Data)
			}
		}
	}
	examples, _ := filepath.Glob("../examples/*")
	for _, p := range examples {
		if data, err := os.ReadFile(p); err == nil && len(data) < 1<<20 {
			f.Add(uint8(0), data)
		}
	}
	f.Add(uint8(4), []byte(`{"format":"acplint-transcript","version":1}`+"\n"+`{"t":1,"conn":1,"from":"client","frame":"{}"}`))
	f.Add(uint8(3), []byte(`[{"_direction":"outgoing","_type":"request","id":0,"method":"initialize","params":{}}]`))
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		format := transcript.Formats[int(which)%len(transcript.Formats)]
		res, err := lint.Transcript(bytes.NewReader(data), lint.Options{Format: format, File: "fuzz"})
		if err != nil {
			return // a format error (e.g. an unknown transcript version), reported to the user
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, fd := range res.Findings {
			if fd.RuleID == findings.LINTInternal.ID {
				t.Fatalf("internal error on %q: %s", data, fd.Message)
			}
			if fd.Location.Line < 0 || fd.Location.Line > lines {
				t.Fatalf("finding %s points at line %d of a %d-line input", fd.RuleID, fd.Location.Line, lines)
			}
		}
		sameWithReuse(t, "fuzz", data, lint.Options{Format: format, File: "fuzz"})
	})
}
