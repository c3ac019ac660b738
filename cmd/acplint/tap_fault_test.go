package main

import (
	"bufio"
	"bytes"
	"fmt"
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
	"github.com/acplint/acplint/transcript"
)

// The fault matrix of `acplint tap` as a process: the editor, stderr, the
// disk or a signal misbehave, and the promise is checked from outside:
// bytes forwarded (compared whole), exit code, recording complete, no
// agent left running, memory under its bound.

// faultAgent is an agent that misbehaves in one way; the test binary runs
// it when ACPLINT_FIXTURE_AGENT names it.
func faultAgent(kind string) {
	n, _ := strconv.Atoi(os.Getenv("FAULT_LINES"))
	if f := os.Getenv("FAULT_PIDFILE"); f != "" {
		os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o600)
	}
	w := bufio.NewWriter(os.Stdout)
	switch kind {
	case "burst":
		burstAgent()
	case "noisy":
		// Log lines on stdout, each a finding, then the end of a turn.
		for i := range n {
			fmt.Fprintf(w, "log: step %d of the agent's work, not JSON-RPC\n", i)
		}
		w.Flush()
		io.Copy(io.Discard, os.Stdin)
	case "idle-spin":
		// It would run for ever, at the lowest priority.
		lowerPriority()
		for {
		}
	case "chatty-hang":
		// n lines, then it hangs, ignoring its stdin; with FAULT_LATE set
		// it says one more line a moment later, when a reader that left
		// has had time to go.
		for i := range n {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","method":"_fixture/line","params":{"i":%d}}`+"\n", i)
		}
		w.Flush()
		if os.Getenv("FAULT_LATE") != "" {
			time.Sleep(300 * time.Millisecond)
			fmt.Fprintln(w, `{"jsonrpc":"2.0","method":"_fixture/late"}`)
			if w.Flush() == nil {
				// Written: the tap has it, whatever happens to the editor.
				os.WriteFile(os.Getenv("FAULT_LATE"), []byte("written"), 0o600)
			}
		}
		time.Sleep(time.Hour)
	}
}

func noisyLines(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "log: step %d of the agent's work, not JSON-RPC\n", i)
	}
	return b.Bytes()
}

// tapProcess starts `acplint tap ARGS -- <the test binary as agent kind>`
// as a process of its own.
func tapProcess(t *testing.T, kind string, env []string, args ...string) *exec.Cmd {
	t.Helper()
	// env(1) execs the agent, so the pid it notes is the agent's.
	return tapCommand(env, args, "/usr/bin/env", "ACPLINT_FIXTURE_AGENT="+kind, os.Args[0])
}

// tapCommand is `acplint tap TAPARGS -- AGENT…`, the test binary as acplint,
// with env added to the environment.
func tapCommand(env, tapArgs []string, agent ...string) *exec.Cmd {
	args := append(append(append([]string{"tap"}, tapArgs...), "--"), agent...)
	c := exec.Command(os.Args[0], args...)
	c.Env = append(append(os.Environ(), "ACPLINT_AS_COMMAND=1"), env...)
	return c
}

// TestTapStderrNobodyReads: findings go to stderr by default, and an
// editor may never read it. The agent's 20 000 log lines (a finding each)
// must all reach the editor, and the tap must end with the agent.
func TestTapStderrNobodyReads(t *testing.T) {
	const n = 20000
	c := tapProcess(t, "noisy", []string{"FAULT_LINES=" + strconv.Itoa(n)})
	stdin, _ := c.StdinPipe()
	stdout, _ := c.StdoutPipe()
	stderrR, stderrW, _ := os.Pipe() // never read
	defer stderrR.Close()
	c.Stderr = stderrW
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	stderrW.Close()
	defer c.Process.Kill()
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(stdout, int64(len(noisyLines(n)))))
		got <- b
	}()
	select {
	case b := <-got:
		if !bytes.Equal(b, noisyLines(n)) {
			t.Fatalf("the editor got %d bytes, want the agent's %d", len(b), len(noisyLines(n)))
		}
	case <-time.After(30 * time.Second):
		t.Fatal("forwarding stalled: the editor did not get the agent's lines within 30 s")
	}
	stdin.Close()
	// The live linter may still be working through its queue when the
	// agent exits; the tap gives it a few seconds, not for ever.
	waitExit(t, c, 30*time.Second)
	if code := c.ProcessState.ExitCode(); code != 0 {
		t.Errorf("tap exit code %d, want the agent's 0", code)
	}
}

// TestTapEditorGoneMidStream: `acplint tap … | head -c 300`: the editor
// stops reading. The tap must not die of SIGPIPE, must record every line
// the agent wrote, and must end the agent rather than orphan it.
func TestTapEditorGoneMidStream(t *testing.T) {
	const n = 300
	dir := t.TempDir()
	rec, pidFile := filepath.Join(dir, "rec.jsonl"), filepath.Join(dir, "pid")
	late := filepath.Join(dir, "late")
	c := tapProcess(t, "chatty-hang", []string{"FAULT_LINES=" + strconv.Itoa(n), "FAULT_PIDFILE=" + pidFile, "FAULT_LATE=" + late},
		"--grace", "200ms", "--record", rec, "--lint-out", filepath.Join(dir, "lint.txt"))
	editorIn, _ := c.StdinPipe() // the editor's end stays open
	defer editorIn.Close()
	stdout, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 300)
	io.ReadFull(stdout, head)
	stdout.Close() // head exits
	waitExit(t, c, 20*time.Second)
	ws := c.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		t.Fatalf("the tap died of %v", ws.Signal())
	}
	// The agent hangs, ignoring its stdin: it was ended by the ladder.
	if code := c.ProcessState.ExitCode(); code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit code %d, want 143: the agent ignores its stdin and gets SIGTERM", code)
	}
	proctest.AssertGone(t, pidFile)
	// The agent may have been stopped before its late line (the editor's
	// leaving is noticed at the first write that fails): every line it
	// wrote must be in the recording.
	wrote := n
	if _, err := os.Stat(late); err == nil {
		wrote++
	}
	if frames := recordedFramesFrom(t, rec, "agent"); frames != wrote {
		t.Errorf("recorded %d agent frames, want all %d the agent wrote", frames, wrote)
	}
}

// TestTapKilledLosesNoRecording: a tap killed outright (SIGKILL, the OOM
// killer) has already flushed every frame it forwarded, and its agent
// does not outlive it.
func TestTapKilledLosesNoRecording(t *testing.T) {
	const n = 300
	dir := t.TempDir()
	rec, pidFile := filepath.Join(dir, "rec.jsonl"), filepath.Join(dir, "pid")
	c := tapProcess(t, "chatty-hang", []string{"FAULT_LINES=" + strconv.Itoa(n), "FAULT_PIDFILE=" + pidFile}, "--record", rec, "--no-lint")
	editorIn, _ := c.StdinPipe()
	defer editorIn.Close()
	stdout, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	for i := 0; i < n && sc.Scan(); i++ {
	}
	// Every line reached the editor; the recorder flushes when it has
	// caught up, so wait for the file to hold them, then kill.
	deadline := time.Now().Add(10 * time.Second)
	for recordedFramesFrom(t, rec, "agent") < n && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	c.Process.Kill()
	c.Wait()
	if frames := recordedFramesFrom(t, rec, "agent"); frames != n {
		t.Errorf("recorded %d agent frames after SIGKILL, want all %d", frames, n)
	}
	b, _ := os.ReadFile(rec)
	if !bytes.HasSuffix(b, []byte("\n")) {
		t.Errorf("the recording ends mid-frame: %q", b[max(0, len(b)-80):])
	}
	proctest.AssertGone(t, pidFile)
}

// TestTapOutputFilesArePrivate: recordings and findings may hold secrets:
// 0600, and a link planted at the path is refused, never written through.
func TestTapOutputFilesArePrivate(t *testing.T) {
	dir := t.TempDir()
	rec, out := filepath.Join(dir, "rec.jsonl"), filepath.Join(dir, "lint.txt")
	c := tapProcess(t, "noisy", []string{"FAULT_LINES=3"}, "--record", rec, "--lint-out", out)
	c.Stdin = strings.NewReader("")
	if b, err := c.CombinedOutput(); err != nil {
		t.Fatalf("tap: %v\n%s", err, b)
	}
	for _, f := range []string{rec, out} {
		if info, err := os.Stat(f); err != nil || info.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v (%v), want 0600", f, info.Mode().Perm(), err)
		}
	}
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep me"), 0o644)
	link := filepath.Join(dir, "link.jsonl")
	os.Symlink(victim, link)
	c = tapProcess(t, "noisy", []string{"FAULT_LINES=3"}, "--record", link)
	c.Stdin = strings.NewReader("")
	b, err := c.CombinedOutput()
	if err == nil || !strings.Contains(string(b), "link") {
		t.Errorf("a link at --record was accepted: %v\n%s", err, b)
	}
	if got, _ := os.ReadFile(victim); string(got) != "keep me" {
		t.Errorf("the link's target was written: %q", got)
	}
}

// TestTapHugeLineMemory: a 300 MB line goes through the tap byte for byte
// while the tap's memory stays bounded by --max-line, not by the line.
func TestTapHugeLineMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 600 MB through two pipes")
	}
	const size = 300 << 20
	c := tapCommand(nil, []string{"--max-line", strconv.Itoa(16 << 20)}, "cat")
	stdin, _ := c.StdinPipe()
	stdout, _ := c.StdoutPipe()
	c.Stderr = io.Discard
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	peak := proctest.WatchPeak(c.Process.Pid)
	go func() {
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		for range size >> 20 {
			if _, err := stdin.Write(chunk); err != nil {
				break
			}
		}
		stdin.Write([]byte("\n"))
		stdin.Close()
	}()
	n, _ := io.Copy(io.Discard, stdout)
	waitExit(t, c, 60*time.Second)
	if n != size+1 {
		t.Errorf("forwarded %d bytes, want %d", n, size+1)
	}
	maxRSS := peak() << 10
	t.Logf("tap peak RSS for a %d MB line: %d MiB", size>>20, maxRSS>>20)
	if maxRSS > 200<<20 && !proctest.RaceEnabled {
		t.Errorf("tap peak RSS %d MiB for a %d MB line, want ≤ 200 MiB", maxRSS>>20, size>>20)
	}
}

func waitExit(t *testing.T, c *exec.Cmd, d time.Duration) {
	t.Helper()
	done := make(chan struct{})
	go func() { c.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		c.Process.Kill()
		t.Fatalf("the tap did not exit within %v", d)
	}
}

// recordedFramesFrom counts the frames a recording holds from one side
// ("client" or "agent"), reading it as `acplint lint` does.
func recordedFramesFrom(t *testing.T, file, side string) int {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if fr, err := transcript.ParseFrame(sc.Bytes()); err == nil && fr.Lost == nil && fr.From.String() == side {
			n++
		}
	}
	return n
}

// TestTapKilledEndsWrappedAgent: the tap is killed outright while the
// agent runs behind a wrapper script; neither the wrapper nor the real
// agent (nor its helpers) may outlive it.
func TestTapKilledEndsWrappedAgent(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	script := `echo $$ >>"$FAULT_PIDFILE"; sleep 100 & echo $! >>"$FAULT_PIDFILE"; echo ready; wait`
	c := tapCommand([]string{"FAULT_PIDFILE=" + pidFile}, []string{"--no-lint"}, "/bin/sh", "-c", script)
	editorIn, _ := c.StdinPipe()
	defer editorIn.Close()
	stdout, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() || sc.Text() != "ready" {
		c.Process.Kill()
		t.Fatalf("the agent did not start: %q", sc.Text())
	}
	c.Process.Kill()
	c.Wait()
	proctest.AssertGone(t, pidFile)
}
