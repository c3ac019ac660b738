package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The report validators of the scripts (testdata/script/reports_valid.txtar):
//
//	sarifvalidate FILE  Microsoft's SARIF Multitool, with GitHub code
//	                    scanning's rules, must report no error or warning
//	junitvalidate FILE  xmllint must find the document valid for the Jenkins
//	                    JUnit schema (testdata/junit/junit-10.xsd), and test
//	                    case names must be unique in a suite
//	jsonvalidate FILE   every line is a record docs/json-output.schema.json
//	                    accepts
//
// The multitool is an npm package that scripts/install-test-deps installs
// into scripts/sarif-multitool; the condition [sarif-multitool] says
// whether it is there, and TestScripts says loudly when it is not.
var reportCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"sarifvalidate": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: sarifvalidate FILE")
		}
		tool, err := sarifMultitool()
		if err != nil {
			ts.Fatalf("%v", err)
		}
		out := filepath.Join(ts.Getenv("WORK"), "multitool-"+filepath.Base(args[0])+".sarif")
		cmd := exec.Command(tool, "validate", ts.MkAbs(args[0]), "--rule-kind", "Gh;Sarif", "--level", "Error;Warning", "--output", out)
		cmd.Env = append(os.Environ(), "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1", "DOTNET_CLI_TELEMETRY_OPTOUT=1")
		report, err := cmd.CombinedOutput()
		os.Remove(out)
		if err != nil {
			ts.Fatalf("SARIF multitool: %v\n%s", err, report)
		}
		var problems []string
		for _, l := range strings.Split(string(report), "\n") {
			if multitoolProblem.MatchString(l) {
				problems = append(problems, l)
			}
		}
		if len(problems) > 0 || !strings.Contains(string(report), "Analysis completed successfully") {
			ts.Fatalf("the SARIF multitool rejects %s:\n%s", args[0], report)
		}
	},
	"jsonvalidate": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: jsonvalidate FILE")
		}
		schema, err := jsonOutputSchema()
		if err != nil {
			ts.Fatalf("%v", err)
		}
		data, err := os.ReadFile(ts.MkAbs(args[0]))
		if err != nil {
			ts.Fatalf("%v", err)
		}
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		if len(lines) == 0 || lines[0] == "" {
			ts.Fatalf("%s: no records", args[0])
		}
		for i, l := range lines {
			v, err := jsonschema.UnmarshalJSON(strings.NewReader(l))
			if err != nil {
				ts.Fatalf("%s:%d: not one JSON value: %v", args[0], i+1, err)
			}
			if err := schema.Validate(v); err != nil {
				ts.Fatalf("%s:%d: %v", args[0], i+1, err)
			}
		}
	},
	"junitvalidate": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: junitvalidate FILE")
		}
		switch err := validateJUnit(ts.MkAbs(args[0])); {
		case errors.Is(err, errNoXmllint):
			ts.Logf("SKIPPING the XSD validation of %s: %v", args[0], err)
		case err != nil:
			ts.Fatalf("%s: %v", args[0], err)
		}
	},
}

// jsonOutputSchema compiles the published schema of the JSON output.
var jsonOutputSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	path, err := filepath.Abs("../../docs/json-output.schema.json")
	if err != nil {
		return nil, err
	}
	return jsonschema.NewCompiler().Compile(path)
})

// multitoolProblem is a result line of the multitool at level error or
// warning, such as "x.sarif(12,13): error GH2012: …".
var multitoolProblem = regexp.MustCompile(`: (error|warning) [A-Z]+[0-9]+`)

// sarifMultitool returns the path of the multitool's executable for this
// platform, as its npm package resolves it.
var sarifMultitool = sync.OnceValues(func() (string, error) {
	dir, err := filepath.Abs("../../scripts/sarif-multitool")
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@microsoft", "sarif-multitool")); err != nil {
		return "", fmt.Errorf("the SARIF multitool is not installed in %s (scripts/install-test-deps installs it)", dir)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return "", fmt.Errorf("node is not on PATH: %v", err)
	}
	cmd := exec.Command(node, "-p", "require('@microsoft/sarif-multitool')")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("locating the SARIF multitool: %v", err)
	}
	tool := strings.TrimSpace(string(out))
	if _, err := os.Stat(tool); err != nil {
		return "", fmt.Errorf("the SARIF multitool for %s/%s: %v", runtime.GOOS, runtime.GOARCH, err)
	}
	return tool, nil
})

// warnMissingMultitool prints, once, why the SARIF validation is skipped,
// where no -v hides it.
var warnMissingMultitool = sync.OnceFunc(func() {
	if _, err := sarifMultitool(); err != nil {
		fmt.Fprintf(os.Stderr, "\n%s\n# SKIPPING the SARIF multitool validation: %v\n# Run scripts/install-test-deps (it needs node and npm) to run it.\n%s\n\n",
			strings.Repeat("#", 80), err, strings.Repeat("#", 80))
	}
})

func scriptCondition(cond string) (bool, error) {
	if cond == "sarif-multitool" {
		warnMissingMultitool()
		_, err := sarifMultitool()
		return err == nil, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// junitXSD is the Jenkins xUnit plugin's JUnit schema, committed unchanged
// (testdata/junit/README.md says where it comes from).
const junitXSD = "testdata/junit/junit-10.xsd"

// xmllint is the XSD validator of libxml2 (Debian's libxml2-utils), which
// scripts/install-test-deps installs.
var xmllint = sync.OnceValues(func() (string, error) {
	tool, err := exec.LookPath("xmllint")
	if err != nil {
		return "", fmt.Errorf("xmllint is not on PATH (scripts/install-test-deps installs libxml2-utils): %v", err)
	}
	return tool, nil
})

// warnMissingXmllint prints, once, why the JUnit schema validation is
// skipped, where no -v hides it.
var warnMissingXmllint = sync.OnceFunc(func() {
	if _, err := xmllint(); err != nil {
		fmt.Fprintf(os.Stderr, "\n%s\n# SKIPPING the JUnit XSD validation (junit-10.xsd): %v\n# Run scripts/install-test-deps (it needs root and apt-get) to run it.\n%s\n\n",
			strings.Repeat("#", 80), err, strings.Repeat("#", 80))
	}
})

// errNoXmllint says the document was not validated against the schema.
var errNoXmllint = errors.New("xmllint is not installed")

// validateJUnit checks the JUnit document in file against junit-10.xsd with
// xmllint, and that no two test cases of a suite share a classname and name
// (which no XSD can say, and which makes CI systems merge the cases). It
// returns errNoXmllint, after the name check, when xmllint is missing.
func validateJUnit(file string) error {
	doc, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if err := uniqueCaseNames(doc); err != nil {
		return err
	}
	tool, err := xmllint()
	if err != nil {
		warnMissingXmllint()
		return errNoXmllint
	}
	xsd, err := filepath.Abs(junitXSD)
	if err != nil {
		return err
	}
	out, err := exec.Command(tool, "--noout", "--nonet", "--schema", xsd, file).CombinedOutput()
	if err != nil {
		return fmt.Errorf("the Jenkins JUnit schema rejects it (%v):\n%s", err, out)
	}
	return nil
}

// uniqueCaseNames checks that no two test cases of a suite share a
// classname and name.
func uniqueCaseNames(doc []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(doc))
	var caseNames []map[string]bool // per open suite
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "testsuite":
				caseNames = append(caseNames, map[string]bool{})
			case "testcase":
				if len(caseNames) == 0 {
					continue // outside a suite: the schema says so
				}
				var class, name string
				for _, a := range t.Attr {
					switch a.Name.Local {
					case "classname":
						class = a.Value
					case "name":
						name = a.Value
					}
				}
				names := caseNames[len(caseNames)-1]
				if names[class+"\x00"+name] {
					return fmt.Errorf("two test cases named %q (classname %q) in one suite", name, class)
				}
				names[class+"\x00"+name] = true
			}
		case xml.EndElement:
			if t.Name.Local == "testsuite" {
				caseNames = caseNames[:len(caseNames)-1]
			}
		}
	}
}

// TestJUnitValidation: the validator rejects what the Jenkins schema
// rejects (the two defects issue 17 found: a suite without errors, skipped
// on testsuites, and others) and repeated case names, so that a script's
// junitvalidate cannot pass by validating nothing.
func TestJUnitValidation(t *testing.T) {
	dir := t.TempDir()
	check := func(name, doc string) error {
		file := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".xml")
		if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		return validateJUnit(file)
	}
	good := `<testsuites name="a" tests="1" failures="0" errors="0"><testsuite name="s" tests="1" failures="0" errors="0"><testcase classname="c" name="n"><system-out>x</system-out></testcase></testsuite></testsuites>`
	if err := check("good", good); errors.Is(err, errNoXmllint) {
		t.Skip("xmllint is not installed (scripts/install-test-deps installs libxml2-utils)")
	} else if err != nil {
		t.Fatalf("a valid document: %v", err)
	}
	for name, doc := range map[string]string{
		"suite without errors":   strings.Replace(good, `failures="0" errors="0"><testcase`, `failures="0"><testcase`, 1),
		"skipped on testsuites":  strings.Replace(good, `<testsuites name="a"`, `<testsuites name="a" skipped="0"`, 1),
		"repeated case name":     strings.Replace(good, `</testcase>`, `</testcase><testcase classname="c" name="n"/>`, 1),
		"text in a suite":        strings.Replace(good, `<testcase`, `oops<testcase`, 1),
		"unknown element":        strings.Replace(good, `<system-out>x</system-out>`, `<output/>`, 1),
		"bad time":               strings.Replace(good, `<testsuites name="a"`, `<testsuites name="a" time="1s"`, 1),
		"case without name":      strings.Replace(good, ` name="n"`, ``, 1),
		"failure holds elements": strings.Replace(good, `<system-out>x</system-out>`, `<failure><b/></failure>`, 1),
		"not well-formed":        strings.Replace(good, `</testsuites>`, ``, 1),
	} {
		if err := check(name, doc); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
