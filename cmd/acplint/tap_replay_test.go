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
// the other side's from r, each checked against the script. Taking turns,
// a side writes a line only after it has read every line before it, and
// flushes before it waits. Streaming, the agent writes all its lines at
// once, as an agent sending a long answer does, and the editor only reads
// them. It returns when it read its first line, which the editor counts
// from (the processes have started by then).
func (s *replayScript) play(me byte, streaming bool, r io.Reader, w io.Writer) (first time.Time, err error) {
	br := bufio.NewReaderSize(r, 256<<10)
	bw := bufio.NewWriterSize(w, 64<<10)
	for i, l := range s.lines {
		switch {
		case s.sides[i] == me:
			if !streaming || me == 'a' {
				bw.Write(l)
			}
			continue
		case streaming && me == 'a':
			continue // the editor sends nothing to read
		case !streaming:
			if err := bw.Flush(); err != nil {
				return first, fmt.Errorf("line %d: writing: %w", i+1, err)
			}
		}
		got, err := readLine(br)
		if first.IsZero() {
			first = time.Now()
		}
		if err != nil {
			return first, fmt.Errorf("line %d: reading: %w", i+1, err)
		}
		if !bytes.Equal(got, l) {
			return first, fmt.Errorf("line %d: read %.200q, want %.200q", i+1, got, l)
		}
	}
	return first, bw.Flush()
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
// (REPLAY_SCRIPT.sides holds the sides), streamed when REPLAY_STREAM is
// set; after its last line it waits for the end of its stdin, as an agent
// does between turns.
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
		_, err = s.play('a', os.Getenv("REPLAY_STREAM") != "", os.Stdin, os.Stdout)
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
// returns the agent's command (streaming its side when streaming).
func writeScript(tb testing.TB, s *replayScript, dir string, streaming bool) []string {
	name := filepath.Join(dir, "session.ndjson")
	if err := os.WriteFile(name, s.data, 0o600); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(name+".sides", s.sides, 0o600); err != nil {
		tb.Fatal(err)
	}
	stream := "REPLAY_STREAM="
	if streaming {
		stream += "1"
	}
	// env(1) makes the test binary the replay agent, in the tap's place
	// or behind it.
	return []string{"/usr/bin/env", "ACPLINT_FIXTURE_AGENT=replay", "REPLAY_SCRIPT=" + name, stream, os.Args[0]}
}

// relayProcess is the least any process between the editor and the agent
// does: start the agent (os.Args[1:]) and copy each stream through a
// buffer, read and write, as the tap's pumps do, and nothing else. Through
// it, an exchange crosses the two pipes it crosses through the tap: the
// floor of any tap, which BenchmarkTapReplay measures the tap against.
func relayProcess() {
	c := exec.Command(os.Args[1], os.Args[2:]...)
	c.Stderr = os.Stderr
	// Plain pipes, as the tap's: the agent gets blocking ends.
	agentStdin, toAgent, err := os.Pipe()
	if err != nil {
		panic(err)
	}
	fromAgent, agentStdout, err := os.Pipe()
	if err != nil {
		panic(err)
	}
	c.Stdin, c.Stdout = agentStdin, agentStdout
	if err := c.Start(); err != nil {
		panic(err)
	}
	agentStdin.Close()
	agentStdout.Close()
	relay := func(dst io.Writer, src io.Reader) {
		buf := make([]byte, 256<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				if _, err := dst.Write(buf[:n]); err != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}
	go func() {
		relay(toAgent, os.Stdin)
		toAgent.Close()
	}()
	relay(os.Stdout, fromAgent)
	os.Stdout.Close()
	c.Wait()
}

// replayTiming is what one replay took: from the editor's first read
// (the processes have started: their start-up is BenchmarkStartup's
// business) until it had the agent's last byte and the end of its output
// (forwarded) and until the process the editor started had exited (done:
// for the tap, the recording and the findings complete), and the CPU time
// of that process and the children it waited for (the agent behind the
// tap), which the machine's load changes far less than the wall time.
type replayTiming struct{ forwarded, done, cpu time.Duration }

// playEditor starts c (the agent, or the tap in front of it) and plays the
// editor's side against it over OS pipes, as an editor does.
func playEditor(s *replayScript, streaming bool, c *exec.Cmd) (replayTiming, error) {
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
	if err := c.Start(); err != nil {
		return replayTiming{}, err
	}
	start, perr := s.play('c', streaming, stdout, stdin)
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
// pipe, (b) a relay, the least a process in between does (relayProcess),
// (c) `acplint tap --no-lint`, (d) `acplint tap` with live lint and
// --record, (e) tee(1) into a file, the least a process in between that
// records does (it writes the bytes as they are; the recorder escapes
// each line into a frame), and (f) `acplint tap --no-lint --record`, and
// lints the recording of (d) offline. It plays the session
// twice that way: taking turns, each side writing only after it has read
// the other's line before, as real peers do, and streaming: the agent
// writes all its lines at once, as an agent sending a long answer does,
// and the editor reads them (its own lines, a sixth of the bytes, are not
// sent: both sides streaming, the requests and their answers would cross
// in any order, and the live linter would lint that, not the session).
//
// Taking turns with no pause, an exchange costs the latency of the pipes
// it crosses, and through any process in between it crosses two: the
// ratio to the direct pipe is bounded by the relay's, whatever the tap
// does (about half on an idle machine, and it swings with the scheduler's
// load). So besides MB/s and the ratios to the direct pipe it reports
// what each adds to an exchange (µs per turn, the time beyond the direct
// pipe's over the number of times the sending side changes) and the
// ratios to the relay; streaming measures how fast bytes go through,
// where the tap's ratio to the direct pipe is what it costs. Times count
// from the editor's first read, after the processes started.
//
// Each iteration runs every leg in turn, so the ratios compare the same
// minutes. It reports the tap's CPU time per MB (the agent's taken off),
// as the editor sees the traffic (fwd: the agent's last byte and its end
// of output arrived) and, for (d), until the tap has exited with the
// findings and the recording complete (done), and live lint (done) to
// offline lint. ACPLINT_BENCH_BIN runs another acplint binary as the tap
// and the offline linter, for paired runs against another build.
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
	turns := 0 // times the sending side changes
	for i := 1; i < len(s.sides); i++ {
		if s.sides[i] != s.sides[i-1] {
			turns++
		}
	}
	agentCmds := [2][]string{writeScript(b, s, dir, false), writeScript(b, s, dir, true)}
	rec, lintOut := filepath.Join(dir, "rec.jsonl"), filepath.Join(dir, "lint.txt")
	recOnly, teeOut := filepath.Join(dir, "rec-only.jsonl"), filepath.Join(dir, "tee.out")
	command := func(args ...string) *exec.Cmd { return exec.Command(args[0], args[1:]...) }
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
	const (
		direct = iota
		relay
		noLint
		live
		tee
		record
		legs
	)
	// Per way of playing (0: taking turns, 1: streaming) and leg.
	var fwd, cpu [2][legs]time.Duration
	var liveDone, offline, offlineCPU time.Duration
	lintGaps := [2]int{}
	for b.Loop() {
		for streaming, agentCmd := range agentCmds {
			cmds := [legs]*exec.Cmd{
				direct: command(agentCmd...),
				relay:  command(append([]string{"/usr/bin/env", "ACPLINT_FIXTURE_AGENT=relay", os.Args[0]}, agentCmd...)...),
				noLint: asCommand(append([]string{"tap", "--no-lint", "--"}, agentCmd...)...),
				live:   asCommand(append([]string{"tap", "--record", rec, "--lint-out", lintOut, "--"}, agentCmd...)...),
				tee:    command(append([]string{"/bin/sh", "-c", `"$@" | tee "$0"`, teeOut}, agentCmd...)...),
				record: asCommand(append([]string{"tap", "--no-lint", "--record", recOnly, "--"}, agentCmd...)...),
			}
			for leg, c := range cmds {
				t, err := playEditor(s, streaming == 1, c)
				if err != nil {
					b.Fatalf("%s: %v", c.Args, err)
				}
				fwd[streaming][leg] += t.forwarded
				cpu[streaming][leg] += t.cpu
				if leg == live && streaming == 0 {
					liveDone += t.done
				}
			}
			if gaps := countIn(b, rec, `"lost":{`) + countIn(b, recOnly, `"lost":{`); gaps > 0 {
				// A recorder that fell behind: the MB/s would count bytes it
				// never wrote.
				b.Fatalf("the recording has %d gap records", gaps)
			}
			// The live linter falls behind gracefully (gaps, ACP-LINT-004)
			// rather than slow the traffic; its MB/s then counts bytes it
			// skipped, so the gaps are reported beside it.
			lintGaps[streaming] += countIn(b, lintOut, "(ACP-LINT-004)")
			if streaming == 1 {
				continue
			}
			// The whole session, in turns.
			c := asCommand("lint", rec)
			c.Stdout = io.Discard
			start := time.Now()
			if err := c.Run(); err != nil {
				b.Fatalf("offline lint of the recording: %v", err)
			}
			offline += time.Since(start)
			offlineCPU += c.ProcessState.UserTime() + c.ProcessState.SystemTime()
		}
	}
	mbps := func(d time.Duration) float64 {
		return float64(len(s.data)) * float64(b.N) / 1e6 / d.Seconds()
	}
	agentBytes := 0 // what crosses when streaming
	for i, l := range s.lines {
		if s.sides[i] == 'a' {
			agentBytes += len(l)
		}
	}
	ratio := func(a, b time.Duration) float64 { return a.Seconds() / b.Seconds() }
	turn := fwd[0]
	b.ReportMetric(mbps(turn[direct]), "direct-MB/s")
	b.ReportMetric(mbps(turn[noLint]), "nolint-MB/s")
	b.ReportMetric(mbps(turn[live]), "lint-fwd-MB/s")
	b.ReportMetric(mbps(liveDone), "lint-done-MB/s")
	b.ReportMetric(mbps(offline), "offline-lint-MB/s")
	b.ReportMetric(float64(lintGaps[0])/float64(b.N), "lint-gaps/op")
	b.ReportMetric(ratio(turn[direct], turn[relay]), "relay/direct")
	b.ReportMetric(ratio(turn[direct], turn[noLint]), "nolint/direct")
	b.ReportMetric(ratio(turn[direct], turn[live]), "lint-fwd/direct")
	b.ReportMetric(ratio(turn[relay], turn[noLint]), "nolint/relay")
	b.ReportMetric(ratio(turn[relay], turn[live]), "lint-fwd/relay")
	b.ReportMetric(ratio(offline, liveDone), "lint-done/offline")
	perTurn := func(leg int) float64 {
		return float64((turn[leg] - turn[direct]).Microseconds()) / float64(turns*b.N)
	}
	b.ReportMetric(perTurn(relay), "relay-us/turn")
	b.ReportMetric(perTurn(noLint), "nolint-us/turn")
	b.ReportMetric(perTurn(live), "lint-us/turn")
	stream := fwd[1]
	b.ReportMetric(float64(agentBytes)*float64(b.N)/1e6/stream[direct].Seconds(), "stream-direct-MB/s")
	b.ReportMetric(ratio(stream[direct], stream[relay]), "stream-relay/direct")
	b.ReportMetric(ratio(stream[direct], stream[noLint]), "stream-nolint/direct")
	b.ReportMetric(ratio(stream[direct], stream[live]), "stream-lint-fwd/direct")
	b.ReportMetric(float64(lintGaps[1])/float64(b.N), "stream-lint-gaps/op")
	// Forwarding while recording: tee's ratio is the most any recorder in
	// between can keep of the direct pipe's speed on this machine (the
	// file's writes cost the cores what the pipes need), the tap's ratios
	// to tee what its recorder and live lint cost beyond that.
	b.ReportMetric(ratio(stream[direct], stream[tee]), "stream-tee/direct")
	b.ReportMetric(ratio(stream[direct], stream[record]), "stream-record/direct")
	b.ReportMetric(ratio(stream[tee], stream[record]), "stream-record/tee")
	b.ReportMetric(ratio(stream[tee], stream[live]), "stream-lint-fwd/tee")
	// The CPU time of what sits in between: the agent's, measured alone,
	// taken off.
	perMB := func(d time.Duration) float64 {
		return float64(d.Milliseconds()) / (float64(len(s.data)) * float64(b.N) / 1e6)
	}
	c := cpu[0]
	b.ReportMetric(perMB(c[relay]-c[direct]), "relay-cpu-ms/MB")
	b.ReportMetric(perMB(c[noLint]-c[direct]), "nolint-cpu-ms/MB")
	b.ReportMetric(perMB(c[live]-c[direct]), "lint-cpu-ms/MB")
	b.ReportMetric(perMB(offlineCPU), "offline-cpu-ms/MB")
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
	c := tapCommand(nil, []string{"--record", rec, "--lint-out", lintOut}, writeScript(t, s, dir, false)...)
	if _, err := playEditor(s, false, c); err != nil {
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
