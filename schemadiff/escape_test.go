package schemadiff

import (
	"bytes"
	"strings"
	"testing"
	"unicode"

	"github.com/acplint/acplint/findings"
)

// A schema file may come with the pull request that is being gated, so its
// member names are untrusted: the text report escapes them
// (findings.Escape) and keeps every change on its own lines.
func TestWriteTextEscapesSchemaNames(t *testing.T) {
	o, n := base(), base()
	const hostile = "x\x1b[2J\n::error file=a::pwned\r\u2028##[error]v1"
	at(n, "$defs/NewSessionRequest/properties")[hostile] = map[string]any{"type": "string"}
	at(n, "$defs/NewSessionRequest")["required"] = []any{"cwd", "mcpServers", hostile}
	res := Diff(load(t, "old.json", o), load(t, "new\n::warning::file.json", n))
	all := res.Filter(findings.SeverityInfo, nil)
	var buf bytes.Buffer
	if err := WriteText(&buf, res, all, all, []Surface{Stable, Unstable}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, `x\x1b[2J\n::error file=a::pwned\r\u2028##\x5berror]v1`) {
		t.Fatalf("the member name is not shown escaped:\n%s", out)
	}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		for i, r := range line {
			if (r < 0x20 && !(r == '\t' && i == 0)) || r == 0x2028 {
				t.Errorf("character %U in %q", r, line)
			}
		}
		if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") || strings.Contains(line, "##[") {
			t.Errorf("line reads as a workflow command: %q", line)
		}
	}
}
