package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/internal/transcriptgen"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/transcript"
)

// The two-way replay behind BenchmarkTapReplay: a generated session is
// played by a fake editor (the benchmark) and a fake agent (the test
// binary), each writing its own side's lines and waiting, before each run
// of them, for the other side's line that precedes it in the transcript, as
// real peers do (an editor answers fs/read_text_file once it has the
// request). Each side checks that every line it reads is the one the
// transcript has there, so a tap that changed, lost or reordered a byte
// fails the benchmark.

// replayScript is a transcript cut into lines with the side that sends
// each.
type replayScript struct {
	data  []byte
	lines [][]byte // each with its "\n"
	sides []byte   // 'c' or 'a' per line
}

// sideByte is how a line's side is written in the script's sides file.
func sideByte(from domain.Direction) byte {
	if from == domain.FromClient {
		return 'c'
	}
	return 'a'
}

func newReplayScript(data, sides []byte) (*replayScript, error) {
	s := &replayScript{data: data, sides: sides, lines: bytes.SplitAfter(data, []byte("\n"))}
	if n := len(s.lines); n > 0 && len(s.lines[n-1]) == 0 {
		s.lines = s.lines[:n-1]
	}
	if len(s.lines) != len(s.sides) {
		return nil, fmt.Errorf("replay: %d lines but %d sides", len(s.lines), len(s.sides))
	}
	return s, nil
}

// play runs one side of the script: it writes its own lines to w and reads
// the other side's from r, each checked against the script. A side writes
// a line only after it has read every line before it, and flushes before
// it waits.
func (s *replayScript) play(me byte, r io.Reader, w io.Writer) error {
	br := bufio.NewReaderSize(r, 256<<10)
	bw := bufio.NewWriterSize(w, 64<<10)
	for i, l := range s.lines {
		if s.sides[i] == me {
			bw.Write(l)
			continue
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("line %d: writing: %w", i+1, err)
		}
		got, err := readLine(br)
		if err != nil {
			return fmt.Errorf("line %d: reading: %w", i+1, err)
		}
		if !bytes.Equal(got, l) {
			return fmt.Errorf("line %d: read %.200q, want %.200q", i+1, got, l)
		}
	}
	return bw.Flush()
}

// readLine reads one line, its "\n" included, however long.
func readLine(br *bufio.Reader) ([]byte, error) {
	l, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		rest, err := br.ReadBytes('\n')
		return append(append([]byte(nil), l...), rest...), err
	}
	return l, err
}

// replayAgent is the agent's side of the script named by REPLAY_SCRIPT
// (REPLAY_SCRIPT.sides holds the sides); after its last line it waits for
// the end of its stdin, as an agent does between turns.
func replayAgent() {
	name := os.Getenv("REPLAY_SCRIPT")
	data, err := os.ReadFile(name)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	sides, err := os.ReadFile(name + ".sides")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	s, err := newReplayScript(data, sides)
	if err == nil {
		err = s.play('a', os.Stdin, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "replay agent:", err)
		os.Exit(2)
	}
	io.Copy(io.Discard, os.Stdin)
}

// generateScript generates a session of about size bytes as a replay
// script.
func generateScript(tb testing.TB, size int64) *replayScript {
	var data bytes.Buffer
	var sides []byte
	opts := transcriptgen.Options{Seed: 16, Bytes: size, Side: func(from domain.Direction) { sides = append(sides, sideByte(from)) }}
	if err := transcriptgen.Write(&data, opts); err != nil {
		tb.Fatal(err)
	}
	s, err := newReplayScript(data.Bytes(), sides)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// writeScript writes s into dir, where the replay agent reads it, and
// returns the agent's command.
func writeScript(tb testing.TB, s *replayScript, dir string) []string {
	name := filepath.Join(dir, "session.ndjson")
	if err := os.WriteFile(name, s.data, 0o600); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(name+".sides", s.sides, 0o600); err != nil {
		tb.Fatal(err)
	}
	// env(1) makes the test binary the replay agent, in the tap's place
	// or behind it.
	return []string{"/usr/bin/env", "ACPLINT_FIXTURE_AGENT=replay", "REPLAY_SCRIPT=" + name, os.Args[0]}
}

// replayTiming is what one replay took: until the editor had the agent's
// last byte and the end of its output (forwarded), until the process the
// editor started had exited (done: for the tap, the recording and the
// findings complete), and the CPU time of that process and the children
// it waited for (the agent behind the tap), which the machine's load
// changes far less than the wall time.
type replayTiming struct{ forwarded, done, cpu time.Duration }

// playEditor starts c (the agent, or the tap in front of it) and plays the
// editor's side against it over OS pipes, as an editor does.
func playEditor(s *replayScript, c *exec.Cmd) (replayTiming, error) {
	stdin, err := c.StdinPipe()
	if err != nil {
		return replayTiming{}, err
	}
	stdout, err := c.StdoutPipe()
	if err != nil {
		return replayTiming{}, err
	}
	var stderr bytes.Buffer
	c.Stderr = &stderr
	start := time.Now()
	if err := c.Start(); err != nil {
		return replayTiming{}, err
	}
	perr := s.play('c', stdout, stdin)
	stdin.Close() // the editor is done: the agent may exit
	if perr == nil {
		if extra, _ := io.Copy(io.Discard, stdout); extra > 0 {
			perr = fmt.Errorf("%d bytes after the transcript's last line", extra)
		}
	}
	var t replayTiming
	t.forwarded = time.Since(start)
	werr := c.Wait()
	t.done = time.Since(start)
	t.cpu = c.ProcessState.UserTime() + c.ProcessState.SystemTime()
	if perr != nil || werr != nil {
		return t, fmt.Errorf("replay: %v; exit: %v; stderr:\n%s", perr, werr, stderr.Bytes())
	}
	return t, nil
}

// BenchmarkTapReplay plays a generated session (ACPLINT_BENCH_MB, 32 MB by
// default) between a fake editor and a fake agent through (a) a direct
// pipe, (b) `acplint tap --no-lint` and (c) `acplint tap` with live lint
// and --record, and lints the recording of (c) offline; each iteration
// runs all four in turn, so the ratios compare the same minutes. It
// reports MB/s of each as the editor sees the traffic (fwd: the agent's
// last byte and its end of output arrived), for (c) also until the tap
// has exited with the findings and the recording complete (done), and the
// ratios: forwarding through the tap to the direct pipe, and live lint
// (done) to offline lint. ACPLINT_BENCH_BIN runs another acplint binary as
// the tap and the offline linter, for paired runs against another build.
func BenchmarkTapReplay(b *testing.B) {
	mb := 32
	if v := os.Getenv("ACPLINT_BENCH_MB"); v != "" {
		var err error
		if mb, err = strconv.Atoi(v); err != nil {
			b.Fatal(err)
		}
	}
	dir := b.TempDir()
	s := generateScript(b, int64(mb)<<20)
	agentCmd := writeScript(b, s, dir)
	rec, lintOut := filepath.Join(dir, "rec.jsonl"), filepath.Join(dir, "lint.txt")
	agent := func() *exec.Cmd { return exec.Command(agentCmd[0], agentCmd[1:]...) }
	// The test binary as the acplint command, the collector set as main
	// sets it; or, to compare builds in the same minutes, the acplint
	// binary ACPLINT_BENCH_BIN names (built from another commit).
	asCommand := func(args ...string) *exec.Cmd {
		if bin := os.Getenv("ACPLINT_BENCH_BIN"); bin != "" {
			return exec.Command(bin, args...)
		}
		c := exec.Command(os.Args[0], args...)
		c.Env = append(os.Environ(), "ACPLINT_AS_COMMAND=main")
		return c
	}
	tapCmd := func(args ...string) *exec.Cmd {
		return asCommand(append(append(append([]string{"tap"}, args...), "--"), agentCmd...)...)
	}
	var direct, noLint, live, liveDone, offline time.Duration
	var agentCPU, noLintCPU, liveCPU, offlineCPU time.Duration
	lintGaps := 0
	for b.Loop() {
		t, err := playEditor(s, agent())
		if err != nil {
			b.Fatalf("direct: %v", err)
		}
		direct += t.forwarded
		agentCPU += t.cpu
		if t, err = playEditor(s, tapCmd("--no-lint")); err != nil {
			b.Fatalf("tap --no-lint: %v", err)
		}
		noLint += t.forwarded
		noLintCPU += t.cpu
		if t, err = playEditor(s, tapCmd("--record", rec, "--lint-out", lintOut)); err != nil {
			b.Fatalf("tap: %v", err)
		}
		live += t.forwarded
		liveDone += t.done
		liveCPU += t.cpu
		if gaps := countIn(b, rec, `"lost":{`); gaps > 0 {
			// A recorder that fell behind: the MB/s would count bytes it
			// never wrote.
			b.Fatalf("the recording has %d gap records", gaps)
		}
		// The live linter falls behind gracefully (gaps, ACP-LINT-004)
		// rather than slow the traffic; its MB/s then counts bytes it
		// skipped, so the gaps are reported beside it.
		lintGaps += countIn(b, lintOut, "(ACP-LINT-004)")
		c := asCommand("lint", rec)
		c.Stdout = io.Discard
		start := time.Now()
		if err := c.Run(); err != nil {
			b.Fatalf("offline lint of the recording: %v", err)
		}
		offline += time.Since(start)
		offlineCPU += c.ProcessState.UserTime() + c.ProcessState.SystemTime()
	}
	mbps := func(d time.Duration) float64 {
		return float64(len(s.data)) * float64(b.N) / 1e6 / d.Seconds()
	}
	b.ReportMetric(mbps(direct), "direct-MB/s")
	b.ReportMetric(mbps(noLint), "nolint-MB/s")
	b.ReportMetric(mbps(live), "lint-fwd-MB/s")
	b.ReportMetric(mbps(liveDone), "lint-done-MB/s")
	b.ReportMetric(mbps(offline), "offline-lint-MB/s")
	b.ReportMetric(float64(lintGaps)/float64(b.N), "lint-gaps/op")
	// The tap's own CPU time: the agent's, measured alone, taken off.
	perMB := func(d time.Duration) float64 {
		return float64(d.Milliseconds()) / (float64(len(s.data)) * float64(b.N) / 1e6)
	}
	b.ReportMetric(perMB(noLintCPU-agentCPU), "nolint-cpu-ms/MB")
	b.ReportMetric(perMB(liveCPU-agentCPU), "lint-cpu-ms/MB")
	b.ReportMetric(perMB(offlineCPU), "offline-cpu-ms/MB")
	b.ReportMetric(direct.Seconds()/noLint.Seconds(), "nolint/direct")
	b.ReportMetric(direct.Seconds()/live.Seconds(), "lint-fwd/direct")
	b.ReportMetric(offline.Seconds()/liveDone.Seconds(), "lint-done/offline")
}

// countIn counts what in the file called name.
func countIn(b *testing.B, name, what string) int {
	data, err := os.ReadFile(name)
	if err != nil {
		b.Fatal(err)
	}
	return bytes.Count(data, []byte(what))
}

// TestTapReplay plays a generated session, cut off while a prompt turn is
// still open, through `acplint tap` with live lint and recording: the
// editor and the agent each read the other's lines unchanged and in order
// (play checks every line), the recording holds the session's lines with
// their senders in the session's order, and the live findings (the open
// turn at least) are those of `acplint lint` of the recording.
func TestTapReplay(t *testing.T) {
	s := generateScript(t, 256<<10)
	last := -1
	for i, l := range s.lines {
		if s.sides[i] == 'c' && bytes.Contains(l, []byte(`"method":"session/prompt"`)) {
			last = i
		}
	}
	if last < 0 {
		t.Fatal("no session/prompt in the generated session")
	}
	s.lines, s.sides = s.lines[:last+1], s.sides[:last+1]
	s.data = bytes.Join(s.lines, nil)
	dir := t.TempDir()
	rec, lintOut := filepath.Join(dir, "rec.jsonl"), filepath.Join(dir, "lint.txt")
	c := tapCommand(nil, []string{"--record", rec, "--lint-out", lintOut}, writeScript(t, s, dir)...)
	if _, err := playEditor(s, c); err != nil {
		t.Fatal(err)
	}

	recording, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(recording, []byte("\n")), []byte("\n"))[1:] // after the header
	if len(lines) != len(s.lines) {
		t.Fatalf("the recording has %d frames, the session %d lines", len(lines), len(s.lines))
	}
	for i, l := range lines {
		fr, err := transcript.ParseFrame(l)
		if err != nil || fr.Lost != nil || sideByte(fr.From) != s.sides[i] || !bytes.Equal(append(fr.Data, '\n'), s.lines[i]) {
			t.Fatalf("frame %d of the recording (%v) is %.200s; want the %c line %.200q", i+1, err, l, s.sides[i], s.lines[i])
		}
	}

	liveOut, err := os.ReadFile(lintOut)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(string(liveOut)), "\n") {
		// Detail lines (pointer, spec) are indented; compare the findings.
		if l != "" && !strings.HasPrefix(l, "\t") {
			got = append(got, l)
		}
	}
	res, err := lint.Transcript(bytes.NewReader(recording), lint.Options{File: rec})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range res.Findings {
		want = append(want, fmt.Sprintf("%s: %s: [%s] %s (%s)", f.Location, f.Severity, f.Blame, f.Message, f.RuleID))
	}
	sort.Strings(got)
	sort.Strings(want)
	if len(want) == 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("live findings differ from lint of the recording, or there are none\nlive:\n%s\nlint:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
