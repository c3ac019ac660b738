package conformance_test

import (
	"bytes"
	"strings"
	"testing"
	"unicode"

	"github.com/acplint/acplint/conformance"
	"github.com/acplint/acplint/findings"
)

// The agent under test chooses the method names and text that check's
// verdict quotes: the text verdict escapes them (findings.Escape), so a
// hostile agent can neither drive the terminal nor forge a line.
func TestVerdictTextEscapesAgentText(t *testing.T) {
	const hostile = "m\x1b[2J\n::error file=a::pwned\r\x00\u2028##[error]v1"
	f := findings.New(findings.TURNStopReason, findings.Location{Line: 3}, "stop reason "+hostile)
	v := &conformance.Verdict{
		Rules: []*conformance.RuleResult{{
			ID: f.RuleID, Title: "t", Tier: conformance.TierMust, Status: conformance.StatusFailed,
			Failures: 1, Exercised: 1, Examples: []conformance.Occurrence{{Run: 1, Finding: &f}},
		}},
		Notes:           []conformance.Occurrence{{Run: 1, Finding: &f}},
		HarnessProblems: []conformance.Occurrence{{Run: 1, Finding: &f}},
		Unadvertised:    map[string]int{hostile: 1},
	}
	var buf bytes.Buffer
	if err := v.Write(&buf, conformance.FormatText); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Count(out, `m\x1b[2J\n::error file=a::pwned\r\x00\u2028##\x5berror]v1`) != 4 {
		t.Errorf("the agent's text is not shown escaped four times:\n%s", out)
	}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		for _, r := range line {
			if r < 0x20 || r == 0x2028 {
				t.Errorf("character %U in %q", r, line)
			}
		}
		if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") || strings.Contains(line, "##[") {
			t.Errorf("line reads as a workflow command: %q", line)
		}
	}
}
