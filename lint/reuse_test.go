package lint_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/acplint/acplint/internal/jsonv"
	"github.com/acplint/acplint/internal/transcriptgen"
	"github.com/acplint/acplint/lint"
)

// sameWithReuse fails t when linting input in batches of one frame, whose
// memory is poisoned when reused, finds anything else than linting it in
// one batch, which reuses nothing: whatever the linter, the codec or the
// protocol machine keeps from a message without copying it then reads
// garbage a few frames later.
func sameWithReuse(t testing.TB, name string, input []byte, opts lint.Options) {
	t.Helper()
	lintWith := func(mode func(func())) (res *lint.Result, err error) {
		mode(func() { res, err = lint.Transcript(bytes.NewReader(input), opts) })
		return res, err
	}
	want, wantErr := lintWith(lint.WithOneBatch)
	got, gotErr := lintWith(lint.WithTinyBatches)
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("%s: error %v in one batch, %v in tiny batches", name, wantErr, gotErr)
	}
	if wantErr != nil {
		return
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: tiny reused batches find something else than one batch (-one +tiny):\n%s", name, diff)
	}
}

// TestNothingKeptPastItsBatch runs sameWithReuse on every transcript of
// the golden corpus, on a copy of each with its ids, paths and texts made
// longer than the codec's copy threshold, on lint's own long transcripts
// and on a generated one.
func TestNothingKeptPastItsBatch(t *testing.T) {
	cases, _ := filepath.Glob("../conformance/testdata/*/*.txtar")
	if len(cases) < 100 {
		t.Fatalf("only %d corpus cases", len(cases))
	}
	for _, c := range cases {
		data, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range txtar.Parse(data).Files {
			if f.Name == "want" || f.Name == "flags" {
				continue
			}
			name := filepath.Base(c) + "/" + f.Name
			sameWithReuse(t, name, f.Data, lint.Options{File: "t"})
			sameWithReuse(t, name+" (long strings)", lengthenStrings(f.Data), lint.Options{File: "t", CleanEnd: true})
		}
	}
	sessions, _ := sessionsTranscript(300, nil)
	sameWithReuse(t, "sessionsTranscript", []byte(sessions), lint.Options{File: "t", CleanEnd: true})
	var gen bytes.Buffer
	if err := transcriptgen.Write(&gen, transcriptgen.Options{Seed: 7, Bytes: 2 << 20}); err != nil {
		t.Fatal(err)
	}
	sameWithReuse(t, "generated", gen.Bytes(), lint.Options{File: "t"})
	sameWithReuse(t, "generated (long strings)", lengthenStrings(gen.Bytes()), lint.Options{File: "t"})
	sameWithReuse(t, "generated (text and split lines)", interleaveText(gen.Bytes()[:256<<10]), lint.Options{File: "t"})
}

// interleaveText puts a log line that is not JSON before every third line
// of transcript and splits every fifth message at its first comma with a
// raw newline: both make the reader read frames ahead of the one it
// returns, into memory of the batch before theirs.
func interleaveText(transcript []byte) []byte {
	var out bytes.Buffer
	for i, line := range bytes.SplitAfter(transcript, []byte("\n")) {
		if i%3 == 0 {
			fmt.Fprintf(&out, "[debug] read line %d\n", i)
		}
		if c := bytes.IndexByte(line, ','); i%5 == 0 && c > 0 {
			out.Write(line[:c+1])
			out.WriteByte('\n')
			line = line[c+1:]
		}
		out.Write(line)
	}
	return out.Bytes()
}

// lengthened names the members whose string values lengthenStrings pads:
// ids, paths, titles and texts, but not the tags and enum values that
// decide how the rest decodes.
var lengthened = regexp.MustCompile(`(?i)(id|cwd|path|title|name|text|cursor|command|content|description)$`)

// lengthenStrings pads every string value of a lengthened member, on
// every line that is JSON, past the codec's copy threshold; the same
// string gets the same padding, so ids still match.
func lengthenStrings(transcript []byte) []byte {
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(transcript, []byte("\n")) {
		body := bytes.TrimRight(line, "\r\n")
		v, err := jsonv.Parse(body)
		if err != nil {
			out.Write(line)
			continue
		}
		writePadded(&out, &v, "")
		out.Write(line[len(body):])
	}
	return out.Bytes()
}

func writePadded(b *bytes.Buffer, v *jsonv.Value, member string) {
	switch v.Kind {
	case jsonv.Object:
		b.WriteByte('{')
		for i := range v.Members() {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(b, "%q:", v.Members()[i].Key)
			writePadded(b, &v.Members()[i].Value, v.Members()[i].Key)
		}
		b.WriteByte('}')
	case jsonv.Array:
		b.WriteByte('[')
		for i := range v.Elems() {
			if i > 0 {
				b.WriteByte(',')
			}
			writePadded(b, &v.Elems()[i], member)
		}
		b.WriteByte(']')
	case jsonv.String:
		s := v.Str()
		if lengthened.MatchString(member) {
			s += strings.Repeat("\\~", 150) // escapes, so that the parser decodes it
		}
		fmt.Fprintf(b, "%q", s)
	default:
		fmt.Fprint(b, jsonRaw(v))
	}
}

// jsonRaw spells a number, boolean or null as JSON.
func jsonRaw(v *jsonv.Value) string {
	switch v.Kind {
	case jsonv.Number:
		return v.Str()
	case jsonv.Bool:
		return fmt.Sprint(v.Bool)
	}
	return "null"
}
