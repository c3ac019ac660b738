package findings

import (
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
)

// JUnit XML has no formal standard; this follows the common Ant/Surefire
// shape that Jenkins, GitLab and the GitHub test-report actions read: one
// suite per linted file, one test case per finding, and a passing "clean"
// case for files without findings so they still show up as tested.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
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

func writeJUnit(w io.Writer, r Report) error {
	// Suites follow the order files were given; files that appear only in
	// findings (a caller that did not list them) follow, sorted.
	var files []string
	seen := map[string]bool{}
	for _, f := range r.Files {
		if f == "" {
			f = "-"
		}
		if !seen[f] {
			seen[f] = true
			files = append(files, f)
		}
	}
	byFile := map[string][]ValidationFinding{}
	var extra []string
	for _, f := range r.Findings {
		file := f.Location.File
		if !seen[file] {
			seen[file] = true
			extra = append(extra, file)
		}
		byFile[file] = append(byFile[file], f)
	}
	slices.Sort(extra)
	files = append(files, extra...)

	doc := junitSuites{Name: r.Tool}
	for _, file := range files {
		suite := junitSuite{Name: file}
		for _, f := range byFile[file] {
			c := junitCase{ClassName: file, Name: caseName(f)}
			detail := junitDetail(f)
			if f.Severity >= SeverityWarning {
				c.Failure = &junitFailure{Message: f.Message, Type: f.Severity.String(), Body: detail}
				suite.Failures++
			} else {
				// Info findings are observations, not failures; CI
				// shows them as output of a passing case.
				c.SystemOut = detail
			}
			suite.Cases = append(suite.Cases, c)
		}
		if len(suite.Cases) == 0 {
			suite.Cases = append(suite.Cases, junitCase{ClassName: file, Name: "clean"})
		}
		suite.Tests = len(suite.Cases)
		doc.Tests += suite.Tests
		doc.Failures += suite.Failures
		doc.Suites = append(doc.Suites, suite)
	}

	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// caseName makes test case names stable and unique enough for CI history:
// "ACP-SES-002 line 3", or the bare rule ID for file-level findings.
func caseName(f ValidationFinding) string {
	if f.Location.Line <= 0 {
		return f.RuleID
	}
	return fmt.Sprintf("%s line %d", f.RuleID, f.Location.Line)
}

// junitDetail is the text-format rendering of one finding, so CI pages show
// the same words as the terminal.
func junitDetail(f ValidationFinding) string {
	var b strings.Builder
	// writeText cannot fail on a strings.Builder.
	_ = writeText(&b, Report{Findings: []ValidationFinding{f}})
	return b.String()
}
