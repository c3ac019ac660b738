package lint_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/internal/proctest"
	"github.com/acplint/acplint/lint"
)

// zeros is an unterminated line of n NUL bytes, as /dev/zero gives.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n <= 0 {
		return 0, io.EOF
	}
	k := int(min(int64(len(p)), z.n))
	clear(p[:k])
	z.n -= int64(k)
	return k, nil
}

// allocated runs f and returns the bytes it allocated.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestLineOverMaxLine: a line longer than Options.MaxLine is reported with
// its line number (ACP-LINT-004) and streamed past without being held:
// linting 100 MiB of NUL bytes with a 1 MiB maximum allocates a few MiB,
// and the lines after it are linted as usual. Without a newline (an
// endless /dev/zero) it is reported the same way.
func TestLineOverMaxLine(t *testing.T) {
	const n = 100 << 20
	for _, tc := range []struct {
		name   string
		input  func() io.Reader
		format lint.Format
		want   []string
		msgs   int
	}{
		{"ndjson", func() io.Reader {
			return io.MultiReader(strings.NewReader(initReq+"\n"), &zeros{n: n}, strings.NewReader("\n"+initRes+"\n"))
		}, lint.FormatNDJSON, []string{`2 ACP-LINT-004 the line is 104857600 bytes long, more than the longest acplint reads \(1048576 bytes`}, 2},
		{"unterminated", func() io.Reader {
			return io.MultiReader(strings.NewReader(initReq+"\n"+initRes+"\n"), &zeros{n: n})
		}, lint.FormatNDJSON, []string{`3 ACP-LINT-004 the line is 104857600 bytes long`}, 2},
		{"jsonl", func() io.Reader {
			return io.MultiReader(strings.NewReader(`{"dir":"client","msg":`+initReq+"}\n"), &zeros{n: n}, strings.NewReader("\n"+`{"dir":"agent","msg":`+initRes+"}\n"))
		}, lint.FormatJSONL, []string{`2 ACP-LINT-004 the line is 104857600 bytes long`}, 2},
		{"zed element", func() io.Reader {
			return io.MultiReader(strings.NewReader("[\n"+zedInit+",\n"+`{"_direction":"incoming","_type":"notification","method":"x","params":"`),
				&zeros{n: n}, strings.NewReader("\"},\n"+zedInitRes+"\n]\n"))
		}, lint.FormatZed, []string{`9 ACP-LINT-004 the array element is 1048576\d\d bytes long`}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var res *lint.Result
			alloc := allocated(func() {
				var err error
				res, err = lint.Transcript(tc.input(), lint.Options{Format: tc.format, File: "t", MaxLine: 1 << 20})
				if err != nil {
					t.Fatal(err)
				}
			})
			expect(t, res.Findings, tc.want...)
			if res.Messages != tc.msgs {
				t.Errorf("%d messages linted, want %d", res.Messages, tc.msgs)
			}
			if alloc > 32<<20 {
				t.Errorf("linting a %d-byte line with a 1 MiB maximum allocated %d MiB", n, alloc>>20)
			}
		})
	}
}

// Zed elements for the tests: an initialize exchange, spanning lines 2-8
// and 10-16 when written one per line group after "[\n".
const (
	zedInit = `  {
    "_direction": "outgoing",
    "_type": "request",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": 1, "clientCapabilities": {}, "clientInfo": {"name": "zed", "version": "0.190.0"}}
  }`
	zedInitRes = `  {
    "_direction": "incoming",
    "_type": "response",
    "id": 0,
    "params": {"protocolVersion": 1, "agentCapabilities": {"loadSession": false}, "authMethods": [], "agentInfo": {"name": "a", "version": "1"}}
  }`
	zedNew = `  {
    "_direction": "outgoing",
    "_type": "request",
    "id": 1,
    "method": "session/new",
    "params": {"cwd": "/home/dev/project", "mcpServers": []}
  }`
)

// TestZedBrokenArrays: a Zed array that is cut off or malformed is read
// element by element: every complete element is linted, with line numbers
// pointing at its first line, and the bad tail gives one finding.
func TestZedBrokenArrays(t *testing.T) {
	head := "[\n" + zedInit + ",\n" + zedInitRes // elements on lines 2 and 9
	for _, tc := range []struct {
		name, input string
		msgs        int
		want        []string
	}{
		{"trailing comma", head + ",\n]\n", 2, []string{`15 ACP-LINT-002 trailing comma`}},
		{"cut off after an element", head + ",\n", 2, []string{`15 ACP-LINT-002 the array is cut off: it ends without its closing`}},
		{"cut off without a comma", head, 2, []string{`14 ACP-LINT-002 the array is cut off`}},
		{"cut off inside an element", head + ",\n" + zedNew[:60], 2, []string{`15 ACP-LINT-002 the array is cut off inside this element`}},
		{"element not JSON", head + ",\n  {\"_direction\": outgoing},\n" + zedNew + "\n]", 3, []string{`15 ACP-LINT-002 the element is not JSON`}},
		{"missing comma", head + "\n" + zedNew + "\n]", 2, []string{`15 ACP-LINT-002 "\{" where a "," or the array's closing "\]" should follow`}},
		{"text after the array", head + "\n]\nbye\n", 2, []string{`16 ACP-LINT-002 text after the array's closing`}},
		{"not an array", "{}\n", 0, []string{`1 ACP-LINT-002 the input is not a JSON array`}},
		{"whole", head + ",\n" + zedNew + "\n]\n", 3, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, lint.FormatZed, tc.input)
			if res.Messages != tc.msgs {
				t.Errorf("%d messages linted, want %d", res.Messages, tc.msgs)
			}
			// Only what the format reports: an array cut short also leaves
			// requests unanswered, which is not the reader's business.
			expect(t, only(res.Findings, findings.LINTBadWrapper), tc.want...)
		})
	}
	// The elements are located at their first line.
	res := run(t, lint.FormatZed, head+",\n"+`  {"_direction": "outgoing", "_type": "request", "id": 1, "method": "session/new", "params": {"cwd": "relative", "mcpServers": []}}`+"\n]")
	for _, f := range res.Findings {
		if f.Location.Line != 15 {
			t.Errorf("finding at line %d, want 15 (the element's line): %s %s", f.Location.Line, f.RuleID, f.Message)
		}
	}
	if len(res.Findings) == 0 {
		t.Error("a relative cwd gave no finding")
	}
}

// TestTextRunsBounded: a log of non-JSON lines gives one finding per run
// of at most 10 000 lines, never one frame holding the whole input, so
// memory does not grow with the log.
func TestTextRunsBounded(t *testing.T) {
	input := strings.Repeat("x\n", 25000)
	res, err := lint.Transcript(strings.NewReader(input), lint.Options{Format: lint.FormatNDJSON, File: "t", MaxPerRule: -1})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, res.Findings,
		`1 ACP-WIRE-001 lines 1-10000 are not a JSON-RPC message`,
		`10001 ACP-WIRE-001 lines 10001-20000 are not`,
		`20001 ACP-WIRE-001 lines 20001-25000 are not`)
	if res.Lines != 25000 {
		t.Errorf("%d lines read, want 25000", res.Lines)
	}
}

// openValueLines is the worst case of rejoining split lines (issue 13,
// row 8): n lines that each open a value and a string and never close
// them, then a whole message.
func openValueLines(n int) string {
	line := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"text":"xxxxxxxxxxxxxxxxxxxx`
	return strings.Repeat(line+"\n", n) + initReq + "\n"
}

// TestRejoinLinear: the search for split messages does work linear in its
// input on its worst case: the bytes it scans stay within a constant
// factor of the bytes it reads, however many lines never close (before,
// 10 000 such lines took each attempt through all the lines after it:
// 50 million line scans). The message after them is still linted.
func TestRejoinLinear(t *testing.T) {
	for _, n := range []int{2000, 9999} {
		input := openValueLines(n)
		read, work := lint.RejoinWork(strings.NewReader(input))
		if read < int64(len(input)) {
			t.Fatalf("%d lines: read %d of %d bytes", n, read, len(input))
		}
		if work > 6*read+2<<20 {
			t.Errorf("%d lines (%d bytes): the rejoin scanned %d bytes, more than 6× its input", n, read, work)
		}
		// The budget is spent on the lines that never close, but grows
		// with the input: a message split after them is still rebuilt.
		split := "{\"jsonrpc\":\"2.0\",\n\"id\":1,\"method\":\"session/new\",\"params\":{\"cwd\":\"/x\",\"mcpServers\":[]}}\n"
		res := run(t, lint.FormatNDJSON, input+split)
		if res.Messages != 2 {
			t.Errorf("%d lines: %d messages linted, want 2", n, res.Messages)
		}
		expect(t, only(res.Findings, findings.WIREEmbeddedNewline), fmt.Sprintf("%d ACP-WIRE-003 one message spans lines %d-%d", n+2, n+2, n+3))
	}
}

// TestLintMemoryBounded runs acplint's lint in a child process (this test
// binary) on inputs that used to take memory in proportion to their size,
// and bounds the child's peak resident memory.
func TestLintMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("feeds a few hundred MB through a child process")
	}
	dir := t.TempDir()
	write := func(name string, fill func(w io.Writer)) string {
		path := dir + "/" + name
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		fill(f)
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		return path
	}
	shortLines := write("short.ndjson", func(w io.Writer) {
		io.Copy(w, strings.NewReader(strings.Repeat("x\n", 2_000_000)))
	})
	zedArray := write("zed.json", func(w io.Writer) {
		// Updates for a session nobody opened: the protocol machine keeps
		// nothing per message, so only the reader could grow.
		io.WriteString(w, "[\n"+zedInit+",\n"+zedInitRes)
		update := `  {
    "_direction": "incoming",
    "_type": "notification",
    "method": "session/update",
    "params": {"sessionId": "sess_7f3a", "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "chunk %d of a long answer"}}}
  }`
		for i := range 150_000 {
			fmt.Fprintf(w, ",\n"+update, i)
		}
		io.WriteString(w, "\n]\n")
	})
	for _, tc := range []struct {
		name, file string
		input      io.Reader
		maxMiB     int64
	}{
		// 4 MB of short non-JSON lines (2.3 GB for 12 MB before).
		{"short lines", shortLines, nil, 100},
		// 256 MiB unterminated line of NUL bytes with the default maximum:
		// at most 64 MiB of it is held (unbounded before).
		{"endless line", "", &zeros{n: 256 << 20}, 200},
		// A 30 MB Zed array is read element by element (about 7× the
		// array before).
		{"zed array", zedArray, nil, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestLintChild$")
			cmd.Env = append(os.Environ(), "ACPLINT_TEST_LINT_CHILD="+tc.file)
			cmd.Stdin = tc.input
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			done := make(chan error, 1)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			peak := proctest.WatchPeak(cmd.Process.Pid)
			go func() { done <- cmd.Wait() }()
			// A regression must fail the test, not exhaust the machine: the
			// child is killed once its resident memory passes 1 GiB.
			tick := time.NewTicker(50 * time.Millisecond)
			defer tick.Stop()
			timeout := time.After(2 * time.Minute)
		wait:
			for {
				select {
				case err := <-done:
					if err != nil {
						t.Fatalf("child: %v\n%s", err, out.Bytes())
					}
					break wait
				case <-tick.C:
					if proctest.ResidentKiB(cmd.Process.Pid) > 1<<20 {
						cmd.Process.Kill()
						<-done
						t.Fatalf("child killed with more than 1 GiB resident")
					}
				case <-timeout:
					cmd.Process.Kill()
					<-done
					t.Fatalf("child still running after 2 minutes")
				}
			}
			rss := peak() >> 10
			t.Logf("peak RSS %d MiB; %s", rss, bytes.TrimSpace(out.Bytes()))
			if rss > tc.maxMiB && !proctest.RaceEnabled {
				t.Errorf("peak RSS %d MiB, want at most %d", rss, tc.maxMiB)
			}
		})
	}
}

// TestLintChild is the child of TestLintMemoryBounded: it lints the file
// the environment names (stdin when empty) and prints what it found.
func TestLintChild(t *testing.T) {
	file, ok := os.LookupEnv("ACPLINT_TEST_LINT_CHILD")
	if !ok {
		t.Skip("run by TestLintMemoryBounded")
	}
	var in io.Reader = os.Stdin
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		in = f
	}
	n := 0
	res, err := lint.Transcript(in, lint.Options{File: "t", OnFinding: func(findings.ValidationFinding) { n++ }})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("format " + string(res.Format) + ", lines " + strconv.Itoa(res.Lines) + ", messages " + strconv.Itoa(res.Messages) + ", findings " + strconv.Itoa(n))
}
