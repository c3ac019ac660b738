package conformance_test

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acplint/acplint/conformance"
	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/internal/golden"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/transcript"
	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite the want sections of the golden corpus from actual findings")

// lintCase runs acplint over a case's transcript with its flags.
func lintCase(t *testing.T, c *golden.Case) []findings.ValidationFinding {
	t.Helper()
	opts := lint.Options{File: c.Name}
	switch c.TranscriptName {
	case "transcript.jsonl":
		opts.Format = transcript.FormatJSONL
	case "transcript.zed.json":
		opts.Format = transcript.FormatZed
	case "transcript.acplint.jsonl":
		opts.Format = transcript.FormatTranscript
	default:
		opts.Format = transcript.FormatNDJSON
	}
	for _, f := range c.Flags {
		switch {
		case f == "--clean-end":
			opts.CleanEnd = true
		default:
			t.Fatalf("%s: unknown flag %q in the flags section", c.Name, f)
		}
	}
	res, err := lint.Transcript(bytes.NewReader(c.Transcript), opts)
	if err != nil {
		t.Fatalf("%s: lint: %v", c.Name, err)
	}
	return res.Findings
}

// TestGolden runs every corpus case and compares findings with its want
// section both ways, as analysistest does: a finding with no matching want
// line fails, and so does a want line that matches no finding.
func TestGolden(t *testing.T) {
	cases, err := golden.LoadCases(conformance.Corpus())
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("the golden corpus is empty")
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			got := lintCase(t, c)
			matched := make([]bool, len(got))
			var kept []string // want lines that still match, as written
			stale := false
			for _, w := range c.Want {
				found := false
				for i, f := range got {
					if !matched[i] && f.Location.Line == w.Line && f.RuleID == w.Rule && w.Re.MatchString(f.Message) {
						matched[i], found = true, true
						break
					}
				}
				if found {
					kept = append(kept, w.Source)
					continue
				}
				stale = true
				if !*update {
					t.Errorf("%s.txtar:%d: no finding %s matching `%s`%s", c.Name, w.Line, w.Rule, w.Re, nearMisses(got, w))
				}
			}
			var added []string
			for i, f := range got {
				if matched[i] {
					continue
				}
				added = append(added, golden.FormatWant(f.Location.Line, f.RuleID, f.Message))
				if !*update {
					t.Errorf("%s.txtar:%d: unexpected finding %s (%s): %s", c.Name, f.Location.Line, f.RuleID, f.Severity, f.Message)
				}
			}
			if *update && (stale || len(added) > 0) {
				rewriteWant(t, c, append(kept, added...))
			}
		})
	}
}

func nearMisses(got []findings.ValidationFinding, w golden.Want) string {
	var b strings.Builder
	for _, f := range got {
		if f.RuleID == w.Rule || f.Location.Line == w.Line {
			fmt.Fprintf(&b, "\n\thave %d %s: %s", f.Location.Line, f.RuleID, f.Message)
		}
	}
	return b.String()
}

// rewriteWant replaces the want section of a case that no longer matches
// (-update). Want lines that still match are kept as written, since their
// regexps are often looser than the message; new findings are added.
func rewriteWant(t *testing.T, c *golden.Case, lines []string) {
	want := strings.Join(lines, "\n")
	if want != "" {
		want += "\n"
	}
	a := c.Archive
	files := []txtar.File{{Name: "want", Data: []byte(want)}}
	for _, f := range a.Files {
		if f.Name != "want" {
			files = append(files, f)
		}
	}
	a.Files = files
	path := filepath.Join("testdata", c.Name+".txtar")
	if err := os.WriteFile(path, txtar.Format(a), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("rewrote the want section of %s", path)
}

// TestCorpusCoversCatalog enforces that every rule a transcript can decide
// has at least one failing case (a want line) and one passing case (a case
// that covers it and expects no finding of it).
func TestCorpusCoversCatalog(t *testing.T) {
	cases, err := golden.LoadCases(conformance.Corpus())
	if err != nil {
		t.Fatal(err)
	}
	failing := map[string][]string{}
	passing := map[string][]string{}
	for _, c := range cases {
		wanted := map[string]bool{}
		for _, w := range c.Want {
			wanted[w.Rule] = true
			failing[w.Rule] = append(failing[w.Rule], c.Name)
		}
		for _, id := range c.Covers {
			if _, ok := findings.ByID(id); !ok {
				t.Errorf("%s: covers unknown rule %s", c.Name, id)
			}
			if !wanted[id] {
				passing[id] = append(passing[id], c.Name)
			}
		}
		for id := range wanted {
			if !slices.Contains(c.Covers, id) {
				t.Errorf("%s: expects %s but does not list it in covers:", c.Name, id)
			}
		}
	}
	unchecked, err := golden.Unchecked(conformance.Corpus())
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, r := range findings.All() {
		if r.Undecidable != "" {
			continue
		}
		if reason, todo := unchecked[r.ID]; todo {
			if file, test, ok := golden.ProvedBy(reason); ok {
				src, err := os.ReadFile(filepath.Join("..", file))
				if err != nil || !bytes.Contains(src, []byte("func "+test+"(")) {
					t.Errorf("%s is said to be proved by %s in %s, which does not exist", r.ID, test, file)
				}
				continue
			}
			if len(failing[r.ID]) > 0 {
				t.Errorf("%s is listed in a todo.txt but has failing cases (%s): remove the todo line", r.ID, strings.Join(failing[r.ID], ", "))
			}
			continue
		}
		if len(failing[r.ID]) == 0 {
			missing = append(missing, r.ID+" has no failing case")
		}
		if len(passing[r.ID]) == 0 {
			missing = append(missing, r.ID+" has no passing case")
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d gaps in the corpus:\n\t%s", len(missing), strings.Join(missing, "\n\t"))
	}
}

// TestGoldenLive: lint of a recording handed over as frames, as a live tap
// hands them (transcript.NewFrameReader), finds what lint of the recording
// finds, at the same lines and in the same order, and shows OnEntry the
// same entries. The recording is the case converted to acplint's format,
// so every rule's failing and passing cases run both ways; the frames come
// in handfuls of one to three, as they cross.
func TestGoldenLive(t *testing.T) {
	cases, err := golden.LoadCases(conformance.Corpus())
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	defer func() {
		if total < len(cases) {
			t.Errorf("%d findings in %d cases: the comparison compares too little", total, len(cases))
		}
	}()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			opts := lint.Options{File: c.Name, MaxPerRule: 3, CleanEnd: slices.Contains(c.Flags, "--clean-end")}
			var rec bytes.Buffer
			switch c.TranscriptName {
			case "transcript.acplint.jsonl":
				rec.Write(c.Transcript) // gap records and all
			case "transcript.ndjson":
				_, err = lint.Convert(bytes.NewReader(c.Transcript), &rec, lint.ConvertOptions{From: transcript.FormatNDJSON, To: "acplint"})
			default:
				_, err = lint.Convert(bytes.NewReader(c.Transcript), &rec, lint.ConvertOptions{To: "acplint"})
			}
			if err != nil {
				t.Fatal(err)
			}
			type seen struct{ finds, entries []string }
			observe := func(s *seen) lint.Options {
				o := opts
				o.OnFinding = func(f findings.ValidationFinding) {
					s.finds = append(s.finds, fmt.Sprintf("%d:%d %s %s [%s] %s", f.Location.Line, f.Location.Column, f.RuleID, f.Severity, f.Blame, f.Message))
				}
				o.OnEntry = func(e transcript.Entry, msgs []*domain.Message) {
					desc := fmt.Sprintf("%d %v %q %d %d %s %s %v", e.Line.Num, e.Dir, e.Line.Bytes, e.Splits, len(e.Extra), e.Lost, e.Time, e.Line.CRLF)
					for _, m := range msgs {
						desc += fmt.Sprintf(" %v/%v/%s", m.Kind, m.Dir, m.Method)
					}
					s.entries = append(s.entries, desc)
				}
				return o
			}
			var offline, live seen
			o := observe(&offline)
			o.Format = transcript.FormatTranscript
			want, err := lint.Transcript(bytes.NewReader(rec.Bytes()), o)
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.Split(bytes.TrimSuffix(rec.Bytes(), []byte("\n")), []byte("\n"))
			h, ok, err := transcript.ParseHeader(lines[0])
			if !ok || err != nil {
				t.Fatalf("the recording's header %q: %v", lines[0], err)
			}
			var frames []transcript.Frame
			for i, line := range lines[1:] {
				fr, err := transcript.ParseFrame(line)
				if err != nil {
					t.Skipf("line %d of the recording is not a frame, which a tap never hands over: %v", i+2, err)
				}
				frames = append(frames, fr)
			}
			handful := 0
			next := func() ([]transcript.Frame, error) {
				if len(frames) == 0 {
					return nil, io.EOF
				}
				handful = handful%3 + 1
				n := min(handful, len(frames))
				b := frames[:n]
				frames = frames[n:]
				return b, nil
			}
			got, err := lint.Source(transcript.NewFrameReader(next, h.Started, 0), observe(&live))
			if err != nil {
				t.Fatal(err)
			}
			total += len(offline.finds)
			if !slices.Equal(live.finds, offline.finds) {
				t.Errorf("live findings:\n%s\noffline:\n%s", strings.Join(live.finds, "\n"), strings.Join(offline.finds, "\n"))
			}
			if !slices.Equal(live.entries, offline.entries) {
				t.Errorf("live entries:\n%s\noffline:\n%s", strings.Join(live.entries, "\n"), strings.Join(offline.entries, "\n"))
			}
			if got.Format != want.Format || got.Lines != want.Lines || got.Messages != want.Messages {
				t.Errorf("live: %d lines, %d messages of %s; offline: %d, %d of %s", got.Lines, got.Messages, got.Format, want.Lines, want.Messages, want.Format)
			}
		})
	}
}
