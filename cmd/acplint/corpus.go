package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

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
longer gives ("gone"). Every schema fact comes from the schema in use: the
shapes of params and results, which methods exist (stable or unstable)
and which side sends each, and where "_meta" must be an object. The other
protocol rules do not depend on the schema, so they cancel out.

Transcripts are the regular files under DIR ending in .ndjson, .jsonl or
.json (any input format lint reads) whose first line is a JSON-RPC
message, a transcript record or a Zed log; DIR may also be a single file.
Directories of dependencies and version control (node_modules, vendor,
.git, .hg, .svn) are not entered, and other JSON files (package.json, a
schema) are not transcripts: each is skipped with a note on stderr.
Symbolic links under DIR are not followed, so corpus never reads outside
DIR; they and other files that are not regular (named pipes, devices,
sockets) are skipped with a note too. DIR itself may be a link.

Output formats (-f): text; json (one finding per line with "change": "new"
or "gone"); sarif, github and junit report the new findings only, which is
what a pull request that bumps the schema introduces.

Large corpora: -j N lints N transcripts at once (default: GOMAXPROCS);
the report's order does not depend on it. --shard K/N lints only the K-th
of N shards: a transcript's shard is a hash of its path relative to DIR,
so the same files land in the same shard on every run and machine, and a
CI matrix of N jobs covers the corpus once. Each shard writes -f json;
'acplint corpus --merge FILE...' merges those outputs into one report in
any format, with the same exit codes. A json output ends with a summary
line ("change": "summary": the schemas, the shard, the transcripts it
covered and those it could not read) that --merge checks: it refuses
outputs of different schemas or an incomplete set of shards.

Exit codes: 0 the new schema adds no finding at or above --fail-on; 1 it
breaks traffic the old schema accepted (new findings at or above
--fail-on); 2 usage or I/O error (with --merge also: a shard could not
read a transcript).

Examples:
	acplint corpus transcripts/ --against old/schema.json --schema node_modules/@agentclientprotocol/sdk/schema/v1/schema.unstable.json
	acplint corpus transcripts/ --shard 2/4 -f json --against OLD --schema NEW > shard-2.json
	acplint corpus --merge shard-*.json -f sarif > corpus.sarif
`

func runCorpus(_ context.Context, args []string, e *env) int {
	fs := newFlagSet("corpus", "acplint corpus [flags] DIR --against OLD_SCHEMA --schema NEW_SCHEMA\n       acplint corpus --merge [flags] SHARD.json...", corpusDoc, e)
	against := fs.String("against", "", "the old schema `file` the transcripts were recorded with (required)")
	schemaFile := fs.String("schema", "", "the new schema `file` to check them against (required)")
	format := fs.String("f", "text", "output `format`: text, json, sarif, github or junit")
	fs.StringVar(format, "format", "text", "same as -f")
	failOn := fs.String("fail-on", "error", "exit 1 when a new finding has at least this `severity`: error, warning or info")
	input := fs.String("input", "auto", "input `format` of the transcripts: auto, ndjson, jsonl or zed")
	cleanEnd := fs.Bool("clean-end", false, "the transcripts end with a clean shutdown")
	shardFlag := fs.String("shard", "", "lint only shard `K/N` of the transcripts (1 <= K <= N), by a hash of each path relative to DIR")
	merge := fs.Bool("merge", false, "merge the -f json outputs of the shards, given as arguments, into one report")
	jobs := fs.Int("j", runtime.GOMAXPROCS(0), "lint up to `N` transcripts at once")
	enable, disable, severity, excludeFlag := &listFlag{}, &listFlag{}, &listFlag{}, &listFlag{}
	fs.Var(enable, "enable", "compare only the rules these `patterns` select, as lint's --enable")
	fs.Var(disable, "disable", "leave out the rules these `patterns` select, as lint's --disable")
	fs.Var(severity, "rule-severity", "report the rules `PATTERN=SEVERITY` selects with that severity, as lint's --rule-severity")
	fs.Var(excludeFlag, "exclude", "leave out the files and directories these `globs` match, as lint's --exclude")
	config := addFileFlags(fs)
	if code, ok := parseFlags(fs, args, e); !ok {
		return code
	}
	keys := map[string]string{"enable": "enable", "disable": "disable", "severity": "rule-severity", "fail-on": "fail-on", "format": "f", "input": "input", "schema": "schema"}
	if *merge {
		delete(keys, "schema") // the shards' outputs name their schemas
	}
	cfg, err := config.apply(fs, "corpus", keys)
	if err != nil {
		e.errorf("corpus: %v", err)
		return exitUsage
	}
	selection, err := selectRules(enable.items, disable.items, severity.items, findings.All())
	if err != nil {
		e.errorf("corpus: %v", err)
		return exitUsage
	}
	if excludeFlag.set {
		if cfg.excludeBase, err = os.Getwd(); err != nil {
			e.errorf("corpus: %v", err)
			return exitUsage
		}
		cfg.Exclude = excludeFlag.items
	}
	exclude, err := newExcluder(cfg.excludeBase, cfg.Exclude)
	if err != nil {
		e.errorf("corpus: %v", err)
		return exitUsage
	}
	dirs := fs.Args()
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
	if *merge {
		if *shardFlag != "" || *against != "" || *schemaFile != "" {
			e.errorf("corpus: --merge takes the shards' json outputs only: their schemas and shards come from the outputs")
			return exitUsage
		}
		if len(dirs) == 0 {
			e.errorf("corpus: --merge wants the -f json output of every shard")
			return exitUsage
		}
		run, err := mergeShards(dirs)
		if err != nil {
			e.errorf("corpus: --merge: %v", err)
			return exitUsage
		}
		for _, f := range run.failed {
			e.errorf("corpus: a shard could not read %s", f)
		}
		return reportCorpus(e, run, outFormat, threshold)
	}
	if len(dirs) != 1 {
		e.errorf("corpus: want one DIR; got %d arguments", len(dirs))
		return exitUsage
	}
	if *against == "" || *schemaFile == "" {
		e.errorf("corpus: --against OLD_SCHEMA and --schema NEW_SCHEMA are both required")
		return exitUsage
	}
	shard, err := parseShard(*shardFlag)
	if err != nil {
		e.errorf("corpus: --shard: %v", err)
		return exitUsage
	}
	if *jobs < 1 {
		e.errorf("corpus: -j: want at least 1; got %d", *jobs)
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
	skipped := func(why string) { fmt.Fprintf(e.stderr, "acplint corpus: skipping %s\n", why) }
	files, err := walkTranscripts(dirs[0], exclude, skipped)
	if err != nil {
		e.errorf("corpus: %v", err)
		return exitUsage
	}
	if len(files) == 0 {
		e.errorf("corpus: no transcripts (.ndjson, .jsonl, .json) under %s", dirs[0])
		return exitUsage
	}
	files = shard.pick(dirs[0], files)

	run := corpusRun{against: oldSchema.File(), schema: newSchema.File(), shard: shard, files: files}
	diffs, errs := relintAll(files, *jobs, func(name string) (fileDiff, error) {
		d, err := relint(name, lint.Options{Format: inFormat, File: name, CleanEnd: *cleanEnd, Filter: func(f findings.ValidationFinding) bool {
			_, on := selection.apply(f)
			return on
		}}, oldSchema, newSchema)
		for _, fs := range [][]findings.ValidationFinding{d.added, d.removed} {
			for i := range fs {
				fs[i], _ = selection.apply(fs[i])
			}
		}
		return d, err
	})
	for i, err := range errs {
		if err != nil {
			e.errorf("%v", err)
			run.failed = append(run.failed, files[i])
			continue
		}
		run.diffs = append(run.diffs, diffs[i])
	}
	return reportCorpus(e, run, outFormat, threshold)
}

// corpusRun is what one corpus run (or the merge of its shards) found.
type corpusRun struct {
	against, schema string
	shard           shardSpec
	files           []string // the transcripts the run covers
	diffs           []fileDiff
	failed          []string // transcripts it could not read
}

// reportCorpus writes run in format and returns the exit code: 1 when a
// new finding is at or above threshold, 2 when a transcript could not be
// read.
func reportCorpus(e *env, run corpusRun, outFormat findings.Format, threshold findings.Severity) int {
	var added []findings.ValidationFinding
	for _, d := range run.diffs {
		added = append(added, d.added...)
	}
	var err error
	switch outFormat {
	case findings.FormatText:
		err = writeCorpusText(e.stdout, run.against, run.schema, run.diffs, threshold)
	case findings.FormatJSON:
		err = writeCorpusJSON(e.stdout, run)
	default:
		err = findings.Write(e.stdout, outFormat, findings.Report{Tool: "acplint", Version: acplintVersion(), Files: run.files, Findings: added, FailOn: &threshold})
	}
	if err != nil {
		e.errorf("corpus: writing the report: %v", err)
		return exitUsage
	}
	code := exitClean
	for _, f := range added {
		if f.Severity >= threshold {
			code = exitFindings
			break
		}
	}
	if len(run.failed) > 0 {
		code = exitUsage
	}
	return code
}

// relintAll runs relint over files with up to jobs at once and returns
// the results in the order of files, whatever order they finish in.
func relintAll(files []string, jobs int, relint func(string) (fileDiff, error)) ([]fileDiff, []error) {
	diffs := make([]fileDiff, len(files))
	errs := make([]error, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(jobs, len(files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				diffs[i], errs[i] = relint(files[i])
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	return diffs, errs
}

// shardSpec is shard K of N (1-based); 1/1 is the whole corpus.
type shardSpec struct{ k, n int }

func parseShard(s string) (shardSpec, error) {
	if s == "" {
		return shardSpec{1, 1}, nil
	}
	ks, ns, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 1 || k > n {
		return shardSpec{}, fmt.Errorf("want K/N with 1 <= K <= N, e.g. 2/4; got %q", s)
	}
	return shardSpec{k, n}, nil
}

func (s shardSpec) String() string { return fmt.Sprintf("%d/%d", s.k, s.n) }

// pick returns the files of root that fall in shard s. A file's shard is
// the FNV-1a hash of its slash-separated path relative to root, modulo N:
// stable across runs, machines and operating systems, and independent of
// which other files exist, so adding a transcript moves no other one.
func (s shardSpec) pick(root string, files []string) []string {
	if s.n <= 1 {
		return files
	}
	var out []string
	for _, f := range files {
		if shardOf(root, f, s.n) == s.k {
			out = append(out, f)
		}
	}
	return out
}

func shardOf(root, file string, n int) int {
	rel, err := filepath.Rel(root, file)
	if err != nil || rel == "." {
		rel = filepath.Base(file)
	}
	h := fnv.New32a()
	h.Write([]byte(filepath.ToSlash(rel)))
	return int(h.Sum32()%uint32(n)) + 1
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

// corpusLine is one line of the json output: a finding that is new or
// gone, or (last) the run's summary.
type corpusLine struct {
	Change string `json:"change"`
	findings.JSONFinding
}

// corpusSummary is the json output's last line; --merge reads it.
type corpusSummary struct {
	Change  string   `json:"change"` // "summary"
	Version int      `json:"version"`
	Against string   `json:"against"`
	Schema  string   `json:"schema"`
	Shard   string   `json:"shard"` // K/N
	Files   []string `json:"files"`
	Failed  []string `json:"failed,omitempty"`
}

func writeCorpusJSON(w io.Writer, run corpusRun) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, d := range run.diffs {
		for _, f := range d.added {
			if err := enc.Encode(corpusLine{"new", findings.NewJSONFinding(f)}); err != nil {
				return err
			}
		}
		for _, f := range d.removed {
			if err := enc.Encode(corpusLine{"gone", findings.NewJSONFinding(f)}); err != nil {
				return err
			}
		}
	}
	files := run.files
	if files == nil {
		files = []string{}
	}
	if err := enc.Encode(corpusSummary{Change: "summary", Version: findings.JSONVersion, Against: run.against, Schema: run.schema, Shard: run.shard.String(), Files: files, Failed: run.failed}); err != nil {
		return err
	}
	return bw.Flush()
}

// mergeShards reads the json outputs of a sharded run: each must end
// with its summary, all must name the same schemas and number of shards,
// and together cover every shard once.
func mergeShards(names []string) (corpusRun, error) {
	var run corpusRun
	seen := map[int]string{}
	byFile := map[string]*fileDiff{}
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			return run, err
		}
		var lines []corpusLine
		var sum *corpusSummary
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 64<<20)
		for n := 1; sc.Scan(); n++ {
			if sum != nil {
				f.Close()
				return run, fmt.Errorf("%s:%d: a line after the summary: not one corpus -f json output", name, n)
			}
			var probe struct {
				Change string `json:"change"`
			}
			if err := json.Unmarshal(sc.Bytes(), &probe); err != nil {
				f.Close()
				return run, fmt.Errorf("%s:%d: not a corpus -f json line: %v", name, n, err)
			}
			switch probe.Change {
			case "new", "gone":
				var l corpusLine
				if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
					f.Close()
					return run, fmt.Errorf("%s:%d: %v", name, n, err)
				}
				if r, ok := findings.ByID(l.RuleID); ok {
					l.Rule = r
				}
				lines = append(lines, l)
			case "summary":
				sum = &corpusSummary{}
				if err := json.Unmarshal(sc.Bytes(), sum); err != nil {
					f.Close()
					return run, fmt.Errorf("%s:%d: %v", name, n, err)
				}
			default:
				f.Close()
				return run, fmt.Errorf("%s:%d: unknown change %q", name, n, probe.Change)
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return run, fmt.Errorf("%s: %v", name, err)
		}
		if sum == nil {
			return run, fmt.Errorf("%s has no summary line: not the complete -f json output of a corpus run (did the shard fail?)", name)
		}
		shard, err := parseShard(sum.Shard)
		if err != nil {
			return run, fmt.Errorf("%s: shard: %v", name, err)
		}
		switch {
		case run.shard.n == 0:
			run.against, run.schema, run.shard.n = sum.Against, sum.Schema, shard.n
		case sum.Against != run.against || sum.Schema != run.schema:
			return run, fmt.Errorf("%s compares %s with %s, %s compares %s with %s: shards of different runs", name, sum.Against, sum.Schema, names[0], run.against, run.schema)
		case shard.n != run.shard.n:
			return run, fmt.Errorf("%s is shard %s, %s one of %d: shards of different splits", name, shard, names[0], run.shard.n)
		}
		if prev, dup := seen[shard.k]; dup {
			return run, fmt.Errorf("%s and %s are both shard %s", prev, name, shard)
		}
		seen[shard.k] = name
		for _, file := range sum.Files {
			if _, dup := byFile[file]; dup {
				return run, fmt.Errorf("%s is in two shards", file)
			}
			byFile[file] = &fileDiff{file: file}
			run.files = append(run.files, file)
		}
		run.failed = append(run.failed, sum.Failed...)
		for _, l := range lines {
			d := byFile[l.Location.File]
			if d == nil {
				return run, fmt.Errorf("%s: a finding in %s, which its summary does not list", name, l.Location.File)
			}
			if l.Change == "new" {
				d.added = append(d.added, l.ValidationFinding)
			} else {
				d.removed = append(d.removed, l.ValidationFinding)
			}
		}
	}
	var missing []string
	for k := 1; k <= run.shard.n; k++ {
		if _, ok := seen[k]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", k, run.shard.n))
		}
	}
	if len(missing) > 0 {
		return run, fmt.Errorf("missing shard %s: the merged report would leave transcripts out", strings.Join(missing, ", "))
	}
	sort.Strings(run.files)
	sort.Strings(run.failed)
	failed := map[string]bool{}
	for _, f := range run.failed {
		failed[f] = true
	}
	for _, file := range run.files {
		if !failed[file] {
			run.diffs = append(run.diffs, *byFile[file])
		}
	}
	run.shard = shardSpec{1, 1}
	return run, nil
}
