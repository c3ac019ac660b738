package protocol

import (
	"reflect"
	"slices"
	"testing"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/internal/proctest"
)

// updateVariants are the kinds of session/update the domain defines.
func updateVariants(t *testing.T) []domain.Variant {
	t.Helper()
	u, ok := domain.UnionOf(reflect.TypeFor[domain.SessionUpdate]())
	if !ok || len(u.Variants) == 0 {
		t.Fatal("domain has no SessionUpdate union")
	}
	return u.Variants
}

// updateOf returns a session/update of the kind of v for session sid.
func updateOf(v domain.Variant, sid domain.SessionID) *domain.SessionNotification {
	return &domain.SessionNotification{SessionID: sid, Update: reflect.New(v.Type).Elem().Interface().(domain.SessionUpdate)}
}

// TestUpdateKindsAreTheUnions: updateKinds names every kind of update the
// domain defines, updateKindIndex finds each, and conversationKinds are
// the kinds conversationUpdate says carry the conversation.
func TestUpdateKindsAreTheUnions(t *testing.T) {
	variants := updateVariants(t)
	if len(variants) != len(updateKinds) {
		t.Errorf("the domain defines %d kinds of update, updateKinds lists %d", len(variants), len(updateKinds))
	}
	for _, v := range variants {
		n := updateOf(v, "s")
		if i := updateKindIndex(n); i == 0 || updateKinds[i-1] != v.Tag {
			t.Errorf("updateKindIndex of a %s update is %d, not that of %q in updateKinds", v.Type, i, v.Tag)
		}
		if conversationUpdate(n.Update) != slices.Contains(conversationKinds, v.Tag) {
			t.Errorf("conversationUpdate and conversationKinds disagree about %s", v.Tag)
		}
	}
	for _, params := range []any{nil, (*domain.SessionNotification)(nil), &domain.SessionNotification{}, &domain.PromptRequest{}} {
		if i := updateKindIndex(params); i != 0 {
			t.Errorf("updateKindIndex(%#v) = %d, want 0: every hook runs", params, i)
		}
	}
}

// TestNarrowedHooksIgnoreOtherUpdates holds each hook narrowed to kinds
// of update (Hook.Updates) to its word: in the phases the golden corpus
// and a generated transcript reach at their session/update messages, an
// update of any other kind, from either side, makes it report nothing
// and change nothing.
func TestNarrowedHooksIgnoreOtherUpdates(t *testing.T) {
	list := checkList()
	d := newDispatch(list)
	variants := updateVariants(t)
	type narrowed struct {
		hook  Hook
		check checkID
	}
	var hooks []narrowed
	for i, ch := range list {
		for _, h := range ch.Hooks {
			if len(h.Updates) > 0 {
				hooks = append(hooks, narrowed{h, checkID(i)})
			}
		}
	}
	if len(hooks) == 0 {
		t.Fatal("no hook is narrowed to kinds of update")
	}
	// Every update of the golden corpus, every 40th of the generated
	// transcript. Under the race detector, which has nothing to find in
	// this one goroutine and slows it five times (24 s), every 4th of the
	// corpus; .ci/run runs the test without -race, every update.
	corpusEvery := 1
	if proctest.RaceEnabled {
		corpusEvery = 4
	}
	judged := 0
	eachCorpusTranscript(t, 11, func(name string, events []Event) {
		p := newPhase()
		updates, every := 0, corpusEvery
		if name == "generated" {
			every = 40
		}
		for _, ev := range events {
			n, ok := paramsOf[domain.SessionNotification](ev.Msg)
			if ok && updates%every == 0 {
				for _, h := range hooks {
					q := p.Clone()
					for _, v := range variants {
						if slices.Contains(h.hook.Updates, v.Tag) {
							continue
						}
						for _, dir := range []domain.Direction{domain.FromAgent, domain.FromClient} {
							m := *ev.Msg
							m.Dir, m.Params = dir, updateOf(v, n.SessionID)
							r := &report{}
							c := &ctx{r: r, ev: ev, m: &m, d: d, check: h.check}
							c.ev.Msg = &m
							h.hook.request(&q, c)
							if len(r.errs) > 0 {
								t.Fatalf("%s line %d: %s, narrowed to %v, reports on a %s update: %v", name, ev.Loc.Line, list[h.check].Name, h.hook.Updates, v.Tag, r.errs)
							}
						}
					}
					if !reflect.DeepEqual(p, q) {
						t.Fatalf("%s line %d: %s, narrowed to %v, changes the phase for an update of another kind", name, ev.Loc.Line, list[h.check].Name, h.hook.Updates)
					}
					judged++
				}
			}
			if ok {
				updates++
			}
			_ = StepInPlace(&p, ev)
		}
	})
	if judged < 100 {
		t.Fatalf("only %d hooks judged: the test needs session/updates", judged)
	}
}

// TestNarrowedDispatchRunsAsEveryHook: the machine that calls a narrowed
// hook only for its kinds of update reaches the phases and findings of
// one that calls every hook of session/update for every update, on the
// golden corpus and a generated transcript.
func TestNarrowedDispatchRunsAsEveryHook(t *testing.T) {
	all := newDispatch(checkList())
	mh := all.methods.get(domain.MethodSessionUpdate)
	if mh == nil || mh.byUpdate == nil {
		t.Fatal("no hook of session/update is narrowed")
	}
	mh.byUpdate = nil
	eachCorpusTranscript(t, 13, func(name string, events []Event) {
		narrowedSt, everySt := Stepper{}, Stepper{s: &stepScratch{d: all}}
		narrowed, every := newPhase(), newPhase()
		for i, ev := range append(events, Event{End: true, Truncated: true}) {
			err := narrowedSt.Step(&narrowed, ev)
			errEvery := everySt.Step(&every, ev)
			if !sameFindings(err, errEvery) {
				t.Fatalf("%s: message %d (line %d): the narrowed dispatch reports %v, every hook %v", name, i, ev.Loc.Line, err, errEvery)
			}
			if !reflect.DeepEqual(narrowed, every) {
				t.Fatalf("%s: message %d (line %d): the narrowed dispatch reaches another phase", name, i, ev.Loc.Line)
			}
		}
	})
}
