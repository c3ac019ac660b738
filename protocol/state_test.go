package protocol

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/acplint/acplint/domain"
)

// texts makes the strings and bytes that fill a value: as copies, or
// pointing into one buffer that poison overwrites, as a batch decoder
// reuses its memory once a step returns.
type texts struct {
	n       int
	aliased bool
	buf     []byte
}

func newTexts(aliased bool) *texts { return &texts{aliased: aliased, buf: make([]byte, 0, 1<<20)} }

func (t *texts) next() string {
	s := t.fresh()
	if !t.aliased {
		return s
	}
	if len(t.buf)+len(s) > cap(t.buf) {
		panic("texts: buffer full")
	}
	start := len(t.buf)
	t.buf = append(t.buf, s...)
	return unsafe.String(&t.buf[start], len(s))
}

func (t *texts) bytes() []byte {
	s := t.next()
	if t.aliased {
		return unsafe.Slice(unsafe.StringData(s), len(s))
	}
	return []byte(s)
}

// fresh returns the next text as a copy.
func (t *texts) fresh() string {
	s := fmt.Sprintf("text-%05d", t.n)
	t.n++
	return s
}

// poison overwrites everything next and bytes handed out.
func (t *texts) poison() {
	for i := range t.buf {
		t.buf[i] = '#'
	}
}

// fill sets every string, byte slice and exported field reachable from v
// that fill can set, making slices of two elements and maps of one, down
// to a few levels. Strings of the named string types of package domain
// are ids and enum values, which the decoder always copies: they get
// fresh text.
func (t *texts) fill(v reflect.Value, depth int) {
	if depth > 6 {
		return
	}
	switch v.Kind() {
	case reflect.String:
		if v.Type().PkgPath() == reflect.TypeFor[domain.SessionID]().PkgPath() {
			v.SetString(t.fresh())
			return
		}
		v.SetString(t.next())
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		t.fill(k, depth+1)
		t.fill(e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes(t.bytes())
			return
		}
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			t.fill(s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		t.fill(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				t.fill(f, depth+1)
			}
		}
	case reflect.Array:
		for i := range v.Len() {
			t.fill(v.Index(i), depth+1)
		}
	}
}

// value returns a value of type typ filled from t.
func (t *texts) value(typ reflect.Type) reflect.Value {
	v := reflect.New(typ).Elem()
	t.fill(v, 0)
	return v
}

// filled returns a value of type typ filled from fresh texts; two calls
// return equal values.
func filled(typ reflect.Type, aliased bool) (reflect.Value, *texts) {
	t := newTexts(aliased)
	return t.value(typ), t
}

// stateMaps returns the Map types reachable from a Phase, by name.
func stateMaps() map[string]reflect.Type {
	found := map[string]reflect.Type{}
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		if seen[typ] {
			return
		}
		seen[typ] = true
		switch typ.Kind() {
		case reflect.Pointer, reflect.Array, reflect.Slice:
			walk(typ.Elem())
		case reflect.Struct:
			if typ.PkgPath() != reflect.TypeFor[Phase]().PkgPath() {
				return
			}
			if strings.HasPrefix(typ.Name(), "Map[") {
				found[typ.String()] = typ
				walk(mapValue(typ))
				return
			}
			for i := range typ.NumField() {
				walk(typ.Field(i).Type)
			}
		}
	}
	walk(reflect.TypeFor[Phase]())
	return found
}

// mapValue returns the value type of Map type typ.
func mapValue(typ reflect.Type) reflect.Type {
	entry := typ.Field(0).Type.Elem()
	return entry.Field(1).Type
}

// storedAsGiven are the value types Map stores as they are, and why
// keeping them is safe.
var storedAsGiven = map[reflect.Type]string{
	reflect.TypeFor[*Session]():  "built by newSession, changed through the Session setters (TestStateSettersDetach)",
	reflect.TypeFor[*Terminal](): "holds no text but a session id",
	reflect.TypeFor[Pending]():   "the decoder gives a request's method and session id memory of their own; onRequest copies its id and keptParams what it keeps of its params",
	reflect.TypeFor[*rootSet]():  "built by newRootSet, which copies the text it keeps, and never changed (cloneValue copies it)",
}

// TestMapOwnsWhatItStores stores, in every kind of Map the phase holds,
// keys and values whose text points into memory that is then
// overwritten, as a batch decoder reuses its memory: what the map returns
// must still be what was stored. A value type that carries text and that
// owned does not copy fails here.
func TestMapOwnsWhatItStores(t *testing.T) {
	maps := stateMaps()
	if len(maps) < 10 {
		t.Fatalf("found only %d Map types in Phase", len(maps))
	}
	if _, ok := maps[reflect.TypeFor[Map[domain.ToolCallID, ToolCall]]().String()]; !ok {
		t.Fatal("the walk misses Session.ToolCalls")
	}
	for name, typ := range maps {
		valType := mapValue(typ)
		if why, ok := storedAsGiven[valType]; ok {
			t.Logf("%s: values stored as given: %s", name, why)
			continue
		}
		// Store a value, replace it with one of other text, and store that
		// again, as updates do, each time from memory reused afterwards.
		m := reflect.New(typ)
		keyType := typ.Field(0).Type.Key()
		var used []*texts
		for _, from := range []int{1000, 0, 0} {
			keyTexts := newTexts(true)
			key := reflect.ValueOf(keyTexts.next()).Convert(keyType)
			valTexts := newTexts(true)
			valTexts.n = from
			m.MethodByName("Set").Call([]reflect.Value{key, valTexts.value(valType)})
			used = append(used, keyTexts, valTexts)
		}
		for _, tx := range used {
			tx.poison()
		}
		wantKey := reflect.ValueOf(newTexts(false).next()).Convert(keyType)
		wantVal, _ := filled(valType, false)
		out := m.MethodByName("Get").Call([]reflect.Value{wantKey})
		if !out[1].Bool() {
			t.Errorf("%s: the stored key changed with the memory it was read from", name)
			continue
		}
		if !reflect.DeepEqual(out[0].Interface(), wantVal.Interface()) {
			t.Errorf("%s: the stored %s is not the value stored last, or changed with the memory it was read from: %+v", name, valType, out[0])
		}
		var keys []string
		m.Elem().MethodByName("All").Call(nil)[0].Seq2()(func(k, _ reflect.Value) bool {
			keys = append(keys, k.String())
			return true
		})
		if len(keys) != 1 || keys[0] != wantKey.String() {
			t.Errorf("%s: All yields keys %q after the memory was reused, want [%q]", name, keys, wantKey.String())
		}
	}
}

// TestStateSettersDetach gives each setter of the phase's state a value
// whose text points into memory that is then overwritten: what the state
// keeps must not change.
func TestStateSettersDetach(t *testing.T) {
	setters := []struct {
		name string
		set  func(*Phase, *texts) any // sets state from tx, returns what it kept
	}{
		{"newSession", func(p *Phase, tx *texts) any { return newSession("s", SessionIdle, 1, tx.next()).Cwd }},
		{"Session.setModes", func(p *Phase, tx *texts) any {
			s := &Session{}
			m := tx.value(reflect.TypeFor[domain.SessionModeState]()).Interface().(domain.SessionModeState)
			s.setModes(&m)
			return s.Modes
		}},
		{"Session.setConfigOptions", func(p *Phase, tx *texts) any {
			s := &Session{}
			s.setConfigOptions(tx.value(reflect.TypeFor[[]domain.SessionConfigOption]()).Interface().([]domain.SessionConfigOption))
			return s.ConfigOptions
		}},
		{"setClientCaps", func(p *Phase, tx *texts) any {
			caps := tx.value(reflect.TypeFor[domain.ClientCapabilities]()).Interface().(domain.ClientCapabilities)
			p.setClientCaps(&caps)
			return p.ClientCaps
		}},
		{"setAgentCaps", func(p *Phase, tx *texts) any {
			caps := tx.value(reflect.TypeFor[domain.AgentCapabilities]()).Interface().(domain.AgentCapabilities)
			p.setAgentCaps(&caps)
			return p.AgentCaps
		}},
		{"setAuthMethods", func(p *Phase, tx *texts) any {
			p.setAuthMethods([]domain.AuthMethod{
				tx.value(reflect.TypeFor[domain.AuthMethodAgent]()).Interface().(domain.AuthMethod),
				tx.value(reflect.TypeFor[domain.AuthMethodTerminal]()).Interface().(domain.AuthMethod),
			})
			return p.AuthMethods
		}},
	}
	for _, s := range setters {
		p := newPhase()
		tx := newTexts(true)
		kept := s.set(&p, tx)
		want := s.set(&Phase{}, newTexts(false))
		tx.poison()
		if tx.n == 0 {
			t.Fatalf("%s: the test gave the setter no text", s.name)
		}
		if !reflect.DeepEqual(kept, want) {
			t.Errorf("%s keeps memory of the value it was given: got %+v", s.name, kept)
		}
	}
}
