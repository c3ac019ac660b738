package protocol

import (
	"fmt"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
)

// ACP is the ACP v1 phase machine.
var ACP = Spec[Phase, Event]{Initial: newPhase(), Step: step}

// step is pure: p is a value whose maps are persistent, so every change
// below builds a new version and leaves the caller's phase untouched.
func step(p Phase, ev Event) (next Phase, err error) {
	r := &report{}
	if ev.End {
		p = finish(p, r, ev)
		return p, r.err()
	}
	m := ev.Msg
	if m == nil {
		return p, fmt.Errorf("protocol: event at %s has no message", ev.Loc)
	}
	if m.Dir == domain.FromAgent {
		// next, not p: the deferred call runs after the return value is set.
		defer func() { next.LastAgentLine = ev.Loc.Line }()
	}
	if p.Conn == ConnOtherVersion {
		// v1 rules do not apply to a connection that negotiated another
		// version; ACP-VER-005 was reported once when it happened.
		return p, nil
	}
	c := &ctx{r: r, ev: ev, m: m}
	switch m.Kind {
	case domain.KindRequest:
		p = onRequest(p, c)
	case domain.KindNotification:
		p = onNotification(p, c)
	case domain.KindResult, domain.KindError:
		p = onResponse(p, c)
	}
	return p, r.err()
}

// ctx carries what every check needs while one message is stepped.
type ctx struct {
	r  *report
	ev Event
	m  *domain.Message
}

// add reports rule at pointer ptr of the current message.
func (c *ctx) add(rule *findings.Rule, ptr string, format string, args ...any) *findings.ValidationFinding {
	f := c.r.add(rule, c.ev.Loc.At(ptr), format, args...)
	if f.Blame == findings.PartyEither {
		switch c.m.Dir {
		case domain.FromClient:
			f.Blame = findings.PartyClient
		case domain.FromAgent:
			f.Blame = findings.PartyAgent
		}
	}
	return f
}

// related adds a line that helps prove f.
func (c *ctx) related(f *findings.ValidationFinding, line int, format string, args ...any) {
	if line <= 0 {
		return
	}
	f.Related = append(f.Related, findings.Related{
		Location: findings.Location{File: c.ev.Loc.File, Line: line},
		Message:  fmt.Sprintf(format, args...),
	})
}

func (c *ctx) line() int { return c.ev.Loc.Line }
