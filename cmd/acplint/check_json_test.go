package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// checkRecord is the part of a finding record of check -f json the tests
// read.
type checkRecord struct {
	Version  int    `json:"version"`
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Location struct {
		File string `json:"file"`
		Line int    `json:"line"`
	} `json:"location"`
	Fingerprint string `json:"fingerprint"`
	Check       struct {
		Kind         string `json:"kind"`
		Status       string `json:"status"`
		Reproduction *struct {
			File       string `json:"file"`
			Reproduced bool   `json:"reproduced"`
		} `json:"reproduction"`
	} `json:"check"`
}

// decodeCheckJSON reads the output of check -f json: every line must be a
// record docs/json-output.schema.json accepts, the last one the verdict
// record, which is decoded into verdict; the finding records before it go
// to records when it is not nil.
func decodeCheckJSON(out string, verdict any, records *[]checkRecord) error {
	schema, err := jsonOutputSchema()
	if err != nil {
		return err
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for i, l := range lines {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(l))
		if err != nil {
			return fmt.Errorf("line %d: not one JSON value: %v", i+1, err)
		}
		if err := schema.Validate(v); err != nil {
			return fmt.Errorf("line %d: %v", i+1, err)
		}
		if i == len(lines)-1 {
			var last struct {
				Verdict json.RawMessage `json:"verdict"`
			}
			if err := json.Unmarshal([]byte(l), &last); err != nil || last.Verdict == nil {
				return fmt.Errorf("the last line is not the verdict record: %.200s", l)
			}
			return json.Unmarshal(last.Verdict, verdict)
		}
		var r checkRecord
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			return fmt.Errorf("line %d: %v", i+1, err)
		}
		if r.Rule == "" || r.Fingerprint == "" {
			return fmt.Errorf("line %d: not a finding record before the verdict: %.200s", i+1, l)
		}
		if records != nil {
			*records = append(*records, r)
		}
	}
	return fmt.Errorf("no output")
}

// TestCheckJSONRecords: check -f json writes the finding records lint
// writes, then the verdict: the failure of a defective agent is located in
// its minimal transcript, with the fingerprint lint gives there, and the
// verdict record agrees with the exit code.
func TestCheckJSONRecords(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a check")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := jsonOutputSchema(); err != nil { // before the Chdir: its path is relative
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"check", "-f", "json", "--runs", "10", "--seed", "1", "--shrink-time", "1s", "--out", "failures",
		"--", "/usr/bin/env", "GORACE=atexit_sleep_ms=0", exe, "__agent", "-defect", "update-after-cancel"}, strings.NewReader(""), &stdout, &stderr)
	if code != exitFindings {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitFindings, stderr.String())
	}
	var verdict struct {
		Conformant bool   `json:"conformant"`
		Summary    string `json:"summary"`
	}
	var records []checkRecord
	if err := decodeCheckJSON(stdout.String(), &verdict, &records); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if verdict.Conformant || !strings.Contains(verdict.Summary, "1 MUST failed") {
		t.Errorf("verdict: conformant %v, %q", verdict.Conformant, verdict.Summary)
	}
	var cxl *checkRecord
	for i, r := range records {
		if r.Rule == "ACP-CXL-002" {
			cxl = &records[i]
		}
	}
	if cxl == nil {
		t.Fatalf("no ACP-CXL-002 record:\n%s", stdout.String())
	}
	want := filepath.Join("failures", "ACP-CXL-002.jsonl")
	if cxl.Severity != "error" || cxl.Check.Kind != "rule" || cxl.Check.Status != "failed" || cxl.Location.File != want || cxl.Location.Line == 0 ||
		cxl.Check.Reproduction == nil || !cxl.Check.Reproduction.Reproduced || cxl.Check.Reproduction.File != want {
		t.Errorf("the ACP-CXL-002 record: %+v", *cxl)
	}
	// lint of the minimal transcript gives the same finding, at the same
	// place, with the same fingerprint.
	stdout.Reset()
	if code := run(context.Background(), []string{"lint", "--no-config", "--clean-end", "-f", "json", want}, strings.NewReader(""), &stdout, &stderr); code != exitFindings {
		t.Fatalf("lint: exit %d; stderr:\n%s", code, stderr.String())
	}
	found := false
	for l := range strings.SplitSeq(strings.TrimSpace(stdout.String()), "\n") {
		var r checkRecord
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		if r.Rule == cxl.Rule && r.Fingerprint == cxl.Fingerprint && r.Location == cxl.Location {
			found = true
		}
	}
	if !found {
		t.Errorf("lint of %s has no finding with check's fingerprint %s at line %d:\n%s", want, cxl.Fingerprint, cxl.Location.Line, stdout.String())
	}
}
