package protocol

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acplint/acplint/domain"
)

// checkingLookups makes every answer Phase.Session remembers be compared
// with the maps' while the test runs: a stale one panics.
func checkingLookups(t *testing.T) {
	t.Helper()
	checkSessionLookups = true
	t.Cleanup(func() { checkSessionLookups = false })
}

// TestSessionLookupStaysFresh drives every golden transcript, a generated
// one, and sessions opened, reopened, refused, closed and forgotten by the
// thousand, through StepInPlace, comparing every lookup that Phase.Session
// answered from memory with the maps.
func TestSessionLookupStaysFresh(t *testing.T) {
	checkingLookups(t)
	eachCorpusTranscript(t, 5, func(name string, events []Event) {
		p := newPhase()
		for _, ev := range append(events, Event{End: true, Truncated: true}) {
			_ = StepInPlace(&p, ev)
		}
		if p.looked != (sessionLookup{}) {
			t.Fatalf("%s: the phase keeps a session lookup after its step", name)
		}
	})
	w := newAdversary(t)
	w.p.AgentCaps.LoadSession = domain.Some(true)
	id := 100
	for i := range 3 * doneWindow {
		sid := fmt.Sprintf("sess_%d", i)
		w.send(domain.FromClient, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`, id))
		w.send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"sessionId":%q}}`, id, sid))
		w.send(domain.FromClient, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":%q,"prompt":[]}}`, id+1, sid))
		w.send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":{"sessionUpdate":"tool_call","toolCallId":"t","title":"x"}}}`, sid))
		w.send(domain.FromClient, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/close","params":{"sessionId":%q}}`, id+2, sid))
		w.send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id+2))
		// The turn the close cancelled ends after it: the session is done.
		w.send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":{"sessionUpdate":"tool_call_update","toolCallId":"t","status":"completed"}}}`, sid))
		w.send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"stopReason":"cancelled"}}`, id+1))
		if i%7 == 0 {
			// A reopening of an older session, some of them forgotten,
			// that the agent refuses or grants.
			old := fmt.Sprintf("sess_%d", i/2)
			w.send(domain.FromClient, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/load","params":{"sessionId":%q,"cwd":"/w","mcpServers":[]}}`, id+3, old))
			w.send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}`, old))
			if i%2 == 0 {
				w.send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32002,"message":"Resource not found"}}`, id+3))
			} else {
				w.send(domain.FromAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id+3))
			}
		}
		id += 4
	}
	if w.p.closed.Len() > doneWindow || w.p.closed.Len() == 0 {
		t.Fatalf("%d done sessions kept: the test did not close and forget sessions", w.p.closed.Len())
	}
}

// TestSessionLookupDroppedByEveryChange: within a step, each change that
// binds or unbinds a session id (a new session, one that becomes done, a
// dropped one, ones forgotten) leaves Session answering what the maps
// hold, and neither a Clone nor the phase after a step holds a lookup.
func TestSessionLookupDroppedByEveryChange(t *testing.T) {
	checkingLookups(t)
	lookBoth := func(p *Phase, ids ...domain.SessionID) {
		t.Helper()
		for _, id := range ids {
			p.Session(id) // remembered (or checked against the maps)
			p.Session(id)
		}
	}
	p := newPhase()
	p.looked.on = true
	a, b := domain.SessionID("a"), domain.SessionID("b")
	lookBoth(&p, a)
	p.putSession(newSession(a, SessionIdle, 1, "/w"))
	lookBoth(&p, a)
	p.putSession(newSession(a, SessionLoading, 2, "/w")) // another value under the same id
	lookBoth(&p, a, b)
	closed := newSession(b, SessionClosed, 3, "/w")
	p.putSession(newSession(b, SessionIdle, 3, "/w"))
	lookBoth(&p, b)
	p.putSession(closed) // open to done
	lookBoth(&p, b)
	p.putSession(newSession(b, SessionIdle, 4, "/w")) // done to open again
	lookBoth(&p, b)
	p.dropSession(b)
	lookBoth(&p, b, a)
	// Sessions done by the window: older ones are forgotten as newer ones
	// retire (forget.go).
	for i := range 2 * doneWindow {
		id := domain.SessionID(fmt.Sprintf("s%d", i))
		p.putSession(newSession(id, SessionIdle, 10+i, "/w"))
		lookBoth(&p, id, "s0")
		p.withSession(id, func(s *Session) { s.State = SessionClosed })
		lookBoth(&p, id, "s0")
	}
	if _, ok := p.Session("s0"); ok {
		t.Fatal("the first done session is not forgotten: the test did not reach forgetSession")
	}
	lookBoth(&p, a)
	if c := p.Clone(); c.looked != (sessionLookup{}) {
		t.Fatal("a Clone holds the lookup of the phase it was copied from")
	}
	q := newPhase()
	_ = StepInPlace(&q, Event{End: true})
	if q.looked != (sessionLookup{}) {
		t.Fatal("the phase holds a lookup after its step")
	}
}

// TestOnlySessionSettersChangeSessionMaps: Phase.Session may remember an
// answer because putSession and dropSession, which drop it, are the only
// code that changes the maps it reads (Clone makes new ones).
func TestOnlySessionSettersChangeSessionMaps(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	allowed := map[string]bool{"putSession": true, "dropSession": true, "Clone": true}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			checked++
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				var target ast.Expr
				switch n := n.(type) {
				case *ast.AssignStmt:
					for _, lhs := range n.Lhs {
						if isSessionMap(lhs) {
							target = lhs
						}
					}
				case *ast.CallExpr:
					// m.Set, m.Delete or a method taking the map's address.
					if sel, ok := n.Fun.(*ast.SelectorExpr); ok && isSessionMap(sel.X) && sel.Sel.Name != "Get" && sel.Sel.Name != "Has" && sel.Sel.Name != "Len" && sel.Sel.Name != "All" {
						target = sel.X
					}
				case *ast.UnaryExpr:
					if n.Op == token.AND && isSessionMap(n.X) {
						target = n.X
					}
				}
				if target != nil && !allowed[fn.Name.Name] {
					t.Errorf("%s: %s changes a session map; only putSession and dropSession may, as Phase.Session's remembered lookup relies on", fset.Position(target.Pos()), fn.Name.Name)
				}
				return true
			})
		}
	}
	if checked == 0 {
		t.Fatal("no functions found")
	}
}

// isSessionMap reports whether e names the Sessions or closed map of a phase.
func isSessionMap(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && (sel.Sel.Name == "Sessions" || sel.Sel.Name == "closed")
}

// TestMethodTableFindsEachMethodsHooks: the dispatch's table of hooks by
// method gives every method the hooks its checks list for it, in their
// order, and nothing to the methods no hook names, including names that
// share a length and last bytes with one that has hooks.
func TestMethodTableFindsEachMethodsHooks(t *testing.T) {
	list := checkList()
	d := newDispatch(list)
	type want struct{ requests, responses []string }
	wants := map[domain.Method]*want{}
	for _, ch := range list {
		for _, h := range ch.Hooks {
			for _, m := range h.Methods {
				if wants[m] == nil {
					wants[m] = &want{}
				}
				switch h.On {
				case OnRequestTo:
					wants[m].requests = append(wants[m].requests, ch.Name)
				case OnResponseTo:
					wants[m].responses = append(wants[m].responses, ch.Name)
				}
			}
		}
	}
	names := []domain.Method{"", "x", "ab", "session/updatf", "session/upd", "_session/update", "session/updat", "$/cancel_requesu"}
	for _, mi := range domain.Methods {
		names = append(names, mi.Name, mi.Name+"x", "x"+mi.Name)
	}
	for m := range domain.UnstableMethods {
		names = append(names, m)
	}
	for m := range wants {
		names = append(names, m)
	}
	for _, m := range names {
		h := d.methods.get(m)
		w := wants[m]
		if w == nil {
			if h != nil {
				t.Errorf("method %q has hooks in the table but none in the checks", m)
			}
			continue
		}
		if h == nil {
			t.Errorf("method %q has no hooks in the table", m)
			continue
		}
		var requests, responses []string
		for _, r := range h.requests {
			requests = append(requests, list[r.check].Name)
		}
		for _, r := range h.responses {
			responses = append(responses, list[r.check].Name)
		}
		if fmt.Sprint(requests) != fmt.Sprint(w.requests) || fmt.Sprint(responses) != fmt.Sprint(w.responses) {
			t.Errorf("method %q: the table runs %v and %v, the checks list %v and %v", m, requests, responses, w.requests, w.responses)
		}
	}
}

// TestCurrentMessageKeptWithMessages: after every message of the golden
// corpus and of a generated transcript, a session that keeps its current
// message's use beside Messages keeps what Messages holds for it.
func TestCurrentMessageKeptWithMessages(t *testing.T) {
	kept := 0
	eachCorpusTranscript(t, 9, func(name string, events []Event) {
		p := newPhase()
		for i, ev := range append(events, Event{End: true, Truncated: true}) {
			_ = StepInPlace(&p, ev)
			for _, sessions := range []Map[domain.SessionID, *Session]{p.Sessions, p.closed} {
				for id, s := range sessions.All() {
					if !s.currentKept {
						continue
					}
					kept++
					if use, ok := s.Messages.Get(s.CurrentMessage); !ok || use != s.currentUse {
						t.Fatalf("%s: message %d (line %d): session %s keeps %+v as the use of its current message %q; Messages holds %+v (%v)", name, i, ev.Loc.Line, id, s.currentUse, s.CurrentMessage, use, ok)
					}
				}
			}
		}
	})
	if kept == 0 {
		t.Fatal("no session kept its current message: the test checks nothing")
	}
}
