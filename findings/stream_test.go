package findings

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"strings"
	"testing"
)

func streamFinding(file string, line int) ValidationFinding {
	return New(RPCUnknownResponseID, Location{File: file, Line: line, Pointer: "/id"},
		fmt.Sprintf("response id %d matches no pending request", line))
}

// TestStreamWritesEachFindingAtOnce: a finding is in the output once the
// stream is flushed, before the report is closed, in every format; the
// closed report holds every finding in the order added.
func TestStreamWritesEachFindingAtOnce(t *testing.T) {
	for _, format := range Formats() {
		t.Run(string(format), func(t *testing.T) {
			t.Setenv("TMPDIR", t.TempDir())
			var out bytes.Buffer
			s, err := NewStream(&out, format, Report{Version: "test"})
			if err != nil {
				t.Fatal(err)
			}
			s.StartFile("a.ndjson")
			const n = 5
			for line := n; line >= 1; line-- { // not in Less order: kept as added
				if err := s.Add(streamFinding("a.ndjson", line)); err != nil {
					t.Fatal(err)
				}
				if err := s.Flush(); err != nil {
					t.Fatal(err)
				}
				if format == FormatJUnit {
					continue // the counts come first: the cases wait in the spill file
				}
				msg := fmt.Sprintf("response id %d matches", line)
				if !strings.Contains(out.String(), msg) {
					t.Fatalf("after Add and Flush the output lacks %q:\n%s", msg, out.String())
				}
			}
			s.StartFile("clean.ndjson")
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			// Every finding, in the order added.
			at := 0
			for line := n; line >= 1; line-- {
				i := strings.Index(out.String()[at:], fmt.Sprintf("response id %d matches", line))
				if i < 0 {
					t.Fatalf("line %d missing or out of order:\n%s", line, out.String())
				}
				at += i
			}
			switch format {
			case FormatSARIF:
				var log struct {
					Runs []struct {
						Results []struct {
							RuleID    string `json:"ruleId"`
							RuleIndex *int   `json:"ruleIndex"`
						} `json:"results"`
						Tool struct {
							Driver struct {
								Rules []struct {
									ID string `json:"id"`
								} `json:"rules"`
							} `json:"driver"`
						} `json:"tool"`
					} `json:"runs"`
				}
				if err := json.Unmarshal(out.Bytes(), &log); err != nil {
					t.Fatalf("SARIF is not JSON: %v\n%s", err, out.String())
				}
				rs := log.Runs[0].Results
				if len(rs) != n {
					t.Fatalf("%d results, want %d", len(rs), n)
				}
				for _, r := range rs {
					if r.RuleIndex == nil || log.Runs[0].Tool.Driver.Rules[*r.RuleIndex].ID != r.RuleID {
						t.Errorf("result %s: ruleIndex does not point at its rule", r.RuleID)
					}
				}
			case FormatJUnit:
				var doc junitSuites
				if err := xml.Unmarshal(out.Bytes(), &doc); err != nil {
					t.Fatalf("JUnit is not XML: %v\n%s", err, out.String())
				}
				if doc.Tests != n+1 || doc.Failures != n || len(doc.Suites) != 2 ||
					doc.Suites[0].Name != "a.ndjson" || doc.Suites[0].Tests != n || doc.Suites[0].Failures != n ||
					doc.Suites[1].Name != "clean.ndjson" || doc.Suites[1].Tests != 1 || doc.Suites[1].Cases[0].Name != "clean" {
					t.Errorf("JUnit counts or suites wrong:\n%s", out.String())
				}
				if left, _ := os.ReadDir(os.Getenv("TMPDIR")); len(left) != 0 {
					t.Errorf("spill files left in TMPDIR: %v", left)
				}
			}
		})
	}
}

// TestJUnitSpillIsOwnerOnly: the spill file holds the findings, which
// quote the traffic, so only its owner may read it; it is unlinked at
// once, so nothing is left behind even if acplint is killed.
func TestJUnitSpillIsOwnerOnly(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	j, err := startJUnit(Report{Tool: "acplint"})
	if err != nil {
		t.Fatal(err)
	}
	defer j.release()
	for _, f := range []*os.File{j.cases, j.suites} {
		info, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != 0o600 {
			t.Errorf("spill file mode %v, want 0600", info.Mode().Perm())
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("spill files visible in TMPDIR while in use: %v", left)
	}
}

// TestBaselineWriterKeepsFirstMessageInReportOrder: findings sharing an
// entry (their messages differ only in digits) keep the message of the
// first in report order whatever order they are added in, so that
// streamed and sorted runs write the same baseline.
func TestBaselineWriterKeepsFirstMessageInReportOrder(t *testing.T) {
	var sorted, reversed bytes.Buffer
	fs := []ValidationFinding{streamFinding("a", 1), streamFinding("a", 2), streamFinding("a", 3)}
	for i := range fs {
		fs[i].Location.Pointer = "" // one entry for all three
		fs[i].Location.Line = 10 - i
	}
	if err := WriteBaseline(&sorted, []ValidationFinding{fs[2], fs[1], fs[0]}); err != nil {
		t.Fatal(err)
	}
	if err := WriteBaseline(&reversed, fs); err != nil {
		t.Fatal(err)
	}
	if sorted.String() != reversed.String() {
		t.Errorf("baseline depends on the order of findings:\n%s\n%s", sorted.String(), reversed.String())
	}
	if !strings.Contains(sorted.String(), "response id 3 matches") || strings.Count(sorted.String(), `"rule"`) != 1 {
		t.Errorf("want one entry with the message of line 8 (id 3):\n%s", sorted.String())
	}
}
