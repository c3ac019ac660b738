package findings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/acplint/acplint/internal/jsonv"
)

// SARIF 2.1.0, written by hand with only the members acplint fills. GitHub
// code scanning is the main consumer, so the choices follow what it reads:
// rule metadata from tool.driver.rules, a partialFingerprints entry to track
// alerts across runs, and relative artifact URIs.

const (
	sarifSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion = "2.1.0"
	toolInfoURI  = "https://github.com/acplint/acplint"
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	SemVer         string      `json:"semanticVersion,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

// sarifHelp is a multiformatMessageString: GitHub code scanning shows the
// markdown, other viewers the text.
type sarifHelp struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRule struct {
	ID                   string          `json:"id"`
	Name                 string          `json:"name,omitempty"`
	ShortDescription     *sarifText      `json:"shortDescription,omitempty"`
	FullDescription      *sarifText      `json:"fullDescription,omitempty"`
	HelpURI              string          `json:"helpUri,omitempty"`
	Help                 *sarifHelp      `json:"help,omitempty"`
	DefaultConfiguration *sarifRuleConf  `json:"defaultConfiguration,omitempty"`
	Properties           *sarifRuleProps `json:"properties,omitempty"`
}

type sarifRuleConf struct {
	Level string `json:"level"`
}

type sarifRuleProps struct {
	Tags []string `json:"tags,omitempty"`
	TCK  []string `json:"tck,omitempty"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           *int              `json:"ruleIndex,omitempty"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	RelatedLocations    []sarifLocation   `json:"relatedLocations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          *sarifResultProps `json:"properties,omitempty"`
}

type sarifResultProps struct {
	Blame string `json:"blame"`
}

type sarifLocation struct {
	ID               *int                   `json:"id,omitempty"`
	PhysicalLocation *sarifPhysical         `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogicalLocation `json:"logicalLocations,omitempty"`
	Message          *sarifText             `json:"message,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"` // SARIF's default column unit is UTF-16 code units; acplint's byte column is exact for ASCII lines
}

type sarifLogicalLocation struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind,omitempty"`
}

// sarifStream is the state of a SARIF report between NewStream and Close.
// The log is written by hand around its results array, with the same
// layout json.Encoder's indentation gives the whole log: the header
// (everything up to "results": [) first, each result as it comes, and the
// closing brackets last.
type sarifStream struct {
	index   map[string]int // rule ID → position in driver.rules
	tail    []byte         // what follows the results array's "["
	results int
	buf     []byte // one result, reused
	// uriFile is the file of the last location and uri its artifact URI,
	// when uriKnown.
	uriFile, uri string
	uriKnown     bool
}

// sarifResultsIndent is the depth of a result in the log: log object,
// runs array, run object, results array.
const sarifResultsIndent = "        "

func startSARIF(w io.Writer, r Report, extra []sarifRule) (*sarifStream, error) {
	rules := r.Rules
	if rules == nil {
		rules = All()
	}
	driver := sarifDriver{
		Name:           r.Tool,
		Version:        sarifToolVersion(r.Version),
		SemVer:         semanticVersion(r.Version),
		InformationURI: toolInfoURI,
		Rules:          make([]sarifRule, 0, len(rules)),
	}
	s := &sarifStream{index: make(map[string]int, len(rules))}
	describe := func(sr sarifRule) {
		if _, dup := s.index[sr.ID]; !dup {
			s.index[sr.ID] = len(driver.Rules)
			driver.Rules = append(driver.Rules, sr)
		}
	}
	for _, rule := range rules {
		if rule != nil {
			describe(sarifRuleOf(rule))
		}
	}
	for _, sr := range extra {
		describe(sr)
	}
	log := sarifLog{
		Schema:  sarifSchema,
		Version: sarifVersion,
		Runs:    []sarifRun{{Tool: sarifTool{Driver: driver}, Results: []sarifResult{}}},
	}
	var head bytes.Buffer
	enc := json.NewEncoder(&head)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(log); err != nil {
		return nil, err
	}
	// No string in the log can hold this text unescaped, so the last
	// occurrence is the member itself.
	const empty = `"results": []`
	at := bytes.LastIndex(head.Bytes(), []byte(empty))
	if at < 0 {
		return nil, errors.New("sarif: results array not found in the header")
	}
	cut := at + len(empty) - 1
	s.tail = bytes.Clone(head.Bytes()[cut:])
	_, err := w.Write(head.Bytes()[:cut])
	return s, err
}

// resultOf is the SARIF result of f.
func (s *sarifStream) resultOf(f ValidationFinding) sarifResult {
	return sarifResult{
		RuleID:              f.RuleID,
		Level:               sarifLevel(f.Severity),
		Message:             sarifText{Text: f.Message},
		Locations:           []sarifLocation{s.locationOf(f.Location, true)},
		PartialFingerprints: map[string]string{FingerprintKey: Fingerprint(f)},
		Properties:          &sarifResultProps{Blame: f.Blame.String()},
	}
}

func (s *sarifStream) add(w io.Writer, f ValidationFinding) error {
	res := s.resultOf(f)
	// ruleIndex must point into driver.rules, which is written already: a
	// rule outside it gets none (SARIF then goes by ruleId).
	if i, ok := s.index[f.RuleID]; ok {
		res.RuleIndex = &i
	}
	for i, rel := range f.Related {
		loc := s.locationOf(rel.Location, false)
		id := i + 1
		loc.ID = &id
		loc.Message = &sarifText{Text: rel.Message}
		res.RelatedLocations = append(res.RelatedLocations, loc)
	}
	if s.results == 0 {
		s.buf = append(s.buf[:0], "\n"+sarifResultsIndent...)
	} else {
		s.buf = append(s.buf[:0], ",\n"+sarifResultsIndent...)
	}
	s.buf = appendSARIFResult(s.buf, &res)
	s.results++
	_, err := w.Write(s.buf)
	return err
}

// locationOf is sarifLocationAt with the artifact URI of l.File, which is
// remembered for the next finding: a report has thousands in one file.
func (s *sarifStream) locationOf(l Location, withPointer bool) sarifLocation {
	if !s.uriKnown || l.File != s.uriFile {
		s.uriFile, s.uri, s.uriKnown = l.File, artifactURI(l.File), true
	}
	return sarifLocationAt(l, s.uri, withPointer)
}

// appendSARIFResult appends r as json.Encoder writes it with SetIndent(
// sarifResultsIndent, "  ") and SetEscapeHTML(false), without the final
// newline. Reports of many findings spent most of their time in the
// encoder's reflection and its second pass that indents; this is one pass.
// TestSARIFResultEncodesAsTheEncoder holds the two to the same bytes.
func appendSARIFResult(b []byte, r *sarifResult) []byte {
	w := sarifJSON{b: append(b, '{')}
	n := 0
	w.key(&n, "ruleId")
	w.str(r.RuleID)
	if r.RuleIndex != nil {
		w.key(&n, "ruleIndex")
		w.int(*r.RuleIndex)
	}
	w.key(&n, "level")
	w.str(r.Level)
	w.key(&n, "message")
	w.text(r.Message.Text)
	w.key(&n, "locations")
	w.locations(r.Locations)
	if len(r.RelatedLocations) > 0 {
		w.key(&n, "relatedLocations")
		w.locations(r.RelatedLocations)
	}
	w.key(&n, "partialFingerprints")
	w.stringMap(r.PartialFingerprints)
	if r.Properties != nil {
		w.key(&n, "properties")
		w.b = append(w.b, '{')
		m := 0
		w.key(&m, "blame")
		w.str(r.Properties.Blame)
		w.end(m, '}')
	}
	w.end(n, '}')
	return w.b
}

// sarifJSON writes indented JSON at a result's depth in the log.
type sarifJSON struct {
	b     []byte
	depth int // of the object or array being written, in the result
}

func (w *sarifJSON) newline() {
	w.b = append(w.b, '\n')
	w.b = append(w.b, sarifResultsIndent...)
	for range w.depth {
		w.b = append(w.b, "  "...)
	}
}

// item starts the next member or element of the object or array being
// written, of which n were written before.
func (w *sarifJSON) item(n *int) {
	if *n == 0 {
		w.depth++
	} else {
		w.b = append(w.b, ',')
	}
	*n++
	w.newline()
}

// key starts the member called name (which needs no escaping).
func (w *sarifJSON) key(n *int, name string) {
	w.item(n)
	w.b = append(w.b, '"')
	w.b = append(w.b, name...)
	w.b = append(w.b, `": `...)
}

// end closes the object or array being written, of n items, with c.
func (w *sarifJSON) end(n int, c byte) {
	if n > 0 {
		w.depth--
		w.newline()
	}
	w.b = append(w.b, c)
}

func (w *sarifJSON) int(i int) { w.b = strconv.AppendInt(w.b, int64(i), 10) }

func (w *sarifJSON) text(s string) {
	w.b = append(w.b, '{')
	n := 0
	w.key(&n, "text")
	w.str(s)
	w.end(n, '}')
}

func (w *sarifJSON) stringMap(m map[string]string) {
	if m == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.b = append(w.b, '{')
	n := 0
	for _, k := range slices.Sorted(maps.Keys(m)) {
		w.item(&n)
		w.str(k)
		w.b = append(w.b, ": "...)
		w.str(m[k])
	}
	w.end(n, '}')
}

func (w *sarifJSON) locations(locs []sarifLocation) {
	if locs == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.b = append(w.b, '[')
	n := 0
	for i := range locs {
		w.item(&n)
		w.location(&locs[i])
	}
	w.end(n, ']')
}

func (w *sarifJSON) location(l *sarifLocation) {
	w.b = append(w.b, '{')
	n := 0
	if l.ID != nil {
		w.key(&n, "id")
		w.int(*l.ID)
	}
	if p := l.PhysicalLocation; p != nil {
		w.key(&n, "physicalLocation")
		w.b = append(w.b, '{')
		m := 0
		w.key(&m, "artifactLocation")
		w.b = append(w.b, '{')
		a := 0
		w.key(&a, "uri")
		w.str(p.ArtifactLocation.URI)
		w.end(a, '}')
		if r := p.Region; r != nil {
			w.key(&m, "region")
			w.b = append(w.b, '{')
			k := 0
			w.key(&k, "startLine")
			w.int(r.StartLine)
			if r.StartColumn != 0 {
				w.key(&k, "startColumn")
				w.int(r.StartColumn)
			}
			w.end(k, '}')
		}
		w.end(m, '}')
	}
	if len(l.LogicalLocations) > 0 {
		w.key(&n, "logicalLocations")
		w.b = append(w.b, '[')
		m := 0
		for _, ll := range l.LogicalLocations {
			w.item(&m)
			w.b = append(w.b, '{')
			k := 0
			w.key(&k, "fullyQualifiedName")
			w.str(ll.FullyQualifiedName)
			if ll.Kind != "" {
				w.key(&k, "kind")
				w.str(ll.Kind)
			}
			w.end(k, '}')
		}
		w.end(m, ']')
	}
	if l.Message != nil {
		w.key(&n, "message")
		w.text(l.Message.Text)
	}
	w.end(n, '}')
}

// str appends s as a JSON string the way encoding/json does without HTML
// escaping: quote, backslash and control characters escaped (\b, \f, \n,
// \r, \t by name), invalid UTF-8 as \ufffd, and U+2028 and U+2029
// escaped.
func (w *sarifJSON) str(s string) {
	w.b = jsonv.AppendString(w.b, s, jsonv.EncodingJSON)
}

func (s *sarifStream) finish(w io.Writer) error {
	if s.results > 0 {
		// Close the array on a line of its own, as the encoder would.
		if _, err := io.WriteString(w, "\n      "); err != nil {
			return err
		}
	}
	_, err := w.Write(s.tail)
	return err
}

// extraRules describes the rules of fs outside rules (the catalog when
// nil), so that a report of known findings gives every result its
// ruleIndex. A rule known only by its ID gets a descriptor with the ID.
func extraRules(rules []*Rule, fs []ValidationFinding) []sarifRule {
	if rules == nil {
		rules = All()
	}
	described := make(map[string]bool, len(rules))
	for _, r := range rules {
		if r != nil {
			described[r.ID] = true
		}
	}
	var extra []sarifRule
	for _, f := range fs {
		if described[f.RuleID] {
			continue
		}
		described[f.RuleID] = true
		if f.Rule != nil {
			extra = append(extra, sarifRuleOf(f.Rule))
		} else {
			extra = append(extra, sarifRuleOf(&Rule{ID: f.RuleID, Title: f.RuleID, Severity: f.Severity}))
		}
	}
	return extra
}

func sarifRuleOf(r *Rule) sarifRule {
	sr := sarifRule{
		ID:                   r.ID,
		Name:                 ruleName(r),
		HelpURI:              helpURI(r),
		Help:                 ruleHelp(r),
		DefaultConfiguration: &sarifRuleConf{Level: sarifLevel(r.Severity)},
		Properties:           &sarifRuleProps{TCK: r.TCK},
	}
	if r.Title != "" {
		sr.ShortDescription = &sarifText{Text: r.Title}
	}
	if r.Doc != "" {
		sr.FullDescription = &sarifText{Text: r.Doc}
	}
	if area := r.Area(); area != "" {
		sr.Properties.Tags = append(sr.Properties.Tags, area)
	}
	sr.Properties.Tags = append(sr.Properties.Tags, r.Blame.String())
	return sr
}

func sarifLevel(s Severity) string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	}
	return "note"
}

// sarifLocationAt places a finding in its file, whose artifact URI is
// uri. The region is left out for line 0 (the transcript as a whole):
// SARIF has no line 0, and a missing region means the whole artifact. The
// JSON pointer, when set, names the member inside the message as a
// logical location. A finding about a subject that is no file (check's
// agent command, Location.Subject) is named as a logical location too.
func sarifLocationAt(l Location, uri string, withPointer bool) sarifLocation {
	if uri == "-" || l.Subject {
		// Standard input is no artifact anyone can open ("-" is no URI
		// of anything, and code scanning wants a URI for every physical
		// location): the line is named as a logical location instead.
		name := "standard input"
		if l.Subject {
			name = l.File
		}
		if l.Line > 0 {
			name += fmt.Sprintf(" line %d", l.Line)
		}
		loc := sarifLocation{LogicalLocations: []sarifLogicalLocation{{FullyQualifiedName: name, Kind: "module"}}}
		if withPointer && l.Pointer != "" {
			loc.LogicalLocations = append(loc.LogicalLocations, sarifLogicalLocation{FullyQualifiedName: l.Pointer, Kind: "member"})
		}
		return loc
	}
	pl := &sarifPhysical{ArtifactLocation: sarifArtifact{URI: uri}}
	if l.Line > 0 {
		pl.Region = &sarifRegion{StartLine: l.Line, StartColumn: l.Column}
	}
	loc := sarifLocation{PhysicalLocation: pl}
	if withPointer && l.Pointer != "" {
		loc.LogicalLocations = []sarifLogicalLocation{{FullyQualifiedName: l.Pointer, Kind: "member"}}
	}
	return loc
}

// windowsAbs matches a drive-letter path after slashes were normalised.
var windowsAbs = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z]:/`) })

// artifactURI turns a file name as given on the command line into a URI
// reference. Relative paths stay relative, which is what GitHub needs to
// map results onto the repository; absolute ones become file: URIs.
// Characters that are not allowed in a URI (spaces, %, #, ?) are escaped.
func artifactURI(file string) string {
	p := fingerprintFile(file)
	switch {
	case windowsAbs().MatchString(p):
		return (&url.URL{Scheme: "file", Path: "/" + p}).String()
	case filepath.IsAbs(p) || strings.HasPrefix(p, "/"):
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	// url.URL prefixes "./" when the first segment contains a colon, so a
	// relative name such as "a:b.ndjson" is not misread as a scheme.
	return (&url.URL{Path: p}).String()
}

// ruleName is SARIF's friendly rule name: one Pascal-case identifier
// (what the SARIF validator's SARIF2012 asks for) derived from the
// title, "session/new lacks mcpServers" becoming
// "SessionNewLacksMcpServers". Words keep their inner capitals so that
// identifiers like mcpServers stay recognisable; acronyms and one-letter
// words, which would put two capitals in a row, are folded ("MCP" is
// "Mcp", "a" is dropped); a name that would start with a digit starts with
// the rule's area ("Cxl32800Returned…").
func ruleName(r *Rule) string {
	name := camelName(r.Title)
	if name == "" {
		name = camelName(strings.ReplaceAll(r.ID, "-", " "))
	}
	if name != "" && unicode.IsDigit(rune(name[0])) {
		name = camelName(strings.ToLower(r.Area())) + name
	}
	return name
}

// pascalWord is a word that keeps its inner capitals: each capital is
// followed by a lower-case letter or digit.
var pascalWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z0-9][a-z0-9]*([A-Z][a-z0-9]+)*$`) })

// camelName joins the words of title in Pascal case (see ruleName).
func camelName(title string) string {
	var b strings.Builder
	for _, word := range strings.FieldsFunc(title, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		rs := []rune(word)
		if len(rs) == 1 && unicode.IsLetter(rs[0]) {
			continue // "a", "I": a capital of its own
		}
		rs[0] = unicode.ToUpper(rs[0])
		if !pascalWord().MatchString(string(rs)) {
			// MCP, JSON, 32MiB: folded to lower case after the first.
			rs = []rune(strings.ToLower(word))
			rs[0] = unicode.ToUpper(rs[0])
		}
		b.WriteString(string(rs))
	}
	return b.String()
}

// docsURI is where rules without a spec page (schema diff's checks,
// check's harness checks) are documented.
const docsURI = toolInfoURI + "#rule-ids"

// helpURI is the rule's spec page, or acplint's documentation of the
// rules that have none.
func helpURI(r *Rule) string {
	if r.Spec != "" {
		return r.Spec
	}
	return docsURI
}

// ruleHelp is the help GitHub code scanning shows beside an alert: the
// title, the rule's rationale, the spec page and how to read more.
func ruleHelp(r *Rule) *sarifHelp {
	doc := r.Doc
	if doc == "" {
		doc = r.Title
	}
	text := r.ID + ": " + r.Title + "\n\n" + doc + "\n\nSpec: " + helpURI(r) + "\nRun 'acplint explain " + r.ID + "' for a failing and a passing example."
	md := "**" + r.ID + "**: " + markdownEscape(r.Title) + "\n\n" + markdownEscape(doc) + "\n\n[Specification](" + helpURI(r) + ") · run `acplint explain " + r.ID + "` for a failing and a passing example."
	return &sarifHelp{Text: text, Markdown: md}
}

// markdownEscape keeps catalog text literal in markdown.
func markdownEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`, "<", "&lt;", ">", "&gt;").Replace(s)
}

// sarifToolVersion is the version SARIF consumers compare: it must start
// with a digit (the SARIF validator's SARIF2005), so "v1.2.3" is "1.2.3"
// and an unreleased "devel-…" build is "0.0.0-devel-…".
func sarifToolVersion(v string) string {
	if v == "" {
		return ""
	}
	v = strings.TrimPrefix(v, "v")
	if v[0] < '0' || v[0] > '9' {
		v = "0.0.0-" + v
	}
	return v
}

// semverText matches a Semantic Versioning 2.0.0 version.
var semverText = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$`)
})

// semanticVersion is sarifToolVersion when it is a semantic version.
func semanticVersion(v string) string {
	if sv := sarifToolVersion(v); semverText().MatchString(sv) {
		return sv
	}
	return ""
}
