package findings

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"testing"
)

func baselineFindings() []ValidationFinding {
	return []ValidationFinding{
		New(SESMissingMcpServers, Location{File: "t/a.ndjson", Line: 3, Pointer: "/params/mcpServers"}, "session/new params lack mcpServers"),
		New(RPCUnanswered, Location{File: "t/a.ndjson", Line: 7}, "session/prompt request (id 12) is never answered"),
		New(WIREWhitespace, Location{File: "t/b.ndjson"}, "lines end in CRLF"),
	}
}

func roundTrip(t *testing.T, fs []ValidationFinding) *Baseline {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteBaseline(&buf, fs); err != nil {
		t.Fatal(err)
	}
	b, err := ReadBaseline(&buf)
	if err != nil {
		t.Fatalf("reading what WriteBaseline wrote: %v\n%s", err, buf.String())
	}
	return b
}

func TestBaselineSuppressesEverything(t *testing.T) {
	fs := baselineFindings()
	b := roundTrip(t, fs)
	if len(b.Findings) != 3 {
		t.Fatalf("%d entries, want 3", len(b.Findings))
	}
	kept, stale := b.Filter(fs)
	if len(kept) != 0 || len(stale) != 0 {
		t.Errorf("kept=%v stale=%v; want both empty", kept, stale)
	}
}

// Lines move and ids change when a transcript is re-recorded; the
// baseline must still recognise the finding.
func TestBaselineStableWhenLinesShift(t *testing.T) {
	b := roundTrip(t, baselineFindings())
	shifted := baselineFindings()
	for i := range shifted {
		shifted[i].Location.Line += 40
	}
	shifted[1].Message = "session/prompt request (id 97) is never answered"
	shifted[1].Related = []Related{{Location: Location{Line: 99}, Message: "end"}}
	kept, stale := b.Filter(shifted)
	if len(kept) != 0 || len(stale) != 0 {
		t.Errorf("kept=%v stale=%v; want both empty", kept, stale)
	}
}

func TestBaselineNewFindingAndStaleEntry(t *testing.T) {
	b := roundTrip(t, baselineFindings())
	now := baselineFindings()[1:] // the SES-002 problem was fixed
	added := New(SESMissingMcpServers, Location{File: "t/c.ndjson", Line: 3, Pointer: "/params/mcpServers"}, "session/new params lack mcpServers")
	now = append(now, added)
	kept, stale := b.Filter(now)
	if len(kept) != 1 || kept[0].Location.File != "t/c.ndjson" {
		t.Errorf("kept = %v; want only the finding in another file", kept)
	}
	if len(stale) != 1 || stale[0].Rule != "ACP-SES-002" || stale[0].File != "t/a.ndjson" || stale[0].Message == "" {
		t.Errorf("stale = %+v; want the SES-002 entry for t/a.ndjson", stale)
	}
}

func TestBaselineDistinguishes(t *testing.T) {
	base := baselineFindings()[0]
	b := roundTrip(t, []ValidationFinding{base})
	for name, mutate := range map[string]func(*ValidationFinding){
		"message": func(f *ValidationFinding) { f.Message = "session/load params lack mcpServers" },
		"pointer": func(f *ValidationFinding) { f.Location.Pointer = "/params/cwd" },
		"file":    func(f *ValidationFinding) { f.Location.File = "t/z.ndjson" },
		"rule":    func(f *ValidationFinding) { f.Rule, f.RuleID = SESMcpServerShape, SESMcpServerShape.ID },
	} {
		f := base
		mutate(&f)
		kept, stale := b.Filter([]ValidationFinding{f})
		if len(kept) != 1 || len(stale) != 1 {
			t.Errorf("changed %s: kept=%d stale=%d; want a new finding and a stale entry", name, len(kept), len(stale))
		}
	}
}

// One entry accepts every identical finding, and WriteBaseline writes one
// entry for them.
func TestBaselineOneEntryManyFindings(t *testing.T) {
	f := baselineFindings()[1]
	g := f
	g.Location.Line = 30
	g.Message = "session/prompt request (id 13) is never answered"
	b := roundTrip(t, []ValidationFinding{f, g})
	if len(b.Findings) != 1 {
		t.Fatalf("%d entries for two findings with one fingerprint, want 1", len(b.Findings))
	}
	kept, stale := b.Filter([]ValidationFinding{f, g, f})
	if len(kept) != 0 || len(stale) != 0 {
		t.Errorf("kept=%d stale=%d", len(kept), len(stale))
	}
}

func TestBaselineKeepsOrderAndInput(t *testing.T) {
	fs := baselineFindings()
	b := roundTrip(t, fs[1:2])
	in := []ValidationFinding{fs[2], fs[1], fs[0]}
	kept, _ := b.Filter(in)
	if len(kept) != 2 || kept[0].RuleID != fs[2].RuleID || kept[1].RuleID != fs[0].RuleID {
		t.Errorf("kept = %v; want input order without the accepted finding", kept)
	}
	if in[1].RuleID != fs[1].RuleID {
		t.Error("Filter modified its input")
	}
}

func TestBaselineEmptyAndNil(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteBaseline(&buf, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"findings": []`) {
		t.Errorf("empty baseline should list no findings explicitly:\n%s", buf.String())
	}
	b, err := ReadBaseline(&buf)
	if err != nil {
		t.Fatal(err)
	}
	fs := baselineFindings()
	if kept, stale := b.Filter(fs); len(kept) != len(fs) || len(stale) != 0 {
		t.Errorf("empty baseline filtered something")
	}
	var nilB *Baseline
	if kept, stale := nilB.Filter(fs); len(kept) != len(fs) || stale != nil {
		t.Errorf("nil baseline filtered something")
	}
}

// File names are compared with forward slashes, so a baseline written on
// Windows works on Linux and the reverse.
func TestBaselineSlashes(t *testing.T) {
	f := baselineFindings()[0]
	f.Location.File = `t\a.ndjson`
	b := roundTrip(t, []ValidationFinding{f})
	if b.Findings[0].File != "t/a.ndjson" {
		t.Errorf("file = %q", b.Findings[0].File)
	}
	if kept, stale := b.Filter(baselineFindings()[:1]); len(kept) != 0 || len(stale) != 0 {
		t.Error("slash direction changed the match")
	}
}

func TestBaselineFingerprintMatchesSARIF(t *testing.T) {
	f := baselineFindings()[0]
	var buf bytes.Buffer
	if err := Write(&buf, FormatSARIF, Report{Findings: []ValidationFinding{f}, Rules: []*Rule{}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), Fingerprint(f)) {
		t.Error("SARIF partialFingerprints and the baseline use different fingerprints")
	}
	if b := roundTrip(t, []ValidationFinding{f}); b.Findings[0].Fingerprint != Fingerprint(f) {
		t.Error("baseline fingerprint differs from Fingerprint")
	}
}

func TestReadBaselineErrors(t *testing.T) {
	for name, in := range map[string]string{
		"empty":          "",
		"blank":          " \n",
		"not json":       "rule,file\n",
		"array":          `[{"rule":"ACP-SES-002"}]`,
		"truncated":      `{"version":1,"findings":[`,
		"no version":     `{"findings":[]}`,
		"future version": `{"version":2,"findings":[]}`,
		"unknown member": `{"version":1,"findings":[],"extra":true}`,
		"no rule":        `{"version":1,"findings":[{"file":"a","fingerprint":"ab"}]}`,
		"no fingerprint": `{"version":1,"findings":[{"rule":"ACP-SES-002","file":"a"}]}`,
		"trailing data":  `{"version":1,"findings":[]} {}`,
		"wrong type":     `{"version":"1","findings":[]}`,
	} {
		if _, err := ReadBaseline(strings.NewReader(in)); err == nil {
			t.Errorf("%s: ReadBaseline(%q) succeeded", name, in)
		}
	}
	if _, err := ReadBaseline(strings.NewReader(`{"version":1,"findings":[{"rule":"ACP-SES-002","file":"","fingerprint":"ab"}]}` + "\n")); err != nil {
		t.Errorf("valid baseline rejected: %v", err)
	}
}

func TestFingerprint(t *testing.T) {
	f := baselineFindings()[1]
	fp := Fingerprint(f)
	if len(fp) != 64 || strings.Trim(fp, "0123456789abcdef") != "" {
		t.Fatalf("fingerprint %q is not hex SHA-256", fp)
	}
	g := f
	g.Location.Line = 1000
	g.Severity = SeverityError
	g.Message = "session/prompt request (id 4) is never answered"
	if Fingerprint(g) != fp {
		t.Error("line, severity or digits changed the fingerprint")
	}
	g.Location.File = ""
	h := g
	h.Location.File = "-"
	if Fingerprint(g) != Fingerprint(h) {
		t.Error(`empty file and "-" should fingerprint alike`)
	}
	// Field boundaries matter: moving text between fields changes the hash.
	a := ValidationFinding{RuleID: "A", Location: Location{File: "BC"}}
	b := ValidationFinding{RuleID: "AB", Location: Location{File: "C"}}
	if Fingerprint(a) == Fingerprint(b) {
		t.Error("fingerprint fields run together")
	}
}

// TestFingerprintKeepsItsRecipe: baselines and code-scanning alerts written
// by earlier versions must still match, so Fingerprint must give what the
// recipe it documents gives (computed here with a regexp and a hash of the
// joined fields), for messages with digit runs anywhere, digits of other
// scripts (not replaced), and messages longer than its stack buffer.
func TestFingerprintKeepsItsRecipe(t *testing.T) {
	digitRuns := regexp.MustCompile(`[0-9]+`)
	recipe := func(f ValidationFinding) string {
		joined := strings.Join([]string{f.RuleID, fingerprintFile(f.Location.File),
			digitRuns.ReplaceAllString(f.Message, "N"), f.Location.Pointer}, "\x00")
		sum := sha256.Sum256([]byte(joined))
		return hex.EncodeToString(sum[:])
	}
	messages := []string{"", "7", "42 requests", "id 12 and 3", "ends in 9", "no digits", "٣ Arabic-Indic, ５ fullwidth",
		"x" + strings.Repeat("0123456789 ", 100) + "y", strings.Repeat("é", 600)}
	for _, msg := range messages {
		for _, file := range []string{"", "-", "./dir/a.ndjson", `dir\b.jsonl`} {
			f := ValidationFinding{RuleID: "ACP-RPC-003", Message: msg, Location: Location{File: file, Line: 3, Pointer: "/id"}}
			if got, want := Fingerprint(f), recipe(f); got != want {
				t.Errorf("Fingerprint(%q in %q) = %s, want %s", msg, file, got, want)
			}
		}
	}
	// One value pinned, so that the recipe above cannot drift with the code.
	f := ValidationFinding{RuleID: "ACP-RPC-003", Message: "response id 7 matches no pending request", Location: Location{File: "a.ndjson", Pointer: "/id"}}
	if got, want := Fingerprint(f), "1f37247dd464d2f210ac9b99b325e57cc43da8f7f9246f2e121d68fc93e8edd0"; got != want {
		t.Errorf("Fingerprint = %s, want %s", got, want)
	}
}
