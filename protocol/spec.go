// Package protocol is the ACP phase machine: a pure Step function that
// folds one message at a time into the connection's state and reports every
// rule the message breaks.
//
// The package sees typed messages only (package domain), never bytes: the
// codec decodes, the lint driver feeds messages in transcript order, and
// the same machine judges recorded transcripts and live agents alike.
package protocol

import (
	"errors"
	"fmt"

	"github.com/acplint/acplint/findings"
)

// Spec is a state machine over phases P and messages M. Step must be pure:
// it must not modify p, and it returns the phase to continue from even when
// m breaks a rule, so that one bad message yields one finding rather than a
// cascade. A rule breach is reported as a *Violation (several are joined
// with errors.Join); any other error is a bug in the machine.
type Spec[P, M any] struct {
	Initial P
	Step    func(P, M) (P, error)
}

// Run folds msgs through s from s.Initial and returns the final phase and
// the errors each step returned, in order.
func Run[P, M any](s Spec[P, M], msgs []M) (P, []error) {
	p := s.Initial
	var errs []error
	for _, m := range msgs {
		var err error
		p, err = s.Step(p, m)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return p, errs
}

// Violation is one rule breach found by Step.
type Violation struct {
	Finding findings.ValidationFinding
}

func (v *Violation) Error() string {
	return fmt.Sprintf("%s: %s (%s)", v.Finding.Location, v.Finding.Message, v.Finding.RuleID)
}

// Violations flattens err (a *Violation, an errors.Join tree of them, or
// nil) into its violations. Errors that are not violations are returned
// separately: they are bugs, and the driver reports them as such.
func Violations(err error) (vs []*Violation, other []error) {
	if err == nil {
		return nil, nil
	}
	var walk func(error)
	walk = func(e error) {
		if v, ok := e.(*Violation); ok {
			vs = append(vs, v)
			return
		}
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
			return
		}
		other = append(other, e)
	}
	walk(err)
	return vs, other
}

// report collects violations while one Step runs.
type report struct {
	errs []error
}

func (r *report) add(rule *findings.Rule, loc findings.Location, format string, args ...any) *findings.ValidationFinding {
	v := &Violation{Finding: findings.New(rule, loc, fmt.Sprintf(format, args...))}
	r.errs = append(r.errs, v)
	return &v.Finding
}

func (r *report) err() error { return errors.Join(r.errs...) }
