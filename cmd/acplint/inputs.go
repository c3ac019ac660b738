package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/acplint/acplint/internal/safefile"
	"github.com/acplint/acplint/transcript"
)

// skippedDirs are the directories a walk never enters: other people's code
// (node_modules, vendor) and version-control metadata. A repository's
// node_modules alone can hold thousands of JSON files that are no
// transcripts.
var skippedDirs = map[string]bool{".git": true, ".hg": true, ".svn": true, "node_modules": true, "vendor": true}

// transcriptExts are the file name endings a walk looks at.
var transcriptExts = map[string]bool{".ndjson": true, ".jsonl": true, ".json": true}

// sniffBytes is how much of a file a walk reads to tell a transcript from
// another JSON file.
const sniffBytes = 64 << 10

// expandInputs turns lint's arguments into the inputs to lint, in order:
// "-" is standard input, a file is itself (whatever it holds: it was
// named), and a directory, DIR/... or ... (the current directory) is every
// transcript under it (walkTranscripts). Paths ex excludes are left out,
// named or found. note is told what a walk skipped and why.
func expandInputs(args []string, ex *excluder, note func(string)) ([]string, error) {
	var out []string
	for _, arg := range args {
		if arg == "-" {
			out = append(out, arg)
			continue
		}
		root, dots := strings.CutSuffix(arg, "...")
		if dots {
			root = strings.TrimSuffix(root, "/")
			if root == "" {
				root = "."
			}
		}
		info, err := os.Stat(root)
		if err != nil && !dots {
			// Reported when it is opened, in order, and the others are
			// linted (like go vet).
			out = append(out, root)
			continue
		}
		if err != nil {
			return nil, err
		}
		if dots && !info.IsDir() {
			return nil, fmt.Errorf("%s: not a directory", arg)
		}
		if !info.IsDir() {
			if !ex.excludes(root) {
				out = append(out, root)
			}
			continue
		}
		found, err := walkTranscripts(root, ex, note)
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	return out, nil
}

// walkTranscripts lists the transcripts under root, sorted: regular files
// ending in .ndjson, .jsonl or .json whose first line is one (see
// transcript.LooksLikeTranscript). root may be a link (the user named
// it); links under it are not followed, so nothing outside root is read.
// Passed to note, each with why: skippedDirs, links and other files that
// are not regular, JSON files that are not transcripts, and what ex
// excludes. Files with other endings are passed over in silence.
func walkTranscripts(root string, ex *excluder, note func(string)) ([]string, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		if !info.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is not a regular file or a directory", root)
		}
		return []string{root}, nil
	}
	// WalkDir does not follow a link at its root either; the walk starts
	// at the directory the user meant, and paths still begin with root.
	resolved, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	var out []string
	err = filepath.WalkDir(resolved, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(resolved, p)
		if err != nil {
			return err
		}
		p = filepath.Join(root, rel)
		if d.IsDir() {
			switch {
			case rel == ".":
			case skippedDirs[d.Name()]:
				note(fmt.Sprintf("%s: a dependency or version-control directory", p))
				return filepath.SkipDir
			case ex.excludes(p):
				note(fmt.Sprintf("%s: excluded", p))
				return filepath.SkipDir
			}
			return nil
		}
		if !transcriptExts[strings.ToLower(filepath.Ext(p))] {
			return nil
		}
		switch t := d.Type(); {
		case ex.excludes(p):
			note(fmt.Sprintf("%s: excluded", p))
		case t&fs.ModeSymlink != 0:
			note(fmt.Sprintf("%s: a symbolic link (a walk does not follow links, so that it stays inside %s)", p, root))
		case !t.IsRegular():
			note(fmt.Sprintf("%s: not a regular file (%s)", p, t))
		default:
			ok, err := startsLikeTranscript(p)
			switch {
			case err != nil:
				return err
			case !ok:
				note(fmt.Sprintf("%s: not a transcript (its first line is no JSON-RPC message, transcript record or Zed log)", p))
			default:
				out = append(out, p)
			}
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// startsLikeTranscript reads the start of the regular file name.
func startsLikeTranscript(name string) (bool, error) {
	f, err := safefile.OpenRegular(name)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, sniffBytes)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return false, err
	}
	return transcript.LooksLikeTranscript(head[:n]), nil
}

// excluder decides which paths --exclude (or a config file's exclude)
// leaves out. Patterns are globs over slash-separated paths relative to
// base (the working directory for flags, the config file's directory for
// its patterns): "*" and "?" stay within a path segment, "**" spans
// segments, and a pattern without a "/" matches a name at any depth. A
// pattern matching a directory excludes everything under it.
type excluder struct {
	base     string
	patterns []string
	res      []*regexp.Regexp
}

func newExcluder(base string, patterns []string) (*excluder, error) {
	ex := &excluder{base: base}
	for _, p := range patterns {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		re, err := globRegexp(p)
		if err != nil {
			return nil, fmt.Errorf("exclude pattern %q: %w", p, err)
		}
		ex.patterns = append(ex.patterns, p)
		ex.res = append(ex.res, re)
	}
	return ex, nil
}

// excludes reports whether name, or a directory it is in, matches a
// pattern. A nil excluder excludes nothing.
func (ex *excluder) excludes(name string) bool {
	if ex == nil || len(ex.res) == 0 {
		return false
	}
	rel := name
	if abs, err := filepath.Abs(name); err == nil {
		if r, err := filepath.Rel(ex.base, abs); err == nil && !strings.HasPrefix(r, "..") {
			rel = r
		}
	}
	rel = path.Clean(filepath.ToSlash(rel))
	for {
		for _, re := range ex.res {
			if re.MatchString(rel) {
				return true
			}
		}
		dir := path.Dir(rel)
		if dir == rel || dir == "." || dir == "/" {
			return false
		}
		rel = dir
	}
}

// globRegexp compiles a glob into an anchored regular expression.
func globRegexp(glob string) (*regexp.Regexp, error) {
	glob = strings.TrimPrefix(path.Clean(filepath.ToSlash(glob)), "./")
	var b strings.Builder
	if !strings.Contains(glob, "/") {
		b.WriteString(`^(?:.*/)?`)
	} else {
		b.WriteString(`^`)
	}
	for i := 0; i < len(glob); i++ {
		c := glob[i]
		switch {
		case c == '*' && i+1 < len(glob) && glob[i+1] == '*':
			i++
			if i+1 < len(glob) && glob[i+1] == '/' {
				i++
				b.WriteString(`(?:.*/)?`)
			} else {
				b.WriteString(`.*`)
			}
		case c == '*':
			b.WriteString(`[^/]*`)
		case c == '?':
			b.WriteString(`[^/]`)
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`$`)
	return regexp.Compile(b.String())
}

// stdinHint is what lint, fmt and convert say before they wait on a
// terminal for a transcript nobody may mean to type.
const stdinHint = "acplint: reading a transcript from standard input, which is a terminal; give FILE, DIR or ./..., or pipe one in (Ctrl-D ends the input)"

// isTerminal reports whether r is a terminal: a character device other
// than the null device (CI jobs run with stdin on /dev/null).
func isTerminal(r io.Reader) bool {
	s, ok := r.(interface{ Stat() (os.FileInfo, error) })
	if !ok {
		return false
	}
	info, err := s.Stat()
	if err != nil || info.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(info, null) {
		return false
	}
	return true
}
