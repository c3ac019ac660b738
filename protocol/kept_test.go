package protocol

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/internal/proctest"
)

// TestKeptMemoryIgnoresListLength: what the machine keeps of a connection
// whose initialize advertised n auth methods and whose one session opened
// with n additional directories, n modes and a select config option of n
// values does not grow with n: it keeps at most MaxKeptEntries of each
// list. (Before the cap it kept a copy of every list and indexes of it,
// about 0.8 KiB per entry: 42 MiB for lists of 50,000.) The live heap
// with the phase alone alive is compared at n and 8n, both beyond the
// cap.
func TestKeptMemoryIgnoresListLength(t *testing.T) {
	if proctest.RaceEnabled {
		t.Skip("the race detector changes what is allocated; .ci/run runs this test without it")
	}
	kept := func(n int) uint64 {
		list := func(entry string) string {
			var b strings.Builder
			for i := range n {
				if i > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, entry, i, i)
			}
			return b.String()
		}
		w := &adversary{t: t, p: newPhase(), methods: map[string]domain.Method{}}
		w.send(domain.FromClient, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
		w.send(domain.FromAgent, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"sessionCapabilities":{"additionalDirectories":{}}},"authMethods":[`+
			list(`{"id":"login-%d","name":"Sign in %d"}`)+`]}}`)
		w.send(domain.FromClient, `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[],"additionalDirectories":[`+
			list(`"/home/dev/library-%d/src%d"`)+`]}}`)
		w.send(domain.FromAgent, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1","modes":{"currentModeId":"mode-0","availableModes":[`+
			list(`{"id":"mode-%d","name":"Mode %d"}`)+`]},"configOptions":[{"id":"mode","name":"Mode","category":"mode","type":"select","currentValue":"mode-0","options":[`+
			list(`{"value":"mode-%d","name":"Mode %d"}`)+`]}]}}`)
		p := w.p
		w.p = Phase{}
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		if s, ok := p.Session("s1"); !ok || !s.hasMode(domain.SessionModeID(fmt.Sprintf("mode-%d", n-1))) {
			t.Fatalf("the session is gone or does not take its last mode")
		}
		return ms.HeapAlloc
	}
	const n = 2 * MaxKeptEntries
	base := kept(1)
	small, large := kept(n)-base, kept(8*n)-base
	t.Logf("kept beyond a connection with lists of 1: %.0f KiB with lists of %d, %.0f KiB with %d", float64(small)/(1<<10), n, float64(large)/(1<<10), 8*n)
	const slack = 256 << 10
	if large > small+slack {
		t.Errorf("what the machine keeps grows with the lists: %.0f KiB with lists of %d, %.0f KiB with %d", float64(small)/(1<<10), n, float64(large)/(1<<10), 8*n)
	}
}
