package protocol

import (
	"encoding/json"
	"testing"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
)

// emptyMethod is a method with a typed nil and a zero value of its params
// and result, for the tests that feed the checks messages whose params or
// result did not decode.
type emptyMethod struct {
	method                domain.Method
	from                  domain.Direction
	nilParams, zeroParams any
	nilRes, zeroRes       any
}

// survivor steps a phase through such messages and fails the test on any
// error that is not a rule violation: a check that errs on values it could
// not expect is a bug in the machine, and a panic fails the test anyway.
type survivor struct {
	t    *testing.T
	what string // the case being run, for failure messages
	p    Phase
	line int
	id   int
}

func newSurvivor(t *testing.T, what string, p Phase) *survivor {
	return &survivor{t: t, what: what, p: p, id: 100}
}

// step steps ev as the next line.
func (s *survivor) step(ev Event) {
	s.t.Helper()
	s.line++
	ev.Loc = findings.Location{File: "t", Line: s.line}
	var err error
	s.p, err = step(s.p, ev)
	if _, other := Violations(err); len(other) > 0 {
		name := "end of transcript"
		if ev.Msg != nil {
			name = string(ev.Msg.Method)
		}
		s.t.Fatalf("%s, line %d (%s): %v", s.what, s.line, name, other)
	}
}

// exchange sends em with its nil, zero and absent params, raw attached to
// the first send of each, and answers each request with every answer in
// turn, asking again before each so that every answer has a request.
func (s *survivor) exchange(em emptyMethod, raw json.RawMessage, answers ...*domain.Message) {
	s.t.Helper()
	kind := domain.KindRequest
	if mi, ok := domain.LookupMethod(em.method); ok && mi.Notification {
		kind = domain.KindNotification
	}
	for _, params := range []any{em.nilParams, em.zeroParams, nil} {
		rid := s.nextID()
		s.step(Event{Msg: &domain.Message{Kind: kind, Method: em.method, Dir: em.from, ID: rid, Params: params, RawParams: raw}})
		if kind == domain.KindNotification {
			continue
		}
		for _, answer := range answers {
			m := *answer
			m.ID, m.Dir, m.Method = rid, em.from.Opposite(), em.method
			s.step(Event{Msg: &m})
			rid = s.nextID()
			s.step(Event{Msg: &domain.Message{Kind: kind, Method: em.method, Dir: em.from, ID: rid, Params: params}})
		}
	}
}

func (s *survivor) nextID() domain.RequestID {
	s.id++
	b, _ := json.Marshal(s.id - 1)
	return domain.RequestID{Raw: b}
}

// end steps the end of the transcript.
func (s *survivor) end() {
	s.t.Helper()
	s.step(Event{End: true})
}
