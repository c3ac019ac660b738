// Command newrule scaffolds a rule: the catalog entry, its place in a
// protocol check, and the failing and passing golden cases. It writes the
// places CONTRIBUTING.md's walkthrough names, and nothing else, so that a
// maintainer fills in what only they know (the title, the doc, the check's
// code, the two transcripts) and the golden tests tell them when they are
// done: the failing case expects a finding the check does not raise yet.
//
// Run it from the module root:
//
//	go run ./internal/newrule -area UPD -name UPDDuplicateCommand -check update \
//	    -title "available_commands_update names a command twice"
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

func main() {
	var o Options
	flag.StringVar(&o.Root, "root", ".", "the module root")
	flag.StringVar(&o.Area, "area", "", "the rule's area, the middle of its ID (UPD, SES, …)")
	flag.StringVar(&o.Name, "name", "", "the catalog variable, starting with the area (UPDDuplicateCommand)")
	flag.StringVar(&o.Title, "title", "", "the rule's title: lowercase, at most 60 characters, no final period")
	flag.StringVar(&o.Check, "check", "", "the protocol check that raises it (acplint rules shows each rule's home)")
	flag.StringVar(&o.NewCheck, "new-check", "", "create a new protocol check of this name instead")
	flag.StringVar(&o.Slug, "slug", "", "the golden cases' file name (default: from -name)")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: go run ./internal/newrule -area AREA -name VAR -title TITLE (-check NAME | -new-check NAME)")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	res, err := Scaffold(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "newrule:", err)
		os.Exit(2)
	}
	fmt.Printf("%s scaffolded as %s. Fill in the TODOs of:\n", res.ID, o.Name)
	for _, f := range res.Files {
		fmt.Println("  " + f)
	}
	fmt.Println("then: go test ./conformance -run TestGolden ./findings ./internal/rulehomes")
}

// Options says what to scaffold.
type Options struct {
	Root  string // module root
	Area  string // "UPD": the middle part of the rule ID
	Name  string // the catalog variable, starting with the area: "UPDDuplicateCommand"
	Title string // lowercase, no final period
	// Check is the protocol check that will raise the rule (its Name in
	// protocol/checks.go). NewCheck instead creates a check of that name,
	// with a stub hook in protocol/NAME.go.
	Check, NewCheck string
	// Slug names the golden cases: testdata/<area>/<slug>.txtar fails and
	// <slug>-ok.txtar passes. Default: derived from Name.
	Slug string
}

// Result lists what Scaffold wrote.
type Result struct {
	ID    string
	Files []string // relative to Root, in the order written
}

var (
	idRe     = regexp.MustCompile(`ID:\s+"ACP-([A-Z]+)-(\d{3})"`)
	areaRe   = regexp.MustCompile(`^[A-Z]{2,8}$`)
	nameRe   = regexp.MustCompile(`^[A-Z][A-Za-z0-9]+$`)
	checkRe  = regexp.MustCompile(`^[a-z][a-z0-9]*$`)
	wordsRe  = regexp.MustCompile(`[A-Z][a-z0-9]*`)
	allEntry = regexp.MustCompile(`(?m)^\t\t([A-Z]+)[A-Za-z0-9]*,\n`)
)

// Scaffold writes the rule's places under o.Root. It refuses to overwrite
// anything: every file it creates must not exist, and the variable must be
// new.
func Scaffold(o Options) (*Result, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	if o.Slug == "" {
		o.Slug = slug(strings.TrimPrefix(o.Name, o.Area))
	}
	area := strings.ToLower(o.Area)
	catalogFile := filepath.Join(o.Root, "findings", "catalog_"+area+".go")
	if _, err := os.Stat(catalogFile); err != nil {
		return nil, fmt.Errorf("area %s has no catalog file (%v); a new area is a larger change: add findings/catalog_%s.go and its entry in the catalog test by hand", o.Area, err, area)
	}
	id, err := nextID(filepath.Join(o.Root, "findings"), o.Area)
	if err != nil {
		return nil, err
	}
	res := &Result{ID: id}
	edits := []struct {
		file string
		edit func([]byte) ([]byte, error)
	}{
		{catalogFile, func(src []byte) ([]byte, error) { return appendRuleVar(src, o, id) }},
		{filepath.Join(o.Root, "findings", "catalog.go"), func(src []byte) ([]byte, error) { return addToAll(src, o) }},
		{filepath.Join(o.Root, "protocol", "checks.go"), func(src []byte) ([]byte, error) { return addToCheck(src, o) }},
	}
	// Read and change everything first, so that a refusal writes nothing.
	outs := make([][]byte, len(edits))
	for i, e := range edits {
		src, err := os.ReadFile(e.file)
		if err != nil {
			return nil, err
		}
		out, err := e.edit(src)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rel(o.Root, e.file), err)
		}
		if outs[i], err = format.Source(out); err != nil {
			return nil, fmt.Errorf("%s: the scaffolded source does not parse: %w", rel(o.Root, e.file), err)
		}
	}
	creates := map[string][]byte{
		filepath.Join(o.Root, "conformance", "testdata", area, o.Slug+".txtar"):    failingCase(o, id),
		filepath.Join(o.Root, "conformance", "testdata", area, o.Slug+"-ok.txtar"): passingCase(o, id),
	}
	if o.NewCheck != "" {
		stub, err := format.Source(checkStub(o))
		if err != nil {
			return nil, err
		}
		creates[filepath.Join(o.Root, "protocol", o.NewCheck+".go")] = stub
	}
	for f := range creates {
		if _, err := os.Stat(f); err == nil {
			return nil, fmt.Errorf("%s exists; choose another -slug or -new-check", rel(o.Root, f))
		}
	}
	for i, e := range edits {
		if err := os.WriteFile(e.file, outs[i], 0o644); err != nil {
			return nil, err
		}
		res.Files = append(res.Files, rel(o.Root, e.file))
	}
	names := make([]string, 0, len(creates))
	for f := range creates {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		if err := os.WriteFile(f, creates[f], 0o644); err != nil {
			return nil, err
		}
		res.Files = append(res.Files, rel(o.Root, f))
	}
	return res, nil
}

func (o Options) validate() error {
	var errs []error
	if !areaRe.MatchString(o.Area) {
		errs = append(errs, fmt.Errorf("-area %q: want the upper-case area of the rule ID, such as UPD", o.Area))
	}
	if !nameRe.MatchString(o.Name) || !strings.HasPrefix(o.Name, o.Area) || len(o.Name) == len(o.Area) {
		errs = append(errs, fmt.Errorf("-name %q: want an exported name that starts with the area, such as %sSomething", o.Name, o.Area))
	}
	if o.Title == "" || strings.HasSuffix(o.Title, ".") || len(o.Title) > 60 {
		errs = append(errs, fmt.Errorf("-title %q: want a lowercase title of at most 60 characters, no final period", o.Title))
	}
	switch {
	case (o.Check == "") == (o.NewCheck == ""):
		errs = append(errs, errors.New("give exactly one of -check (an existing check) and -new-check"))
	case o.Check != "" && !checkRe.MatchString(o.Check), o.NewCheck != "" && !checkRe.MatchString(o.NewCheck):
		errs = append(errs, errors.New("check names are lowercase letters and digits"))
	}
	return errors.Join(errs...)
}

// nextID is the area's highest ID plus one: IDs are public and never reused.
func nextID(dir, area string) (string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "catalog*.go"))
	if err != nil {
		return "", err
	}
	highest := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		for _, m := range idRe.FindAllSubmatch(src, -1) {
			if string(m[1]) == area {
				n, _ := strconv.Atoi(string(m[2]))
				highest = max(highest, n)
			}
		}
	}
	return fmt.Sprintf("ACP-%s-%03d", area, highest+1), nil
}

func appendRuleVar(src []byte, o Options, id string) ([]byte, error) {
	if regexp.MustCompile(`(?m)^var ` + o.Name + `\b`).Match(src) {
		return nil, fmt.Errorf("%s is declared already", o.Name)
	}
	var b bytes.Buffer
	b.Write(bytes.TrimRight(src, "\n"))
	fmt.Fprintf(&b, `

var %s = &Rule{
	ID:       %q,
	Title:    %q,
	Severity: SeverityWarning, // TODO: error for a MUST, warning for a SHOULD, info for advice
	Blame:    PartyAgent,      // TODO: who breaks it: PartyAgent, PartyClient or PartyEither
	Spec:     "https://agentclientprotocol.com/protocol/v1/TODO",
	Doc:      "TODO: what the rule checks, quoting the spec, and what goes wrong for the other side when it is broken.",
}
`, o.Name, id, o.Title)
	return b.Bytes(), nil
}

// addToAll puts the rule after the last entry of its area in All(), which
// lists the catalog by area and, within an area, by ID.
func addToAll(src []byte, o Options) ([]byte, error) {
	last := -1
	for _, m := range allEntry.FindAllSubmatchIndex(src, -1) {
		if string(src[m[2]:m[3]]) == o.Area || strings.HasPrefix(string(src[m[2]:m[3]]), o.Area) && isArea(src[m[0]:m[1]], o.Area) {
			last = m[1]
		}
	}
	if last < 0 {
		return nil, fmt.Errorf("All() has no entry of area %s to add %s after", o.Area, o.Name)
	}
	return splice(src, last, "\t\t"+o.Name+",\n"), nil
}

// isArea reports whether the All() line entry names a rule of area (the
// variable starts with the area followed by an upper-case letter).
func isArea(entry []byte, area string) bool {
	name := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(string(entry)), ","))
	rest, ok := strings.CutPrefix(name, area)
	return ok && rest != "" && rest[0] >= 'A' && rest[0] <= 'Z'
}

// addToCheck declares the rule in an existing check's Rules, or adds the new
// check before "core", whose transitions run after every rule's hooks.
func addToCheck(src []byte, o Options) ([]byte, error) {
	if o.NewCheck != "" {
		if bytes.Contains(src, []byte(`Name: "`+o.NewCheck+`"`)) || bytes.Contains(src, []byte(`Name:  "`+o.NewCheck+`"`)) {
			return nil, fmt.Errorf("check %q exists; use -check", o.NewCheck)
		}
		core := regexp.MustCompile(`\n\t\t\{\n(\t\t\t//[^\n]*\n)*\t\t\tName:\s+"core",`).FindIndex(src)
		if core == nil {
			return nil, errors.New(`no "core" check to put the new check before`)
		}
		fn := "check" + strings.ToUpper(o.NewCheck[:1]) + o.NewCheck[1:]
		block := fmt.Sprintf(`
		{
			Name:  %q,
			Doc:   "TODO: one line: what the check judges",
			Rules: []*findings.Rule{findings.%s},
			Hooks: []Hook{
				onRequestTo(%s, domain.MethodSessionUpdate), // TODO: the messages it runs for
			},
		},`, o.NewCheck, o.Name, fn)
		return splice(src, core[0], block), nil
	}
	loc := regexp.MustCompile(`Name:\s+"` + regexp.QuoteMeta(o.Check) + `",`).FindIndex(src)
	if loc == nil {
		return nil, fmt.Errorf("no check named %q (see `acplint rules` for each rule's home, or protocol.Checks())", o.Check)
	}
	open := bytes.Index(src[loc[1]:], []byte("Rules: []*findings.Rule{"))
	if open < 0 {
		return nil, fmt.Errorf("check %q has no Rules list", o.Check)
	}
	at := loc[1] + open + len("Rules: []*findings.Rule{")
	if src[at] == '\n' {
		return splice(src, at, "\n\t\t\t\tfindings."+o.Name+","), nil
	}
	return splice(src, at, "findings."+o.Name+", "), nil
}

func checkStub(o Options) []byte {
	fn := "check" + strings.ToUpper(o.NewCheck[:1]) + o.NewCheck[1:]
	return fmt.Appendf(nil, `package protocol

import (
	"github.com/acplint/acplint/findings"
)

// %s raises %s. TODO: say what it judges and why.
func %s(p *Phase, c *ctx) {
	_ = findings.%s // TODO: c.add(findings.%s, "/params/…", "what is wrong; what the other side does with it")
}
`, fn, o.Name, fn, o.Name, o.Name)
}

const initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true},"clientInfo":{"name":"example-editor","version":"1.4.2"}}}
{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":false,"promptCapabilities":{"image":false,"audio":false,"embeddedContext":true}},"authMethods":[],"agentInfo":{"name":"example-agent","version":"0.9.0"}}}
{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/home/dev/project","mcpServers":[]}}
{"jsonrpc":"2.0","id":1,"result":{"sessionId":"sess_1"}}
`

// failingCase expects the rule's finding on the line after the session
// opens, so the golden test fails until the transcript and the check are
// written.
func failingCase(o Options, id string) []byte {
	return fmt.Appendf(nil, `TODO: one paragraph: what this transcript does that breaks %s (%s).
covers: %s
-- want --
5 %s "TODO: a regular expression the finding's message matches"
-- transcript.ndjson --
%sTODO: the messages that break the rule, starting at line 5
`, o.Title, o.Name, id, id, initialize)
}

// passingCase exercises the rule and keeps it: its want section is empty.
func passingCase(o Options, id string) []byte {
	return fmt.Appendf(nil, `TODO: one paragraph: the same exchange done right; no finding.
covers: %s
-- want --
-- transcript.ndjson --
%sTODO: the messages that keep the rule, starting at line 5
`, id, initialize)
}

func splice(src []byte, at int, s string) []byte {
	out := make([]byte, 0, len(src)+len(s))
	out = append(out, src[:at]...)
	out = append(out, s...)
	return append(out, src[at:]...)
}

// slug turns "DuplicateCommand" into "duplicate-command".
func slug(s string) string {
	words := wordsRe.FindAllString(s, -1)
	for i, w := range words {
		words[i] = strings.ToLower(w)
	}
	if len(words) == 0 {
		return strings.ToLower(s)
	}
	return strings.Join(words, "-")
}

func rel(root, f string) string {
	r, err := filepath.Rel(root, f)
	if err != nil {
		return f
	}
	return filepath.ToSlash(r)
}
