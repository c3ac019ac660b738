package lint

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"testing"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/transcript"
)

// writeHugeSession writes one connection whose initialize advertises n
// auth methods and whose one session opens with n additional
// directories, n MCP servers, n modes and a select config option of n
// values, then runs turns that name a mode, a value and a file, each of
// the lists' last entry, so that each lookup has the whole list behind
// it. The lists take about 4 lines of n × 60 bytes; with repeat, each
// turn also sets the config option, whose result repeats its n values.
func writeHugeSession(w io.Writer, n, turns int, repeat bool) error {
	b := bufio.NewWriterSize(w, 1<<16)
	line := func(format string, args ...any) { fmt.Fprintf(b, format, args...); b.WriteByte('\n') }
	list := func(entry func(i int)) {
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			entry(i)
		}
	}
	line(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true},"clientInfo":{"name":"editor","version":"1"}}}`)
	b.WriteString(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true,"mcpCapabilities":{"http":true},"sessionCapabilities":{"additionalDirectories":{}}},"agentInfo":{"name":"agent","version":"1"},"authMethods":[`)
	list(func(i int) { fmt.Fprintf(b, `{"id":"login-method-%d","name":"Sign in with provider %d"}`, i, i) })
	b.WriteString("]}}\n")
	b.WriteString(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/home/dev/project","additionalDirectories":[`)
	list(func(i int) { fmt.Fprintf(b, `"/home/dev/shared/library-number-%d/src"`, i) })
	b.WriteString(`],"mcpServers":[`)
	list(func(i int) {
		fmt.Fprintf(b, `{"name":"server-%d","command":"/usr/local/bin/mcp-server-%d","args":[],"env":[]}`, i, i)
	})
	b.WriteString("]}}\n")
	b.WriteString(`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"sess_huge","modes":{"currentModeId":"mode-0","availableModes":[`)
	list(func(i int) { fmt.Fprintf(b, `{"id":"mode-%d","name":"Mode number %d","description":"d"}`, i, i) })
	b.WriteString(`]},"configOptions":[{"id":"mode","name":"Mode","category":"mode","type":"select","currentValue":"mode-0","options":[`)
	list(func(i int) { fmt.Fprintf(b, `{"value":"mode-%d","name":"Mode number %d"}`, i, i) })
	b.WriteString("]}]}}\n")
	id := 2
	for t := range turns {
		last := n - 1
		line(`{"jsonrpc":"2.0","id":%d,"method":"session/set_mode","params":{"sessionId":"sess_huge","modeId":"mode-%d"}}`, id, (last+t)%n)
		line(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id)
		id++
		if !repeat {
			goto prompt
		}
		line(`{"jsonrpc":"2.0","id":%d,"method":"session/set_config_option","params":{"sessionId":"sess_huge","configId":"mode","value":"mode-%d"}}`, id, (last+t)%n)
		b.WriteString(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"result":{"configOptions":[{"id":"mode","name":"Mode","category":"mode","type":"select","currentValue":"mode-` + strconv.Itoa((last+t)%n) + `","options":[`)
		list(func(i int) { fmt.Fprintf(b, `{"value":"mode-%d","name":"Mode number %d"}`, i, i) })
		b.WriteString("]}]}}\n")
		id++
	prompt:
		line(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":"sess_huge","prompt":[{"type":"text","text":"go on"}]}}`, id)
		line(`{"jsonrpc":"2.0","id":%d,"method":"fs/read_text_file","params":{"sessionId":"sess_huge","path":"/home/dev/shared/library-number-%d/src/main.go"}}`, 1000+t, last)
		line(`{"jsonrpc":"2.0","id":%d,"result":{"content":"package main"}}`, 1000+t)
		line(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_huge","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"done"}}}}`)
		line(`{"jsonrpc":"2.0","id":%d,"result":{"stopReason":"end_turn"}}`, id)
		id++
	}
	line(`{"jsonrpc":"2.0","id":%d,"method":"authenticate","params":{"methodId":"login-method-%d"}}`, id, n-1)
	line(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id)
	return b.Flush()
}

// TestWriteHugeSession writes the transcript to the file named by
// ACPLINT_HUGE_FILE, with ACPLINT_HUGE_N entries per list, for measuring
// acplint as a process.
func TestWriteHugeSession(t *testing.T) {
	path := os.Getenv("ACPLINT_HUGE_FILE")
	if path == "" {
		t.Skip("set ACPLINT_HUGE_FILE (and ACPLINT_HUGE_N) to write the transcript")
	}
	n, _ := strconv.Atoi(os.Getenv("ACPLINT_HUGE_N"))
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeHugeSession(f, max(n, 1), 4, true); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// keptByHugeSession lints a session opened with lists of n entries,
// then 400 turns of small messages that name the lists' entries, and
// returns the live heap late in the turns, after a collection: the least
// of samples taken every 50 lines of the last half, what the machine
// keeps of the lists once the lines that carried them are gone.
func keptByHugeSession(t testing.TB, n int, profile string) uint64 {
	r, w := io.Pipe()
	go func() { w.CloseWithError(writeHugeSession(w, n, 400, false)) }()
	var lines int
	var least uint64
	res, err := Transcript(r, Options{File: "huge", CleanEnd: true,
		OnEntry: func(transcript.Entry, []*domain.Message) {
			if lines++; lines < 1400 || lines%50 != 0 {
				return
			}
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if least == 0 || ms.HeapAlloc < least {
				least = ms.HeapAlloc
				if profile != "" {
					f, err := os.Create(profile)
					if err != nil {
						t.Fatal(err)
					}
					pprof.WriteHeapProfile(f)
					f.Close()
				}
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if least == 0 {
		t.Fatalf("%d lines, too few to sample", lines)
	}
	for _, f := range res.Findings {
		t.Logf("finding: %s %.200s", f.RuleID, f.Message)
	}
	return least
}

// TestHugeSessionProfile measures and profiles keptByHugeSession for
// ACPLINT_HUGE_N entries per list. (Lint's read-ahead batches still hold
// line memory that grows with the longest lines, up to their number and
// --max-line: a test across list lengths would measure that, not the
// machine, whose guard is protocol's TestKeptMemoryIgnoresListLength.)
func TestHugeSessionProfile(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("ACPLINT_HUGE_N"))
	if n == 0 {
		t.Skip("set ACPLINT_HUGE_N (and ACPLINT_HUGE_PROF) to profile")
	}
	t.Logf("n=%d kept %.1f MiB", n, float64(keptByHugeSession(t, n, os.Getenv("ACPLINT_HUGE_PROF")))/(1<<20))
}
