package protocol

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/internal/proctest"
)

// TestPerMessageWorkIgnoresPendingRequests: the work of a message must not
// grow with the number of requests left pending (DEVELOPERS.md: every
// path is linear). Each case leaves n client requests pending, then steps
// n agent messages of one kind; the bytes allocated per message, a
// measure of work that machine load does not change, must stay the same
// when n grows eightfold. A check that collects or sorts the pending
// requests on such a message allocates in proportion to n per message.
func TestPerMessageWorkIgnoresPendingRequests(t *testing.T) {
	for _, tc := range []struct {
		name string
		msg  func(i int) string
	}{
		{"response with an unknown id", func(i int) string { // pendingHint
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":"u%d","result":{}}`, i)
		}},
		{"update for an unknown session", func(i int) string { // newSessionPending
			return fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"ghost%d","update":{"sessionUpdate":"plan","entries":[]}}}`, i)
		}},
		{"permission request outside a turn", func(i int) string { // settingPending
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":"p%d","method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t%d"},"options":[{"optionId":"o","name":"Allow","kind":"allow_once"}]}}`, i, i)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			perMessage := func(n int) float64 {
				w := newAdversary(t)
				for i := range n {
					w.send(domain.FromClient, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/set_mode","params":{"sessionId":"s%d","modeId":"m"}}`, 1000+i, i%7))
				}
				return bytesAllocatedBy(func() {
					for i := range n {
						w.send(domain.FromAgent, tc.msg(i))
					}
				}) / float64(n)
			}
			const n = 500
			small, large := perMessage(n), perMessage(8*n)
			t.Logf("bytes allocated per message: %.0f with %d requests pending, %.0f with %d", small, n, large, 8*n)
			// Linear work gives a ratio near 1, work in proportion to the
			// pending requests one near 8.
			if large > 2.5*small {
				t.Errorf("the work per message grows with the pending requests: %.0f bytes per message with %d pending, %.0f with %d", small, n, large, 8*n)
			}
		})
	}
}

// adversary steps a phase with messages, decoding results as lint does.
type adversary struct {
	t       *testing.T
	p       Phase
	line    int
	methods map[string]domain.Method
}

// newAdversary returns an adversary past initialize, with session s1 idle.
func newAdversary(t *testing.T) *adversary {
	w := &adversary{t: t, p: newPhase(), methods: map[string]domain.Method{}}
	w.send(domain.FromClient, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	w.send(domain.FromAgent, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[]}}`)
	w.send(domain.FromClient, `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`)
	w.send(domain.FromAgent, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`)
	return w
}

func (w *adversary) send(dir domain.Direction, text string) {
	w.t.Helper()
	w.line++
	d := codec.DecodeLine(codec.Line{Num: w.line, Bytes: []byte(text)})
	m := d.Msgs[0]
	m.Dir = dir
	switch m.Kind {
	case domain.KindRequest:
		w.methods[m.ID.Key()] = m.Method
	case domain.KindResult:
		if method, ok := w.methods[m.ID.Key()]; ok {
			m.Method = method
			mi, _ := domain.LookupMethod(m.Method)
			d.DecodeResult(0, mi)
		}
	}
	err := StepInPlace(&w.p, Event{Msg: m, Loc: findings.Location{File: "t", Line: w.line}})
	if _, other := Violations(err); len(other) > 0 {
		w.t.Fatalf("line %d: %v", w.line, other)
	}
}

// TestLowestPendingMatchesSort: the index pendingHint reads gives the ids
// a sort of all pending requests gives, through requests answered, ids
// reused and numbers spelled in different forms.
func TestLowestPendingMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	spellings := []string{"%d", `"%d"`, "%d.0", "%de0", `"id-%d"`}
	var q pendingRequests
	for step := range 20000 {
		raw := fmt.Sprintf(spellings[rng.IntN(len(spellings))], rng.IntN(300))
		id := domain.RequestID{Raw: []byte(raw)}
		key := id.Key()
		if _, ok := q.Get(key); ok && rng.IntN(3) > 0 {
			q.Delete(key)
		} else {
			q.Set(key, Pending{ID: id, Line: step})
		}
		if step%7 != 0 {
			continue
		}
		want := inIDOrder(q.reqs)
		want = want[:min(len(want), 6)]
		got := q.lowest(6)
		if len(got) != len(want) {
			t.Fatalf("step %d: %d lowest, want %d", step, len(got), len(want))
		}
		for i := range want {
			if got[i].ID.String() != want[i].ID.String() || got[i].Line != want[i].Line {
				t.Fatalf("step %d: lowest[%d] is %s (line %d), want %s (line %d)", step, i, got[i].ID, got[i].Line, want[i].ID, want[i].Line)
			}
		}
		if len(q.order.entries) > 2*q.Len()+32+1 {
			t.Fatalf("step %d: the index holds %d entries for %d pending requests", step, len(q.order.entries), q.Len())
		}
	}
}

// bytesAllocatedBy returns the bytes f allocates: a measure of its work
// that, unlike its time, the machine's load does not change.
func bytesAllocatedBy(f func()) float64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc - before.TotalAlloc)
}

// TestRetireWorkIgnoresTerminals: forgetting done sessions (retire, once
// per doneWindow/2 of them) must not visit every terminal the phase
// keeps, such as the unreleased ones of a long session: the bytes
// allocated per session closed stay the same with eight times as many.
func TestRetireWorkIgnoresTerminals(t *testing.T) {
	perClose := func(terminals int) float64 {
		p := newPhase()
		for i := range terminals {
			id := domain.TerminalID(fmt.Sprintf("term_%d", i))
			p.Terminals.Set(id, &Terminal{Session: "long", Line: 1})
			p.countUnreleased("long", 1)
		}
		const closes = 4 * doneWindow
		perItem := bytesAllocatedBy(func() {
			for i := range closes {
				sid := domain.SessionID(fmt.Sprintf("sess_%d", i))
				p.putSession(newSession(sid, SessionIdle, i, "/w"))
				closed := newSession(sid, SessionClosed, i, "/w")
				p.putSession(closed)
			}
		}) / float64(closes)
		if p.Terminals.Len() != terminals || p.closed.Len() > doneWindow {
			t.Fatalf("%d terminals and %d done sessions kept, want %d and at most %d", p.Terminals.Len(), p.closed.Len(), terminals, doneWindow)
		}
		return perItem
	}
	const n = 4000
	small, large := perClose(n), perClose(8*n)
	t.Logf("bytes allocated per session closed: %.0f with %d terminals, %.0f with %d", small, n, large, 8*n)
	if large > 2*small {
		t.Errorf("closing sessions costs more the more terminals the phase keeps: %.0f bytes per close with %d, %.0f with %d", small, n, large, 8*n)
	}
}

// TestKeptCountsMatchScans: after every message of the golden corpus and
// of a generated transcript, what the phase keeps in place of a scan (the
// counts of pending requests and of unreleased terminals, the index of
// pending ids, the indexes of a session's modes and config options, the
// known cwds cleaned) agrees with the scan.
func TestKeptCountsMatchScans(t *testing.T) {
	eachCorpusTranscript(t, 5, func(name string, events []Event) {
		p := newPhase()
		for i, ev := range events {
			StepInPlace(&p, ev)
			if where := keptCountsDiffer(&p); where != "" {
				t.Fatalf("%s: message %d (line %d): %s", name, i, ev.Loc.Line, where)
			}
		}
	})
}

// keptCountsDiffer says which count of p disagrees with a scan, or "".
func keptCountsDiffer(p *Phase) string {
	for _, s := range p.Sessions.All() {
		if where := sessionIndexesDiffer(s); where != "" {
			return "session " + string(s.ID) + ": " + where
		}
	}
	for id, known := range p.KnownCwd.All() {
		clean, ok := p.cleanKnownCwd.Get(id)
		if ok != isAbsoluteFilePath(known) || ok && clean != cleanFilePath(known) {
			return fmt.Sprintf("session %s: known cwd %q kept cleaned as %q (%v)", id, known, clean, ok)
		}
	}
	if p.cleanKnownCwd.Len() > p.KnownCwd.Len() {
		return fmt.Sprintf("%d cleaned known cwds for %d known", p.cleanKnownCwd.Len(), p.KnownCwd.Len())
	}
	unreleased := map[domain.SessionID]int{}
	for _, term := range p.Terminals.All() {
		if term.ReleasedLine == 0 {
			unreleased[term.Session]++
		}
	}
	if p.flow.term.unreleased.Len() != len(unreleased) {
		return fmt.Sprintf("unreleased terminals counted for %d sessions, %d have some", p.flow.term.unreleased.Len(), len(unreleased))
	}
	for sid, n := range unreleased {
		if got, _ := p.flow.term.unreleased.Get(sid); got != n {
			return fmt.Sprintf("session %s: %d unreleased terminals counted, %d kept", sid, got, n)
		}
	}
	for dir := range p.pending {
		q := &p.pending[dir]
		newSessions, settings := 0, map[domain.SessionID]int{}
		for _, req := range q.reqs.All() {
			switch req.Method {
			case domain.MethodSessionNew:
				newSessions++
			case domain.MethodSessionSetMode, domain.MethodSessionSetConfigOption:
				settings[req.Session]++
			}
		}
		if q.newSessions != newSessions || !maps.Equal(q.settings, settings) && len(q.settings)+len(settings) > 0 {
			return fmt.Sprintf("direction %d: counted %d session/new and settings %v, pending %d and %v", dir, q.newSessions, q.settings, newSessions, settings)
		}
		want := inIDOrder(q.reqs)
		want = want[:min(len(want), 6)]
		got := q.lowest(6)
		if len(got) != len(want) {
			return fmt.Sprintf("direction %d: %d lowest pending ids, want %d", dir, len(got), len(want))
		}
		for i := range want {
			if got[i].ID.String() != want[i].ID.String() {
				return fmt.Sprintf("direction %d: lowest pending id %d is %s, want %s", dir, i, got[i].ID, want[i].ID)
			}
		}
	}
	return ""
}

// sessionIndexesDiffer says which index of s (of its modes, its config
// options and their values, the values its findings list) disagrees with
// a scan of the lists, or "".
func sessionIndexesDiffer(s *Session) string {
	var modes []domain.SessionMode
	if s.Modes != nil {
		modes = s.Modes.AvailableModes
	}
	if s.modeIDs.Len() > len(modes) {
		return fmt.Sprintf("%d mode ids indexed for %d modes", s.modeIDs.Len(), len(modes))
	}
	for i, m := range modes {
		if j := slices.IndexFunc(modes, func(o domain.SessionMode) bool { return o.ID == m.ID }); j == i && !s.hasMode(m.ID) {
			return fmt.Sprintf("mode %q is not indexed", m.ID)
		}
	}
	values := 0
	for i, o := range s.ConfigOptions {
		first := slices.IndexFunc(s.ConfigOptions, func(x domain.SessionConfigOption) bool { return x.ID == o.ID })
		if got, ok := s.configOption(o.ID); !ok || got != &s.ConfigOptions[first] {
			return fmt.Sprintf("config option %q is not indexed at %d", o.ID, first)
		}
		sel, isSelect := o.Kind.(domain.SessionConfigSelect)
		if first != i || !isSelect {
			continue
		}
		listed, _ := selectValues(sel)
		for _, v := range listed {
			if !s.hasConfigValue(o.ID, v) {
				return fmt.Sprintf("value %q of config option %q is not indexed", v, o.ID)
			}
		}
		values += len(slices.Compact(slices.Sorted(slices.Values(listed))))
		if got, want := s.configValueList(o.ID), valueList(listed); got != want {
			return fmt.Sprintf("config option %q lists its values as %q, want %q", o.ID, got, want)
		}
	}
	if s.configIDs.Len() > len(s.ConfigOptions) || s.configValues.Len() != values {
		return fmt.Sprintf("%d config ids and %d values indexed for %d options with %d values", s.configIDs.Len(), s.configValues.Len(), len(s.ConfigOptions), values)
	}
	return ""
}

// TestAuthenticateWorkIgnoresAuthMethods: an authenticate costs the same
// whatever the number of auth methods the agent advertised (one line may
// list millions): the bytes allocated per authenticate stay the same with
// eight times as many.
func TestAuthenticateWorkIgnoresAuthMethods(t *testing.T) {
	perRequest := func(n int) float64 {
		w := &adversary{t: t, p: newPhase(), methods: map[string]domain.Method{}}
		var methods strings.Builder
		for i := range n {
			if i > 0 {
				methods.WriteByte(',')
			}
			fmt.Fprintf(&methods, `{"id":"m%d","name":"M"}`, i)
		}
		w.send(domain.FromClient, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
		w.send(domain.FromAgent, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[`+methods.String()+`]}}`)
		if len(w.p.AuthMethods) != n {
			t.Fatalf("%d auth methods kept, want %d", len(w.p.AuthMethods), n)
		}
		const requests = 500
		return bytesAllocatedBy(func() {
			for i := range requests {
				// One advertised and one not, in turn.
				id := fmt.Sprintf("m%d", n-1)
				if i%2 == 1 {
					id = "none"
				}
				w.send(domain.FromClient, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"authenticate","params":{"methodId":%q}}`, i+1, id))
			}
		}) / float64(requests)
	}
	// 8n stays under MaxKeptEntries: beyond it, authenticate is not judged.
	const n = 500
	small, large := perRequest(n), perRequest(8*n)
	t.Logf("bytes allocated per authenticate: %.0f with %d auth methods, %.0f with %d", small, n, large, 8*n)
	if large > 2*small {
		t.Errorf("an authenticate costs more the more auth methods there are: %.0f bytes with %d, %.0f with %d", small, n, large, 8*n)
	}
}

// TestSessionListWorkIgnoresListLength: a message that names a mode, a
// config option or a file path costs the same whatever the number of
// modes, options or additional directories the session was opened with
// (one line may list millions). Findings that list them would allocate
// in proportion (bytes per message), and a lookup that scans them takes
// time in proportion (nanoseconds per message, the least of three runs
// so that machine load does not decide); both must stay the same with
// eight times as many.
func TestSessionListWorkIgnoresListLength(t *testing.T) {
	if testing.Short() {
		t.Skip("times thousands of messages")
	}
	if proctest.RaceEnabled {
		// The race detector multiplies the time the bound is about;
		// .ci/run runs this test without it.
		t.Skip("compares times: timed, run without -race (.ci/run does)")
	}
	// Long ids that differ only at their end make a comparison cost
	// what a scan of the list costs: the timings tell a lookup from a
	// scan.
	pad := strings.Repeat("x", 1000)
	open := func(w *adversary, n int) {
		var modes, opts, dirs strings.Builder
		for i := range n {
			if i > 0 {
				modes.WriteByte(',')
				opts.WriteByte(',')
				dirs.WriteByte(',')
			}
			fmt.Fprintf(&modes, `{"id":"m%s%05d","name":"M"}`, pad, i)
			values := `{"value":"v","name":"V"}`
			if i == n-1 {
				// The option the messages name offers n values too.
				var more strings.Builder
				for j := range n {
					fmt.Fprintf(&more, `,{"value":"v%s%05d","name":"V"}`, pad, j)
				}
				values += more.String()
			}
			fmt.Fprintf(&opts, `{"id":"o%s%05d","name":"O","type":"select","currentValue":"v","options":[%s]}`, pad, i, values)
			fmt.Fprintf(&dirs, `"/d/%s%05d"`, pad, i)
		}
		w.send(domain.FromClient, `{"jsonrpc":"2.0","id":9,"method":"session/new","params":{"cwd":"/w","additionalDirectories":[`+dirs.String()+`],"mcpServers":[]}}`)
		w.send(domain.FromAgent, `{"jsonrpc":"2.0","id":9,"result":{"sessionId":"s9","modes":{"currentModeId":"m`+pad+`0","availableModes":[`+modes.String()+`]},"configOptions":[`+opts.String()+`]}}`)
		s, _ := w.p.Session("s9")
		if s.Modes == nil || len(s.Modes.AvailableModes) != n || len(s.ConfigOptions) != n {
			t.Fatalf("the session keeps modes %v and %d config options, want %d of each", s.Modes != nil, len(s.ConfigOptions), n)
		}
	}
	for _, tc := range []struct {
		name string
		// msgs returns the messages of step i for a session opened with n
		// of each list; the last entry of a list is the slowest to find.
		msgs func(i, n int) []string
		dirs []domain.Direction
	}{
		{"current_mode_update", func(i, n int) []string {
			return []string{
				fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s9","update":{"sessionUpdate":"current_mode_update","currentModeId":"m%s%05d"}}}`, pad, n-1),
				`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s9","update":{"sessionUpdate":"current_mode_update","currentModeId":"none"}}}`,
			}
		}, []domain.Direction{domain.FromAgent, domain.FromAgent}},
		{"session/set_mode and an error answer", func(i, n int) []string {
			return []string{
				fmt.Sprintf(`{"jsonrpc":"2.0","id":"a%d","method":"session/set_mode","params":{"sessionId":"s9","modeId":"m%s%05d"}}`, i, pad, n-1),
				fmt.Sprintf(`{"jsonrpc":"2.0","id":"a%d","error":{"code":-32603,"message":"no"}}`, i),
				fmt.Sprintf(`{"jsonrpc":"2.0","id":"b%d","method":"session/set_mode","params":{"sessionId":"s9","modeId":"m%s"}}`, i, pad),
				fmt.Sprintf(`{"jsonrpc":"2.0","id":"b%d","error":{"code":-32603,"message":"no"}}`, i),
			}
		}, []domain.Direction{domain.FromClient, domain.FromAgent, domain.FromClient, domain.FromAgent}},
		{"session/set_config_option and an error answer", func(i, n int) []string {
			return []string{
				// A value the option does not offer, and the one it
				// offers last.
				fmt.Sprintf(`{"jsonrpc":"2.0","id":"a%d","method":"session/set_config_option","params":{"sessionId":"s9","configId":"o%s%05d","value":"w"}}`, i, pad, n-1),
				fmt.Sprintf(`{"jsonrpc":"2.0","id":"a%d","error":{"code":-32603,"message":"no"}}`, i),
				fmt.Sprintf(`{"jsonrpc":"2.0","id":"c%d","method":"session/set_config_option","params":{"sessionId":"s9","configId":"o%s%05d","value":"v%s%05d"}}`, i, pad, n-1, pad, n-1),
				fmt.Sprintf(`{"jsonrpc":"2.0","id":"c%d","error":{"code":-32603,"message":"no"}}`, i),
				fmt.Sprintf(`{"jsonrpc":"2.0","id":"b%d","method":"session/set_config_option","params":{"sessionId":"s9","configId":"o%s","value":"w"}}`, i, pad),
				fmt.Sprintf(`{"jsonrpc":"2.0","id":"b%d","error":{"code":-32603,"message":"no"}}`, i),
			}
		}, []domain.Direction{domain.FromClient, domain.FromAgent, domain.FromClient, domain.FromAgent, domain.FromClient, domain.FromAgent}},
		{"fs/read_text_file", func(i, n int) []string {
			return []string{
				fmt.Sprintf(`{"jsonrpc":"2.0","id":"r%d","method":"fs/read_text_file","params":{"sessionId":"s9","path":"/d/%s%05d/f"}}`, i, pad, n-1),
				fmt.Sprintf(`{"jsonrpc":"2.0","id":"r%d","result":{"content":""}}`, i),
				fmt.Sprintf(`{"jsonrpc":"2.0","id":"q%d","method":"fs/read_text_file","params":{"sessionId":"s9","path":"/d/%s/f"}}`, i, pad),
				fmt.Sprintf(`{"jsonrpc":"2.0","id":"q%d","result":{"content":""}}`, i),
			}
		}, []domain.Direction{domain.FromAgent, domain.FromClient, domain.FromAgent, domain.FromClient}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const steps = 100
			perMessage := func(n int) (bytes, nanos float64) {
				nanos = math.Inf(1)
				for range 3 {
					w := newAdversary(t)
					open(w, n)
					msgs := make([][]string, steps)
					for i := range msgs {
						msgs[i] = tc.msgs(i, n)
					}
					runtime.GC()
					var before, after runtime.MemStats
					runtime.ReadMemStats(&before)
					start := time.Now()
					for _, step := range msgs {
						for j, m := range step {
							w.send(tc.dirs[j], m)
						}
					}
					elapsed := time.Since(start)
					runtime.ReadMemStats(&after)
					count := float64(steps * len(tc.dirs))
					bytes = float64(after.TotalAlloc-before.TotalAlloc) / count
					nanos = min(nanos, float64(elapsed.Nanoseconds())/count)
				}
				return bytes, nanos
			}
			const n = 250
			smallBytes, smallNanos := perMessage(n)
			largeBytes, largeNanos := perMessage(8 * n)
			t.Logf("per message: %.0f bytes, %.0f ns with %d entries; %.0f bytes, %.0f ns with %d", smallBytes, smallNanos, n, largeBytes, largeNanos, 8*n)
			if largeBytes > 2*smallBytes {
				t.Errorf("the bytes allocated per message grow with the list: %.0f with %d entries, %.0f with %d", smallBytes, n, largeBytes, 8*n)
			}
			// A scan makes the ratio near 8; a lookup near 1.
			if largeNanos > 3*smallNanos {
				t.Errorf("the time per message grows with the list: %.0f ns with %d entries, %.0f ns with %d", smallNanos, n, largeNanos, 8*n)
			}
		})
	}
}

// TestSessionSetupWorkFollowsListLength: a message that opens a session
// or replaces its config options costs in proportion to its length, not
// to the square of the number of modes, config options, additional
// directories or MCP servers it lists (one line may list millions). The
// bytes allocated per listed entry, from decoding to the state kept,
// must stay the same with eight times as many entries; a check that
// re-reads the whole message for each entry allocates the message again
// per entry.
func TestSessionSetupWorkFollowsListLength(t *testing.T) {
	pad := strings.Repeat("x", 100)
	// lists returns n modes, n config options (their ids start with
	// prefix), n additional directories and n MCP servers, as JSON array
	// bodies.
	lists := func(n int, prefix string) (modes, opts, dirs, servers string) {
		var m, o, d, s strings.Builder
		for i := range n {
			if i > 0 {
				m.WriteByte(',')
				o.WriteByte(',')
				d.WriteByte(',')
				s.WriteByte(',')
			}
			fmt.Fprintf(&m, `{"id":"m%s%05d","name":"M"}`, pad, i)
			fmt.Fprintf(&o, `{"id":"%s%s%05d","name":"O","type":"select","currentValue":"v","options":[{"value":"v","name":"V"}]}`, prefix, pad, i)
			fmt.Fprintf(&d, `"/d/%s%05d"`, pad, i)
			fmt.Fprintf(&s, `{"name":"s%05d","command":"/bin/%s","args":[],"env":[]}`, i, pad)
		}
		return m.String(), o.String(), d.String(), s.String()
	}
	setup := func(n int) string {
		modes, opts, _, _ := lists(n, "o")
		return `"modes":{"currentModeId":"m` + pad + `00000","availableModes":[` + modes + `]},"configOptions":[` + opts + `]`
	}
	openParams := func(n int) string {
		_, _, dirs, servers := lists(n, "o")
		return `"cwd":"/w","additionalDirectories":[` + dirs + `],"mcpServers":[` + servers + `]`
	}
	for _, tc := range []struct {
		name string
		// msgs returns the messages, the first sent by the client and
		// then in turn, of a step with n entries in each list.
		msgs func(n int) []string
	}{
		{"session/new", func(n int) []string {
			return []string{
				`{"jsonrpc":"2.0","id":9,"method":"session/new","params":{` + openParams(n) + `}}`,
				`{"jsonrpc":"2.0","id":9,"result":{"sessionId":"s9",` + setup(n) + `}}`,
			}
		}},
		{"session/load", func(n int) []string {
			return []string{
				`{"jsonrpc":"2.0","id":9,"method":"session/load","params":{"sessionId":"s1",` + openParams(n) + `}}`,
				`{"jsonrpc":"2.0","id":9,"result":{` + setup(n) + `}}`,
			}
		}},
		{"session/resume", func(n int) []string {
			return []string{
				`{"jsonrpc":"2.0","id":9,"method":"session/resume","params":{"sessionId":"s1",` + openParams(n) + `}}`,
				`{"jsonrpc":"2.0","id":9,"result":{` + setup(n) + `}}`,
			}
		}},
		{"set_config_option and its answer", func(n int) []string {
			_, opts, _, _ := lists(n, "o")
			_, others, _, _ := lists(n, "p")
			return []string{
				`{"jsonrpc":"2.0","id":9,"method":"session/set_config_option","params":{"sessionId":"s1","configId":"o` + pad + `00000","value":"v"}}`,
				`{"jsonrpc":"2.0","id":9,"result":{"configOptions":[` + opts + `]}}`,
				`{"jsonrpc":"2.0","id":10,"method":"session/set_config_option","params":{"sessionId":"s1","configId":"p` + pad + `00000","value":"v"}}`,
				// Every option of the list before is missing from this one.
				`{"jsonrpc":"2.0","id":10,"result":{"configOptions":[` + others + `]}}`,
			}
		}},
		{"config_option_update", func(n int) []string {
			_, opts, _, _ := lists(n, "o")
			_, others, _, _ := lists(n, "p")
			return []string{
				`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"config_option_update","configOptions":[` + opts + `]}}}`,
				`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"config_option_update","configOptions":[` + others + `]}}}`,
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			perEntry := func(n int) float64 {
				w := newAdversary(t)
				msgs := tc.msgs(n)
				return bytesAllocatedBy(func() {
					for i, m := range msgs {
						dir := domain.FromClient
						if i%2 == 1 {
							dir = domain.FromAgent
						}
						if strings.Contains(m, `"session/update"`) {
							dir = domain.FromAgent
						}
						w.send(dir, m)
					}
				}) / float64(n)
			}
			const n = 250
			small, large := perEntry(n), perEntry(8*n)
			t.Logf("bytes allocated per entry: %.0f with %d entries per list, %.0f with %d", small, n, large, 8*n)
			// Linear work gives a ratio near 1 (below it, as the fixed
			// cost of a message spreads over more entries); work that
			// repeats per entry one near 8.
			if large > 2*small {
				t.Errorf("the bytes allocated per entry grow with the list: %.0f with %d entries, %.0f with %d", small, n, large, 8*n)
			}
		})
	}
}

// TestFindingsClipKeptText: a finding that names a text kept from an
// earlier message (a session's cwd and additional directories, its mode
// ids, the values of a select) shows a bounded part of it, and a message
// compared with such a text does not clean it again (the cwd ends in "/",
// so that cleaning copies it). One line may
// hold a text of megabytes, and a finding that repeated it whole on each
// message naming it would cost as much as that line each time: the bytes
// allocated per message must stay the same when the text grows eightfold.
func TestFindingsClipKeptText(t *testing.T) {
	open := func(w *adversary, size int) {
		long := strings.Repeat("x", size)
		w.send(domain.FromClient, `{"jsonrpc":"2.0","id":9,"method":"session/new","params":{"cwd":"/w/`+long+`/","additionalDirectories":["/d/`+long+`"],"mcpServers":[]}}`)
		w.send(domain.FromAgent, `{"jsonrpc":"2.0","id":9,"result":{"sessionId":"s9","modes":{"currentModeId":"m`+long+`","availableModes":[{"id":"m`+long+`","name":"M"}]},"configOptions":[{"id":"o","name":"O","type":"select","currentValue":"v`+long+`","options":[{"value":"v`+long+`","name":"V"}]}]}}`)
		if s, ok := w.p.Session("s9"); !ok || len(s.Cwd) != size+4 || len(s.ConfigOptions) != 1 {
			t.Fatal("the session was not opened with its long texts")
		}
	}
	for _, tc := range []struct {
		name string
		dir  domain.Direction
		msg  func(i int) string
	}{
		{"fs request outside the roots", domain.FromAgent, func(i int) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":"r%d","method":"fs/read_text_file","params":{"sessionId":"s9","path":"/elsewhere/f"}}`, i)
		}},
		{"current_mode_update to an unknown mode", domain.FromAgent, func(i int) string {
			return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s9","update":{"sessionUpdate":"current_mode_update","currentModeId":"none"}}}`
		}},
		{"set_config_option to an unknown value", domain.FromClient, func(i int) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":"c%d","method":"session/set_config_option","params":{"sessionId":"s9","configId":"o","value":"w"}}`, i)
		}},
		{"session/load with another cwd", domain.FromClient, func(i int) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":"l%d","method":"session/load","params":{"sessionId":"s9","cwd":"/other","mcpServers":[]}}`, i)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			perMessage := func(size int) float64 {
				w := newAdversary(t)
				open(w, size)
				const messages = 50
				msgs := make([]string, messages)
				for i := range msgs {
					msgs[i] = tc.msg(i)
				}
				return bytesAllocatedBy(func() {
					for _, m := range msgs {
						w.send(tc.dir, m)
					}
				}) / float64(messages)
			}
			const size = 32 << 10
			small, large := perMessage(size), perMessage(8*size)
			t.Logf("bytes allocated per message: %.0f with texts of %d bytes, %.0f with %d", small, size, large, 8*size)
			if large > 2*small {
				t.Errorf("the bytes allocated per message grow with the text kept: %.0f with %d bytes, %.0f with %d", small, size, large, 8*size)
			}
		})
	}
}
