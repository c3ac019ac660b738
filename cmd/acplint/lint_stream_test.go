package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/internal/proctest"
)

// orphanResponseLine gives exactly one finding (ACP-RPC-003, "response id
// 1 matches no pending request …") on every line.
const orphanResponseLine = `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"

// countingWriter counts the occurrences of pattern in what is written to
// it, across writes, without keeping the output.
type countingWriter struct {
	pattern []byte
	tail    []byte // the last len(pattern)-1 bytes seen
	n       int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	buf := append(c.tail, p...)
	c.n += bytes.Count(buf, c.pattern)
	keep := min(len(buf), len(c.pattern)-1)
	c.tail = append(c.tail[:0], buf[len(buf)-keep:]...)
	return len(p), nil
}

// TestLintMemoryDoesNotGrowWithFindings: findings are streamed to the
// report in every format, so lint's peak memory does not depend on how
// many there are (issue 13: 2 M of them took 2.6 GB, 6 GB as SARIF). The
// input is generated into the child's stdin as it reads it. The default
// is 200 000 lines (before streaming: 260 MB); ACPLINT_MEMTEST_LINES=2000000
// runs the case.
func TestLintMemoryDoesNotGrowWithFindings(t *testing.T) {
	if testing.Short() {
		t.Skip("runs acplint over 200 000 lines per format")
	}
	lines := 200_000
	if proctest.RaceEnabled {
		// The peak is not bounded under the race detector (it multiplies
		// memory), and the race-enabled child lints ten times slower:
		// 20 000 lines still prove one finding a line in every format.
		// .ci/run's memory step runs the 200 000 without -race and bounds
		// the peak.
		lines = 20_000
	}
	if s := os.Getenv("ACPLINT_MEMTEST_LINES"); s != "" {
		var err error
		if lines, err = strconv.Atoi(s); err != nil {
			t.Fatalf("ACPLINT_MEMTEST_LINES: %v", err)
		}
	}
	const limitKiB = 150 << 10
	// What each finding prints once in each format.
	onePerFinding := map[findings.Format]string{
		findings.FormatText:   "(ACP-RPC-003)\n",
		findings.FormatJSON:   `"rule":"ACP-RPC-003"`,
		findings.FormatSARIF:  `"ruleId": "ACP-RPC-003"`,
		findings.FormatGitHub: "title=ACP-RPC-003::",
		findings.FormatJUnit:  `name="ACP-RPC-003 line `,
	}
	for _, format := range findings.Formats() {
		t.Run(string(format), func(t *testing.T) {
			count, rss, code := lintGenerated(t, lines, onePerFinding[format], "--max-per-rule", "0", "-f", string(format), "-")
			t.Logf("%d lines, %s: peak RSS %d KiB", lines, format, rss)
			if count != lines {
				t.Errorf("%d findings reported, want one per line (%d)", count, lines)
			}
			if code != exitFindings {
				t.Errorf("exit %d, want %d", code, exitFindings)
			}
			if rss > limitKiB && !proctest.RaceEnabled {
				t.Errorf("peak RSS %d KiB, want at most %d KiB (150 MiB)", rss, limitKiB)
			}
		})
	}
}

// lintGenerated runs acplint lint args in a process of its own, with lines
// orphan responses on its stdin, and returns how many findings it reported
// (occurrences of pattern in its output), its peak RSS in KiB and its
// exit code.
func lintGenerated(t *testing.T, lines int, pattern string, args ...string) (count int, rssKiB int64, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// The address-space cap keeps a regression from taking the machine.
	cmd := acplintProcess(t, ctx, 4<<20, append([]string{"lint"}, args...)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out := &countingWriter{pattern: []byte(pattern)}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = out, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	peak := proctest.WatchPeak(cmd.Process.Pid)
	go func() {
		w := bufio.NewWriterSize(stdin, 64<<10)
		for range lines {
			if _, err := w.WriteString(orphanResponseLine); err != nil {
				break
			}
		}
		w.Flush()
		stdin.Close()
	}()
	err = cmd.Wait()
	if ctx.Err() != nil {
		t.Fatalf("acplint lint did not finish in time; stderr:\n%s", stderr.String())
	}
	var exited *exec.ExitError
	if err != nil && !errors.As(err, &exited) {
		t.Fatalf("acplint lint: %v; stderr:\n%s", err, stderr.String())
	}
	return out.n, peak(), cmd.ProcessState.ExitCode()
}

// TestLintCapsFindingsPerRule: by default a rule reports 100 findings per
// file and one more that counts the rest, as severe as they are, so the
// exit code still reflects them.
func TestLintCapsFindingsPerRule(t *testing.T) {
	count, _, code := lintGenerated(t, 5000, "(ACP-RPC-003)\n", "-")
	if count != 101 {
		t.Errorf("%d findings, want 100 and one summary", count)
	}
	if code != exitFindings {
		t.Errorf("exit %d, want %d", code, exitFindings)
	}
	var stdout, stderr bytes.Buffer
	input := strings.NewReader(strings.Repeat(orphanResponseLine, 50))
	code = run(context.Background(), []string{"lint", "--max-per-rule", "10", "-"}, input, &stdout, &stderr)
	want := "-:11:18: error: [either] … and 40 more like this"
	if code != exitFindings || !strings.Contains(stdout.String(), want) {
		t.Errorf("exit %d, want %d and a line starting %q; stdout:\n%s\nstderr:\n%s", code, exitFindings, want, stdout.String(), stderr.String())
	}
}

// TestLintJUnitListsEachFileOnce: a file with findings has one suite with
// its findings (the mark that lists clean files does not open a second,
// clean one), and a clean file has its clean suite, in the order given.
func TestLintJUnitListsEachFileOnce(t *testing.T) {
	dir := t.TempDir()
	noisy := filepath.Join(dir, "noisy.ndjson")
	clean := filepath.Join(dir, "clean.ndjson")
	if err := os.WriteFile(noisy, []byte(strings.Repeat(orphanResponseLine, 3)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(clean, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"lint", "-f", "junit", noisy, clean}, strings.NewReader(""), &stdout, &stderr)
	if code != exitFindings {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	var doc struct {
		Tests  int `xml:"tests,attr"`
		Suites []struct {
			Name  string `xml:"name,attr"`
			Tests int    `xml:"tests,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if len(doc.Suites) != 2 || doc.Suites[0].Name != noisy || doc.Suites[0].Tests != 3 || doc.Suites[1].Name != clean || doc.Suites[1].Tests != 1 || doc.Tests != 4 {
		t.Errorf("want suites %s (3 tests) and %s (1, clean):\n%s", noisy, clean, stdout.String())
	}
}

// TestLintReportWriteErrorIsExit2: a report that cannot be written is an
// error, not a clean run.
func TestLintReportWriteErrorIsExit2(t *testing.T) {
	var stderr bytes.Buffer
	input := strings.NewReader(strings.Repeat(orphanResponseLine, 10))
	code := run(context.Background(), []string{"lint", "-"}, input, failingWriter{}, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), "writing the report") {
		t.Errorf("exit %d, stderr %q; want %d and the write error", code, stderr.String(), exitUsage)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, io.ErrShortWrite }
