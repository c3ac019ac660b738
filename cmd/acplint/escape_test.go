package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// A method name is the peer's to choose. tap's live findings quote it, and
// they go to a terminal or a CI log: each must stay one line, with no
// control character and nothing a GitHub runner reads as a workflow
// command (findings.Escape).
func TestTapLiveOutputEscapesUntrustedText(t *testing.T) {
	t.Setenv("ACPLINT_FIXTURE_AGENT", "1")
	live := filepath.Join(t.TempDir(), "live.txt")
	hostile := `{"jsonrpc":"2.0","id":9,"method":"x\u001b[2J\n::error file=a,line=1::pwned\r\u0000\u2028##[error]v1","params":{}}` + "\n"
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"tap", "--lint-out", live, "--", os.Args[0]},
		strings.NewReader(tapClient+hostile), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("tap exit code %d; stderr:\n%s", code, stderr.String())
	}
	out, err := os.ReadFile(live)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte(`x\x1b[2J\n::error`)) {
		t.Fatalf("no finding quotes the method name, escaped:\n%s", out)
	}
	checkLinesSafe(t, string(out))
}

// corpus walks a directory whose file names are whoever wrote them: a
// name with a newline and a workflow command is printed escaped.
func TestCorpusTextEscapesFileNames(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "corpus")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	transcript, err := os.ReadFile("../../schemadiff/testdata/corpus/client-providers.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	name := "x\x1b[2J\n::error file=a::pwned\r##[error]v1.ndjson"
	if err := os.WriteFile(filepath.Join(dir, name), transcript, 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"corpus", dir,
		"--against", "../../schemadiff/testdata/npm/1.0.0/schema/schema.json",
		"--schema", "../../internal/reference/acp-schema.unstable.json"}, strings.NewReader(""), &stdout, &stderr)
	if code != exitFindings {
		t.Fatalf("corpus exit code %d, want %d; stderr:\n%s", code, exitFindings, stderr.String())
	}
	out := stdout.String()
	if !strings.Contains(out, `x\x1b[2J\n::error file=a::pwned\r##\x5berror]v1.ndjson:`) {
		t.Fatalf("the file name is not shown escaped:\n%s", out)
	}
	checkLinesSafe(t, out)
}

// checkLinesSafe asserts that no line of out holds a control character
// but a leading tab, or reads as a GitHub workflow command.
func checkLinesSafe(t *testing.T, out string) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		for i, r := range line {
			if (r < 0x20 && !(r == '\t' && i == 0)) || r == 0x7f || r == 0x2028 {
				t.Errorf("character %U in %q", r, line)
			}
		}
		if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") || strings.Contains(line, "##[") {
			t.Errorf("line reads as a workflow command: %q", line)
		}
	}
}
