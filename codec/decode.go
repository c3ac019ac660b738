package codec

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/internal/jsonv"
)

// decoder fills domain values from a parsed tree and collects problems.
//
// It tracks where it is as a stack of path segments and renders a JSON
// Pointer only when it reports a problem: building a pointer string for
// every member of every message would cost more than the decode itself.
type decoder struct {
	src      []byte
	base     jsonv.Pointer // where the message sits on the line ("" or "/i" in a batch)
	path     []segment
	problems []Problem
	pathBuf  [8]segment // the first segments of path, to save allocations
	// strs, when set, shares copies of short strings between lines.
	strs *stringCache
	// arms, when set, holds the arms of common unions (arms.go).
	arms *genArms
	// metaSeen records that a typed value held a "_meta" member, which
	// spares the protocol machine a search for one (Decoded.MetaSeen).
	metaSeen bool
	// unknownNames indexes the names kept in an object's Unknown members
	// once there are too many to scan (repeatedUnknown).
	unknownNames map[*domain.Member]*nameIndex
	// reported counts the problems reported, kept or not: problem k (from
	// 0) is problems[k] while k < MaxProblemsPerMessage. lastDropped
	// remembers the last type or range problem past the cap, which
	// rejectedHere still needs.
	reported    int
	lastDropped droppedReject
}

// MaxProblemsPerMessage is the most problems a message keeps. A line with a
// million duplicate members must not hold a million problems (over 1 KB
// each) while it is judged; the rest are counted (ProbTooMany). A real
// message has a handful.
const MaxProblemsPerMessage = 100

// droppedReject is a type or range problem that was not kept: its number
// among the reported ones and the depth of the value it rejected.
type droppedReject struct {
	serial, depth int
}

// keep counts a problem being reported and says whether it is kept.
func (d *decoder) keep() bool {
	d.reported++
	return len(d.problems) < MaxProblemsPerMessage
}

// add reports a problem whose pointer is already set.
func (d *decoder) add(p Problem) {
	if d.keep() {
		d.problems = append(d.problems, p)
	}
}

// mark is where the problems reported from now on start, for rejectedHere.
func (d *decoder) mark() int { return d.reported }

// finish returns the problems kept, followed by one that counts the rest.
func (d *decoder) finish(ptr string) []Problem {
	if dropped := d.reported - len(d.problems); dropped > 0 {
		d.problems = append(d.problems, Problem{Kind: ProbTooMany, Pointer: ptr,
			Detail: fmt.Sprintf("%d more problems in this message are not reported: acplint keeps the first %d of a message", dropped, MaxProblemsPerMessage)})
	}
	return d.problems
}

func newDecoder(src []byte, base jsonv.Pointer) *decoder {
	d := &decoder{src: src, base: base}
	d.path = d.pathBuf[:0]
	return d
}

// segment is one step of a JSON Pointer: a member name or an array index.
type segment struct {
	key   string
	index int // -1 for a member name
}

func (d *decoder) pushKey(k string) { d.path = append(d.path, segment{key: k, index: -1}) }
func (d *decoder) pushIndex(i int)  { d.path = append(d.path, segment{index: i}) }
func (d *decoder) pop()             { d.path = d.path[:len(d.path)-1] }

// pointer renders the current position, plus member extra when it is not "".
func (d *decoder) pointer(extra string) string {
	p := d.base
	for _, s := range d.path {
		if s.index >= 0 {
			p = p.Index(s.index)
		} else {
			p = p.Key(s.key)
		}
	}
	if extra != "" {
		p = p.Key(extra)
	}
	return string(p)
}

// reportHere records a problem about the value at the current position.
// A problem about a member's value names the member.
func (d *decoder) reportHere(p Problem) {
	if !d.keep() {
		if p.Kind == ProbType || p.Kind == ProbRange {
			d.lastDropped = droppedReject{serial: d.reported - 1, depth: len(d.path)}
		}
		return // before the pointer is built: past the cap, a problem costs nothing
	}
	p.Pointer = d.pointer("")
	if p.Member == "" && len(d.path) > 0 && d.path[len(d.path)-1].index < 0 {
		p.Member = d.path[len(d.path)-1].key
	}
	d.problems = append(d.problems, p)
}

// reportMember records a problem about member name of the current object.
func (d *decoder) reportMember(name string, p Problem) {
	if !d.keep() {
		return
	}
	p.Pointer = d.pointer(name)
	if p.Member == "" {
		p.Member = name
	}
	d.problems = append(d.problems, p)
}

// raw returns the bytes of v. The capacity is cut so that appending to the
// result can never write into the line.
func (d *decoder) raw(v *jsonv.Value) json.RawMessage {
	return json.RawMessage(d.src[v.Start():v.End():v.End()])
}

// str returns s, a string of the parse tree, to store in a typed value.
// Text shares the memory of the line and of the parse, which a
// BatchDecoder reuses: whoever keeps it past the batch copies it (see
// BatchDecoder).
func (d *decoder) str(s string) string { return s }

// name is str for a member name or a value of a named string type: ids
// and enum values, which the machine keeps as map keys for as long as the
// transcript runs. It is always a copy, shared through the string cache.
func (d *decoder) name(s string) string { return d.strs.owned(s) }

// short renders a value for a message, cut to a readable length.
func (d *decoder) short(v *jsonv.Value) string {
	s := string(v.Raw(d.src))
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

//go:generate go test -run TestDecodeGenIsCurrent -update-decoders

// useGenerated turns on the generated decoders (decode_gen.go); tests turn
// it off to compare them with the reflective ones.
var useGenerated = true

// decodeObject fills *target, the params or result of a method or a
// domain.Error, from object v: with its generated decoder, or by reflection
// for a type that has none.
func (d *decoder) decodeObject(v *jsonv.Value, target any) {
	if useGenerated && decodeGenerated(d, v, target) {
		return
	}
	rv := reflect.ValueOf(target).Elem()
	d.decodeStruct(v, rv, planFor(rv.Type()).st, "")
}

// decode fills rv (settable) from v. def names the enclosing schema
// definition, for problem reports.
func (d *decoder) decode(v *jsonv.Value, rv reflect.Value, def string) {
	d.decodeAs(v, rv, planFor(rv.Type()), def)
}

// decodeAs is decode with the plan of rv's type at hand.
func (d *decoder) decodeAs(v *jsonv.Value, rv reflect.Value, p *typePlan, def string) {
	switch p.class {
	case classRaw:
		rv.SetBytes(d.raw(v))
	case classAny:
		// Nothing but raw JSON can be kept in an unknown interface, and
		// there is nowhere to keep it; domain declares no such field.
	case classVerbatim:
		rv.Field(0).SetBytes(d.raw(v))
		if p.verbatim != nil {
			p.verbatim(d, v, def)
		}
	case classOpt:
		if v.Kind == jsonv.Null {
			rv.Field(1).SetUint(uint64(domain.Null))
			return
		}
		rv.Field(1).SetUint(uint64(domain.Present))
		n := d.mark()
		d.decodeAs(v, rv.Field(0), p.elemTypePlan(), def)
		if d.rejectedHere(n) {
			// The value is unusable (a string for an integer, say): leave
			// the member unset rather than present with a zero value that
			// rules would take for what the peer sent.
			rv.SetZero()
		}
	case classUnion:
		if p.arrayArm {
			d.decodeArrayUnion(v, rv, p.union, def)
		} else {
			d.decodeUnion(v, rv, p.union, def)
		}
	case classStruct:
		if !d.is(v, jsonv.Object, def, p.want) {
			return
		}
		d.decodeStruct(v, rv, p.st, "")
	case classSlice:
		if !d.is(v, jsonv.Array, def, p.want) {
			return
		}
		elems := v.Elems()
		s := reflect.MakeSlice(rv.Type(), len(elems), len(elems))
		for i := range elems {
			d.pushIndex(i)
			d.decodeAs(&elems[i], s.Index(i), p.elemTypePlan(), def)
			d.pop()
		}
		rv.Set(s)
	case classMap:
		if !d.is(v, jsonv.Object, def, p.want) {
			return
		}
		members := v.Members()
		m := reflect.MakeMapWithSize(rv.Type(), len(members))
		for i := range members {
			mem := &members[i]
			key := reflect.ValueOf(d.name(mem.Key)).Convert(rv.Type().Key())
			if m.MapIndex(key).IsValid() {
				// A map cannot keep both copies; the last one wins, as in
				// most JSON readers.
				d.reportMember(mem.Key, Problem{Kind: ProbDuplicate, Def: def,
					Detail: fmt.Sprintf("member %q appears more than once; receivers disagree on which copy wins", mem.Key)})
			}
			ev := reflect.New(p.elem).Elem()
			d.pushKey(mem.Key)
			d.decodeAs(&mem.Value, ev, p.elemTypePlan(), def)
			d.pop()
			m.SetMapIndex(key, ev)
		}
		rv.Set(m)
	case classString:
		if !d.is(v, jsonv.String, def, p.want) {
			return
		}
		if p.enum != nil {
			rv.SetString(d.enumValue(v, p.enum, p.open, rv.Type().Name()))
			break
		}
		if rv.Type() == reflect.TypeFor[string]() {
			rv.SetString(d.str(v.Str()))
		} else {
			rv.SetString(d.name(v.Str()))
		}
	case classBool:
		if !d.is(v, jsonv.Bool, def, p.want) {
			return
		}
		rv.SetBool(v.Bool)
	case classInt:
		if n, ok := d.intValue(v, p.bits, def); ok {
			rv.SetInt(n)
		}
	case classUint:
		if n, ok := d.uintValue(v, p.bits, def); ok {
			rv.SetUint(n)
		}
	case classFloat:
		if f, ok := d.floatValue(v, p.bits, def); ok {
			rv.SetFloat(f)
		}
	}
}

// rejectedHere reports whether a problem reported since mark n rejected
// the value at the current position as a whole (its type or its range).
func (d *decoder) rejectedHere(n int) bool {
	if d.reported == n {
		return false
	}
	if n < len(d.problems) {
		here := d.pointer("")
		for _, p := range d.problems[n:] {
			if (p.Kind == ProbType || p.Kind == ProbRange) && p.Pointer == here {
				return true
			}
		}
	}
	// Past the cap only the last rejection is remembered, and that is
	// enough: a value rejected whole is not decoded further, so nothing
	// inside it is reported after its rejection, and a rejection at this
	// depth since the mark can only be of this value.
	return d.lastDropped.serial >= n && d.lastDropped.depth == len(d.path) && d.reported > MaxProblemsPerMessage
}

// intValue, uintValue and floatValue read number v for a member of the
// given width, reporting a value that is not a number of that kind.
func (d *decoder) intValue(v *jsonv.Value, bits int, def string) (int64, bool) {
	lit, ok := d.integerLiteral(v, def)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(lit, 10, bits)
	if err != nil {
		d.reportHere(Problem{Kind: ProbRange, Def: def, Value: v.Str(),
			Detail: fmt.Sprintf("%s is out of range for a %d-bit integer", v.Str(), bits)})
		return 0, false
	}
	return n, true
}

func (d *decoder) uintValue(v *jsonv.Value, bits int, def string) (uint64, bool) {
	lit, ok := d.integerLiteral(v, def)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(lit, 10, bits)
	if err != nil {
		what := fmt.Sprintf("%s is out of range for an unsigned %d-bit integer (0 to %d)", v.Str(), bits, uint64(1)<<bits-1)
		if bits == 64 {
			what = fmt.Sprintf("%s is out of range for an unsigned 64-bit integer", v.Str())
		}
		if strings.HasPrefix(lit, "-") {
			what = fmt.Sprintf("%s is negative; want an integer from 0", v.Str())
		}
		d.reportHere(Problem{Kind: ProbRange, Def: def, Value: v.Str(), Detail: what})
		return 0, false
	}
	return n, true
}

func (d *decoder) floatValue(v *jsonv.Value, bits int, def string) (float64, bool) {
	if v.Kind != jsonv.Number {
		d.typeProblem(v, def, "number")
		return 0, false
	}
	f, err := strconv.ParseFloat(v.Str(), bits)
	if err != nil {
		d.reportHere(Problem{Kind: ProbRange, Def: def, Value: v.Str(),
			Detail: fmt.Sprintf("number %s is out of range for a %d-bit float", v.Str(), bits)})
		return 0, false
	}
	return f, true
}

// integerLiteral returns the digits of integer v, reporting a value that
// is not an integer.
func (d *decoder) integerLiteral(v *jsonv.Value, def string) (string, bool) {
	if v.Kind != jsonv.Number {
		d.typeProblem(v, def, "integer")
		return "", false
	}
	lit := v.Str()
	if strings.ContainsAny(lit, ".eE") || lit == "-0" {
		// 1.0 and 1e2 are integers in JSON Schema's sense; accept them when
		// they denote a whole number, as the reference validators do.
		canon, whole := wholeNumber(lit)
		if !whole {
			d.reportHere(Problem{Kind: ProbRange, Def: def, Value: lit,
				Detail: fmt.Sprintf("%s is not an integer", lit)})
			return "", false
		}
		lit = canon
	}
	return lit, true
}

// wholeNumber rewrites a JSON number literal with a fraction or exponent
// as a plain integer literal, exactly (no float rounding), and reports
// whether it denotes a whole number. Values too large for any integer type
// come back as a long digit string that the range check then rejects.
func wholeNumber(lit string) (string, bool) {
	neg := strings.HasPrefix(lit, "-")
	if neg {
		lit = lit[1:]
	}
	mant, exp := lit, 0
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		mant = lit[:i]
		e, err := strconv.Atoi(strings.TrimPrefix(lit[i+1:], "+"))
		if err != nil || e > 1000 || e < -1000 {
			// An exponent this large makes the value 0, huge or tiny (and
			// keeps the arithmetic below from overflowing).
			if strings.Trim(mant, "0.") == "" {
				return "0", true
			}
			if strings.HasPrefix(lit[i+1:], "-") {
				return "", false
			}
			return "1" + strings.Repeat("0", 20), true
		}
		exp = e
	}
	digits := mant
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		digits = mant[:i] + mant[i+1:]
		exp -= len(mant) - i - 1
	}
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return "0", true
	}
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		exp++
	}
	if exp < 0 {
		return "", false
	}
	if len(digits)+exp > 21 {
		// More digits than any 64-bit integer has: out of range either way.
		exp = 21 - len(digits)
		if exp < 0 {
			return "1" + strings.Repeat("0", 20), true
		}
	}
	s := digits + strings.Repeat("0", exp)
	if neg {
		s = "-" + s
	}
	return s, true
}

func (d *decoder) typeProblem(v *jsonv.Value, def, want string) {
	d.reportHere(Problem{Kind: ProbType, Def: def, Value: d.short(v),
		Detail: fmt.Sprintf("%s is %s; want %s", d.short(v), article(v.Kind.String()), article(want))})
}

// inlineArm is the arm of an inline union, decoded together with the
// object that holds it.
type inlineArm struct {
	f     *field
	typ   reflect.Type // the arm's Go type; nil when no arm could be picked
	val   reflect.Value
	sp    *structPlan // the arm's members; nil for the Unknown arm
	plan  *typePlan   // the plan of typ
	seen  uint64
	tag   string // the discriminator member the arm consumes; "" for none
	taken bool   // the discriminator member has been consumed
	known bool   // the arm is a recognised variant
}

// decodeStruct fills the object type described by sp. skip names a member
// that belongs to the enclosing union (its discriminator) and is not a
// member of the struct itself.
func (d *decoder) decodeStruct(v *jsonv.Value, rv reflect.Value, sp *structPlan, skip string) {
	var arms []inlineArm
	quiet := false // members that cannot be judged are not reported
	if len(sp.inlines) > 0 {
		arms = make([]inlineArm, len(sp.inlines))
		for i, fi := range sp.inlines {
			arms[i] = d.pickInline(v, &sp.fields[fi])
			if !arms[i].known && sp.fields[fi].inline.Tag != "" {
				// An unknown or missing discriminator: which members the
				// object should have is unknown. (A missing untagged arm,
				// a scope, is reported once below; its members are not
				// in doubt.)
				quiet = true
			}
		}
		d.reportMissingScopes(arms)
	}
	var (
		seen    uint64
		skipped bool
		unknown domain.Members
		next    int // the field after the last one matched
	)
	members := v.Members()
	for i := range members {
		m := &members[i]
		if fi, ok := sp.field(m.Key, next); ok {
			next = fi + 1
			if !d.claim(m, &seen, 1<<fi, sp.name, &unknown) {
				continue
			}
			f := &sp.fields[fi]
			d.member(m, rv.Field(f.index), f, sp.name)
			continue
		}
		if d.discriminator(m, skip, &skipped, sp.name, &unknown) {
			continue
		}
		if arms != nil && d.armMember(arms, m, sp.name, &unknown) {
			continue
		}
		d.undeclared(m, sp.name, &unknown, quiet)
	}
	d.reportMissing(sp, seen)
	for i := range arms {
		a := &arms[i]
		if a.typ == nil {
			continue
		}
		if a.sp != nil {
			d.reportMissing(a.sp, a.seen)
		}
		a.f.inline.Assign(rv.Field(a.f.index), a.val)
		a.plan.release(a.val)
	}
	if sp.unknown >= 0 && unknown != nil {
		rv.Field(sp.unknown).Set(reflect.ValueOf(unknown))
	}
}

// discriminator consumes member m when it is skip, the discriminator of
// the union the object is an arm of, reporting a repeat, and reports
// whether it was.
func (d *decoder) discriminator(m *jsonv.Member, skip string, skipped *bool, def string, unknown *domain.Members) bool {
	if skip == "" || m.Key != skip {
		return false
	}
	if *skipped {
		d.duplicate(m, def, unknown)
	}
	*skipped = true
	return true
}

// undeclared keeps member m, which def does not declare, in unknown so
// that re-encoding loses nothing, and reports it unless quiet. A repeat of
// an undeclared member is as ambiguous as a repeat of a declared one, and
// is reported the same way, quiet or not.
func (d *decoder) undeclared(m *jsonv.Member, def string, unknown *domain.Members, quiet bool) {
	if d.repeatedUnknown(*unknown, m.Key) {
		d.duplicate(m, def, unknown)
		return
	}
	*unknown = append(*unknown, domain.Member{Name: d.str(m.Key), Value: d.raw(&m.Value)})
	if !quiet {
		d.reportMember(m.Key, Problem{Kind: ProbUnknownMember, Def: def,
			Detail: fmt.Sprintf("%q is not a member of %s", m.Key, def)})
	}
}

// reportMissing reports the required members of sp that seen (a bit per
// field) lacks.
func (d *decoder) reportMissing(sp *structPlan, seen uint64) {
	if seen&sp.required == sp.required {
		return
	}
	for i := range sp.fields {
		f := &sp.fields[i]
		if f.required && seen&(1<<i) == 0 {
			d.reportMember(f.name, Problem{Kind: ProbMissing, Def: sp.name,
				Detail: fmt.Sprintf("%s lacks required %q", sp.name, f.name)})
		}
	}
}

// member decodes the value of a declared member into fv.
func (d *decoder) member(m *jsonv.Member, fv reflect.Value, f *field, def string) {
	d.pushKey(m.Key)
	defer d.pop()
	if m.Key == "_meta" {
		d.checkMeta(&m.Value, def)
	}
	if f.notNull && m.Value.Kind == jsonv.Null {
		// Kept as null so that the message re-encodes as written.
		fv.Field(1).SetUint(uint64(domain.Null))
		d.nullMember(m.Key, def, planFor(fv.Field(0).Type()).want)
		return
	}
	d.decodeAs(&m.Value, fv, f.typePlan(), def)
}

// checkMeta reports a "_meta" member v that is neither an object nor null.
func (d *decoder) checkMeta(v *jsonv.Value, def string) {
	d.metaSeen = true
	if v.Kind != jsonv.Object && v.Kind != jsonv.Null {
		d.reportHere(Problem{Kind: ProbMeta, Def: def,
			Detail: fmt.Sprintf(`"_meta" is %s; want an object or null`, article(v.Kind.String()))})
	}
}

// nullMember reports member name, which must not be null, as null; want
// is the JSON type it should have.
func (d *decoder) nullMember(name, def, want string) {
	d.reportHere(Problem{Kind: ProbType, Def: def, Value: "null",
		Detail: fmt.Sprintf("%q is null; want %s (omit the member instead)", name, article(want))})
}

// is reports whether v is of kind k, reporting it as a type problem (want
// names the JSON type the member should have) when it is not.
func (d *decoder) is(v *jsonv.Value, k jsonv.Kind, def, want string) bool {
	if v.Kind == k {
		return true
	}
	d.typeProblem(v, def, want)
	return false
}

// claim records that member m fills the field with bit in seen, and
// reports whether it is the first to: a member seen before is a duplicate,
// reported and kept in unknown.
func (d *decoder) claim(m *jsonv.Member, seen *uint64, bit uint64, def string, unknown *domain.Members) bool {
	if *seen&bit != 0 {
		d.duplicate(m, def, unknown)
		return false
	}
	*seen |= bit
	return true
}

// enumValue returns string v as a value of the enum type called name,
// whose values are values, reporting one that is not among them (as an
// open enum's unknown value when open). A known value is the enum's own
// copy, so it costs no allocation.
func (d *decoder) enumValue(v *jsonv.Value, values []string, open bool, name string) string {
	if i := slices.Index(values, v.Str()); i >= 0 {
		return values[i]
	}
	s := d.name(v.Str())
	kind := ProbEnum
	if open {
		kind = ProbOpenEnum
	}
	d.reportHere(Problem{Kind: kind, Def: name, Value: v.Str(),
		Detail: fmt.Sprintf("%q is not one of %s", v.Str(), quoteList(values))})
	return s
}

// duplicate reports a repeated member. The first copy is the typed value;
// the repeat is carried in Unknown so that re-encoding loses nothing.
func (d *decoder) duplicate(m *jsonv.Member, def string, unknown *domain.Members) {
	d.reportMember(m.Key, Problem{Kind: ProbDuplicate, Def: def,
		Detail: fmt.Sprintf("member %q appears more than once; receivers disagree on which copy wins", m.Key)})
	*unknown = append(*unknown, domain.Member{Name: d.str(m.Key), Value: d.raw(&m.Value)})
}

// scanUnknownLimit is the number of Unknown members up to which
// repeatedUnknown scans them rather than indexing their names.
const scanUnknownLimit = 16

// nameIndex holds the names of the first n members of an Unknown slice.
type nameIndex struct {
	names map[string]struct{}
	n     int
}

// repeatedUnknown reports whether an object's Unknown members, unknown,
// already hold one called name. Scanning them for every member would make
// a line of many undeclared members quadratic, so past a few the names are
// indexed. The index is keyed by the slice's first element, which is the
// same for every call about one object until append moves the slice (a new
// key, a rebuilt index: amortised linear, like append) and which no other
// object can share while the key keeps it alive; the decoder, and with it
// the index, is new for every message.
func (d *decoder) repeatedUnknown(unknown domain.Members, name string) bool {
	if len(unknown) < scanUnknownLimit {
		for i := range unknown {
			if unknown[i].Name == name {
				return true
			}
		}
		return false
	}
	first := &unknown[0]
	idx := d.unknownNames[first]
	if idx == nil {
		if d.unknownNames == nil {
			d.unknownNames = map[*domain.Member]*nameIndex{}
		}
		idx = &nameIndex{names: make(map[string]struct{}, cap(unknown))}
		d.unknownNames[first] = idx
	}
	for ; idx.n < len(unknown); idx.n++ {
		idx.names[unknown[idx.n].Name] = struct{}{}
	}
	_, ok := idx.names[name]
	return ok
}

// armMember routes member m to the inline arm that declares it, reporting
// whether one did.
func (d *decoder) armMember(arms []inlineArm, m *jsonv.Member, def string, unknown *domain.Members) bool {
	for i := range arms {
		a := &arms[i]
		if a.tag != "" && m.Key == a.tag {
			if a.taken {
				d.duplicate(m, def, unknown)
			}
			a.taken = true
			return true
		}
		if a.sp == nil {
			continue
		}
		fi, ok := a.sp.byName[m.Key]
		if !ok {
			continue
		}
		if a.seen&(1<<fi) != 0 {
			d.duplicate(m, def, unknown)
			return true
		}
		a.seen |= 1 << fi
		f := &a.sp.fields[fi]
		d.member(m, a.val.Field(f.index), f, a.sp.name)
		return true
	}
	return false
}

// pickInline chooses the arm of inline union field f from the members of
// the enclosing object v (see domain.IsInline).
func (d *decoder) pickInline(v *jsonv.Value, f *field) inlineArm {
	u := f.inline
	a := inlineArm{f: f}
	var tagValue *jsonv.Value // set when the Unknown arm keeps the tag
	if u.Tag == "" {
		a.typ = u.Guess(func(name string) bool { _, ok := v.Get(name); return ok })
		a.known = a.typ != nil
	} else {
		t, tv, unionsTag := d.taggedArm(v, u)
		switch {
		case t != nil:
			a.typ, a.known = t, true
			if unionsTag {
				a.tag = u.Tag
			}
		case tv != nil:
			// A tag that is not a string or names no variant: the Unknown
			// arm keeps it.
			a.typ, a.tag, tagValue = u.Unknown, u.Tag, tv
		}
	}
	if a.typ == nil {
		return a
	}
	a.plan = planFor(a.typ)
	a.val = a.plan.scratchValue(a.typ)
	switch {
	case a.typ == u.Unknown:
		if tagValue != nil {
			a.val.Field(0).SetBytes(d.raw(tagValue))
		}
	case a.typ.Kind() == reflect.Struct:
		a.sp = a.plan.st
	}
	return a
}

// reportMissingScopes reports the untagged inline unions for which the
// object carries no members at all. When another inline arm is unknown,
// the object follows rules acplint does not know, so nothing is reported.
func (d *decoder) reportMissingScopes(arms []inlineArm) {
	for i := range arms {
		a := &arms[i]
		u := a.f.inline
		if a.typ != nil || u.Tag != "" {
			continue
		}
		others := false
		for j := range arms {
			if j != i && !arms[j].known {
				others = true
			}
		}
		if others {
			continue
		}
		var names []string
		for _, v := range u.Variants {
			fields := planFor(v.Type).st.fields
			for i := range fields {
				if fields[i].required {
					names = append(names, fields[i].name)
				}
			}
		}
		// The problem is about the object, not about a member of it.
		d.add(Problem{Kind: ProbUnknownVariant, Pointer: d.pointer(""), Def: u.Name,
			Detail: fmt.Sprintf("the object carries no %s: want one of the members %s", u.Name, quoteList(names))})
	}
}

// taggedArm resolves which arm of the tagged union u object v holds, for
// unions that stand alone and unions inlined in an enclosing object
// alike. t is nil when the discriminator is missing (and u has no
// default), not a string or names no variant; each is reported, and tv is
// then the discriminator's value when there is one. unionsTag says the
// discriminator member belongs to the union, not to the arm: it is false
// for the default arm, whose explicit tag (such as "type":"stdio") stays
// among the arm's unknown members, so it round-trips and rules can see it.
func (d *decoder) taggedArm(v *jsonv.Value, u *domain.Union) (t reflect.Type, tv *jsonv.Value, unionsTag bool) {
	tv, ok := v.Get(u.Tag)
	switch {
	case !ok && u.Default != nil:
		return u.Default, nil, false
	case !ok:
		d.reportMember(u.Tag, Problem{Kind: ProbMissing, Def: u.Name,
			Detail: fmt.Sprintf("%s lacks its discriminator %q", u.Name, u.Tag)})
		return nil, nil, false
	case tv.Kind != jsonv.String:
		d.pushKey(u.Tag)
		d.typeProblem(tv, u.Name, "string")
		d.pop()
		return nil, tv, false
	}
	t, known := u.VariantFor(tv.Str())
	if !known {
		d.unknownTag(u, tv)
		return nil, tv, false
	}
	return t, tv, t != u.Default
}

func (d *decoder) unknownTag(u *domain.Union, tv *jsonv.Value) {
	kind := ProbUnknownVariant
	if u.Open {
		kind = ProbOpenEnum
	}
	d.reportMember(u.Tag, Problem{Kind: kind, Def: u.Name, Value: tv.Str(),
		Detail: fmt.Sprintf("%q is not a known %s %q (known: %s)", tv.Str(), u.Name, u.Tag, quoteList(tagsOf(u)))})
}

func (d *decoder) decodeUnion(v *jsonv.Value, rv reflect.Value, u *domain.Union, def string) {
	if v.Kind != jsonv.Object {
		d.typeProblem(v, def, "object")
		d.setUnknown(v, rv, u)
		return
	}
	var vt reflect.Type
	skip := ""
	switch {
	case u.Tag != "":
		var unionsTag bool
		vt, _, unionsTag = d.taggedArm(v, u)
		if unionsTag {
			skip = u.Tag // the tag is the union's, not the arm's
		}
	default:
		vt = u.Guess(func(name string) bool { _, ok := v.Get(name); return ok })
		if vt == nil {
			d.reportHere(Problem{Kind: ProbUnknownVariant, Def: u.Name,
				Detail: fmt.Sprintf("value matches no variant of %s", u.Name)})
		}
	}
	if vt == nil {
		d.setUnknown(v, rv, u)
		return
	}
	vp := planFor(vt)
	nv := vp.scratchValue(vt)
	if vt.Kind() == reflect.Struct && !domain.IsVerbatim(vt) {
		sp := vp.st
		if _, own := sp.byName[u.Tag]; own {
			skip = "" // the arm declares its discriminator as a member
		}
		d.decodeStruct(v, nv, sp, skip)
	} else {
		d.decodeAs(v, nv, vp, u.Name)
	}
	u.Assign(rv, nv)
	vp.release(nv)
}

// decodeArrayUnion decodes a union whose arms are arrays, told apart by
// the members of the first element.
func (d *decoder) decodeArrayUnion(v *jsonv.Value, rv reflect.Value, u *domain.Union, def string) {
	if v.Kind != jsonv.Array {
		d.typeProblem(v, def, "array")
		d.setUnknown(v, rv, u)
		return
	}
	has := func(string) bool { return false }
	if elems := v.Elems(); len(elems) > 0 && elems[0].Kind == jsonv.Object {
		first := &elems[0]
		has = func(name string) bool { _, ok := first.Get(name); return ok }
	}
	vt := u.Guess(has)
	if vt == nil {
		d.reportHere(Problem{Kind: ProbUnknownVariant, Def: u.Name,
			Detail: fmt.Sprintf("value matches no variant of %s", u.Name)})
		d.setUnknown(v, rv, u)
		return
	}
	vp := planFor(vt)
	nv := vp.scratchValue(vt)
	d.decodeAs(v, nv, vp, u.Name)
	u.Assign(rv, nv)
	vp.release(nv)
}

func (d *decoder) setUnknown(v *jsonv.Value, rv reflect.Value, u *domain.Union) {
	up := planFor(u.Unknown)
	nv := up.scratchValue(u.Unknown)
	nv.Field(0).SetBytes(d.raw(v))
	u.Assign(rv, nv)
	up.release(nv)
}

// scratchValue returns a zeroed, settable value of type t, the type p is
// the plan of, to decode a union arm into; release it once it is stored.
// Storing an addressable value in an interface copies it, so decoding into
// a fresh reflect.New would cost two allocations per union value instead
// of one.
func (p *typePlan) scratchValue(t reflect.Type) reflect.Value {
	if x := p.scratch.Get(); x != nil {
		return reflect.ValueOf(x).Elem()
	}
	return reflect.New(t).Elem()
}

// release zeroes v, a value from p.scratchValue, and keeps it for reuse.
func (p *typePlan) release(v reflect.Value) {
	v.SetZero()
	p.scratch.Put(v.Addr().Interface())
}

// verbatimCheckFor says which JSON values the verbatim domain types admit;
// the value is kept as written either way.
func verbatimCheckFor(t reflect.Type) verbatimCheck {
	switch t {
	case reflect.TypeFor[domain.RequestID]():
		return checkRequestID
	case reflect.TypeFor[domain.ElicitationContentValue]():
		return checkContentValue
	}
	return nil
}

// checkRequestID admits what upstream's RequestId does: null, a string or
// a 64-bit integer.
func checkRequestID(d *decoder, v *jsonv.Value, def string) {
	switch v.Kind {
	case jsonv.Null, jsonv.String:
	case jsonv.Number:
		d.intValue(v, 64, def)
	default:
		d.typeProblem(v, def, "string, an integer or null")
	}
}

// checkContentValue admits a string, a number, a boolean or an array of
// strings: the values a form field can have.
func checkContentValue(d *decoder, v *jsonv.Value, def string) {
	switch v.Kind {
	case jsonv.String, jsonv.Number, jsonv.Bool:
	case jsonv.Array:
		elems := v.Elems()
		for i := range elems {
			if elems[i].Kind != jsonv.String {
				d.pushIndex(i)
				d.typeProblem(&elems[i], def, "string")
				d.pop()
			}
		}
	default:
		d.typeProblem(v, def, "string, a number, a boolean or an array of strings")
	}
}

func tagsOf(u *domain.Union) []string {
	var out []string
	for _, v := range u.Variants {
		if v.Tag != "" {
			out = append(out, v.Tag)
		}
	}
	return out
}

func quoteList(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

func article(noun string) string {
	switch {
	case noun == "null", noun == "any JSON value":
		return noun
	case strings.HasPrefix(noun, "array"), strings.HasPrefix(noun, "object"), strings.HasPrefix(noun, "integer"):
		return "an " + noun
	}
	return "a " + noun
}

// stringCache remembers the copies it made of short strings, so that a
// string seen again (a session id on every line of a session, tool call
// ids, message ids) is shared instead of copied once more. It is
// direct-mapped: a string that collides with another simply replaces it,
// so lookups cost one comparison and memory is fixed.
type stringCache struct {
	slots [stringCacheSlots]string
}

const (
	stringCacheSlots = 1024 // a power of two
	stringCacheMax   = 48   // longer strings are text, which rarely repeats
)

// owned returns a copy of s, shared through c when c is not nil and s is
// short.
func (c *stringCache) owned(s string) string {
	n := len(s)
	if c == nil || n == 0 || n > stringCacheMax {
		return strings.Clone(s)
	}
	// Ids often differ only in a counter, at either end.
	h := uint(n)*0x9E37 ^ uint(s[0])*0x85EB ^ uint(s[n-1])*0xC2B2 ^ uint(s[n/2])*0x27D4
	slot := &c.slots[h&(stringCacheSlots-1)]
	if *slot == s {
		return *slot
	}
	*slot = strings.Clone(s)
	return *slot
}
