// Package schemadiff compares two versions of the ACP JSON Schema (as
// schemamodel loads them) the way the wire sees them: per method and
// message, and every difference classified by who it breaks (old readers
// or old writers of that message).
package schemadiff

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/internal/jsonv"
	"github.com/acplint/acplint/schemamodel"
)

// Category says whether a change breaks existing traffic.
type Category string

const (
	// Breaking: one schema admits values the other rejects, in the
	// direction that hurts an old peer (see Breaks).
	Breaking Category = "breaking"
	// NonBreaking: every message valid for old peers stays valid and
	// old readers accept everything new writers may send.
	NonBreaking Category = "non-breaking"
	// Unclassified: neither schema rejects the old traffic, but its
	// meaning or the receivers' behaviour changed; a person decides.
	Unclassified Category = "unclassified"
)

// Breaks names who a breaking change hurts.
type Breaks string

const (
	// BreaksReaders: the new schema admits values old readers reject, so
	// an old reader fails on what a new writer sends.
	BreaksReaders Breaks = "readers"
	// BreaksWriters: the new schema rejects values old writers send, so a
	// new reader fails on what an old writer sends.
	BreaksWriters Breaks = "writers"
	BreaksBoth    Breaks = "both"
	BreaksNone    Breaks = ""
)

// Surface is the part of the protocol a change is on.
type Surface string

const (
	Stable   Surface = "stable"
	Unstable Surface = "unstable"
)

// Location is a place in one of the two schema files.
type Location struct {
	File    string `json:"file"`
	Pointer string `json:"pointer"` // RFC 6901; "" is the whole document
	Line    int    `json:"line,omitempty"`
}

// Occurrence is one more message and path where the same change shows:
// a shared definition changes every message that uses it.
type Occurrence struct {
	Method string           `json:"method"`
	Kind   schemamodel.Kind `json:"kind"`
	Path   string           `json:"path"`
	Reader schemamodel.Side `json:"reader"`
	Writer schemamodel.Side `json:"writer"`
	Old    Location         `json:"old"`
	New    Location         `json:"new"`
}

// Change is one classified difference between two schemas.
type Change struct {
	Check    *findings.Rule    `json:"-"`
	CheckID  string            `json:"check"`
	Title    string            `json:"title"`
	Category Category          `json:"category"`
	Severity findings.Severity `json:"severity"`
	Surface  Surface           `json:"surface"`
	Method   string            `json:"method"`
	Kind     schemamodel.Kind  `json:"kind"`
	// Path is the wire path inside the params or result, e.g.
	// params.mcpServers[]<type="acp">.serverId; <…> selects a variant.
	Path   string `json:"path"`
	Breaks Breaks `json:"breaks,omitempty"`
	// Reader and Writer are the sides that receive and send the message.
	Reader  schemamodel.Side `json:"reader"`
	Writer  schemamodel.Side `json:"writer"`
	Message string           `json:"message"`
	Old     Location         `json:"old"`
	New     Location         `json:"new"`
	// Also lists the further places of the same change: one change to a
	// shared definition, or the same change made to many definitions at
	// once (upstream typed every _meta in one release), is one report.
	// When the places have different readers and writers, Reader and
	// Writer are SideEither and the message speaks of peers.
	Also []Occurrence `json:"also,omitempty"`
}

// Broken returns the side a breaking change hurts: the reader for
// BreaksReaders, the writer for BreaksWriters, SideEither otherwise.
func (c *Change) Broken() schemamodel.Side {
	switch c.Breaks {
	case BreaksReaders:
		return c.Reader
	case BreaksWriters:
		return c.Writer
	}
	return schemamodel.SideEither
}

// Result is a whole diff.
type Result struct {
	Old, New *schemamodel.Schema
	Changes  []Change
	// Notes say how the comparison was limited (for example to the
	// stable surface when only one file is an unstable superset).
	Notes []string
}

// Diff compares two schemas message by message.
func Diff(old, new *schemamodel.Schema) *Result {
	d := &differ{old: old, new: new, groups: map[string]int{}}
	d.messages()
	d.errorObject()
	res := &Result{Old: old, New: new}
	dropUnstable := old.Superset != new.Superset
	if dropUnstable {
		which, other := old, new
		if !old.Superset {
			which, other = new, old
		}
		res.Notes = append(res.Notes, fmt.Sprintf(
			"%s is an unstable superset and %s a stable schema: only the stable surface is compared (compare like with like, e.g. both schema.unstable.json files, for the unstable surface)",
			which.File, other.File))
	}
	for _, c := range d.changes {
		if dropUnstable && c.Surface == Unstable {
			continue
		}
		if c.Old.Pointer != "" {
			c.Old.Line = old.Line(c.Old.Pointer)
		}
		if c.New.Pointer != "" {
			c.New.Line = new.Line(c.New.Pointer)
		}
		for i := range c.Also {
			a := &c.Also[i]
			if a.Old.Pointer != "" {
				a.Old.Line = old.Line(a.Old.Pointer)
			}
			if a.New.Pointer != "" {
				a.New.Line = new.Line(a.New.Pointer)
			}
		}
		res.Changes = append(res.Changes, c)
	}
	sort.SliceStable(res.Changes, func(i, j int) bool { return lessChange(&res.Changes[i], &res.Changes[j]) })
	return res
}

// CrossVersion returns an error when old and new describe different
// protocol major versions (a v1 file against SDK 2.x's schema/v2/): their
// diff lists every difference between two protocols, which no upgrade of
// one connection meets, as breaking changes. nil when both are the same
// major version or a file does not say which it is.
func CrossVersion(old, new *schemamodel.Schema) error {
	om, owhy := old.ProtocolMajor()
	nm, nwhy := new.ProtocolMajor()
	if om == 0 || nm == 0 || om == nm {
		return nil
	}
	return fmt.Errorf("%s describes protocol v%d (%s) and %s protocol v%d (%s): a connection speaks one negotiated major version, so their diff is not an upgrade; compare files of the same major version (schema/v%d/… of both packages)",
		old.File, om, owhy, new.File, nm, nwhy, om)
}

func lessChange(a, b *Change) bool {
	if a.Surface != b.Surface {
		return a.Surface == Stable
	}
	if a.Severity != b.Severity {
		return a.Severity > b.Severity
	}
	if a.Method != b.Method {
		return a.Method < b.Method
	}
	if a.Kind != b.Kind {
		return kindOrder(a.Kind) < kindOrder(b.Kind)
	}
	if a.Path != b.Path {
		return a.Path < b.Path
	}
	return a.CheckID < b.CheckID
}

func kindOrder(k schemamodel.Kind) int {
	switch k {
	case schemamodel.KindRequest:
		return 0
	case schemamodel.KindResponse:
		return 1
	}
	return 2
}

type differ struct {
	old, new *schemamodel.Schema
	changes  []Change
	groups   map[string]int // grouping key → index into changes
}

// ctx is the message being compared.
type ctx struct {
	key    schemamodel.Key
	reader schemamodel.Side
	writer schemamodel.Side
	stack  map[[2]*schemamodel.Shape]bool
}

func (d *differ) messages() {
	keys := map[schemamodel.Key]bool{}
	methods := map[string]bool{}
	for k := range d.old.Messages {
		keys[k] = true
		methods[k.Method] = true
	}
	for k := range d.new.Messages {
		keys[k] = true
		methods[k.Method] = true
	}
	inOld := func(method string) bool { return hasMethod(d.old, method) }
	inNew := func(method string) bool { return hasMethod(d.new, method) }
	for _, method := range slices.Sorted(maps.Keys(methods)) {
		for _, kind := range []schemamodel.Kind{schemamodel.KindRequest, schemamodel.KindResponse, schemamodel.KindNotification} {
			k := schemamodel.Key{Method: method, Kind: kind}
			o, n := d.old.Messages[k], d.new.Messages[k]
			switch {
			case o == nil && n == nil:
			case n == nil:
				if kind == schemamodel.KindResponse && d.old.Messages[schemamodel.Key{Method: method, Kind: schemamodel.KindRequest}] != nil && d.new.Messages[schemamodel.Key{Method: method, Kind: schemamodel.KindRequest}] == nil {
					continue // implied by the removed request
				}
				if req := d.new.Messages[schemamodel.Key{Method: method, Kind: schemamodel.KindRequest}]; kind == schemamodel.KindResponse && req != nil {
					d.nullResult(k, req, o, true)
					continue
				}
				c := &ctx{key: k, reader: o.Reader(), writer: o.Writer()}
				msg := fmt.Sprintf("%s is gone from the new schema: old %s that send it get -32601 (method not found) from new %s", method, plural(o.Writer()), plural(o.Reader()))
				if inNew(method) {
					msg = fmt.Sprintf("%s is no longer defined as a %s: old %s that send it that way are refused by new %s", method, kind, plural(o.Writer()), plural(o.Reader()))
				}
				d.emit(c, DiffMethodRemoved, Breaking, findings.SeverityError, BreaksBoth, o.Unstable, "",
					"/$defs/"+jsonv.EscapeToken(o.Def), "", msg)
			case o == nil:
				if kind == schemamodel.KindResponse && d.new.Messages[schemamodel.Key{Method: method, Kind: schemamodel.KindRequest}] != nil && d.old.Messages[schemamodel.Key{Method: method, Kind: schemamodel.KindRequest}] == nil {
					continue
				}
				if req := d.old.Messages[schemamodel.Key{Method: method, Kind: schemamodel.KindRequest}]; kind == schemamodel.KindResponse && req != nil {
					d.nullResult(k, req, n, false)
					continue
				}
				c := &ctx{key: k, reader: n.Reader(), writer: n.Writer()}
				msg := fmt.Sprintf("%s is new (%s implements it); old %s do not know it and answer -32601, so %s send it only after the peer advertises support", method, n.Handler, plural(n.Reader()), plural(n.Writer()))
				if inOld(method) {
					msg = fmt.Sprintf("%s is now also defined as a %s", method, kind)
				}
				d.emit(c, DiffMethodAdded, NonBreaking, findings.SeverityInfo, BreaksNone, n.Unstable, "",
					"", "/$defs/"+jsonv.EscapeToken(n.Def), msg)
			default:
				d.message(k, o, n)
			}
		}
	}
}

// nullResult reports a request whose result type one schema defines and
// the other does not. Without a result type the result is null (zed
// 0.1.2 lists such results as "type": "null"), so a defined result that
// does not admit null breaks the side that answers null: old writers when
// the type appeared, old readers when it went away. req is the request
// in the schema without the result type, resp the response in the other.
func (d *differ) nullResult(k schemamodel.Key, req, resp *schemamodel.Message, gone bool) {
	without := d.old
	if gone {
		without = d.new
	}
	// Early schemas define some result types without x-method (zed
	// 0.1.2's ReadTextFileResponse): by name, the result is not null.
	name := strings.TrimSuffix(req.Def, "Request") + "Response"
	if sh := without.DefShape(name); sh != nil && name != req.Def {
		unannotated := &schemamodel.Message{Method: k.Method, Kind: k.Kind, Def: name, Handler: req.Handler, Unstable: req.Unstable, Shape: sh}
		if gone {
			d.message(k, resp, unannotated)
		} else {
			d.message(k, unannotated, resp)
		}
		return
	}
	c := &ctx{key: k, reader: resp.Reader(), writer: resp.Writer()}
	reqPtr, respPtr := "/$defs/"+jsonv.EscapeToken(req.Def), "/$defs/"+jsonv.EscapeToken(resp.Def)
	unstable := req.Unstable || resp.Unstable
	nullable := resp.Shape.Types&schemamodel.TypeNull != 0
	what := resp.Shape.Types &^ schemamodel.TypeNull
	switch {
	case !gone && nullable:
		d.emit(c, DiffTypeWidened, Breaking, findings.SeverityError, BreaksReaders, unstable, "result", reqPtr, respPtr,
			fmt.Sprintf("the result was null (the old schema defines no result type for %s) and may now be %s too: new %s may send it and old %s that expect null reject it", k.Method, what, plural(c.writer), plural(c.reader)))
	case !gone:
		d.emit(c, DiffNoLongerNullable, Breaking, findings.SeverityError, BreaksWriters, unstable, "result", reqPtr, respPtr,
			fmt.Sprintf("the result was null (the old schema defines no result type for %s) and is now %s: old %s that answer null are rejected by new %s", k.Method, what, plural(c.writer), plural(c.reader)))
	default:
		d.emit(c, DiffNowNullable, Breaking, findings.SeverityError, BreaksReaders, unstable, "result", respPtr, reqPtr,
			fmt.Sprintf("the result is null now (the new schema defines no result type for %s; it was %s): new %s answer null and old %s that expect %s reject it", k.Method, resp.Shape.Types, plural(c.writer), plural(c.reader), what))
	}
}

// errorObject compares the JSON-RPC error object ($defs Error, with its
// ErrorCode enum), which no method names: every response may carry it,
// written by either side.
func (d *differ) errorObject() {
	o, n := d.old.DefShape("Error"), d.new.DefShape("Error")
	if o == nil || n == nil {
		return
	}
	c := &ctx{reader: schemamodel.SideEither, writer: schemamodel.SideEither, stack: map[[2]*schemamodel.Shape]bool{}}
	d.shape(c, o, n, "error", false)
}

func hasMethod(s *schemamodel.Schema, method string) bool {
	for k := range s.Messages {
		if k.Method == method {
			return true
		}
	}
	return false
}

func (d *differ) message(k schemamodel.Key, o, n *schemamodel.Message) {
	c := &ctx{key: k, reader: o.Reader(), writer: o.Writer(), stack: map[[2]*schemamodel.Shape]bool{}}
	oldPtr, newPtr := "/$defs/"+jsonv.EscapeToken(o.Def), "/$defs/"+jsonv.EscapeToken(n.Def)
	if o.Handler != n.Handler {
		d.emit(c, DiffDirectionChanged, Breaking, findings.SeverityError, BreaksBoth, o.Unstable, "", oldPtr+"/x-side", newPtr+"/x-side",
			fmt.Sprintf("the %s of %s used to be handled by %s and now by %s: peers that send or answer it by the old table break", k.Kind, k.Method, handlerText(o.Handler), handlerText(n.Handler)))
	}
	switch {
	case o.Unstable && !n.Unstable && k.Kind != schemamodel.KindResponse:
		d.emit(c, DiffStabilized, NonBreaking, findings.SeverityInfo, BreaksNone, false, "", oldPtr, newPtr,
			fmt.Sprintf("%s is now part of the stable surface", k.Method))
	case !o.Unstable && n.Unstable && k.Kind != schemamodel.KindResponse:
		d.emit(c, DiffDestabilized, Unclassified, findings.SeverityWarning, BreaksNone, false, "", oldPtr, newPtr,
			fmt.Sprintf("%s moved from the stable to the unstable surface: it may change or disappear without notice", k.Method))
	}
	root := "params"
	if k.Kind == schemamodel.KindResponse {
		root = "result"
	}
	d.shape(c, o.Shape, n.Shape, root, o.Unstable)
}

// shape compares two resolved nodes at wire path path. unstable is the
// surface the old peers relied on at this point.
func (d *differ) shape(c *ctx, o, n *schemamodel.Shape, path string, unstable bool) {
	if o == nil || n == nil {
		return
	}
	pair := [2]*schemamodel.Shape{o, n}
	if c.stack[pair] {
		return
	}
	c.stack[pair] = true
	defer delete(c.stack, pair)
	if o.Cycle || n.Cycle {
		if o.Def != n.Def {
			d.emit(c, DiffNotComparable, Unclassified, findings.SeverityWarning, BreaksNone, unstable, path, o.Ptr, n.Ptr,
				fmt.Sprintf("recursive definition %s became %s; acplint compares recursive definitions by name only", o.Def, n.Def))
		}
		return
	}
	d.types(c, o, n, path, unstable)
	d.enums(c, o, n, path, unstable)
	d.ranges(c, o, n, path, unstable)
	if o.Types&n.Types&schemamodel.TypeObject != 0 {
		// When only one side is a union, its members are compared per
		// variant (see variants), not at the union's level.
		if (o.Variants == nil) == (n.Variants == nil) {
			d.props(c, o, n, path, unstable)
		}
		if o.Values != nil && n.Values != nil {
			d.shape(c, o.Values, n.Values, path+".*", unstable)
		}
		d.variants(c, o, n, path, unstable)
	}
	if o.Types&n.Types&schemamodel.TypeArray != 0 && o.Items != nil && n.Items != nil {
		d.shape(c, o.Items, n.Items, path+"[]", unstable)
	}
}

func (d *differ) types(c *ctx, o, n *schemamodel.Shape, path string, unstable bool) {
	ot, nt := o.Types&^schemamodel.TypeNull, n.Types&^schemamodel.TypeNull
	switch {
	case ot == nt:
	case nt.Has(ot):
		d.emit(c, DiffTypeWidened, Breaking, findings.SeverityError, BreaksReaders, unstable, path, typePtr(o), typePtr(n),
			fmt.Sprintf("type widened from %s to %s: new %s may send values old %s reject", ot, nt, plural(c.writer), plural(c.reader)))
	case ot.Has(nt):
		d.emit(c, DiffTypeNarrowed, Breaking, findings.SeverityError, BreaksWriters, unstable, path, typePtr(o), typePtr(n),
			fmt.Sprintf("type narrowed from %s to %s: old %s that send the rest are rejected by new %s", ot, nt, plural(c.writer), plural(c.reader)))
	default:
		d.emit(c, DiffTypeChanged, Breaking, findings.SeverityError, BreaksBoth, unstable, path, typePtr(o), typePtr(n),
			fmt.Sprintf("type changed from %s to %s: neither side's readers accept all the other side's values", ot, nt))
	}
	on, nn := o.Types&schemamodel.TypeNull != 0, n.Types&schemamodel.TypeNull != 0
	switch {
	case !on && nn:
		d.emit(c, DiffNowNullable, Breaking, findings.SeverityError, BreaksReaders, unstable, path, typePtr(o), typePtr(n),
			fmt.Sprintf("null is now admitted: new %s may send null and old %s reject it", plural(c.writer), plural(c.reader)))
	case on && !nn:
		d.emit(c, DiffNoLongerNullable, Breaking, findings.SeverityError, BreaksWriters, unstable, path, typePtr(o), typePtr(n),
			fmt.Sprintf("null is no longer admitted: old %s that send null are rejected by new %s", plural(c.writer), plural(c.reader)))
	}
}

func typePtr(s *schemamodel.Shape) string {
	switch {
	case s.EnumPtr != "":
		return s.EnumPtr
	case s.VariantsPtr != "":
		return s.VariantsPtr
	case s.TypePtr != "":
		return s.TypePtr
	}
	return s.Ptr
}

func (d *differ) enums(c *ctx, o, n *schemamodel.Shape, path string, unstable bool) {
	switch {
	case o.Enum == nil && n.Enum == nil:
		return
	case o.Enum == nil:
		// An open enum admits every value of its type: the same set.
		if !n.Open && o.Types&^schemamodel.TypeNull == n.Types&^schemamodel.TypeNull {
			d.emit(c, DiffTypeNarrowed, Breaking, findings.SeverityError, BreaksWriters, unstable, path, o.Ptr, n.EnumPtr,
				fmt.Sprintf("now restricted to %s: old %s that send other values are rejected by new %s", list(n.Enum), plural(c.writer), plural(c.reader)))
		}
		return
	case n.Enum == nil:
		if !o.Open && o.Types&^schemamodel.TypeNull == n.Types&^schemamodel.TypeNull {
			d.emit(c, DiffTypeWidened, Breaking, findings.SeverityError, BreaksReaders, unstable, path, o.EnumPtr, n.Ptr,
				fmt.Sprintf("no longer restricted to %s: new %s may send other values and old %s reject them", list(o.Enum), plural(c.writer), plural(c.reader)))
		}
		return
	}
	for _, v := range n.Enum {
		if slices.Contains(o.Enum, v) {
			d.surfaceMove(c, o.UnstableValues[v], n.UnstableValues[v], unstable, path, o.EnumPtr, n.EnumPtr, "value "+v)
			continue
		}
		unstable := unstable || n.UnstableValues[v]
		if o.Open {
			d.emit(c, DiffEnumValueAdded, NonBreaking, findings.SeverityInfo, BreaksNone, unstable, path, o.EnumPtr, n.EnumPtr,
				fmt.Sprintf("value %s added; the old enum was open, so old %s already accept it", v, plural(c.reader)))
			continue
		}
		d.emit(c, DiffEnumValueAdded, Breaking, findings.SeverityWarning, BreaksReaders, unstable, path, o.EnumPtr, n.EnumPtr,
			fmt.Sprintf("value %s added: new %s may send it and old %s with a closed enum reject it", v, plural(c.writer), plural(c.reader)))
	}
	for _, v := range o.Enum {
		if slices.Contains(n.Enum, v) {
			continue
		}
		unstable := unstable || o.UnstableValues[v]
		if n.Open {
			d.emit(c, DiffEnumValueRemoved, Unclassified, findings.SeverityWarning, BreaksNone, unstable, path, o.EnumPtr, n.EnumPtr,
				fmt.Sprintf("value %s is no longer listed; the open enum still admits it, but new %s treat it as unknown", v, plural(c.reader)))
			continue
		}
		d.emit(c, DiffEnumValueRemoved, Breaking, findings.SeverityError, BreaksWriters, unstable, path, o.EnumPtr, n.EnumPtr,
			fmt.Sprintf("value %s removed: old %s that send it are rejected by new %s", v, plural(c.writer), plural(c.reader)))
	}
	switch {
	case !o.Open && n.Open:
		d.emit(c, DiffEnumOpened, Breaking, findings.SeverityWarning, BreaksReaders, unstable, path, o.EnumPtr, n.EnumPtr,
			fmt.Sprintf("the enum now admits values beyond %s: new %s may send them and old %s reject them", list(n.Enum), plural(c.writer), plural(c.reader)))
	case o.Open && !n.Open:
		d.emit(c, DiffEnumClosed, Breaking, findings.SeverityError, BreaksWriters, unstable, path, o.EnumPtr, n.EnumPtr,
			fmt.Sprintf("the enum no longer admits values beyond %s: old %s that send others are rejected by new %s", list(n.Enum), plural(c.writer), plural(c.reader)))
	}
}

func (d *differ) ranges(c *ctx, o, n *schemamodel.Shape, path string, unstable bool) {
	if o.Types&n.Types&(schemamodel.TypeNumber|schemamodel.TypeInteger) == 0 {
		return
	}
	narrower := tighter(n.Min, o.Min, false) || tighter(n.Max, o.Max, true)
	wider := tighter(o.Min, n.Min, false) || tighter(o.Max, n.Max, true)
	if narrower {
		d.emit(c, DiffRangeNarrowed, Breaking, findings.SeverityError, BreaksWriters, unstable, path, o.Ptr, n.Ptr,
			fmt.Sprintf("range narrowed from %s to %s: old %s that send numbers outside it are rejected by new %s", rangeText(o), rangeText(n), plural(c.writer), plural(c.reader)))
	}
	if wider {
		d.emit(c, DiffRangeWidened, Breaking, findings.SeverityWarning, BreaksReaders, unstable, path, o.Ptr, n.Ptr,
			fmt.Sprintf("range widened from %s to %s: new %s may send numbers old %s reject", rangeText(o), rangeText(n), plural(c.writer), plural(c.reader)))
	}
}

// tighter reports whether bound a is stricter than bound b (nil is
// unbounded); upper selects a maximum.
func tighter(a, b *float64, upper bool) bool {
	switch {
	case a == nil:
		return false
	case b == nil:
		return true
	case upper:
		return *a < *b
	}
	return *a > *b
}

func rangeText(s *schemamodel.Shape) string {
	lo, hi := "-∞", "+∞"
	if s.Min != nil {
		lo = strconv.FormatFloat(*s.Min, 'f', -1, 64)
	}
	if s.Max != nil {
		hi = strconv.FormatFloat(*s.Max, 'f', -1, 64)
	}
	if s.Format != "" {
		return fmt.Sprintf("[%s, %s] (%s)", lo, hi, s.Format)
	}
	return fmt.Sprintf("[%s, %s]", lo, hi)
}

// metaMember is ACP's reserved extension member. Its presence on each type
// is boilerplate (upstream added it everywhere at once), so only its type
// is compared.
const metaMember = "_meta"

func (d *differ) props(c *ctx, o, n *schemamodel.Shape, path string, unstable bool) {
	var removed, added []string
	for name := range o.Props {
		if n.Props[name] == nil && name != metaMember {
			removed = append(removed, name)
		}
	}
	for name := range n.Props {
		if o.Props[name] == nil && name != metaMember {
			added = append(added, name)
		}
	}
	sort.Strings(removed)
	sort.Strings(added)
	for _, name := range added {
		p := n.Props[name]
		ppath := path + "." + name
		surface := unstable || p.Shape.Unstable
		hint := renameHint(removed, "lost")
		switch {
		case p.Required:
			d.emit(c, DiffRequiredAdded, Breaking, findings.SeverityError, BreaksWriters, surface, ppath, d.propsPtr(d.old, o), p.Ptr,
				fmt.Sprintf("required member %q added: old %s do not send it, so new %s reject their messages%s", name, plural(c.writer), plural(c.reader), hint))
		case o.Closed:
			d.emit(c, DiffOptionalAdded, Breaking, findings.SeverityError, BreaksReaders, surface, ppath, d.propsPtr(d.old, o), p.Ptr,
				fmt.Sprintf("optional member %q added to an object the old schema closes: old %s reject messages that carry it%s", name, plural(c.reader), hint))
		default:
			d.emit(c, DiffOptionalAdded, NonBreaking, findings.SeverityInfo, BreaksNone, surface, ppath, d.propsPtr(d.old, o), p.Ptr,
				fmt.Sprintf("optional member %q added%s", name, hint))
		}
	}
	for _, name := range removed {
		p := o.Props[name]
		ppath := path + "." + name
		surface := unstable || p.Shape.Unstable
		hint := renameHint(added, "gained")
		switch {
		case p.Required:
			d.emit(c, DiffMemberRemoved, Breaking, findings.SeverityError, BreaksReaders, surface, ppath, p.Ptr, d.propsPtr(d.new, n),
				fmt.Sprintf("required member %q removed: new %s omit it and old %s that require it reject their messages%s", name, plural(c.writer), plural(c.reader), hint))
		case n.Closed:
			d.emit(c, DiffMemberRemoved, Breaking, findings.SeverityError, BreaksWriters, surface, ppath, p.Ptr, d.propsPtr(d.new, n),
				fmt.Sprintf("member %q removed from an object the new schema closes: old %s that send it are rejected%s", name, plural(c.writer), hint))
		default:
			d.emit(c, DiffMemberRemoved, Unclassified, findings.SeverityWarning, BreaksNone, surface, ppath, p.Ptr, d.propsPtr(d.new, n),
				fmt.Sprintf("optional member %q removed: old %s that send it are still accepted (as an unknown member) but new %s ignore it%s", name, plural(c.writer), plural(c.reader), hint))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(o.Props)) {
		op, np := o.Props[name], n.Props[name]
		if np == nil {
			continue
		}
		ppath := path + "." + name
		surface := unstable || op.Shape.Unstable
		if name != metaMember {
			d.required(c, op, np, ppath, surface)
			d.lenient(c, op, np, ppath, surface)
			d.surfaceMove(c, op.Shape.Unstable, np.Shape.Unstable, unstable, ppath, op.Ptr, np.Ptr, fmt.Sprintf("member %q", name))
		}
		d.shape(c, op.Shape, np.Shape, ppath, surface)
	}
}

// renameHint names the members the same object lost (or gained) beside
// an added (or removed) one: schema diffs see a rename as a removal plus an
// addition, and the hint lets a reader pair them. More than three is not
// a rename.
func renameHint(others []string, verb string) string {
	if len(others) == 0 || len(others) > 3 {
		return ""
	}
	q := make([]string, len(others))
	for i, o := range others {
		q[i] = fmt.Sprintf("%q", o)
	}
	return fmt.Sprintf(" (the same object %s %s: a rename shows as removed + added)", verb, strings.Join(q, ", "))
}

// propsPtr points at where s's members are declared in schema sch: its
// definition's properties when it has a definition, else s itself.
func (d *differ) propsPtr(sch *schemamodel.Schema, s *schemamodel.Shape) string {
	if s.Def != "" {
		if def, ok := sch.Defs[s.Def].(map[string]any); ok {
			if _, has := def["properties"]; has {
				return "/$defs/" + jsonv.EscapeToken(s.Def) + "/properties"
			}
		}
	}
	return s.Ptr
}

func (d *differ) required(c *ctx, op, np *schemamodel.Prop, path string, unstable bool) {
	switch {
	case !op.Required && np.Required:
		d.emit(c, DiffNowRequired, Breaking, findings.SeverityError, BreaksWriters, unstable, path, op.Ptr, np.Ptr,
			fmt.Sprintf("member %q became required: old %s that leave it out are rejected by new %s", op.Name, plural(c.writer), plural(c.reader)))
	case op.Required && !np.Required:
		d.emit(c, DiffNowOptional, Breaking, findings.SeverityWarning, BreaksReaders, unstable, path, op.Ptr, np.Ptr,
			fmt.Sprintf("member %q became optional: new %s may leave it out and old %s that require it reject the message", op.Name, plural(c.writer), plural(c.reader)))
	}
}

func (d *differ) lenient(c *ctx, op, np *schemamodel.Prop, path string, unstable bool) {
	if op.Lenient == np.Lenient {
		return
	}
	ol, nl := op.Lenient, np.Lenient
	var lost, gained []string
	note := func(was, is bool, what string) {
		switch {
		case was && !is:
			lost = append(lost, what)
		case !was && is:
			gained = append(gained, what)
		}
	}
	note(ol.DefaultOnError, nl.DefaultOnError, "replace a malformed value with its default")
	note(ol.DefaultOnNull && !nl.DefaultOnError, nl.DefaultOnNull && !ol.DefaultOnError, "read null as the default")
	note(ol.SkipInvalidItems, nl.SkipInvalidItems, "skip malformed items")
	if len(lost) == 0 && len(gained) == 0 {
		return // default-on-null beside default-on-error adds nothing
	}
	hints := fmt.Sprintf(" (x-deserialize hints: %s, were %s)", nl, ol)
	if len(lost) > 0 {
		msg := fmt.Sprintf("reference %s no longer %s: messages they used to accept are now rejected with -32602", plural(c.reader), strings.Join(lost, " or "))
		if len(gained) > 0 {
			msg += "; they now " + strings.Join(gained, " and ")
		}
		d.emit(c, DiffLenientRemoved, Unclassified, findings.SeverityWarning, BreaksNone, unstable, path, op.Ptr, np.Ptr, msg+hints)
		return
	}
	d.emit(c, DiffLenientAdded, NonBreaking, findings.SeverityInfo, BreaksNone, unstable, path, op.Ptr, np.Ptr,
		fmt.Sprintf("reference %s now %s instead of rejecting the message%s", plural(c.reader), strings.Join(gained, " and "), hints))
}

func handlerText(s schemamodel.Side) string {
	if s == schemamodel.SideEither {
		return "either side"
	}
	return "the " + string(s)
}

func (d *differ) surfaceMove(c *ctx, was, is, parent bool, path, oldPtr, newPtr, what string) {
	if parent || was == is {
		return
	}
	if was {
		d.emit(c, DiffStabilized, NonBreaking, findings.SeverityInfo, BreaksNone, false, path, oldPtr, newPtr,
			what+" is now part of the stable surface")
		return
	}
	d.emit(c, DiffDestabilized, Unclassified, findings.SeverityWarning, BreaksNone, false, path, oldPtr, newPtr,
		what+" moved from the stable to the unstable surface: it may change or disappear without notice")
}

// variants compares unions by the values they admit. A plain object on
// one side is matched against the other side's variants: when the union
// is tagged by a member the plain object has too, the plain object is
// split into one variant per value that member admits (an enum value, any
// other value, or none), so a closed enum that became tagged variants
// with a catch-all reads as the values it added, not as a rewrite; else
// the plain object is the other side's untagged variant, so introducing a
// tagged variant next to the old shape reads as "variant added".
func (d *differ) variants(c *ctx, o, n *schemamodel.Shape, path string, unstable bool) {
	if o.Variants == nil && n.Variants == nil {
		return
	}
	ov, nv := o.Variants, n.Variants
	var split *schemamodel.Shape // the plain side split by the union's tag
	tag := ""
	if ov == nil || nv == nil {
		plain, union := o, n
		if nv == nil {
			plain, union = n, o
		}
		if len(plain.Props) == 0 && plain.Types&^schemamodel.TypeNull != schemamodel.TypeObject {
			// Not an object model (any value, say): the type comparison
			// says what changed; there are no variants to pair.
			return
		}
		tag = unionTag(union.Variants)
		if tag != "" && plain.Props[tag] != nil {
			split = plain
		} else {
			tag = ""
		}
		ov, nv = lifted(o, tag), lifted(n, tag)
	}
	matchedNew := map[*schemamodel.Variant]bool{}
	var unmatchedOld []*schemamodel.Variant
	for _, a := range ov {
		b := matchVariant(a, ov, nv)
		if b == nil || matchedNew[b] {
			unmatchedOld = append(unmatchedOld, a)
			continue
		}
		matchedNew[b] = true
		vpath := path
		if len(o.Variants) > 0 && len(n.Variants) > 0 {
			vpath = variantPath(path, a)
		}
		surface := unstable || a.Shape.Unstable
		if split == nil {
			d.surfaceMove(c, a.Shape.Unstable, b.Shape.Unstable, unstable, vpath, a.Ptr, b.Ptr, "variant "+displayLabel(a))
		}
		d.shape(c, a.Shape, b.Shape, vpath, surface)
	}
	oldCatchAll := hasCatchAll(ov)
	newCatchAll := hasCatchAll(nv)
	if split != nil {
		d.splitValues(c, o, n, split == o, tag, ov, nv, matchedNew, unmatchedOld, path, unstable)
		return
	}
	for _, b := range nv {
		if matchedNew[b] {
			continue
		}
		vpath := variantPath(path, b)
		surface := unstable || b.Shape.Unstable
		if oldCatchAll {
			d.emit(c, DiffVariantAdded, NonBreaking, findings.SeverityInfo, BreaksNone, surface, vpath, unionPtr(o), b.Ptr,
				fmt.Sprintf("variant %s added; the old union had a catch-all variant, so old %s accept it", displayLabel(b), plural(c.reader)))
			continue
		}
		d.emit(c, DiffVariantAdded, Breaking, findings.SeverityWarning, BreaksReaders, surface, vpath, unionPtr(o), b.Ptr,
			fmt.Sprintf("variant %s added: new %s may send it and old %s that decode the union exhaustively reject the message", displayLabel(b), plural(c.writer), plural(c.reader)))
	}
	for _, a := range unmatchedOld {
		vpath := variantPath(path, a)
		surface := unstable || a.Shape.Unstable
		if newCatchAll {
			d.emit(c, DiffVariantRemoved, Unclassified, findings.SeverityWarning, BreaksNone, surface, vpath, a.Ptr, unionPtr(n),
				fmt.Sprintf("variant %s removed; the catch-all variant still admits it, but new %s no longer understand it", displayLabel(a), plural(c.reader)))
			continue
		}
		d.emit(c, DiffVariantRemoved, Breaking, findings.SeverityError, BreaksWriters, surface, vpath, a.Ptr, unionPtr(n),
			fmt.Sprintf("variant %s removed: old %s that send it are rejected by new %s", displayLabel(a), plural(c.writer), plural(c.reader)))
	}
}

// splitValues reports what is left after pairing a plain object, split
// by the value of member tag, with a union tagged by it: the values of
// tag one side admits and the other does not, as enum changes of that
// member. oldSplit says which side was the plain object.
func (d *differ) splitValues(c *ctx, o, n *schemamodel.Shape, oldSplit bool, tag string, ov, nv []*schemamodel.Variant,
	matchedNew map[*schemamodel.Variant]bool, unmatchedOld []*schemamodel.Variant, path string, unstable bool) {
	tpath := path + "." + tag
	oldPtr, newPtr := unionPtr(o), unionPtr(n)
	if oldSplit {
		oldPtr = o.Props[tag].Ptr
	} else {
		newPtr = n.Props[tag].Ptr
	}
	oldOpen, newOpen := hasCatchAll(ov), hasCatchAll(nv)
	for _, b := range nv {
		if matchedNew[b] {
			continue
		}
		surface := unstable || b.Shape.Unstable
		switch {
		case b.CatchAll:
			d.emit(c, DiffEnumOpened, Breaking, findings.SeverityWarning, BreaksReaders, surface, tpath, oldPtr, b.Ptr,
				fmt.Sprintf("%q now admits any value beyond %s: new %s may send them and old %s reject them", tag, list(tagValues(nv)), plural(c.writer), plural(c.reader)))
		case b.Tag == "":
			d.emit(c, DiffNowOptional, Breaking, findings.SeverityWarning, BreaksReaders, surface, tpath, oldPtr, b.Ptr,
				fmt.Sprintf("%q may now be left out or null: new %s may omit it and old %s that require a value reject the message", tag, plural(c.writer), plural(c.reader)))
		case oldOpen:
			d.emit(c, DiffEnumValueAdded, NonBreaking, findings.SeverityInfo, BreaksNone, surface, tpath, oldPtr, b.Ptr,
				fmt.Sprintf("value %s of %q added; the old schema admitted any value, so old %s already accept it", b.TagValue, tag, plural(c.reader)))
		default:
			d.emit(c, DiffEnumValueAdded, Breaking, findings.SeverityWarning, BreaksReaders, surface, tpath, oldPtr, b.Ptr,
				fmt.Sprintf("value %s of %q added: new %s may send it and old %s with a closed set of values reject it", b.TagValue, tag, plural(c.writer), plural(c.reader)))
		}
	}
	for _, a := range unmatchedOld {
		surface := unstable || a.Shape.Unstable
		switch {
		case a.CatchAll:
			d.emit(c, DiffEnumClosed, Breaking, findings.SeverityError, BreaksWriters, surface, tpath, a.Ptr, newPtr,
				fmt.Sprintf("%q no longer admits values beyond %s: old %s that send others are rejected by new %s", tag, list(tagValues(nv)), plural(c.writer), plural(c.reader)))
		case a.Tag == "":
			d.emit(c, DiffNowRequired, Breaking, findings.SeverityError, BreaksWriters, surface, tpath, a.Ptr, newPtr,
				fmt.Sprintf("%q may no longer be left out or null: old %s that omit it are rejected by new %s", tag, plural(c.writer), plural(c.reader)))
		case newOpen:
			d.emit(c, DiffEnumValueRemoved, Unclassified, findings.SeverityWarning, BreaksNone, surface, tpath, a.Ptr, newPtr,
				fmt.Sprintf("value %s of %q is no longer listed; the new schema still admits it, but new %s treat it as unknown", a.TagValue, tag, plural(c.reader)))
		default:
			d.emit(c, DiffEnumValueRemoved, Breaking, findings.SeverityError, BreaksWriters, surface, tpath, a.Ptr, newPtr,
				fmt.Sprintf("value %s of %q removed: old %s that send it are rejected by new %s", a.TagValue, tag, plural(c.writer), plural(c.reader)))
		}
	}
}

// unionTag returns the member every tagged variant of vs is tagged by,
// or "" when they have none or several.
func unionTag(vs []*schemamodel.Variant) string {
	tag := ""
	for _, v := range vs {
		switch {
		case v.Tag == "":
		case tag == "":
			tag = v.Tag
		case tag != v.Tag:
			return ""
		}
	}
	return tag
}

func tagValues(vs []*schemamodel.Variant) []string {
	var out []string
	for _, v := range vs {
		if v.Tag != "" && !v.CatchAll {
			out = append(out, v.TagValue)
		}
	}
	return out
}

// variantPath selects variant v at path; an unnamed variant is named by
// its position in the schema (its pointer's last token).
func variantPath(path string, v *schemamodel.Variant) string {
	label := v.Label
	if label == "" {
		label = v.Ptr[strings.LastIndex(v.Ptr, "/")+1:]
	}
	return path + "<" + label + ">"
}

// lifted returns the variants of s with the union's own members folded
// into each, or, for a plain s, s split by the values of member tag (see
// splitByTag), or s itself as one untagged variant when tag is "".
func lifted(s *schemamodel.Shape, tag string) []*schemamodel.Variant {
	if s.Variants == nil {
		if tag != "" {
			return splitByTag(s, tag)
		}
		plain := *s
		return []*schemamodel.Variant{{Shape: &plain, Ptr: s.Ptr}}
	}
	out := make([]*schemamodel.Variant, len(s.Variants))
	for i, v := range s.Variants {
		merged := *v.Shape
		merged.Props = map[string]*schemamodel.Prop{}
		for name, p := range s.Props {
			merged.Props[name] = p
		}
		for name, p := range v.Shape.Props {
			if up, ok := s.Props[name]; ok {
				p = bothProps(up, p)
			}
			merged.Props[name] = p
		}
		cp := *v
		cp.Shape = &merged
		out[i] = &cp
	}
	return out
}

// bothProps is a member declared both on a union and in one of its
// variants: both declarations constrain the same value, so it is required
// when either requires it, admits the types both admit, and reference
// receivers apply the deserialization hints of either.
func bothProps(union, variant *schemamodel.Prop) *schemamodel.Prop {
	cp := *variant
	cp.Required = union.Required || variant.Required
	cp.Lenient = schemamodel.Lenient{
		DefaultOnError:   union.Lenient.DefaultOnError || variant.Lenient.DefaultOnError,
		DefaultOnNull:    union.Lenient.DefaultOnNull || variant.Lenient.DefaultOnNull,
		SkipInvalidItems: union.Lenient.SkipInvalidItems || variant.Lenient.SkipInvalidItems,
	}
	if t := variant.Shape.Types & union.Shape.Types; t != variant.Shape.Types {
		sh := *variant.Shape
		sh.Types = t
		cp.Shape = &sh
	}
	return &cp
}

// splitByTag turns plain object s into the variants a union tagged by
// member tag would have for the same values: one per listed value of tag,
// a catch-all when tag admits other values too, and an untagged one when
// tag may be left out or null.
func splitByTag(s *schemamodel.Shape, tag string) []*schemamodel.Variant {
	p := s.Props[tag]
	with := func(sh *schemamodel.Shape, required bool) *schemamodel.Shape {
		cp := *s
		cp.Props = maps.Clone(s.Props)
		np := *p
		np.Shape, np.Required = sh, required
		cp.Props[tag] = &np
		return &cp
	}
	var out []*schemamodel.Variant
	for _, v := range p.Shape.Enum {
		if v == "null" {
			continue
		}
		val := *p.Shape
		val.Enum, val.Open = []string{v}, false
		val.Types &^= schemamodel.TypeNull
		out = append(out, &schemamodel.Variant{Label: tag + "=" + v, Tag: tag, TagValue: v, Shape: with(&val, true), Ptr: p.Ptr})
	}
	if nonNull := p.Shape.Types &^ schemamodel.TypeNull; nonNull != 0 && (p.Shape.Enum == nil || p.Shape.Open) {
		other := *p.Shape
		other.Enum, other.Open, other.Types = nil, false, nonNull
		out = append(out, &schemamodel.Variant{Label: "other", Tag: tag, CatchAll: true, Shape: with(&other, true), Ptr: p.Ptr})
	}
	if !p.Required || p.Shape.Types&schemamodel.TypeNull != 0 {
		none := &schemamodel.Shape{Ptr: p.Ptr, Types: p.Shape.Types & schemamodel.TypeNull}
		out = append(out, &schemamodel.Variant{Label: "none", Shape: with(none, false), Ptr: p.Ptr})
	}
	return out
}

func unionPtr(s *schemamodel.Shape) string {
	if s.VariantsPtr != "" {
		return s.VariantsPtr
	}
	return s.Ptr
}

func displayLabel(v *schemamodel.Variant) string {
	switch {
	case v.CatchAll:
		return fmt.Sprintf("%q (catch-all for any %s)", v.Label, v.Tag)
	case v.Tag != "":
		return v.Tag + "=" + v.TagValue
	case v.Label == "":
		return "(untagged)"
	}
	return fmt.Sprintf("%q (untagged)", v.Label)
}

func hasCatchAll(vs []*schemamodel.Variant) bool {
	for _, v := range vs {
		if v.CatchAll {
			return true
		}
	}
	return false
}

// matchVariant finds a's counterpart among nv: the same tag value, the
// catch-all for a catch-all, the one untagged variant for an untagged
// one, else the same label.
func matchVariant(a *schemamodel.Variant, ov, nv []*schemamodel.Variant) *schemamodel.Variant {
	switch {
	case a.CatchAll:
		for _, b := range nv {
			if b.CatchAll {
				return b
			}
		}
		return nil
	case a.Tag != "":
		for _, b := range nv {
			if !b.CatchAll && b.Tag == a.Tag && b.TagValue == a.TagValue {
				return b
			}
		}
		return nil
	}
	if u := untagged(nv); len(u) == 1 && len(untagged(ov)) == 1 {
		return u[0]
	}
	for _, b := range untagged(nv) {
		if b.Label == a.Label {
			return b
		}
	}
	return nil
}

func untagged(vs []*schemamodel.Variant) []*schemamodel.Variant {
	var out []*schemamodel.Variant
	for _, v := range vs {
		if v.Tag == "" && !v.CatchAll {
			out = append(out, v)
		}
	}
	return out
}

// emit records a change, folding it into an earlier one when it is the
// same change at another place: the same check, classification and
// message but for the sides, which differ when a client-written and an
// agent-written message share the changed definition.
func (d *differ) emit(c *ctx, chk *findings.Rule, cat Category, sev findings.Severity, breaks Breaks, unstable bool, path, oldPtr, newPtr, msg string) {
	surface := Stable
	if unstable {
		surface = Unstable
	}
	key := strings.Join([]string{chk.ID, string(surface), string(cat), string(breaks), sev.String(), sidesWord().ReplaceAllString(msg, "…")}, "\x00")
	place := Occurrence{Method: c.key.Method, Kind: c.key.Kind, Path: path, Reader: c.reader, Writer: c.writer,
		Old: Location{File: d.old.File, Pointer: oldPtr}, New: Location{File: d.new.File, Pointer: newPtr}}
	if i, ok := d.groups[key]; ok {
		g := &d.changes[i]
		if g.Method == place.Method && g.Kind == place.Kind && g.Path == place.Path {
			return
		}
		for _, o := range g.Also {
			if o.Method == place.Method && o.Kind == place.Kind && o.Path == place.Path {
				return
			}
		}
		g.Also = append(g.Also, place)
		if place.Reader != g.Reader || place.Writer != g.Writer {
			g.Reader, g.Writer = schemamodel.SideEither, schemamodel.SideEither
			g.Message = sidesWord().ReplaceAllString(msg, "peers")
		}
		return
	}
	d.groups[key] = len(d.changes)
	d.changes = append(d.changes, Change{
		Check: chk, CheckID: chk.ID, Title: chk.Title,
		Category: cat, Severity: sev, Surface: surface,
		Method: c.key.Method, Kind: c.key.Kind, Path: path, Breaks: breaks,
		Reader: c.reader, Writer: c.writer, Message: msg,
		Old: place.Old, New: place.New,
	})
}

// sidesWord matches the parties a message names (see plural), which is
// all that tells the same change at a client-written and at an
// agent-written place apart.
var sidesWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(clients|agents|peers)\b`) })

func plural(s schemamodel.Side) string {
	switch s {
	case schemamodel.SideClient:
		return "clients"
	case schemamodel.SideAgent:
		return "agents"
	}
	return "peers"
}

func list(vals []string) string {
	if len(vals) > 8 {
		return strings.Join(vals[:8], ", ") + fmt.Sprintf(" and %d more", len(vals)-8)
	}
	return strings.Join(vals, ", ")
}
