package safefile

import (
	"bufio"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary act as a second acplint process that holds
// a file open through Create (see holdInChild).
func TestMain(m *testing.M) {
	if path := os.Getenv("SAFEFILE_HOLD"); path != "" {
		f, err := Create(path)
		if err != nil {
			os.Stdout.WriteString("error: " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString("ready\n")
		io.Copy(io.Discard, os.Stdin) // hold until the parent closes stdin
		f.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func skipWithoutUnix(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("needs O_NOFOLLOW and flock")
	}
}

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	info, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Mode()
}

// plantLink makes a directory holding a file "target" with "keep me" in
// it and a symbolic link called linkName to it, as an attacker would
// plant one where acplint is told to write.
func plantLink(t *testing.T, linkName string) (dir, target, link string) {
	t.Helper()
	dir = t.TempDir()
	target = filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	link = filepath.Join(dir, linkName)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	return dir, target, link
}

// openBounded calls open(path), closes what it opened and returns its
// error; the test fails at once if open blocks (a FIFO with no other end).
func openBounded(t *testing.T, open func(string) (*os.File, error), path string) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		f, err := open(path)
		if f != nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatalf("opening %s hangs", path)
		return nil
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCreateIsOwnerOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if m := mode(t, path); m.Perm() != Perm {
		t.Errorf("mode %v, want %v", m.Perm(), Perm)
	}
}

func TestCreateRefusesAnExistingPath(t *testing.T) {
	skipWithoutUnix(t)
	dir, target, link := plantLink(t, "link")
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), dangling); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{target, link, dangling} {
		f, err := Create(path)
		if err == nil {
			f.Close()
			t.Errorf("Create(%s) succeeded", path)
			continue
		}
		if !errors.Is(err, ErrExists) || !errors.Is(err, fs.ErrExist) {
			t.Errorf("Create(%s): %v, want ErrExists", path, err)
		}
		if got := err.Error(); got[:len(path)] != path {
			t.Errorf("error does not start with the path: %s", got)
		}
	}
	if got := readString(t, target); got != "keep me" {
		t.Errorf("target of the link was written: %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "nowhere")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("dangling link was followed and its target created (%v)", err)
	}
}

func TestSecondCreateOfOnePathFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	first, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if second, err := Create(path); !errors.Is(err, ErrExists) {
		if second != nil {
			second.Close()
		}
		t.Fatalf("second Create: %v, want ErrExists", err)
	}
}

func TestOverwriteTruncatesARegularFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	if err := os.WriteFile(path, []byte("old content"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Overwrite(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("new"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, path); got != "new" {
		t.Errorf("content %q, want %q", got, "new")
	}
	if m := mode(t, path); m.Perm() != Perm {
		t.Errorf("mode %v, want %v", m.Perm(), Perm)
	}
}

func TestOverwriteRefusesLinksAndSpecialFiles(t *testing.T) {
	skipWithoutUnix(t)
	dir, target, link := plantLink(t, "link")
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// Nobody reads this one: a blocking open for writing would wait for
	// ever.
	lonelyFIFO := filepath.Join(dir, "lonely")
	if err := syscall.Mkfifo(lonelyFIFO, 0o600); err != nil {
		t.Fatal(err)
	}
	// Hold the FIFO open for reading, so that a blocking open for writing
	// would succeed and the regular-file check is what refuses it.
	reader, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	for _, path := range []string{link, fifo, lonelyFIFO, dir} {
		if err := openBounded(t, Overwrite, path); err == nil {
			t.Errorf("Overwrite(%s) succeeded", path)
		} else {
			t.Logf("Overwrite(%s): %v", path, err)
		}
	}
	if got := readString(t, target); got != "keep me" {
		t.Errorf("target of the link was written: %q", got)
	}
}

// TestOverwriteRefusesAFileAnotherProcessWrites: a second tap given the
// same --record path with --force must not truncate the first one's
// recording.
func TestOverwriteRefusesAFileAnotherProcessWrites(t *testing.T) {
	skipWithoutUnix(t)
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	child := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), "SAFEFILE_HOLD="+path)
	stdin, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Wait()
	defer stdin.Close()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "ready\n" {
		t.Fatalf("child: %q %v", line, err)
	}
	if err := os.WriteFile(path, []byte("the child's recording"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Overwrite(path)
	if err == nil {
		f.Close()
		t.Fatal("Overwrite of a file another process holds succeeded")
	}
	if !errors.Is(err, ErrInUse) {
		t.Errorf("Overwrite: %v, want ErrInUse", err)
	}
	if got := readString(t, path); got != "the child's recording" {
		t.Errorf("the other process's file was truncated: %q", got)
	}
}

func TestReplaceIsAtomicAndOwnerOnly(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "baseline.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, path); got != "new" {
		t.Errorf("content %q", got)
	}
	if m := mode(t, path); m.Perm() != Perm {
		t.Errorf("mode %v, want %v", m.Perm(), Perm)
	}

	failure := errors.New("disk full")
	err := Replace(path, func(w io.Writer) error {
		io.WriteString(w, "half of the new")
		return failure
	})
	if !errors.Is(err, failure) {
		t.Errorf("Replace: %v, want the writer's error", err)
	}
	if got := readString(t, path); got != "new" {
		t.Errorf("a failed Replace changed the file: %q", got)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestReplaceDoesNotWriteThroughALink(t *testing.T) {
	skipWithoutUnix(t)
	_, target, link := plantLink(t, "out.json")
	if err := WriteFile(link, []byte("report")); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, target); got != "keep me" {
		t.Errorf("target of the link was written: %q", got)
	}
	if m := mode(t, link); !m.IsRegular() || readString(t, link) != "report" {
		t.Errorf("the link was not replaced by the report (mode %v)", m)
	}
}

// TestOpenRegularRefusesWhatIsNotAFile: a reader that walks a directory
// must not follow a link out of it, read /dev/zero for ever or wait on a
// FIFO nobody writes.
func TestOpenRegularRefusesWhatIsNotAFile(t *testing.T) {
	skipWithoutUnix(t)
	dir, target, link := plantLink(t, "link.ndjson")
	fifo := filepath.Join(dir, "fifo.ndjson")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.ndjson")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{link, fifo, zero, "/dev/zero", dir} {
		if err := openBounded(t, OpenRegular, path); err == nil {
			t.Errorf("OpenRegular(%s) succeeded", path)
		}
	}
	f, err := OpenRegular(target)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if b, err := io.ReadAll(f); err != nil || string(b) != "keep me" {
		t.Errorf("reading a regular file: %q, %v", b, err)
	}
}
