package lint

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/internal/jsonv"
	"github.com/acplint/acplint/transcript"
)

// orphanResponse gives exactly one finding (ACP-RPC-003) on every line.
const orphanResponse = `{"jsonrpc":"2.0","id":1,"result":{}}`

func repeatLines(line string, n int) string { return strings.Repeat(line+"\n", n) }

func lintString(t *testing.T, input string, opts Options) *Result {
	t.Helper()
	opts.Format, opts.File = transcript.FormatNDJSON, "t"
	res, err := Transcript(strings.NewReader(input), opts)
	if err != nil {
		t.Fatalf("lint: %v", err)
	}
	return res
}

// TestMaxPerRuleSummarisesTheRest: past the cap a rule's findings are
// only counted, and one finding at the first of them says how many.
func TestMaxPerRuleSummarisesTheRest(t *testing.T) {
	input := repeatLines(orphanResponse, 250)
	for _, tc := range []struct {
		max        int
		reported   int // findings at their own line
		summarised int // 0: no summary
	}{
		{max: 0, reported: DefaultMaxPerRule, summarised: 250 - DefaultMaxPerRule},
		{max: 5, reported: 5, summarised: 245},
		{max: 250, reported: 250},
		{max: -1, reported: 250},
	} {
		t.Run(fmt.Sprint(tc.max), func(t *testing.T) {
			fs := lintString(t, input, Options{MaxPerRule: tc.max}).Findings
			want := tc.reported
			if tc.summarised > 0 {
				want++
			}
			if len(fs) != want {
				t.Fatalf("%d findings, want %d", len(fs), want)
			}
			for i, f := range fs {
				if f.RuleID != findings.RPCUnknownResponseID.ID || f.Location.Line != i+1 || f.Severity != findings.SeverityError {
					t.Fatalf("finding %d: %s at line %d (%s), want %s at line %d, error", i, f.RuleID, f.Location.Line, f.Severity, findings.RPCUnknownResponseID.ID, i+1)
				}
			}
			last := fs[len(fs)-1].Message
			summary := fmt.Sprintf("… and %d more like this", tc.summarised)
			if got := strings.HasPrefix(last, summary); got != (tc.summarised > 0) {
				t.Errorf("last finding %q; want a summary %q: %v", last, summary, tc.summarised > 0)
			}
		})
	}
}

// TestFilterRunsBeforeTheCap: findings the caller drops (disabled rules,
// a baseline) do not use up the cap.
func TestFilterRunsBeforeTheCap(t *testing.T) {
	res := lintString(t, repeatLines(orphanResponse, 250), Options{MaxPerRule: 10,
		Filter: func(f findings.ValidationFinding) bool { return f.Location.Line%2 == 0 }})
	if len(res.Findings) != 11 {
		t.Fatalf("%d findings, want 10 and a summary", len(res.Findings))
	}
	for i, f := range res.Findings[:10] {
		if f.Location.Line != 2*(i+1) {
			t.Errorf("finding %d at line %d, want %d", i, f.Location.Line, 2*(i+1))
		}
	}
	if s := res.Findings[10]; s.Location.Line != 22 || !strings.HasPrefix(s.Message, "… and 115 more like this") {
		t.Errorf("summary at line %d: %q; want line 22, 115 more", s.Location.Line, s.Message)
	}
}

// TestOnFindingKeepsNothing: with OnFinding the findings are handed over
// in transcript order as they are found, those known only at the end
// last, and the Result keeps none of them.
func TestOnFindingKeepsNothing(t *testing.T) {
	prompt := `{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}`
	input := prompt + "\n" + repeatLines(orphanResponse, 3) + `{"jsonrpc":"2.0","method":"x/unknown"}` + "\n"
	var got []string
	res := lintString(t, input, Options{OnFinding: func(f findings.ValidationFinding) {
		got = append(got, fmt.Sprintf("%d %s", f.Location.Line, f.RuleID))
	}})
	if res.Findings != nil {
		t.Errorf("Result holds %d findings; want none with OnFinding", len(res.Findings))
	}
	lastLine := 0
	for i, g := range got {
		var line int
		fmt.Sscan(g, &line)
		if i < len(got)-1 && line < lastLine {
			t.Errorf("finding %q after line %d: not in transcript order: %q", g, lastLine, got)
		}
		lastLine = line
	}
	// The unanswered prompt (line 1) is known only at the end.
	if want := "1 " + findings.RPCUnanswered.ID; len(got) == 0 || got[len(got)-1] != want {
		t.Errorf("findings %q; want %q last", got, want)
	}
}

// countingReader counts what was read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestPanicIsOneFinding: a panic while linting a line, in the machine's
// goroutine (a rule) or in a read-ahead worker (the decoder, parsing or
// typing, which it does after parsing the whole batch), becomes one
// ACP-LINT-003 naming the line and the panic value, quoted; linting stops
// there and the rest of the input is read, so a writer is not blocked.
// At GOMAXPROCS=1 fewer batches circulate (soloBatchesInFlight), and the
// drain after a panic must still get every batch it needs.
func TestPanicIsOneFinding(t *testing.T) {
	for _, procs := range []int{1, 2} {
		for _, hook := range []struct {
			name string
			set  *func(int)
		}{{"rule", &testHookFrame}, {"decoder", &testHookDecode}, {"typing", &testHookType}} {
			for _, live := range []bool{false, true} {
				t.Run(fmt.Sprintf("procs=%d/%s/live=%v", procs, hook.name, live), func(t *testing.T) {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
					*hook.set = func(line int) {
						if line == 150 {
							panic("boom\x1b[31m\n")
						}
					}
					defer func() { *hook.set = nil }()
					input := repeatLines(orphanResponse, 1000)
					in := &countingReader{r: strings.NewReader(input)}
					var fs []findings.ValidationFinding
					opts := Options{Format: transcript.FormatNDJSON, File: "t", MaxPerRule: -1}
					if live {
						opts.OnFinding = func(f findings.ValidationFinding) { fs = append(fs, f) }
					}
					res, err := Transcript(in, opts)
					if err != nil {
						t.Fatal(err)
					}
					if !live {
						fs = res.Findings
					}
					if in.n != len(input) {
						t.Errorf("read %d of %d bytes after the panic; want the input drained", in.n, len(input))
					}
					var internal []findings.ValidationFinding
					for _, f := range fs {
						if f.RuleID == findings.LINTInternal.ID {
							internal = append(internal, f)
						} else if f.Location.Line >= 150 {
							t.Errorf("finding at line %d after the panic at line 150: %s", f.Location.Line, f.Message)
						}
					}
					if len(internal) != 1 {
						t.Fatalf("%d ACP-LINT-003 findings, want 1: %v", len(internal), internal)
					}
					f := internal[0]
					if f.Location.Line != 150 || !strings.Contains(f.Message, "line 150") || !strings.Contains(f.Message, `"boom\x1b[31m\n"`) {
						t.Errorf("ACP-LINT-003 at line %d: %q; want line 150 and the quoted panic value", f.Location.Line, f.Message)
					}
					if f.Severity != findings.SeverityError {
						t.Errorf("ACP-LINT-003 is %s, want error", f.Severity)
					}
					if n := len(fs) - 1; n != 149 {
						t.Errorf("%d findings before the panic, want one per line before it (149)", n)
					}
				})
			}
		}
	}
}

// TestFindingColumn: a finding whose pointer names a member of a raw
// NDJSON line gets the 1-based byte column of the member's name, for
// editors; one in a wrapped (jsonl) record gets none.
func TestFindingColumn(t *testing.T) {
	raw := `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/x"}}` + "\n"
	res, err := Transcript(strings.NewReader(raw), Options{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range res.Findings {
		if f.RuleID != findings.SESMissingMcpServers.ID {
			continue
		}
		found = true
		if want := strings.Index(raw, `"params"`) + 1; f.Location.Column != want {
			t.Errorf("%s at %s: column %d, want %d (the missing member's object)", f.RuleID, f.Location.Pointer, f.Location.Column, want)
		}
	}
	if !found {
		t.Fatalf("no %s in %v", findings.SESMissingMcpServers.ID, res.Findings)
	}
	wrapped := `{"ts":1,"dir":"client","msg":` + strings.TrimSpace(raw) + "}\n"
	res, err = Transcript(strings.NewReader(wrapped), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		if f.Location.Column != 0 {
			t.Errorf("jsonl: %s has column %d, want none", f.RuleID, f.Location.Column)
		}
	}
}

// TestFindingColumnsMatchAFreshParse: the columns lint reads from the
// decoder's parse of a line are those a parse of the line's own bytes
// gives, on lines with several findings, white space, escapes, a batch, a
// byte order mark (whose line the decoder parsed without it) and CRLF.
func TestFindingColumnsMatchAFreshParse(t *testing.T) {
	lines := []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{},"extra":1},"x":2}`,
		`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/x\"y\\z"}}`,
		`{ "jsonrpc" : "2.0" , "id" : 2 , "method" : "session/new" , "params" : { "cwd" : "rel" , "mcpServers" : [ { "name" : 1 } ] } }`,
		`[{"jsonrpc":"2.0","id":3,"method":"session/new","params":{}},{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":7}}]`,
		"\ufeff" + `{"jsonrpc":"2.0","id":4,"method":"session/new","params":{"cwd":"/x"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"session/new","params":{"cwd":"/x","é":"\u00e9"}}` + "\r",
	}
	raw := strings.Join(lines, "\n") + "\n"
	res, err := Transcript(strings.NewReader(raw), Options{Format: transcript.FormatNDJSON, MaxPerRule: -1})
	if err != nil {
		t.Fatal(err)
	}
	columns := 0
	for _, f := range res.Findings {
		if f.Location.Pointer == "" || f.Location.Line < 1 || f.Location.Line > len(lines) {
			continue
		}
		line := strings.TrimSuffix(lines[f.Location.Line-1], "\r")
		want := 0
		if at, ok := jsonv.Offset([]byte(line), f.Location.Pointer); ok {
			want = at + 1
		}
		if f.Location.Column != want {
			t.Errorf("line %d: %s at %s: column %d, want %d", f.Location.Line, f.RuleID, f.Location.Pointer, f.Location.Column, want)
		}
		if want > 0 {
			columns++
		}
	}
	if columns < 6 {
		t.Errorf("%d findings with a column; the lines should give more: %v", columns, res.Findings)
	}
}
