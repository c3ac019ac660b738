package lint_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
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
)

// openValueLines is the worst case of rejoining split lines (issue 13,
// row 8): n lines that each open a value and a string and never close
// them, then a whole message.
func openValueLines(n int) string {
	line := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"text":"xxxxxxxxxxxxxxxxxxxx`
	return strings.Repeat(line+"\n", n) + initReq + "\n"
}

// TestLintMemoryBounded runs acplint's lint in a child process (this test
// binary) on inputs that used to take memory in proportion to their size,
// and bounds the child's peak resident memory.
func TestLintMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("feeds a few hundred MB through a child process")
	}
	// The peak is not bounded under the race detector (it multiplies
	// memory), and there the race-enabled child reads ten times slower:
	// short lines, the Zed array and the endless line are a tenth (the
	// line still longer than the 64 MiB the reader holds) and the child
	// must still lint them to the end. .ci/run's memory step runs the
	// full sizes without -race and bounds the peak.
	lines, updates, endless := 2_000_000, 150_000, int64(256<<20)
	if proctest.RaceEnabled {
		lines, updates, endless = 200_000, 15_000, 80<<20
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
		io.Copy(w, strings.NewReader(strings.Repeat("x\n", lines)))
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
		for i := range updates {
			fmt.Fprintf(w, ",\n"+update, i)
		}
		io.WriteString(w, "\n]\n")
	})
	longLines := write("long.ndjson", func(w io.Writer) {
		// Eight 2 MiB lines, each in a batch of its own between short
		// ones: every batch in flight held one (260-360 MiB at two
		// cores) until the read-ahead bounded the bytes of lines out
		// (120-140 MiB).
		io.WriteString(w, initReq+"\n")
		// Numbers, whose parse tree is several times the line.
		text := strings.Repeat("0,", 1<<20-1) + "0"
		for range 8 {
			for range 10 {
				io.WriteString(w, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"short"}}}}`+"\n")
			}
			io.WriteString(w, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"long"}},"_meta":{"n":[`+text+`]}}}`+"\n")
		}
	})
	// One line of just under 16 MiB: an array of one-digit numbers, two
	// bytes a value, whose parse tree took about 36 times the line (600
	// MiB; 3.4 GB for a 64 MiB line) before lint bounded the values a
	// line may hold by --max-line. Linted with --max-line 16 MiB, it is
	// reported and skipped, and the message after it is still judged.
	numbersLine := write("numbers.ndjson", func(w io.Writer) {
		head := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}},"_meta":{"n":[`
		io.WriteString(w, head+strings.Repeat("0,", (16<<20-len(head))/2-8)+"0]}}}\n"+initReq+"\n")
	})
	for _, tc := range []struct {
		name, file string
		input      io.Reader
		maxMiB     int64
		procs      string // GOMAXPROCS of the child, when set
		maxLine    int    // the child's --max-line, when set
		want       string // in the child's output, when set
	}{
		// 4 MB of short non-JSON lines (2.3 GB for 12 MB before).
		{"short lines", shortLines, nil, 100, "", 0, ""},
		// 256 MiB unterminated line of NUL bytes with the default maximum:
		// at most 64 MiB of it is held (unbounded before).
		{"endless line", "", &zeros{n: endless}, 200, "", 0, ""},
		// A 30 MB Zed array is read element by element (about 7× the
		// array before).
		{"zed array", zedArray, nil, 100, "", 0, ""},
		// 16 MiB of long lines at two cores, where six batches read
		// ahead: about one long line is out at a time.
		{"long lines", longLines, nil, 190, "2", 0, ""},
		// The 16 MiB numbers line at --max-line 16 MiB: 100-120 MiB, the
		// line held twice while it is read and a tree of at most
		// codec.MinMaxValues values (600 MiB before).
		{"numbers line", numbersLine, nil, 150, "", 16 << 20, "messages 1, findings 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestLintChild$")
			cmd.Env = append(os.Environ(), "ACPLINT_TEST_LINT_CHILD="+tc.file)
			if tc.procs != "" {
				cmd.Env = append(cmd.Env, "GOMAXPROCS="+tc.procs)
			}
			if tc.maxLine != 0 {
				cmd.Env = append(cmd.Env, "ACPLINT_TEST_LINT_MAXLINE="+strconv.Itoa(tc.maxLine))
			}
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
			if !bytes.Contains(out.Bytes(), []byte(tc.want)) {
				t.Errorf("child said %q, want %q in it", out.Bytes(), tc.want)
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
	maxLine, _ := strconv.Atoi(os.Getenv("ACPLINT_TEST_LINT_MAXLINE"))
	res, err := lint.Transcript(in, lint.Options{File: "t", MaxLine: maxLine, OnFinding: func(f findings.ValidationFinding) {
		n++
		if f.Rule == findings.LINTFramesLost {
			fmt.Printf("line %d: %s (%s)\n", f.Location.Line, f.Message, f.Rule.ID)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("format " + string(res.Format) + ", lines " + strconv.Itoa(res.Lines) + ", messages " + strconv.Itoa(res.Messages) + ", findings " + strconv.Itoa(n))
}
