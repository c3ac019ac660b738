package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/internal/safefile"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/transcript"
)

const corpusDoc = `
Corpus re-lints every transcript under DIR twice, once checking the schema
rules against --against (the schema your traffic was recorded with) and
once against --schema (the schema you upgrade to), and prints per file only
what changed: findings the new schema adds ("new") and findings it no
longer gives ("gone"). Protocol rules do not depend on the schema, so they
cancel out.

Transcripts are the regular files under DIR ending in .ndjson, .jsonl or
.json (any input format lint reads); DIR may also be a single file.
Symbolic links under DIR are not followed, so corpus never reads outside
DIR; they and other files that are not regular (named pipes, devices,
sockets) are skipped with a note on stderr. DIR itself may be a link.

Output formats (-f): text; json (one finding per line with "change": "new"
or "gone"); sarif, github and junit report the new findings only, which is
what a pull request that bumps the schema introduces.

Exit codes: 0 the new schema adds no finding at or above --fail-on; 1 it
breaks traffic the old schema accepted (new findings at or above
--fail-on); 2 usage or I/O error.

Example:
	acplint corpus transcripts/ --against old/schema.json --schema node_modules/@agentclientprotocol/sdk/schema/v1/schema.unstable.json
`

func runCorpus(_ context.Context, args []string, e *env) int {
	fs := newFlagSet("corpus", "acplint corpus [flags] DIR --against OLD_SCHEMA --schema NEW_SCHEMA", corpusDoc, e)
	against := fs.String("against", "", "the old schema `file` the transcripts were recorded with (required)")
	schemaFile := fs.String("schema", "", "the new schema `file` to check them against (required)")
	format := fs.String("f", "text", "output `format`: text, json, sarif, github or junit")
	fs.StringVar(format, "format", "text", "same as -f")
	failOn := fs.String("fail-on", "error", "exit 1 when a new finding has at least this `severity`: error, warning or info")
	input := fs.String("input", "auto", "input `format` of the transcripts: auto, ndjson, jsonl or zed")
	cleanEnd := fs.Bool("clean-end", false, "the transcripts end with a clean shutdown")
	dirs, code, ok := parseInterspersed(fs, args, e)
	if !ok {
		return code
	}
	if len(dirs) != 1 {
		e.errorf("corpus: want one DIR; got %d arguments", len(dirs))
		return exitUsage
	}
	if *against == "" || *schemaFile == "" {
		e.errorf("corpus: --against OLD_SCHEMA and --schema NEW_SCHEMA are both required")
		return exitUsage
	}
	outFormat, err := findings.ParseFormat(*format)
	if err != nil {
		e.errorf("corpus: %v", err)
		return exitUsage
	}
	threshold, err := findings.ParseSeverity(*failOn)
	if err != nil {
		e.errorf("corpus: --fail-on: %v", err)
		return exitUsage
	}
	inFormat, err := transcript.ParseFormat(*input)
	if err != nil {
		e.errorf("corpus: %v", err)
		return exitUsage
	}
	oldSchema, err := lint.LoadSchema(*against)
	if err != nil {
		e.errorf("corpus: --against: %v", err)
		return exitUsage
	}
	newSchema, err := lint.LoadSchema(*schemaFile)
	if err != nil {
		e.errorf("corpus: --schema: %v", err)
		return exitUsage
	}
	skipped := func(why error) { fmt.Fprintf(e.stderr, "acplint corpus: skipping %v\n", why) }
	files, err := transcripts(dirs[0], skipped)
	if err != nil {
		e.errorf("corpus: %v", err)
		return exitUsage
	}
	if len(files) == 0 {
		e.errorf("corpus: no transcripts (.ndjson, .jsonl, .json) under %s", dirs[0])
		return exitUsage
	}

	var diffs []fileDiff
	ioFailed := false
	for _, name := range files {
		opts := lint.Options{Format: inFormat, File: name, CleanEnd: *cleanEnd}
		d, err := relint(name, opts, oldSchema, newSchema)
		if err != nil {
			e.errorf("%v", err)
			ioFailed = true
			continue
		}
		diffs = append(diffs, d)
	}

	var added []findings.ValidationFinding
	for _, d := range diffs {
		added = append(added, d.added...)
	}
	switch outFormat {
	case findings.FormatText:
		err = writeCorpusText(e.stdout, oldSchema.File(), newSchema.File(), diffs, threshold)
	case findings.FormatJSON:
		err = writeCorpusJSON(e.stdout, diffs)
	default:
		err = findings.Write(e.stdout, outFormat, findings.Report{Tool: "acplint", Version: version, Files: files, Findings: added, FailOn: &threshold})
	}
	if err != nil {
		e.errorf("corpus: writing the report: %v", err)
		return exitUsage
	}
	code = exitClean
	for _, f := range added {
		if f.Severity >= threshold {
			code = exitFindings
			break
		}
	}
	if ioFailed {
		code = exitUsage
	}
	return code
}

// parseInterspersed parses flags that may come after positional
// arguments ("corpus DIR --against X"), where package flag alone stops.
func parseInterspersed(fs *flag.FlagSet, args []string, e *env) (positional []string, code int, ok bool) {
	for {
		if code, ok := parseFlags(fs, args, e); !ok {
			return nil, code, false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, 0, true
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// relint lints one transcript under both schemas. The file is opened
// once, as a regular file that is not a link (it may have been swapped
// since it was listed), and read twice.
func relint(name string, opts lint.Options, oldSchema, newSchema *lint.Schema) (fileDiff, error) {
	f, err := safefile.OpenRegular(name)
	if err != nil {
		return fileDiff{}, err
	}
	defer f.Close()
	opts.Schema = oldSchema
	before, err := lint.Transcript(f, opts)
	if err != nil {
		return fileDiff{}, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fileDiff{}, err
	}
	opts.Schema = newSchema
	after, err := lint.Transcript(f, opts)
	if err != nil {
		return fileDiff{}, err
	}
	return compareFindings(name, before.Findings, after.Findings), nil
}

// transcripts lists the transcript files under root, sorted. root may be
// a link (the user named it); links under it are not followed, so nothing
// outside root is read, and they and files that are not regular are
// passed to skipped instead of listed.
func transcripts(root string, skipped func(error)) ([]string, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		if !info.Mode().IsRegular() {
			// Corpus reads each file twice: a pipe or device cannot be.
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
	err = filepath.WalkDir(resolved, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".ndjson", ".jsonl", ".json":
		default:
			return nil
		}
		rel, err := filepath.Rel(resolved, path)
		if err != nil {
			return err
		}
		path = filepath.Join(root, rel)
		switch t := d.Type(); {
		case t&fs.ModeSymlink != 0:
			skipped(fmt.Errorf("%s: a symbolic link (corpus does not follow links, so that it stays inside %s)", path, root))
		case !t.IsRegular():
			skipped(fmt.Errorf("%s: not a regular file (%s)", path, t))
		default:
			out = append(out, path)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// fileDiff is what the new schema changed in one transcript's findings.
type fileDiff struct {
	file           string
	added, removed []findings.ValidationFinding
	unchanged      int
}

// compareFindings pairs the findings of the two runs by rule, line and
// pointer: the same problem may be worded differently under two schemas
// (the list of known values, say), and that is no change. Within a key,
// equal messages pair first.
func compareFindings(file string, before, after []findings.ValidationFinding) fileDiff {
	type key struct {
		rule, pointer string
		line          int
	}
	keyOf := func(f findings.ValidationFinding) key {
		return key{f.RuleID, f.Location.Pointer, f.Location.Line}
	}
	left := map[key][]findings.ValidationFinding{}
	for _, f := range before {
		left[keyOf(f)] = append(left[keyOf(f)], f)
	}
	d := fileDiff{file: file}
	var unpaired []findings.ValidationFinding
	for _, f := range after {
		k := keyOf(f)
		match := -1
		for i, g := range left[k] {
			if g.Message == f.Message {
				match = i
				break
			}
		}
		if match < 0 {
			unpaired = append(unpaired, f)
			continue
		}
		left[k] = append(left[k][:match], left[k][match+1:]...)
		d.unchanged++
	}
	for _, f := range unpaired {
		k := keyOf(f)
		if len(left[k]) > 0 {
			left[k] = left[k][1:]
			d.unchanged++
			continue
		}
		d.added = append(d.added, f)
	}
	for _, fs := range left {
		d.removed = append(d.removed, fs...)
	}
	sort.SliceStable(d.added, func(i, j int) bool { return findings.Less(d.added[i], d.added[j]) })
	sort.SliceStable(d.removed, func(i, j int) bool { return findings.Less(d.removed[i], d.removed[j]) })
	return d
}

func writeCorpusText(w io.Writer, oldFile, newFile string, diffs []fileDiff, threshold findings.Severity) error {
	bw := bufio.NewWriter(w)
	changed, breaking, added, removed := 0, 0, 0, 0
	for _, d := range diffs {
		if len(d.added) == 0 && len(d.removed) == 0 {
			continue
		}
		changed++
		fmt.Fprintf(bw, "== %s: %d new, %d gone\n", findings.Escape(d.file), len(d.added), len(d.removed))
		for _, f := range d.added {
			writeCorpusFinding(bw, "new ", f)
			added++
			if f.Severity >= threshold {
				breaking++
			}
		}
		for _, f := range d.removed {
			writeCorpusFinding(bw, "gone", f)
			removed++
		}
	}
	if changed > 0 {
		bw.WriteString("\n")
	}
	fmt.Fprintf(bw, "%d of %d transcripts change from %s to %s: %d new findings (%d at or above %s), %d gone\n",
		changed, len(diffs), oldFile, newFile, added, breaking, threshold, removed)
	return bw.Flush()
}

func writeCorpusFinding(bw *bufio.Writer, tag string, f findings.ValidationFinding) {
	// File names come from the walked directory and messages quote
	// recorded traffic: escaped like every text report (findings.Escape).
	fmt.Fprintf(bw, "%s %s:%d: %s: %s (%s)\n", tag, findings.Escape(f.Location.File), f.Location.Line, f.Severity, findings.Escape(f.Message), findings.Escape(f.RuleID))
	if f.Location.Pointer != "" {
		fmt.Fprintf(bw, "\tat %s\n", findings.Escape(f.Location.Pointer))
	}
}

func writeCorpusJSON(w io.Writer, diffs []fileDiff) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	type line struct {
		Change string `json:"change"`
		findings.ValidationFinding
	}
	for _, d := range diffs {
		for _, f := range d.added {
			if err := enc.Encode(line{"new", f}); err != nil {
				return err
			}
		}
		for _, f := range d.removed {
			if err := enc.Encode(line{"gone", f}); err != nil {
				return err
			}
		}
	}
	return nil
}
