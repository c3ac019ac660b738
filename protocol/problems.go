package protocol

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/internal/jsonv"
)

// Codec problems (Event.Problems) become findings through the OnProblem
// hooks of the checks: each check routes the problems of its own rules,
// keyed by problem kind, schema definition and member, so that the rule a
// problem breaks is decided where the rule lives.

// A ProblemKey says which codec problems a hook takes.
type ProblemKey struct {
	Kinds []domain.ProblemKind // never empty
	// Defs are the schema definitions it takes, by exact name; or
	// DefPrefix or DefSuffix name a family of definitions; with none of
	// them, any definition.
	Defs                 []string
	DefPrefix, DefSuffix string
	Members              []string // none: any member
	// Request, when set, limits the key to problems in a request of that
	// method.
	Request domain.Method
}

func (k ProblemKey) String() string {
	var b strings.Builder
	for i, kind := range k.Kinds {
		if i > 0 {
			b.WriteByte('|')
		}
		b.WriteString(kind.String())
	}
	switch {
	case len(k.Defs) > 0:
		b.WriteString(" in " + strings.Join(k.Defs, "|"))
	case k.DefPrefix != "":
		b.WriteString(" in " + k.DefPrefix + "*")
	case k.DefSuffix != "":
		b.WriteString(" in *" + k.DefSuffix)
	}
	if len(k.Members) > 0 {
		b.WriteString(" at " + strings.Join(k.Members, "|"))
	}
	if k.Request != "" {
		b.WriteString(" of a " + string(k.Request) + " request")
	}
	return b.String()
}

// matches reports whether k takes p, a problem of message m.
func (k ProblemKey) matches(p *domain.Problem, m *domain.Message) bool {
	if !slices.Contains(k.Kinds, p.Kind) {
		return false
	}
	switch {
	case len(k.Defs) > 0:
		if !slices.Contains(k.Defs, p.Def) {
			return false
		}
	case k.DefPrefix != "":
		if !strings.HasPrefix(p.Def, k.DefPrefix) {
			return false
		}
	case k.DefSuffix != "":
		if !strings.HasSuffix(p.Def, k.DefSuffix) {
			return false
		}
	}
	if len(k.Members) > 0 && !slices.Contains(k.Members, p.Member) {
		return false
	}
	return k.Request == "" || (m.Kind == domain.KindRequest && m.Method == k.Request)
}

// specificity ranks what k says about a problem's definition: 0 for an
// exact name and a member, 1 for an exact name, 2 for a name's start, 3
// for its end, 4 for nothing.
func (k ProblemKey) specificity() int {
	switch {
	case len(k.Defs) > 0 && len(k.Members) > 0:
		return 0
	case len(k.Defs) > 0:
		return 1
	case k.DefPrefix != "":
		return 2
	case k.DefSuffix != "":
		return 3
	}
	return 4
}

// problemPrecedence orders keys so that the first one that takes a problem
// is the one that says most about it: the definition first
// (specificity), then a key limited to one request before one that is
// not, then fewer kinds before more. Keys that tie on all three never take
// the same problem (TestProblemKeysDoNotOverlap), so the order of the
// checks does not decide which rule a problem breaks.
func problemPrecedence(a, b ProblemKey) int {
	return cmp.Or(
		cmp.Compare(a.specificity(), b.specificity()),
		cmp.Compare(boolRank(a.Request == ""), boolRank(b.Request == "")),
		cmp.Compare(len(a.Kinds), len(b.Kinds)),
	)
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A problemCheck raises the finding for one codec problem of the current
// message.
type problemCheck func(p *Phase, c *ctx, pr problem)

// problem is a codec problem as a hook sees it.
type problem struct {
	*domain.Problem
	// drop is, for a schema problem in a member that reference receivers
	// replace with its default or an array item they skip when it is
	// malformed, the sentence that says so; "" otherwise.
	drop string
}

// withDrop returns text followed by pr's drop sentence, if it has one.
func (pr problem) withDrop(text string) string {
	if pr.drop == "" {
		return text
	}
	return text + "; " + pr.drop
}

// schemaKinds are the problems of a value against its schema.
var schemaKinds = []domain.ProblemKind{
	domain.ProbMissing, domain.ProbType, domain.ProbRange, domain.ProbEnum, domain.ProbUnknownVariant,
}

// raiseProblems runs, for each codec problem of the current event, the
// hook whose key takes it first, as its check. A problem no hook takes is
// a bug in acplint, reported like an undeclared rule.
func raiseProblems(p *Phase, c *ctx) {
	for i := range c.ev.Problems {
		pr := problem{Problem: &c.ev.Problems[i]}
		h := c.d.problemHook(pr.Problem, c.m)
		if h == nil {
			c.r.errs = append(c.r.errs, fmt.Errorf("protocol: no check takes the %s problem of %s at %s: %s", pr.Kind, pr.Def, c.ev.Loc.At(pr.Pointer), pr.Detail))
			continue
		}
		if slices.Contains(schemaKinds, pr.Kind) {
			pr.drop = lenientDrop(c.m, pr.Pointer)
		}
		c.check = h.check
		h.run(p, c, pr)
	}
	c.check = c.d.framing
}

// problemHook returns the hook that takes p, a problem of m, or nil.
func (d *dispatch) problemHook(p *domain.Problem, m *domain.Message) *problemHook {
	for i := range d.problems {
		if d.problems[i].key.matches(p, m) {
			return &d.problems[i]
		}
	}
	return nil
}

// describeMessage names a message for finding text: "session/new params",
// "session/prompt result".
func describeMessage(m *domain.Message) string {
	switch m.Kind {
	case domain.KindRequest, domain.KindNotification:
		return string(m.Method) + " params"
	case domain.KindResult:
		if m.Method != "" {
			return string(m.Method) + " result"
		}
		return "result"
	case domain.KindError:
		return "error response"
	}
	return "message"
}

// lenientDrop says what reference receivers do to the value at pointer in
// m when it is malformed and its member is one they replace with its
// default or an array item they skip; "" when they reject the message.
func lenientDrop(m *domain.Message, pointer string) string {
	lost, skipped, lenient := lenientScope(m, pointer)
	switch {
	case !lenient:
		return ""
	case skipped:
		return fmt.Sprintf("reference receivers drop item %s without an error, so it is lost silently", lost)
	}
	return fmt.Sprintf("reference receivers replace %s with its default without an error, so the value is lost silently", lost)
}

// lenientMark is what the schema's x-deserialize annotations say about a
// member: reference receivers (the Rust schema crate) replace a malformed
// value with its default, or skip malformed array items. lenientMarkOf
// (lenient_gen.go) holds the marks of the upstream schema, generated so
// that lint does not parse the schema at run time; after a schema upgrade
// its test says to regenerate it.
//
//go:generate go test -run TestLenientGenIsCurrent -update-lenient
type lenientMark struct{ defaultOnError, skipInvalidItems bool }

// lenientScope finds the innermost member or array item around pointer
// (a problem's location in m) that reference receivers replace or skip
// when it is malformed. It walks m's typed params or result along the
// pointer, so union variants are the ones the codec chose.
func lenientScope(m *domain.Message, pointer string) (at string, skipped, ok bool) {
	segs := strings.Split(pointer, "/")
	// segs[0] is "" (the pointer starts with "/"); a batch adds an index.
	i := 1
	if i < len(segs) && isIndex(segs[i]) {
		i++
	}
	if i >= len(segs) {
		return "", false, false
	}
	var root any
	switch segs[i] {
	case "params":
		root = m.Params
	case "result":
		root = m.Result
	default:
		return "", false, false
	}
	path := strings.Join(segs[:i+1], "/")
	v := reflect.ValueOf(root)
	itemsSkip := false
	for _, seg := range segs[i+1:] {
		v = deref(v)
		if !v.IsValid() {
			break
		}
		switch v.Kind() {
		case reflect.Struct:
			path += "/" + seg
			mark := lenientMarkOf(v.Type().Name(), jsonv.UnescapeToken(seg))
			if mark.defaultOnError {
				at, skipped, ok = path, false, true
			}
			itemsSkip = mark.skipInvalidItems
			v = fieldByJSON(v, jsonv.UnescapeToken(seg))
		case reflect.Slice:
			path += "/" + seg
			if itemsSkip {
				at, skipped, ok = path, true, true
			}
			itemsSkip = false
			n, err := strconv.Atoi(seg)
			if err != nil || n >= v.Len() {
				return at, skipped, ok
			}
			v = v.Index(n)
		default:
			return at, skipped, ok
		}
	}
	return at, skipped, ok
}

func isIndex(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

// deref follows pointers, interfaces and set Opt values.
func deref(v reflect.Value) reflect.Value {
	for v.IsValid() {
		switch {
		case v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface:
			if v.IsNil() {
				return reflect.Value{}
			}
			v = v.Elem()
		case v.Kind() == reflect.Struct && v.Type().Implements(optionalType):
			v = v.Field(0)
		default:
			return v
		}
	}
	return v
}

// fieldByJSON returns the field of struct v that member name decodes
// into, looking into inline members; invalid when there is none.
func fieldByJSON(v reflect.Value, name string) reflect.Value {
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		tag, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if tag == name {
			return v.Field(i)
		}
		if tag == "" && strings.Contains(opts, "inline") {
			if inner := deref(v.Field(i)); inner.IsValid() && inner.Kind() == reflect.Struct {
				if f := fieldByJSON(inner, name); f.IsValid() {
					return f
				}
			}
		}
	}
	return reflect.Value{}
}
