package protocol

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/internal/proctest"
	"github.com/acplint/acplint/internal/transcriptgen"
)

// TestStepIsPure holds the machine to its contract on every transcript of
// the golden corpus: stepping never changes the phase it is given. Step
// clones the phase and steps the clone in place, so a Clone that shared
// anything changeable with the phase (a Session, a map) would show here:
// the clone must share no memory with the phase but text and a pending
// request's id and params, and however later steps change it, the phase must stay as it
// was.
//
// For each message, the old phase is stepped twice and both results must
// agree; at the end, replaying the last few messages
// from a kept phase must reach the same phase and findings again.
func TestStepIsPure(t *testing.T) {
	cases, _ := filepath.Glob("../conformance/testdata/*/*.txtar")
	if len(cases) == 0 {
		t.Fatal("no golden transcripts found")
	}
	for _, name := range cases {
		events := corpusEvents(t, name)
		if proctest.RaceEnabled && len(events) > 100 {
			// The race detector has nothing to find in this one goroutine
			// and slows it seven times, most of it (10-20 s) in the two
			// transcripts of 600 messages, whose growing phase every step
			// walks for shared memory: under it, each transcript's first
			// 100. .ci/run runs the test without -race on all of them.
			events = events[:100]
		}
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
			if where := sharedMemory(reflect.ValueOf(next), reflect.ValueOf(p), "Phase"); where != "" {
				t.Fatalf("%s: message %d (line %d): the stepped phase shares %s with the phase it was stepped from", name, i, ev.Loc.Line, where)
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
	if !reflect.DeepEqual(ACP.Initial, newPhase()) {
		t.Fatal("stepping changed ACP.Initial")
	}
}

// sharedMemory returns the path of a map, pointer or slice that a and b,
// two values of one type, both reach, or "" when they share nothing but
// strings and a pending request's id and params, which nothing changes.
func sharedMemory(a, b reflect.Value, path string) string {
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		return sharedMemory(a.Elem(), b.Elem(), path)
	case reflect.Map:
		if a.IsNil() || b.IsNil() {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		for it := a.MapRange(); it.Next(); {
			if vb := b.MapIndex(it.Key()); vb.IsValid() {
				if where := sharedMemory(it.Value(), vb, fmt.Sprintf("%s[%v]", path, it.Key())); where != "" {
					return where
				}
			}
		}
	case reflect.Slice:
		if a.Cap() > 0 && b.Cap() > 0 && a.Pointer() == b.Pointer() {
			return path
		}
		for i := range min(a.Len(), b.Len()) {
			if where := sharedMemory(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); where != "" {
				return where
			}
		}
	case reflect.Array:
		for i := range a.Len() {
			if where := sharedMemory(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); where != "" {
				return where
			}
		}
	case reflect.Struct:
		for i := range a.NumField() {
			f := a.Type().Field(i)
			if a.Type() == reflect.TypeFor[Pending]() && (f.Name == "ID" || f.Name == "Params") {
				continue
			}
			if where := sharedMemory(a.Field(i), b.Field(i), path+"."+f.Name); where != "" {
				return where
			}
		}
	case reflect.Interface:
		if a.IsNil() || b.IsNil() || a.Elem().Type() != b.Elem().Type() {
			return ""
		}
		return sharedMemory(a.Elem(), b.Elem(), path)
	}
	return ""
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
	// A case that passes a cap (turn-cut: 8,193 tool calls of one turn)
	// runs thousands of lines; the phase tests, which clone and compare
	// the phase at each step, would take minutes over it. They walk its
	// first maxCorpusLines lines; TestGolden runs it whole.
	if lines := bytes.SplitAfter(transcript, []byte("\n")); len(lines) > maxCorpusLines {
		transcript = bytes.Join(lines[:maxCorpusLines], nil)
	}
	return transcriptEvents(transcript, name)
}

const maxCorpusLines = 600

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

// TestStepInPlaceIsStep drives every golden transcript, and a generated
// one with many sessions, through both Step and StepInPlace: after each
// message the two phases and findings must be the same.
func TestStepInPlaceIsStep(t *testing.T) {
	eachCorpusTranscript(t, 3, func(name string, events []Event) {
		events = append(events, Event{End: true, Truncated: true})
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
	})
}

// eachCorpusTranscript calls f with the name and events of every golden
// transcript, then of a generated one of 1 MiB with many sessions (named
// "generated", from seed): all the traffic the tests know.
//
// Under the race detector the generated transcript is 128 KiB: the tests
// that walk it step one phase in one goroutine, where the race detector
// has nothing to find and which it slows five times (the 1 MiB took 22
// of their 70 s). .ci/run runs them without -race at full size.
func eachCorpusTranscript(t *testing.T, seed int64, f func(name string, events []Event)) {
	t.Helper()
	cases, _ := filepath.Glob("../conformance/testdata/*/*.txtar")
	if len(cases) == 0 {
		t.Fatal("no golden transcripts found")
	}
	for _, name := range cases {
		f(name, corpusEvents(t, name))
	}
	size := int64(1 << 20)
	if proctest.RaceEnabled {
		size = 128 << 10
	}
	var generated bytes.Buffer
	if err := transcriptgen.Write(&generated, transcriptgen.Options{Seed: seed, Bytes: size}); err != nil {
		t.Fatal(err)
	}
	f("generated", transcriptEvents(generated.Bytes(), "generated"))
}
