package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acplint/acplint/internal/proctest"
)

// acplintProcess returns a command that runs acplint with args in a
// process of its own, limited to memKiB of address space: the test binary,
// run under the name "acplint", which testscript.Main (see TestMain)
// dispatches to run.
func acplintProcess(t *testing.T, ctx context.Context, memKiB int, args ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "acplint")
	if err := os.Symlink(self, bin); err != nil {
		t.Fatal(err)
	}
	script := `ulimit -v ` + strconv.Itoa(memKiB) + ` && exec "$0" "$@"`
	cmd := exec.CommandContext(ctx, "sh", append([]string{"-c", script, bin}, args...)...)
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// TestCorpusReadsOnlyRegularFilesInsideDir: links out of DIR (to /dev/zero,
// to a transcript elsewhere) and a FIFO named like a transcript are skipped
// with a note, not read; corpus neither hangs nor grows.
func TestCorpusReadsOnlyRegularFilesInsideDir(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "corpus")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	transcript, err := os.ReadFile("../../schemadiff/testdata/corpus/client-stable-session.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "good.ndjson"), transcript, 0o600); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(root, "outside.ndjson")
	if err := os.WriteFile(outside, transcript, 0o600); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"zero.ndjson": "/dev/zero", "outside.ndjson": outside} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.ndjson"), 0o600); err != nil {
		t.Fatal(err)
	}
	schema := "../../schemadiff/testdata/npm/1.0.0/schema/schema.json"

	stdout, stderr, code := corpusProcess(t, dir, "--against", schema, "--schema", schema)
	if code != exitClean || !strings.Contains(stdout, "0 of 1 transcripts change") {
		t.Errorf("exit %d, want %d with only good.ndjson linted; stdout:\n%s\nstderr:\n%s", code, exitClean, stdout, stderr)
	}
	for _, name := range []string{"zero.ndjson: a symbolic link", "outside.ndjson: a symbolic link", "fifo.ndjson: not a regular file"} {
		if !strings.Contains(stderr, name) {
			t.Errorf("stderr does not note %q:\n%s", name, stderr)
		}
	}

	// Named on its own, the FIFO is an error (corpus reads each file
	// twice), not a wait for a writer.
	_, stderr, code = corpusProcess(t, filepath.Join(dir, "fifo.ndjson"), "--against", schema, "--schema", schema)
	if code != exitUsage || !strings.Contains(stderr, "not a regular file") {
		t.Errorf("corpus FIFO: exit %d, want %d; stderr:\n%s", code, exitUsage, stderr)
	}

	// DIR itself may be a link.
	linked := filepath.Join(root, "linked")
	if err := os.Symlink(dir, linked); err != nil {
		t.Fatal(err)
	}
	stdout, _, code = corpusProcess(t, linked, "--against", schema, "--schema", schema)
	if code != exitClean || !strings.Contains(stdout, "0 of 1 transcripts change") {
		t.Errorf("corpus through a linked DIR: exit %d; stdout:\n%s", code, stdout)
	}
}

// corpusProcess runs acplint corpus ARGS in a process of its own, bounded
// in time and address space, and returns its output and exit code; it
// fails the test when the process used more than 256 MiB.
func corpusProcess(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := acplintProcess(t, ctx, 4<<20, append([]string{"corpus"}, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	peak := proctest.WatchPeak(cmd.Process.Pid)
	err := cmd.Wait()
	if ctx.Err() != nil {
		t.Fatalf("corpus %q did not finish in 60 s (killed); stderr:\n%s", args, errOut.String())
	}
	var exited *exec.ExitError
	if err != nil && !errors.As(err, &exited) {
		t.Fatalf("corpus: %v", err)
	}
	maxRSS := peak()
	t.Logf("corpus %q: peak RSS %d KiB", args, maxRSS)
	if maxRSS > 256<<10 && !proctest.RaceEnabled {
		t.Errorf("peak RSS %d KiB, want under 256 MiB", maxRSS)
	}
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

// TestWriteBaselineIsOwnerOnlyAndReplacesALink: the baseline may quote
// secrets from the traffic, and a link planted at its path must not make
// acplint overwrite the link's target.
func TestWriteBaselineIsOwnerOnlyAndReplacesALink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	baseline := filepath.Join(dir, "baseline.json")
	if err := os.Symlink(target, baseline); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"lint", "--write-baseline", baseline, "../../examples/session-without-mcp-servers.ndjson"},
		strings.NewReader(""), io.Discard, &stderr)
	if code == exitUsage {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if b, _ := os.ReadFile(target); string(b) != "keep me" {
		t.Errorf("the link's target was overwritten: %q", b)
	}
	info, err := os.Lstat(baseline)
	if err != nil {
		t.Fatal(err)
	}
	if !info.Mode().IsRegular() || info.Mode().Perm() != 0o600 {
		t.Errorf("baseline mode %v, want a regular file, 0600", info.Mode())
	}
}
