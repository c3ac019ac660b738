package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/tap"
	"github.com/acplint/acplint/transcript"
)

// TestLiveFramesRoundTrip: what the tap writes to its live linter process
// is read back as the frames it was given, lines (empty, with a "\r",
// longer than a chunk, many small ones across chunks) and gaps alike, in
// batches of what has come, each frame's bytes its own; the end between
// frames is io.EOF, inside one an error, and a line longer than the tap
// keeps is refused.
func TestLiveFramesRoundTrip(t *testing.T) {
	frames := []transcript.Frame{
		{From: domain.FromClient, T: 5, Conn: 1, Data: []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize"}`)},
		{From: domain.FromAgent, T: 6, Conn: 1, Data: []byte{}},
		{From: domain.FromAgent, T: 7, Conn: 1, Data: []byte("line\r")},
		{T: 8, Conn: 1, Lost: &transcript.Lost{Frames: 3, Bytes: 1 << 40, Reason: "the live linter fell behind"}},
		{From: domain.FromClient, T: 9, Conn: 2, Data: bytes.Repeat([]byte("x"), liveChunk)},
	}
	for i := range 3000 {
		frames = append(frames, transcript.Frame{From: domain.FromAgent, T: time.Duration(10 + i), Conn: 1, Data: bytes.Repeat([]byte{byte('a' + i%26)}, 1+i%97)})
	}
	var wire bytes.Buffer
	for _, fr := range frames {
		wire.Write(appendLiveFrame(nil, fr))
		if fr.Lost == nil {
			wire.Write(fr.Data)
		}
	}
	r := &liveFrameReader{br: bufio.NewReaderSize(bytes.NewReader(wire.Bytes()), 4096), maxLine: liveChunk}
	var got []transcript.Frame
	for {
		b, err := r.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(b) == 0 || len(b) > liveBatch {
			t.Fatalf("a batch of %d frames", len(b))
		}
		for _, fr := range b {
			if fr.Data != nil {
				// A frame's bytes are its own: appending to them must not
				// reach the next frame's.
				fr.Data = append(fr.Data[:len(fr.Data):len(fr.Data)], '!')[:len(fr.Data)]
			}
			got = append(got, fr)
		}
	}
	if len(got) != len(frames) {
		t.Fatalf("read %d frames, wrote %d", len(got), len(frames))
	}
	for i, want := range frames {
		g := got[i]
		if g.From != want.From || g.T != want.T || g.Conn != want.Conn || !bytes.Equal(g.Data, want.Data) || (g.Lost == nil) != (want.Lost == nil) || (g.Lost != nil && *g.Lost != *want.Lost) {
			t.Fatalf("frame %d: got %+v, want %+v", i, g, want)
		}
	}

	first := len(appendLiveFrame(nil, frames[0])) + len(frames[0].Data)
	cut := &liveFrameReader{br: bufio.NewReader(bytes.NewReader(wire.Bytes()[:first+3])), maxLine: liveChunk}
	if _, err := cut.next(); err != nil {
		t.Fatalf("the first, whole frame: %v", err)
	}
	if _, err := cut.next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("input cut inside a frame: %v, want io.ErrUnexpectedEOF", err)
	}
	short := &liveFrameReader{br: bufio.NewReader(bytes.NewReader(wire.Bytes())), maxLine: 10}
	if _, err := short.next(); !errors.Is(err, errBadLiveFrame) {
		t.Errorf("a line longer than maxLine: %v, want errBadLiveFrame", err)
	}
}

// tapWithLiveLinter runs the fixture's session through `acplint tap`, in
// this process, with the live linter command argv (nil: the default; an
// empty one: none can be started), and returns the tap's exit code, what
// the editor got and the findings written.
func tapWithLiveLinter(t *testing.T, argv []string, args ...string) (code int, stdout, findings string) {
	t.Helper()
	if argv != nil {
		defer func(c func() ([]string, error)) { liveLintCommand = c }(liveLintCommand)
		liveLintCommand = func() ([]string, error) {
			if len(argv) == 0 {
				return nil, errors.New("no live linter here")
			}
			return argv, nil
		}
	}
	t.Setenv("ACPLINT_FIXTURE_AGENT", "1")
	live := filepath.Join(t.TempDir(), "live.txt")
	var out, stderr bytes.Buffer
	code = run(context.Background(), append(append([]string{"tap", "--lint-out", live}, args...), "--", os.Args[0]),
		strings.NewReader(tapClient), &out, &stderr)
	got, err := os.ReadFile(live)
	if err != nil {
		t.Fatal(err)
	}
	if stderr.Len() > 0 {
		t.Logf("stderr: %s", stderr.Bytes())
	}
	return code, out.String(), string(got)
}

// TestTapLiveLinterGone: a live linter process that ends at once, or
// never ends, costs the findings, never a byte of the traffic or the
// tap's exit with the agent; the findings say what happened.
func TestTapLiveLinterGone(t *testing.T) {
	for _, c := range []struct {
		name string
		argv []string
		want string
	}{
		{"exits", []string{"/bin/sh", "-c", "exit 3"}, "live linter process: exit status 3"},
		// It reads everything and then hangs, with a process of its own
		// holding its output: it lints nothing in a tap.KeepUpWindow, nor
		// waits for the CPU, and the tap ends them.
		{"hangs", []string{"/bin/sh", "-c", "cat >/dev/null; sleep 60 & sleep 60"}, "live linter did not finish once the agent had exited: it took less than"},
	} {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			code, stdout, findings := tapWithLiveLinter(t, c.argv)
			if code != 0 || strings.Count(stdout, "\n") != 4 {
				t.Errorf("exit code %d, the editor got %d lines, want 0 and the agent's 4:\n%s", code, strings.Count(stdout, "\n"), stdout)
			}
			if !strings.Contains(findings, c.want) {
				t.Errorf("the findings do not say %q:\n%s", c.want, findings)
			}
			// A window, the kill, and the wait for the output of the
			// process it left (liveExitWait), on a loaded machine.
			if d := time.Since(start); d > tap.KeepUpWindow+liveExitWait+6*time.Second {
				t.Errorf("the tap took %v", d)
			}
		})
	}
}

// TestTapLiveLintInProcess: where the live linter process cannot be
// started, the tap lints on its own goroutines, and finds the same.
func TestTapLiveLintInProcess(t *testing.T) {
	_, stdout, inProcess := tapWithLiveLinter(t, []string{})
	_, _, child := tapWithLiveLinter(t, nil)
	if strings.Count(stdout, "\n") != 4 {
		t.Errorf("the editor got %q", stdout)
	}
	if !strings.Contains(inProcess, "ACP-TURN-001") || inProcess != child {
		t.Errorf("in the tap's process, live lint found\n%s\nin a process of its own\n%s", inProcess, child)
	}
}

// TestLiveLintMarkerSetByUser: ACPLINT_TAP_LIVE_LINT in the user's own
// environment (exported once, inherited from a tap's linter by a shell)
// must not turn a plain `acplint lint` into a live linter reading frames
// from its stdin, nor a tap into one that swallows the editor's traffic:
// only the tap that started the process makes it its live linter.
func TestLiveLintMarkerSetByUser(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "session.jsonl")
	if err := os.WriteFile(file, []byte(tapClient), 0o600); err != nil {
		t.Fatal(err)
	}
	lint := func(env ...string) (string, int) {
		c := exec.Command(os.Args[0], "lint", file)
		c.Env = append(append(os.Environ(), "ACPLINT_AS_COMMAND=1"), env...)
		out, _ := c.CombinedOutput()
		return string(out), c.ProcessState.ExitCode()
	}
	want, wantCode := lint()
	if !strings.Contains(want, "ACP-") {
		t.Fatalf("lint found nothing to compare with:\n%s", want)
	}
	// The tap's agent supervisor has a marker of its own, as dangerous:
	// taken, it runs its arguments ("lint FILE") as the agent's command.
	for _, kv := range []string{liveLintEnv + "=1", liveLintEnv + "=" + strconv.Itoa(os.Getppid()), "ACPLINT_TAP_SUPERVISE=1"} {
		if got, code := lint(kv); got != want || code != wantCode {
			t.Errorf("with %s, lint printed (exit %d)\n%s\nwant (exit %d)\n%s", kv, code, got, wantCode, want)
		}
	}

	c := tapProcess(t, "1", []string{liveLintEnv + "=1"}, "--lint-out", filepath.Join(dir, "live.txt"))
	c.Stdin = strings.NewReader(tapClient)
	out, err := c.Output()
	if err != nil || strings.Count(string(out), "\n") != 4 {
		t.Errorf("with %s=1, the tap ended with %v and the editor got\n%s\nwant the agent's 4 lines", liveLintEnv, err, out)
	}
}

// TestTapHostileLiveLinter: a live linter process that never reads its
// input, or floods the findings pipe with bytes and no line end and then
// hangs, while the agent sends 10 MB: the editor gets every byte and the
// tap ends with the agent's exit code, a tap.KeepUpWindow after the
// agent's end (the linter lints nothing, and waits for no CPU) and the
// kill.
func TestTapHostileLiveLinter(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 10 MB through the tap, twice")
	}
	const n = 200000
	want := noisyLines(n)
	for _, c := range []struct{ name, script string }{
		{"never reads", "exec sleep 60"},
		{"floods, never reads, hangs", "head -c 32000000 /dev/zero; exec sleep 60"},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func(f func() ([]string, error)) { liveLintCommand = f }(liveLintCommand)
			liveLintCommand = func() ([]string, error) { return []string{"/bin/sh", "-c", c.script}, nil }
			t.Setenv("ACPLINT_FIXTURE_AGENT", "noisy")
			t.Setenv("FAULT_LINES", strconv.Itoa(n))
			live := filepath.Join(t.TempDir(), "live.txt")
			var out, stderr bytes.Buffer
			start := time.Now()
			code := run(context.Background(), []string{"tap", "--lint-out", live, "--", os.Args[0]}, strings.NewReader(""), &out, &stderr)
			if code != 0 || !bytes.Equal(out.Bytes(), want) {
				t.Errorf("exit code %d, the editor got %d bytes of the agent's %d", code, out.Len(), len(want))
			}
			if took := time.Since(start); took > 25*time.Second {
				t.Errorf("the tap took %v", took)
			}
		})
	}
}

// TestTapLiveLintSchemaReadOnce: --schema is read once, by the tap. A file
// that can be read only once, or only by the tap (bash's <(…), a FIFO, a
// file replaced meanwhile), must not cost the live linter process its
// schema: it lints as the tap's own process would.
func TestTapLiveLintSchemaReadOnce(t *testing.T) {
	schema, err := os.ReadFile(filepath.Join("..", "..", "schema", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	once := func() string {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		go func() {
			w.Write(schema)
			w.Close()
		}()
		return fmt.Sprintf("/dev/fd/%d", r.Fd())
	}
	_, stdout, inProcess := tapWithLiveLinter(t, []string{}, "--schema", once())
	_, _, child := tapWithLiveLinter(t, nil, "--schema", once())
	if strings.Count(stdout, "\n") != 4 {
		t.Errorf("the editor got %q", stdout)
	}
	if !strings.Contains(inProcess, "ACP-TURN-001") || inProcess != child {
		t.Errorf("in the tap's process, live lint found\n%s\nin a process of its own\n%s", inProcess, child)
	}
}

// TestLiveFindingsNeverCut: the live linter process's output reaches the
// tap's findings writer, which drops what it cannot take, a whole line at
// a time, lines longer than the pipe's reads (a finding quoting a long
// path) too: while the reader of the findings does not keep up, a finding
// is written whole or not at all, never a piece of it.
func TestLiveFindingsNeverCut(t *testing.T) {
	var in bytes.Buffer
	var lines []string
	for i := range 40 {
		n := 100 + i*23_000 // up to ~900 KiB, most longer than a read
		if i == 0 {
			n = 3 << 20 // longer than the writer ever takes
		}
		line := fmt.Sprintf("finding %d %s\n", i, strings.Repeat(string(rune('a'+i%26)), n))
		lines = append(lines, line)
		in.WriteString(line)
	}
	release := make(chan struct{})
	var got bytes.Buffer
	dst := tap.NewDetachedWriter(writerFunc(func(p []byte) (int, error) {
		<-release // a reader that does not keep up
		return got.Write(p)
	}), findingsBuffer)
	copyLines(dst, &in)
	close(release)
	if _, err := dst.Close(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	if got.Len() == 0 {
		t.Fatal("nothing was written")
	}
	for _, line := range strings.SplitAfter(got.String(), "\n") {
		if line != "" && !slices.Contains(lines, line) {
			t.Fatalf("a line cut: %.40q… (%d bytes)", line, len(line))
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
