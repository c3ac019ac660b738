package findings

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/report/*.golden from the current output")

// sampleReport is a small fixed run that exercises every branch the
// reporters have: an exact duplicate, a related line, line 0, an empty file
// name, a message with characters GitHub must escape, an info finding, a
// rule outside the described catalog, and a clean file.
func sampleReport() Report {
	ses := New(SESMissingMcpServers, Location{File: "examples/a.ndjson", Line: 3, Pointer: "/params/mcpServers"},
		`session/new params lack required "mcpServers"; send [] when there are no MCP servers`)
	unanswered := New(RPCUnanswered, Location{File: "examples/a.ndjson", Line: 2},
		"session/prompt request (id 7) from the client is never answered",
		Related{Location: Location{Line: 9}, Message: "the transcript ends here without a response"})
	unanswered.Blame = PartyClient
	return Report{
		Tool:    "acplint",
		Version: "0.0.0-test",
		Files:   []string{"examples/a.ndjson", "examples/clean.ndjson", "dir with space/b,c:d.ndjson"},
		Findings: []ValidationFinding{
			ses,
			New(WIREWhitespace, Location{File: "examples/a.ndjson"}, "lines end in CRLF"),
			unanswered,
			ses, // exact duplicate: printed once
			New(LINTDirectionUnknown, Location{Line: 4}, "cannot tell who sent 50% of this,\nreally: id 3"),
			New(VERNotInteger, Location{File: "dir with space/b,c:d.ndjson", Line: 1, Pointer: "/params/protocolVersion"},
				`initialize request: protocolVersion is "1.0.0"; it is an integer from 0 to 65535, such as 1`),
			{RuleID: "ACP-X-001", Severity: SeverityWarning, Location: Location{File: "examples/a.ndjson", Line: 2}, Message: "a rule acplint does not know"},
		},
		// A subset keeps the SARIF golden readable; the findings' other
		// rules must then be appended as extra descriptors.
		Rules: []*Rule{RPCUnanswered, SESMissingMcpServers},
	}
}

func TestGolden(t *testing.T) {
	for _, f := range Formats() {
		t.Run(string(f), func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, f, sampleReport()); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "report", string(f)+".golden")
			if *update {
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./findings -update to create it)", err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("%s output differs from %s (run go test ./findings -update if the change is intended)\n--- got\n%s--- want\n%s",
					f, golden, buf.Bytes(), want)
			}
		})
	}
}

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{"text": FormatText, "JSON": FormatJSON, " sarif ": FormatSARIF, "GitHub": FormatGitHub, "junit": FormatJUnit} {
		got, err := ParseFormat(in)
		if err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "xml", "txt"} {
		if _, err := ParseFormat(in); err == nil {
			t.Errorf("ParseFormat(%q) succeeded", in)
		}
	}
	if err := Write(&bytes.Buffer{}, Format("yaml"), Report{}); err == nil {
		t.Error("Write accepted an unknown format")
	}
}

// TestOrderAndDedup feeds the findings in several orders: the output must
// not change, and the duplicate must appear once.
func TestOrderAndDedup(t *testing.T) {
	base := sampleReport()
	var first string
	for i := range len(base.Findings) {
		r := sampleReport()
		// Rotate by i and reverse odd rotations for a few distinct orders.
		fs := append(slices.Clone(r.Findings[i:]), r.Findings[:i]...)
		if i%2 == 1 {
			slices.Reverse(fs)
		}
		r.Findings = fs
		var buf bytes.Buffer
		if err := Write(&buf, FormatText, r); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = buf.String()
			continue
		}
		if buf.String() != first {
			t.Errorf("order %d changed the output:\n%s\nwant\n%s", i, buf.String(), first)
		}
	}
	if n := strings.Count(first, "(ACP-SES-002)"); n != 1 {
		t.Errorf("duplicate finding printed %d times", n)
	}
	var heads []string
	for _, line := range strings.Split(strings.TrimRight(first, "\n"), "\n") {
		if !strings.HasPrefix(line, "\t") {
			heads = append(heads, line)
		}
	}
	want := []string{
		"-:4: warning: [tool] cannot tell who sent 50% of this,",
		"dir with space/b,c:d.ndjson:1: error:",
		"examples/a.ndjson: info:",
		"examples/a.ndjson:2: warning: [client] session/prompt",
		"examples/a.ndjson:2: warning: [either] a rule acplint does not know (ACP-X-001)",
		"examples/a.ndjson:3: error:",
	}
	if len(heads) != len(want) {
		t.Fatalf("got %d finding lines, want %d:\n%s", len(heads), len(want), first)
	}
	for i := range want {
		if !strings.HasPrefix(heads[i], want[i]) {
			t.Errorf("line %d = %q, want prefix %q", i, heads[i], want[i])
		}
	}
}

// Findings differing only in severity are not duplicates.
func TestDedupKeepsDistinct(t *testing.T) {
	a := New(RPCDuplicateID, Location{File: "f", Line: 1}, "m")
	b := a
	b.Severity = SeverityInfo
	var buf bytes.Buffer
	if err := Write(&buf, FormatJSON, Report{Findings: []ValidationFinding{b, a, a, b}}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "\n"); n != 2 {
		t.Errorf("got %d lines, want 2:\n%s", n, buf.String())
	}
}

func TestWriteDoesNotModifyInput(t *testing.T) {
	r := sampleReport()
	before, _ := json.Marshal(r.Findings)
	for _, f := range Formats() {
		if err := Write(&bytes.Buffer{}, f, r); err != nil {
			t.Fatal(err)
		}
	}
	after, _ := json.Marshal(r.Findings)
	if !bytes.Equal(before, after) {
		t.Error("Write modified the caller's findings")
	}
}

func TestEmptyReport(t *testing.T) {
	for _, f := range Formats() {
		var buf bytes.Buffer
		if err := Write(&buf, f, Report{}); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		switch f {
		case FormatText, FormatJSON, FormatGitHub:
			if buf.Len() != 0 {
				t.Errorf("%s: empty report printed %q", f, buf.String())
			}
		case FormatSARIF:
			var log map[string]any
			if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
				t.Fatal(err)
			}
			run := log["runs"].([]any)[0].(map[string]any)
			if res, ok := run["results"].([]any); !ok || len(res) != 0 {
				t.Errorf("sarif: results = %v; want an empty array", run["results"])
			}
			if rules := run["tool"].(map[string]any)["driver"].(map[string]any)["rules"].([]any); len(rules) != len(All()) {
				t.Errorf("sarif: %d rules described, want the whole catalog (%d)", len(rules), len(All()))
			}
		case FormatJUnit:
			var s junitSuites
			if err := xml.Unmarshal(buf.Bytes(), &s); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestTextDetails(t *testing.T) {
	f := New(SESMissingMcpServers, Location{File: "x.ndjson", Line: 3, Column: 48, Pointer: "/params/mcpServers"}, "msg",
		Related{Location: Location{File: "y.ndjson", Line: 1}, Message: "related"})
	f.TCK = []string{"ACP-A-001", "ACP-B-002"}
	var buf bytes.Buffer
	if err := Write(&buf, FormatText, Report{Findings: []ValidationFinding{f}}); err != nil {
		t.Fatal(err)
	}
	want := "x.ndjson:3:48: error: [client] msg (ACP-SES-002)\n" +
		"\tat /params/mcpServers\n" +
		"\ty.ndjson:1: related\n" +
		"\tspec: https://agentclientprotocol.com/protocol/v1/session-setup (TCK: ACP-A-001, ACP-B-002)\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

// A finding decoded from JSON has no *Rule; reporters look it up by ID.
func TestFindingWithoutRulePointer(t *testing.T) {
	f := ValidationFinding{RuleID: "ACP-SES-002", Severity: SeverityError, Location: Location{File: "a", Line: 1}, Message: "m"}
	var buf bytes.Buffer
	if err := Write(&buf, FormatText, Report{Findings: []ValidationFinding{f}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "spec: "+SESMissingMcpServers.Spec) {
		t.Errorf("spec URL not filled in from the catalog:\n%s", buf.String())
	}
}

func TestJSONLinesRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, FormatJSON, sampleReport()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	if len(lines) != 6 {
		t.Fatalf("got %d lines, want 6", len(lines))
	}
	for _, line := range lines {
		var f ValidationFinding
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if f.RuleID == "" || f.Location.File == "" {
			t.Errorf("line lacks rule or file: %s", line)
		}
	}
}

func TestSARIFStructure(t *testing.T) {
	for _, rules := range [][]*Rule{nil, sampleReport().Rules} {
		r := sampleReport()
		r.Rules = rules
		var buf bytes.Buffer
		if err := Write(&buf, FormatSARIF, r); err != nil {
			t.Fatal(err)
		}
		var log struct {
			Schema  string `json:"$schema"`
			Version string `json:"version"`
			Runs    []struct {
				Tool struct {
					Driver struct {
						Name           string `json:"name"`
						InformationURI string `json:"informationUri"`
						Rules          []struct {
							ID                   string `json:"id"`
							DefaultConfiguration struct {
								Level string `json:"level"`
							} `json:"defaultConfiguration"`
						} `json:"rules"`
					} `json:"driver"`
				} `json:"tool"`
				Results []struct {
					RuleID    string `json:"ruleId"`
					RuleIndex *int   `json:"ruleIndex"`
					Level     string `json:"level"`
					Message   struct {
						Text string `json:"text"`
					} `json:"message"`
					Locations []struct {
						PhysicalLocation struct {
							ArtifactLocation struct {
								URI string `json:"uri"`
							} `json:"artifactLocation"`
							Region *struct {
								StartLine int `json:"startLine"`
							} `json:"region"`
						} `json:"physicalLocation"`
						LogicalLocations []struct {
							FullyQualifiedName string `json:"fullyQualifiedName"`
						} `json:"logicalLocations"`
					} `json:"locations"`
					RelatedLocations    []json.RawMessage `json:"relatedLocations"`
					PartialFingerprints map[string]string `json:"partialFingerprints"`
				} `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
			t.Fatalf("SARIF is not JSON: %v", err)
		}
		if log.Schema != "https://json.schemastore.org/sarif-2.1.0.json" || log.Version != "2.1.0" || len(log.Runs) != 1 {
			t.Fatalf("bad SARIF header: %q %q runs=%d", log.Schema, log.Version, len(log.Runs))
		}
		run := log.Runs[0]
		if run.Tool.Driver.Name != "acplint" || run.Tool.Driver.InformationURI == "" {
			t.Errorf("driver = %+v", run.Tool.Driver)
		}
		if len(run.Results) != 6 {
			t.Fatalf("%d results, want 6", len(run.Results))
		}
		for _, res := range run.Results {
			if res.RuleIndex == nil || *res.RuleIndex >= len(run.Tool.Driver.Rules) || run.Tool.Driver.Rules[*res.RuleIndex].ID != res.RuleID {
				t.Errorf("%s: ruleIndex does not point at its rule", res.RuleID)
			}
			if !slices.Contains([]string{"error", "warning", "note"}, res.Level) {
				t.Errorf("%s: level %q", res.RuleID, res.Level)
			}
			if res.Message.Text == "" || len(res.Locations) != 1 || res.Locations[0].PhysicalLocation.ArtifactLocation.URI == "" && res.RuleID != "ACP-LINT-001" {
				t.Errorf("%s: message or location missing", res.RuleID)
			}
			if len(res.PartialFingerprints[FingerprintKey]) != 64 {
				t.Errorf("%s: fingerprint %q", res.RuleID, res.PartialFingerprints[FingerprintKey])
			}
			loc := res.Locations[0]
			switch res.RuleID {
			case "ACP-WIRE-006": // line 0: the whole file, no region
				if loc.PhysicalLocation.Region != nil {
					t.Error("line 0 finding has a region")
				}
			case "ACP-SES-002":
				if loc.PhysicalLocation.Region == nil || loc.PhysicalLocation.Region.StartLine != 3 {
					t.Error("SES-002 region should start at line 3")
				}
				if len(loc.LogicalLocations) != 1 || loc.LogicalLocations[0].FullyQualifiedName != "/params/mcpServers" {
					t.Errorf("pointer not in logicalLocations: %+v", loc.LogicalLocations)
				}
			case "ACP-RPC-013":
				if len(res.RelatedLocations) != 1 {
					t.Error("related location missing")
				}
			case "ACP-VER-001":
				if got := loc.PhysicalLocation.ArtifactLocation.URI; got != "dir%20with%20space/b,c:d.ndjson" {
					t.Errorf("uri = %q", got)
				}
			}
		}
	}
}

func TestArtifactURI(t *testing.T) {
	for in, want := range map[string]string{
		"a.ndjson":         "a.ndjson",
		"":                 "-",
		"-":                "-",
		`dir\sub\x.jsonl`:  "dir/sub/x.jsonl",
		"a:b.ndjson":       "./a:b.ndjson",
		"/tmp/t.ndjson":    "file:///tmp/t.ndjson",
		`C:\work\t.ndjson`: "file:///C:/work/t.ndjson",
		"x#y?z%.ndjson":    "x%23y%3Fz%25.ndjson",
		"sp ace/f.ndjson":  "sp%20ace/f.ndjson",
		"../up/t.ndjson":   "../up/t.ndjson",
		"ünïcode/t.ndjson": "%C3%BCn%C3%AFcode/t.ndjson",
	} {
		if got := artifactURI(in); got != want {
			t.Errorf("artifactURI(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRuleName(t *testing.T) {
	for in, want := range map[string]string{
		"session/new or session/load lacks mcpServers":   "SessionNewOrSessionLoadLacksMcpServers",
		"-32800 returned for a request nobody cancelled": "Cxl32800ReturnedForRequestNobodyCancelled",
		"MCP server has a JSON id":                       "McpServerHasJsonId",
		"message larger than the 32MiB SDK reader limit": "MessageLargerThanThe32mibSdkReaderLimit",
		"": "AcpCxl001",
	} {
		if got := ruleName(&Rule{ID: "ACP-CXL-001", Title: in}); got != want {
			t.Errorf("ruleName(%q) = %q, want %q", in, got, want)
		}
	}
	// Every name in the catalog is one Pascal-case identifier.
	pascal := regexp.MustCompile(`^([A-Z][a-z0-9]+)+$`)
	for _, r := range All() {
		if name := ruleName(r); !pascal.MatchString(name) {
			t.Errorf("%s: rule name %q is not Pascal case", r.ID, name)
		}
	}
}

func TestGitHubEscaping(t *testing.T) {
	f := New(RPCErrorMessage, Location{File: "a,b:c%.ndjson", Line: 2}, "100% wrong,\r\nsecond: line")
	info := New(WIREWhitespace, Location{File: "x"}, "note")
	var buf bytes.Buffer
	if err := Write(&buf, FormatGitHub, Report{Findings: []ValidationFinding{f, info}}); err != nil {
		t.Fatal(err)
	}
	want := "::warning file=a%2Cb%3Ac%25.ndjson,line=2,title=ACP-RPC-008::100%25 wrong,\\r\\nsecond: line\n" +
		"::notice file=x,title=ACP-WIRE-006::note\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	if got := escapeProperty("%0A"); got != "%250A" {
		t.Errorf("escapeProperty must escape %% before anything else: %q", got)
	}
}

func TestJUnitCounts(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, FormatJUnit, sampleReport()); err != nil {
		t.Fatal(err)
	}
	var s junitSuites
	if err := xml.Unmarshal(buf.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	got := map[string][2]int{}
	for _, suite := range s.Suites {
		got[suite.Name] = [2]int{suite.Tests, suite.Failures}
	}
	want := map[string][2]int{
		"examples/a.ndjson":           {4, 3}, // SES-002, RPC-013, X-001 fail; WIRE-006 is info
		"examples/clean.ndjson":       {1, 0}, // the "clean" case
		"dir with space/b,c:d.ndjson": {1, 1},
		"-":                           {1, 1}, // not in Files, found only in findings
	}
	if len(got) != len(want) {
		t.Errorf("suites = %v, want %v", got, want)
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("suite %q: tests/failures = %v, want %v", name, got[name], w)
		}
	}
	if s.Tests != 7 || s.Failures != 5 {
		t.Errorf("totals = %d/%d, want 7/5", s.Tests, s.Failures)
	}
}

// Reporters must not panic on findings nobody should build but someone
// might: the zero value, a negative line, a nil rule in the catalog.
func TestOddFindings(t *testing.T) {
	odd := []ValidationFinding{
		{},
		{RuleID: "ACP-SES-002", Location: Location{Line: -1}},
		{Rule: SESMissingMcpServers, Message: "rule pointer without ID"},
		{Related: []Related{{}}},
	}
	for _, f := range Formats() {
		var buf bytes.Buffer
		if err := Write(&buf, f, Report{Files: []string{""}, Findings: odd, Rules: []*Rule{nil}}); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	var buf bytes.Buffer
	if err := WriteBaseline(&buf, odd); err == nil {
		t.Error("WriteBaseline accepted a finding without a rule ID")
	}
	buf.Reset()
	if err := WriteBaseline(&buf, odd[1:3]); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadBaseline(&buf); err != nil {
		t.Errorf("baseline of odd findings does not read back: %v", err)
	}
}
