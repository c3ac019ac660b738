package transcript_test

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/acplint/acplint/transcript"
)

// An initialize exchange, for inputs that need real messages.
const (
	initReq = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true},"clientInfo":{"name":"example-editor","version":"1.0.0"}}}`
	initRes = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":false,"promptCapabilities":{"image":false,"audio":false,"embeddedContext":true}},"authMethods":[],"agentInfo":{"name":"example-agent","version":"0.3.1"}}}`
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

// readAll reads every entry of r in format f, with lines of at most
// maxLine bytes (0 for the default).
func readAll(t *testing.T, r io.Reader, f transcript.Format, maxLine int) []transcript.Entry {
	t.Helper()
	rd := transcript.NewReader(r, f, maxLine)
	var out []transcript.Entry
	for {
		e, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
}

// traffic counts the entries that carry traffic: neither a line that is
// not in the format (Bad) nor a gap (Lost).
func traffic(es []transcript.Entry) int {
	n := 0
	for _, e := range es {
		if e.Bad == "" && e.Lost == "" {
			n++
		}
	}
	return n
}

// expectProblems fails unless the entries that are Bad or Lost are exactly
// the wanted ones, given as "LINE bad|lost regexp" strings, in any order.
// (lint reports a Bad entry as ACP-LINT-002 and a Lost one as ACP-LINT-004,
// at the entry's line, with its text as the message.)
func expectProblems(t *testing.T, es []transcript.Entry, want ...string) {
	t.Helper()
	type problem struct {
		line       int
		kind, text string
	}
	var got []problem
	for _, e := range es {
		switch {
		case e.Bad != "":
			got = append(got, problem{e.Line.Num, "bad", e.Bad})
		case e.Lost != "":
			got = append(got, problem{e.Line.Num, "lost", e.Lost})
		}
	}
	used := make([]bool, len(got))
	for _, w := range want {
		fields := strings.SplitN(w, " ", 3)
		if len(fields) != 3 {
			t.Fatalf("bad want %q", w)
		}
		var line int
		fmt.Sscan(fields[0], &line)
		re := regexp.MustCompile(fields[2])
		found := false
		for i, p := range got {
			if !used[i] && p.line == line && p.kind == fields[1] && re.MatchString(p.text) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			t.Errorf("no %s entry at line %d matching %s", fields[1], line, fields[2])
		}
	}
	for i, p := range got {
		if !used[i] {
			t.Errorf("unexpected %s entry at line %d: %s", p.kind, p.line, p.text)
		}
	}
}

// TestLineOverMaxLine: a line longer than the reader's maximum is given as
// a gap (Lost) at its line and streamed past without being held: reading
// 100 MiB of NUL bytes with a 1 MiB maximum allocates a few MiB, and the
// lines after it are read as usual. Without a newline (an endless
// /dev/zero) it is reported the same way.
func TestLineOverMaxLine(t *testing.T) {
	const n = 100 << 20
	for _, tc := range []struct {
		name    string
		input   func() io.Reader
		format  transcript.Format
		want    []string
		traffic int
	}{
		{"ndjson", func() io.Reader {
			return io.MultiReader(strings.NewReader(initReq+"\n"), &zeros{n: n}, strings.NewReader("\n"+initRes+"\n"))
		}, transcript.FormatNDJSON, []string{`2 lost the line is 104857600 bytes long, more than the longest acplint reads \(1048576 bytes`}, 2},
		{"unterminated", func() io.Reader {
			return io.MultiReader(strings.NewReader(initReq+"\n"+initRes+"\n"), &zeros{n: n})
		}, transcript.FormatNDJSON, []string{`3 lost the line is 104857600 bytes long`}, 2},
		{"jsonl", func() io.Reader {
			return io.MultiReader(strings.NewReader(`{"dir":"client","msg":`+initReq+"}\n"), &zeros{n: n}, strings.NewReader("\n"+`{"dir":"agent","msg":`+initRes+"}\n"))
		}, transcript.FormatJSONL, []string{`2 lost the line is 104857600 bytes long`}, 2},
		{"zed element", func() io.Reader {
			return io.MultiReader(strings.NewReader("[\n"+zedInit+",\n"+`{"_direction":"incoming","_type":"notification","method":"x","params":"`),
				&zeros{n: n}, strings.NewReader("\"},\n"+zedInitRes+"\n]\n"))
		}, transcript.FormatZed, []string{`9 lost the array element is 1048576\d\d bytes long`}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var es []transcript.Entry
			alloc := allocated(func() { es = readAll(t, tc.input(), tc.format, 1<<20) })
			expectProblems(t, es, tc.want...)
			if got := traffic(es); got != tc.traffic {
				t.Errorf("%d entries of traffic, want %d", got, tc.traffic)
			}
			if alloc > 32<<20 {
				t.Errorf("reading a %d-byte line with a 1 MiB maximum allocated %d MiB", n, alloc>>20)
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
// element by element: every complete element is given, located at its
// first line, and the bad tail gives one entry.
func TestZedBrokenArrays(t *testing.T) {
	head := "[\n" + zedInit + ",\n" + zedInitRes // elements on lines 2 and 9
	for _, tc := range []struct {
		name, input string
		traffic     int
		want        []string
	}{
		{"trailing comma", head + ",\n]\n", 2, []string{`15 bad trailing comma`}},
		{"cut off after an element", head + ",\n", 2, []string{`15 bad the array is cut off: it ends without its closing`}},
		{"cut off without a comma", head, 2, []string{`14 bad the array is cut off`}},
		{"cut off inside an element", head + ",\n" + zedNew[:60], 2, []string{`15 bad the array is cut off inside this element`}},
		{"element not JSON", head + ",\n  {\"_direction\": outgoing},\n" + zedNew + "\n]", 3, []string{`15 bad the element is not JSON`}},
		{"missing comma", head + "\n" + zedNew + "\n]", 2, []string{`15 bad "\{" where a "," or the array's closing "\]" should follow`}},
		{"text after the array", head + "\n]\nbye\n", 2, []string{`16 bad text after the array's closing`}},
		{"not an array", "{}\n", 0, []string{`1 bad the input is not a JSON array`}},
		{"whole", head + ",\n" + zedNew + "\n]\n", 3, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			es := readAll(t, strings.NewReader(tc.input), transcript.FormatZed, 0)
			if got := traffic(es); got != tc.traffic {
				t.Errorf("%d elements read, want %d", got, tc.traffic)
			}
			expectProblems(t, es, tc.want...)
		})
	}
	// The elements are located at their first line.
	es := readAll(t, strings.NewReader(head+",\n"+`  {"_direction": "outgoing", "_type": "request", "id": 1, "method": "session/new", "params": {"cwd": "relative", "mcpServers": []}}`+"\n]"), transcript.FormatZed, 0)
	var at []int
	for _, e := range es {
		at = append(at, e.Line.Num)
	}
	if fmt.Sprint(at) != "[2 9 15]" || traffic(es) != 3 {
		t.Errorf("elements at lines %v, want [2 9 15] (each element's first line)", at)
	}
}

// TestTextRunsBounded: a log of non-JSON lines is given as runs of at most
// 10 000 lines (one finding each in lint), never one entry holding the
// whole input, so memory does not grow with the log.
func TestTextRunsBounded(t *testing.T) {
	es := readAll(t, strings.NewReader(strings.Repeat("x\n", 25000)), transcript.FormatNDJSON, 0)
	var runs []string
	for _, e := range es {
		runs = append(runs, fmt.Sprintf("%d+%d", e.Line.Num, len(e.Extra)))
	}
	if got, want := strings.Join(runs, " "), "1+9999 10001+9999 20001+4999"; got != want {
		t.Errorf("runs (first line+further lines) %s, want %s", got, want)
	}
	expectProblems(t, es)
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
// 50 million line scans). The message after them is still read whole.
func TestRejoinLinear(t *testing.T) {
	for _, n := range []int{2000, 9999} {
		input := openValueLines(n)
		read, work := transcript.RejoinWork(strings.NewReader(input))
		if read < int64(len(input)) {
			t.Fatalf("%d lines: read %d of %d bytes", n, read, len(input))
		}
		if work > 6*read+2<<20 {
			t.Errorf("%d lines (%d bytes): the rejoin scanned %d bytes, more than 6× its input", n, read, work)
		}
		// The budget is spent on the lines that never close, but grows
		// with the input: a message split after them is still rebuilt.
		split := "{\"jsonrpc\":\"2.0\",\n\"id\":1,\"method\":\"session/new\",\"params\":{\"cwd\":\"/x\",\"mcpServers\":[]}}\n"
		es := readAll(t, strings.NewReader(input+split), transcript.FormatNDJSON, 0)
		if len(es) < 2 {
			t.Fatalf("%d lines: %d entries", n, len(es))
		}
		whole, rebuilt := es[len(es)-2], es[len(es)-1]
		if whole.Line.Num != n+1 || string(whole.Line.Bytes) != initReq || whole.Splits != 0 {
			t.Errorf("%d lines: the whole message is read as line %d, %d splits: %.40q", n, whole.Line.Num, whole.Splits, whole.Line.Bytes)
		}
		if rebuilt.Line.Num != n+2 || rebuilt.Splits != 1 || len(rebuilt.Extra) != 1 || !strings.Contains(string(rebuilt.Line.Bytes), `"session/new"`) {
			t.Errorf("%d lines: the split message is read as line %d, %d splits, %d further lines: %.40q", n, rebuilt.Line.Num, rebuilt.Splits, len(rebuilt.Extra), rebuilt.Line.Bytes)
		}
	}
}
