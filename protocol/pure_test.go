package protocol

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
)

// TestStepIsPure holds the machine to its contract on every transcript of
// the golden corpus: stepping never changes the phase it is given. Checks
// change the step's own copy in place, so a check that wrote through to
// something the old phase shares (a Session, a map) would show here.
//
// For each message, the old phase is stepped twice and both results must
// agree; at the end, replaying the last few messages from a kept phase
// must reach the same phase and findings again.
func TestStepIsPure(t *testing.T) {
	cases, _ := filepath.Glob("../conformance/testdata/*/*.txtar")
	if len(cases) == 0 {
		t.Fatal("no golden transcripts found")
	}
	for _, name := range cases {
		events := corpusEvents(t, name)
		if len(events) == 0 {
			continue
		}
		phases := []Phase{newPhase()}
		var errs []error
		for i, ev := range events {
			p := phases[i]
			next, err := step(p, ev)
			again, errAgain := step(p, ev)
			if !reflect.DeepEqual(next, again) || !sameFindings(err, errAgain) {
				t.Fatalf("%s: message %d (line %d): stepping the same phase twice gives different results", name, i, ev.Loc.Line)
			}
			phases = append(phases, next)
			errs = append(errs, err)
		}
		from := max(0, len(events)-5)
		p := phases[from]
		for i := from; i < len(events); i++ {
			var err error
			p, err = step(p, events[i])
			if !sameFindings(err, errs[i]) {
				t.Fatalf("%s: replaying message %d from a kept phase gives other findings", name, i)
			}
		}
		if !reflect.DeepEqual(p, phases[len(events)]) {
			t.Fatalf("%s: replaying the last messages from a kept phase ends in another phase: a later step changed it", name)
		}
	}
}

func sameFindings(a, b error) bool {
	va, _ := Violations(a)
	vb, _ := Violations(b)
	if len(va) != len(vb) {
		return false
	}
	for i := range va {
		if !reflect.DeepEqual(va[i].Finding, vb[i].Finding) {
			return false
		}
	}
	return true
}

// corpusEvents decodes the NDJSON transcript of a golden case into events,
// attributing requests by the method tables and responses to the side that
// did not send the request with that id. (The lint driver does this more
// carefully; purity does not depend on it.)
func corpusEvents(t *testing.T, name string) []Event {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var transcript []byte
	for _, f := range txtar.Parse(data).Files {
		if f.Name == "transcript.ndjson" {
			transcript = f.Data
		}
	}
	return transcriptEvents(transcript, name)
}

// transcriptEvents decodes an NDJSON transcript into events, as
// corpusEvents describes.
func transcriptEvents(transcript []byte, name string) []Event {
	sent := map[string]domain.Direction{}
	var events []Event
	for n, line := range bytes.Split(transcript, []byte("\n")) {
		d := codec.DecodeLine(codec.Line{Num: n + 1, Bytes: line})
		for i, m := range d.Msgs {
			switch m.Kind {
			case domain.KindRequest, domain.KindNotification:
				if mi, ok := domain.LookupMethod(m.Method); ok && mi.Receiver != domain.SideEither {
					m.Dir = mi.Receiver.Sender()
				}
				if m.Kind == domain.KindRequest {
					sent[m.ID.Key()] = m.Dir
				}
			case domain.KindResult, domain.KindError:
				if dir, ok := sent[m.ID.Key()]; ok && dir != domain.DirUnknown {
					m.Dir = dir.Opposite()
				}
			}
			if m.Kind == domain.KindResult && m.Dir != domain.DirUnknown {
				if req, ok := pendingMethod(events, m); ok {
					m.Method = req
					if mi, known := domain.LookupMethod(req); known {
						d.DecodeResult(i, mi)
					}
				}
			}
			events = append(events, Event{Msg: m, Loc: findings.Location{File: name, Line: n + 1}})
		}
	}
	return events
}

// pendingMethod finds the method of the latest request that m answers.
func pendingMethod(events []Event, m *domain.Message) (domain.Method, bool) {
	for i := len(events) - 1; i >= 0; i-- {
		r := events[i].Msg
		if r.Kind == domain.KindRequest && r.Dir == m.Dir.Opposite() && r.ID.Key() == m.ID.Key() {
			return r.Method, true
		}
	}
	return "", false
}

// TestStepInPlaceIsStep drives every golden transcript through both Step
// and StepInPlace: after each message the two phases and findings must be
// the same, and StepInPlace must have changed nothing but its phase.
func TestStepInPlaceIsStep(t *testing.T) {
	cases, _ := filepath.Glob("../conformance/testdata/*/*.txtar")
	if len(cases) == 0 {
		t.Fatal("no golden transcripts found")
	}
	for _, name := range cases {
		events := append(corpusEvents(t, name), Event{End: true, Truncated: true})
		pure, inPlace := newPhase(), newPhase()
		for i, ev := range events {
			var err error
			pure, err = step(pure, ev)
			errInPlace := StepInPlace(&inPlace, ev)
			if !sameFindings(err, errInPlace) {
				t.Fatalf("%s: message %d (line %d): StepInPlace reports other findings than Step", name, i, ev.Loc.Line)
			}
			if !reflect.DeepEqual(pure, inPlace) {
				t.Fatalf("%s: message %d (line %d): StepInPlace reaches another phase than Step", name, i, ev.Loc.Line)
			}
		}
	}
}
