package protocol

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
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

// TestResetMakesAFreshContext: ctx.reset, which a step uses instead of
// writing the whole context afresh, leaves every field as the fresh
// context has it, but the caches whose flags it clears. A field added to
// ctx fails here until reset sets it or it joins the caches.
func TestResetMakesAFreshContext(t *testing.T) {
	var c ctx
	fillNonZero(reflect.ValueOf(&c).Elem())
	d := dispatchTables()
	r, m := &report{}, &domain.Message{Method: "m"}
	ev := Event{Msg: m, Loc: findings.Location{File: "f", Line: 3}, End: true}
	c.reset(r, ev, m, d)
	fresh := ctx{r: r, ev: ev, m: m, d: d, check: d.framing}
	// The caches: a flag of the fresh context says each is empty.
	cached := map[string]bool{"info": true, "session": true}
	cv, fv := reflect.ValueOf(&c).Elem(), reflect.ValueOf(&fresh).Elem()
	for i := range cv.NumField() {
		name := cv.Type().Field(i).Name
		got, want := readable(cv.Field(i)), readable(fv.Field(i))
		switch {
		case cached[name]:
		case name == "scans":
			for j := range got.Len() {
				if got.Index(j).FieldByName("done").Bool() {
					t.Errorf("reset leaves scans[%d] done", j)
				}
			}
		case !reflect.DeepEqual(got.Interface(), want.Interface()):
			t.Errorf("reset leaves ctx.%s as %v; a fresh context has %v", name, got, want)
		}
	}
}

// readable returns v, an addressable field, as one Interface may read.
func readable(v reflect.Value) reflect.Value {
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

// fillNonZero sets every field v reaches to a value that is not its zero.
func fillNonZero(v reflect.Value) {
	if !v.CanSet() {
		v = reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.String:
		v.SetString("x")
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
	case reflect.Array:
		for i := range v.Len() {
			fillNonZero(v.Index(i))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			fillNonZero(v.Field(i))
		}
	}
}
