// Package golden reads acplint's golden transcript corpus: txtar cases
// whose comment names the rules they cover ("covers:"), with a transcript
// section and a "want" section of expected findings, and the todo.txt
// files that list the rules no case can show yet. The corpus itself lives
// in conformance/testdata, embedded by package conformance; this package
// only knows its format, so that the golden tests, `acplint explain` and
// `acplint rules` read it one way.
package golden

import (
	"bufio"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/txtar"
)

// Case is one golden transcript.
type Case struct {
	Name       string   // path in the corpus without ".txtar", e.g. "ses/new-without-mcp-servers"
	Comment    string   // the archive comment, without machine-read lines
	Covers     []string // rule IDs the case exercises
	Flags      []string // lint flags, from the "flags" section
	Transcript []byte
	// TranscriptName is the section name, e.g. "transcript.ndjson".
	TranscriptName string
	Want           []Want
	Archive        *txtar.Archive
}

// Want is one expected finding.
type Want struct {
	Line   int
	Rule   string
	Re     *regexp.Regexp
	Source string // the want line as written
}

// transcriptSections are the section names a case may use for its input.
var transcriptSections = []string{"transcript.ndjson", "transcript.jsonl", "transcript.zed.json", "transcript.acplint.jsonl"}

// LoadCases reads every case in corpus, a tree of <area>/<name>.txtar
// files such as conformance.Corpus().
func LoadCases(corpus fs.FS) ([]*Case, error) {
	var cases []*Case
	err := fs.WalkDir(corpus, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".txtar") {
			return err
		}
		data, err := fs.ReadFile(corpus, p)
		if err != nil {
			return err
		}
		c, err := ParseCase(strings.TrimSuffix(p, ".txtar"), data)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		cases = append(cases, c)
		return nil
	})
	sort.Slice(cases, func(i, j int) bool { return cases[i].Name < cases[j].Name })
	return cases, err
}

// ParseCase parses one txtar case.
func ParseCase(name string, data []byte) (*Case, error) {
	a := txtar.Parse(data)
	c := &Case{Name: name, Archive: a}
	var comment []string
	for _, line := range strings.Split(string(a.Comment), "\n") {
		if rest, ok := strings.CutPrefix(line, "covers:"); ok {
			c.Covers = append(c.Covers, strings.Fields(rest)...)
			continue
		}
		comment = append(comment, line)
	}
	c.Comment = strings.TrimSpace(strings.Join(comment, "\n"))
	if len(c.Covers) == 0 {
		return nil, fmt.Errorf("no covers: line in the comment")
	}
	seen := map[string]bool{}
	for _, f := range a.Files {
		if seen[f.Name] {
			return nil, fmt.Errorf("section %q appears twice", f.Name)
		}
		seen[f.Name] = true
		switch {
		case f.Name == "flags":
			c.Flags = strings.Fields(string(f.Data))
		case f.Name == "want":
			ws, err := parseWant(string(f.Data))
			if err != nil {
				return nil, fmt.Errorf("section want: %w", err)
			}
			c.Want = ws
		case slices.Contains(transcriptSections, f.Name):
			if c.Transcript != nil {
				return nil, fmt.Errorf("more than one transcript section")
			}
			c.Transcript, c.TranscriptName = f.Data, f.Name
		default:
			return nil, fmt.Errorf("unknown section %q (want flags, want or one of %s)", f.Name, strings.Join(transcriptSections, ", "))
		}
	}
	if c.Transcript == nil {
		return nil, fmt.Errorf("no transcript section")
	}
	return c, nil
}

var ruleIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ACP-[A-Z]+-\d{3}$`) })

// parseWant reads lines of the form: LINE RULE-ID "regexp" (the regexp is
// a Go string literal, backquoted or double-quoted).
func parseWant(s string) ([]Want, error) {
	var out []Want
	sc := bufio.NewScanner(strings.NewReader(s))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.SplitN(line, " ", 3)
		if len(fields) != 3 {
			return nil, fmt.Errorf("line %d: want LINE RULE-ID \"regexp\", got %q", n, line)
		}
		ln, err := strconv.Atoi(fields[0])
		if err != nil {
			return nil, fmt.Errorf("line %d: bad line number %q", n, fields[0])
		}
		if !ruleIDPattern().MatchString(fields[1]) {
			return nil, fmt.Errorf("line %d: bad rule id %q", n, fields[1])
		}
		pat, err := strconv.Unquote(strings.TrimSpace(fields[2]))
		if err != nil {
			return nil, fmt.Errorf("line %d: regexp must be a quoted Go string: %v", n, err)
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
		out = append(out, Want{Line: ln, Rule: fields[1], Re: re, Source: line})
	}
	return out, nil
}

// FormatWant renders a want line for a finding, for -update.
func FormatWant(line int, rule, message string) string {
	return fmt.Sprintf("%d %s %s", line, rule, strconv.Quote(regexp.QuoteMeta(message)))
}

// Dir returns the area directory of a case name ("ses" for "ses/x").
func (c *Case) Dir() string { return path.Dir(c.Name) }

// Unchecked returns the rules that acplint does not check yet, with the
// reason, read from the todo.txt file of each area directory of corpus. A
// rule listed there needs no corpus cases; once it is implemented its cases
// replace the todo line (TestCorpusCoversCatalog fails if both exist).
func Unchecked(corpus fs.FS) (map[string]string, error) {
	out := map[string]string{}
	err := fs.WalkDir(corpus, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Base(p) != "todo.txt" {
			return err
		}
		data, err := fs.ReadFile(corpus, p)
		if err != nil {
			return err
		}
		for n, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			id, reason, _ := strings.Cut(line, " ")
			if !ruleIDPattern().MatchString(id) {
				return fmt.Errorf("%s:%d: bad rule id %q", p, n+1, id)
			}
			out[id] = strings.TrimSpace(reason)
		}
		return nil
	})
	return out, err
}

// ProvedBy parses a todo reason of the form "proved by FILE TESTNAME …":
// a rule whose failing input cannot live in the corpus (a 32 MiB line, say)
// is proved by a Go test instead, and the catalog test checks that the
// test exists.
func ProvedBy(reason string) (file, test string, ok bool) {
	rest, found := strings.CutPrefix(reason, "proved by ")
	if !found {
		return "", "", false
	}
	f := strings.Fields(rest)
	if len(f) < 2 || !strings.HasPrefix(f[1], "Test") {
		return "", "", false
	}
	return f[0], f[1], true
}
