package protocol

import (
	"reflect"
	"testing"
)

// TestStepperIsStepInPlace drives every golden transcript, and a
// generated one, through StepInPlace and through one Stepper: after each
// message the two phases and findings must be the same, although the
// Stepper's memory holds what the step before left in it.
func TestStepperIsStepInPlace(t *testing.T) {
	eachCorpusTranscript(t, 7, func(name string, events []Event) {
		events = append(events, Event{End: true, Truncated: true})
		var st Stepper
		pooled, kept := newPhase(), newPhase()
		findings := 0
		for i, ev := range events {
			err := StepInPlace(&pooled, ev)
			errKept := st.Step(&kept, ev)
			if !sameFindings(err, errKept) || (err == nil) != (errKept == nil) {
				t.Fatalf("%s: message %d (line %d): the Stepper reports %v, StepInPlace %v", name, i, ev.Loc.Line, errKept, err)
			}
			if !reflect.DeepEqual(pooled, kept) {
				t.Fatalf("%s: message %d (line %d): the Stepper reaches another phase than StepInPlace", name, i, ev.Loc.Line)
			}
			if err != nil {
				findings++
			}
		}
		if name == "generated" && findings != 0 {
			t.Fatalf("the generated transcript has findings in %d messages", findings)
		}
	})
}
