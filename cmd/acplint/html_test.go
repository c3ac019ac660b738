package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acplint/acplint/internal/proctest"
	"github.com/acplint/acplint/internal/transcriptgen"
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

// TestLintHTMLMemoryDoesNotGrowWithTheTranscript: the page is written as
// lint reads (issue 18), so a 100 MB transcript does not make lint -f html
// hold 100 MB: its peak resident memory is measured next to plain lint's
// on the same generated traffic (with an orphan response, and so a
// finding, every 1000 lines). ACPLINT_MEMTEST_MB sets the size.
func TestLintHTMLMemoryDoesNotGrowWithTheTranscript(t *testing.T) {
	if testing.Short() {
		t.Skip("lints a 100 MB transcript twice")
	}
	mb := 100
	if proctest.RaceEnabled {
		// The peak is not bounded under the race detector (it multiplies
		// memory), and the race-enabled child lints ten times slower: 10
		// MB still has the page hold a row for every line. .ci/run's
		// memory step runs the 100 MB without -race and bounds the peak.
		mb = 10
	}
	if s := os.Getenv("ACPLINT_MEMTEST_MB"); s != "" {
		var err error
		if mb, err = strconv.Atoi(s); err != nil {
			t.Fatalf("ACPLINT_MEMTEST_MB: %v", err)
		}
	}
	const limitKiB = 150 << 10
	peak := map[string]int64{}
	for _, format := range []string{"text", "html"} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := acplintProcess(t, ctx, 4<<20, "lint", "-f", format, "-")
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		rows := &countingWriter{pattern: []byte(`["M",`)}
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = rows, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		watch := proctest.WatchPeak(cmd.Process.Pid)
		lines := make(chan int, 1)
		go func() {
			w := &orphanEvery{w: bufio.NewWriterSize(stdin, 1<<20), every: 1000}
			transcriptgen.Write(w, transcriptgen.Options{Seed: 1, Bytes: int64(mb) << 20})
			w.w.Flush()
			stdin.Close()
			lines <- w.lines
		}()
		err = cmd.Wait()
		var exited *exec.ExitError
		if err != nil && !errors.As(err, &exited) {
			t.Fatalf("acplint lint -f %s: %v; stderr:\n%s", format, err, stderr.String())
		}
		n := <-lines
		peak[format] = watch()
		if code := cmd.ProcessState.ExitCode(); code != exitFindings {
			t.Errorf("-f %s: exit %d, want %d; stderr:\n%s", format, code, exitFindings, stderr.String())
		}
		if format == "html" && rows.n != n {
			t.Errorf("the page has %d rows, the transcript %d lines", rows.n, n)
		}
	}
	t.Logf("%d MB transcript: peak RSS %d KiB with -f text, %d KiB with -f html", mb, peak["text"], peak["html"])
	if peak["html"] > limitKiB && !proctest.RaceEnabled {
		t.Errorf("-f html: peak RSS %d KiB, want at most %d KiB (150 MiB)", peak["html"], limitKiB)
	}
}

// orphanEvery passes lines through to w, adding an orphan response after
// every every-th line, and counts the lines it writes.
type orphanEvery struct {
	w                       *bufio.Writer
	every, generated, lines int
}

func (o *orphanEvery) Write(p []byte) (int, error) {
	for rest := p; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			o.w.Write(rest)
			break
		}
		o.w.Write(rest[:i+1])
		rest = rest[i+1:]
		o.generated++
		o.lines++
		if o.generated%o.every == 0 {
			fmt.Fprintf(o.w, `{"jsonrpc":"2.0","id":"orphan-%d","result":{}}`+"\n", o.generated)
			o.lines++
		}
	}
	return len(p), nil
}
