package findings

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// JUnit XML has no formal standard; this follows the common Ant/Surefire
// shape that Jenkins, GitLab and the GitHub test-report actions read: one
// suite per linted file, one test case per finding, and a passing "clean"
// case for files without findings so they still show up as tested.
//
// Both <testsuites> and <testsuite> carry their tests and failures counts
// as attributes, before the cases they count, and readers (the Surefire
// schema among them) want them there: the format has no trailing place for
// them. So the stream writes each suite's cases to a spill file, and each
// finished suite, now with its counts, to a second one; Close writes the
// document's header with the totals and copies the suites after it. Memory
// stays one suite's bookkeeping whatever the number of findings; the disk
// holds the report twice at most.

// junitSuites is the document's shape, as a reader decodes it.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	XMLName   xml.Name      `xml:"testcase"`
	ClassName string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

// junitStream is the state of a JUnit report between NewStream and Close.
type junitStream struct {
	tool   string
	failOn Severity // the lowest severity of a failed case
	// cases holds the current suite's cases; suites the finished suites.
	// Both are spill files (see spillFile).
	cases, suites                 *os.File
	casesUnlinked, suitesUnlinked bool
	casesBuf, suitesBuf           *bufio.Writer
	enc                           *xml.Encoder // writes cases into casesBuf
	open                          bool         // a suite is started
	file                          string       // the current suite's file
	tests, failures               int          // the current suite's counts
	// names counts the uses of each case name in the current suite, so
	// that a repeated one gets a suffix; at maxTrackedNames distinct names
	// the suite numbers its later cases instead, keeping memory bounded.
	names                     map[string]int
	totalTests, totalFailures int
	started                   bool // a suite has been written to suites
}

func startJUnit(r Report) (*junitStream, error) {
	j := &junitStream{tool: r.Tool, failOn: SeverityWarning}
	if r.FailOn != nil {
		j.failOn = *r.FailOn
	}
	var err error
	if j.cases, j.casesUnlinked, err = spillFile(); err != nil {
		return nil, err
	}
	if j.suites, j.suitesUnlinked, err = spillFile(); err != nil {
		j.release()
		return nil, err
	}
	j.casesBuf = bufio.NewWriterSize(j.cases, 64<<10)
	j.suitesBuf = bufio.NewWriterSize(j.suites, 64<<10)
	return j, nil
}

// spillFile creates a temporary file only its owner can read (findings
// quote traffic that may hold secrets; os.CreateTemp uses mode 0600) and
// removes its name at once where the system allows it, so nothing is left
// behind even if acplint is killed.
func spillFile() (f *os.File, unlinked bool, err error) {
	f, err = os.CreateTemp("", "acplint-junit-*")
	if err != nil {
		return nil, false, fmt.Errorf("junit spill file: %w", err)
	}
	// Once unlinked, release must not remove the name: someone else may
	// have taken it since.
	return f, os.Remove(f.Name()) == nil, nil
}

func (j *junitStream) startFile(file string) error {
	if j.open && j.file == file {
		return nil
	}
	if err := j.endSuite(); err != nil {
		return err
	}
	j.open, j.file, j.tests, j.failures = true, file, 0, 0
	clear(j.names)
	// A fresh encoder per suite: its first case starts without a newline,
	// and its indentation continues the document's.
	j.enc = xml.NewEncoder(j.casesBuf)
	j.enc.Indent("    ", "  ")
	return nil
}

func (j *junitStream) add(f ValidationFinding) error {
	if !j.open || f.Location.File != j.file {
		if err := j.startFile(f.Location.File); err != nil {
			return err
		}
	}
	// Escape keeps what XML 1.0 forbids even as a character reference (C0
	// controls but tab and newline) out of the document, and shows it
	// instead of encoding/xml's silent U+FFFD.
	c := junitCase{ClassName: Escape(j.file), Name: j.uniqueName(Escape(caseName(f)))}
	detail := junitDetail(f)
	if f.Severity >= j.failOn {
		c.Failure = &junitFailure{Message: Escape(f.Message), Type: f.Severity.String(), Body: detail}
		j.failures++
	} else {
		// Findings below the gate (info, and warnings unless --fail-on
		// warning) are observations, not failures; CI shows them as
		// output of a passing case.
		c.SystemOut = detail
	}
	j.tests++
	return j.enc.Encode(c)
}

// maxTrackedNames bounds the case names a suite remembers.
const maxTrackedNames = 1 << 16

// uniqueName returns name, or name with a suffix that no other case of
// the suite has: CI systems key their history on the names, and merge or
// drop cases whose names repeat.
func (j *junitStream) uniqueName(name string) string {
	if j.names == nil {
		j.names = map[string]int{}
	}
	if len(j.names) >= maxTrackedNames {
		return fmt.Sprintf("%s [case %d]", name, j.tests+1)
	}
	n := j.names[name]
	j.names[name] = n + 1
	if n == 0 {
		return name
	}
	unique := fmt.Sprintf("%s (%d)", name, n+1)
	j.names[unique]++
	return unique
}

// endSuite moves the current suite, headed by its counts, from the cases
// spill file to the suites one.
func (j *junitStream) endSuite() error {
	if !j.open {
		return nil
	}
	j.open = false
	name := Escape(j.file)
	if j.tests == 0 {
		j.tests = 1
		if err := j.enc.Encode(junitCase{ClassName: name, Name: "clean"}); err != nil {
			return err
		}
	}
	if err := j.enc.Close(); err != nil {
		return err
	}
	if err := j.casesBuf.Flush(); err != nil {
		return err
	}
	j.totalTests += j.tests
	j.totalFailures += j.failures
	w := j.suitesBuf
	w.WriteString("\n  <testsuite name=\"")
	xml.EscapeText(w, []byte(name))
	// errors counts cases that could not run, which a lint has none of;
	// the Jenkins schema requires the attribute.
	w.WriteString(`" tests="` + strconv.Itoa(j.tests) + `" failures="` + strconv.Itoa(j.failures) + `" errors="0">` + "\n")
	if err := copySpill(w, j.cases); err != nil {
		return err
	}
	w.WriteString("\n  </testsuite>")
	j.started = true
	return nil
}

// copySpill appends the content of f to w and empties f for reuse.
func copySpill(w io.Writer, f *os.File) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := io.Copy(w, f); err != nil {
		return err
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.Seek(0, io.SeekStart)
	return err
}

// finish writes the document: the XML header, <testsuites> with the
// totals, the suites from the spill file, and the closing tag.
func (j *junitStream) finish(w *bufio.Writer) error {
	if err := j.endSuite(); err != nil {
		return err
	}
	if err := j.suitesBuf.Flush(); err != nil {
		return err
	}
	w.WriteString(xml.Header)
	w.WriteString(`<testsuites name="`)
	xml.EscapeText(w, []byte(j.tool))
	w.WriteString(`" tests="` + strconv.Itoa(j.totalTests) + `" failures="` + strconv.Itoa(j.totalFailures) + `" errors="0">`)
	if err := copySpill(w, j.suites); err != nil {
		return err
	}
	if j.started {
		w.WriteString("\n")
	}
	_, err := w.WriteString("</testsuites>\n")
	return err
}

func (j *junitStream) release() {
	for _, spill := range []struct {
		f        *os.File
		unlinked bool
	}{{j.cases, j.casesUnlinked}, {j.suites, j.suitesUnlinked}} {
		if spill.f == nil {
			continue
		}
		spill.f.Close()
		if !spill.unlinked {
			os.Remove(spill.f.Name())
		}
	}
}

// junitFileOrder is the order of Write's suites: the files in the order
// given, then files that appear only in findings (a caller that did not
// list them), sorted.
func junitFileOrder(given []string, fs []ValidationFinding) []string {
	var files []string
	seen := map[string]bool{}
	for _, f := range given {
		f = orDash(f)
		if !seen[f] {
			seen[f] = true
			files = append(files, f)
		}
	}
	var extra []string
	for _, f := range fs {
		if file := f.Location.File; !seen[file] {
			seen[file] = true
			extra = append(extra, file)
		}
	}
	slices.Sort(extra)
	return append(files, extra...)
}

// caseName makes test case names stable for CI history: "ACP-SES-002
// line 3 at /params/mcpServers", or the bare rule ID for file-level
// findings (uniqueName makes repeats unique).
func caseName(f ValidationFinding) string {
	name := f.RuleID
	if f.Location.Line > 0 {
		name = fmt.Sprintf("%s line %d", f.RuleID, f.Location.Line)
	}
	if f.Location.Pointer != "" {
		name += " at " + f.Location.Pointer
	}
	return name
}

// junitDetail is the text-format rendering of one finding, so CI pages show
// the same words as the terminal.
func junitDetail(f ValidationFinding) string {
	var b strings.Builder
	// writeText cannot fail on a strings.Builder.
	_ = writeText(&b, Report{Findings: []ValidationFinding{f}})
	return b.String()
}
