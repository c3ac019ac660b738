package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLintHTML: -f html writes one page for all the files, with their
// messages and findings, keeps lint's exit codes, and names on the page a
// file it could not read.
func TestLintHTML(t *testing.T) {
	dir := t.TempDir()
	noisy := filepath.Join(dir, "noisy.ndjson")
	if err := os.WriteFile(noisy, []byte(strings.Repeat(orphanResponseLine, 3)), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.ndjson")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"lint", "-f", "html", noisy, missing}, strings.NewReader(""), &stdout, &stderr)
	if code != exitUsage {
		t.Errorf("exit %d, want %d (a file could not be read)", code, exitUsage)
	}
	page := stdout.String()
	for _, want := range []string{
		"<!DOCTYPE html>",
		`<title>` + noisy + ` and 1 more · acplint report</title>`,
		`["F","` + noisy + `"]`,
		`["M",3,"?","res","","1","","","",`,
		`["R","error","ACP-RPC-003","either",3,`,
		`["F","` + missing + `"]`,
		"</html>\n",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if !strings.Contains(page, "no such file") {
		t.Error("the page does not say the missing file could not be read")
	}

	stdout.Reset()
	code = run(context.Background(), []string{"lint", "-f", "html", noisy}, strings.NewReader(""), &stdout, &stderr)
	if code != exitFindings {
		t.Errorf("exit %d, want %d", code, exitFindings)
	}
}

// TestLintRedactNeedsHTML: --redact changes only what a page embeds; with
// another format it would promise what it does not do.
func TestLintRedactNeedsHTML(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"lint", "--redact", "-"}, strings.NewReader(""), &stdout, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), "--redact is for -f html") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}
