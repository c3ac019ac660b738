package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
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

// TestTapHTML: tap --html writes the page of the session when the
// connection ends, owner-only, with the live findings, and --redact keeps
// the secret out of it as out of the recording.
func TestTapHTML(t *testing.T) {
	t.Setenv("ACPLINT_FIXTURE_AGENT", "1")
	dir := t.TempDir()
	rec, page := filepath.Join(dir, "rec.jsonl"), filepath.Join(dir, "session.html")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"tap", "--redact", "--record", rec, "--html", page, "--lint-out", filepath.Join(dir, "live.txt"), "--", os.Args[0]},
		strings.NewReader(tapClient), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("tap exit code %d; stderr:\n%s", code, stderr.String())
	}
	st, err := os.Stat(page)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("the page is %v, want 0600", st.Mode().Perm())
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`["F","` + rec + `"]`, `"ACP-TURN-001"`, `"method":"session/prompt"`, "secrets redacted", "</html>\n"} {
		if !strings.Contains(string(html), strings.ReplaceAll(want, `"method":"session/prompt"`, `\"method\":\"session/prompt\"`)) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// Frames carry the recording's times.
	if !regexp.MustCompile(`\["M",\d+,"c","req","initialize","0","","","\d{4}-\d\d-\d\dT`).Match(html) {
		t.Error("the page's initialize row has no time")
	}
	if strings.Contains(string(html), "ghp_supersecret") {
		t.Error("--redact left the secret in the page")
	}

	code = run(context.Background(), []string{"tap", "--no-lint", "--html", page, "--", os.Args[0]}, strings.NewReader(""), &stdout, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), "--no-lint") {
		t.Errorf("--html with --no-lint: exit %d, stderr %q", code, stderr.String())
	}
}
