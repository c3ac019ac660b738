package schemacheck

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/internal/jsonv"
	"github.com/acplint/acplint/schemamodel"
)

// run is the memory one Check reuses from the last: the arena its value is
// parsed into and the stack of its location.
type run struct {
	arena jsonv.Arena
	clean []byte
	value jsonv.Value // the value checked, when Check parsed it
	// lastKey is the key of the last check, lastDef its definition
	// (known once set).
	lastKey schemamodel.Key
	lastDef root
	known   bool
	loc     []string
	rep     report
}

// maxKept bounds the memory a pooled run keeps, so that one huge value
// does not stay allocated.
const maxKept = 1 << 20

// metaKey is in the text of every "_meta" member name; values without it
// (most) skip the walk that judges them. It leaves out the opening quote,
// the commonest byte of JSON, which made the search stop at every string;
// an underscore is rare.
var metaKey = []byte(`_meta"`)

// Defines says whether the schema has a definition for key.
func (c *Checker) Defines(key schemamodel.Key) bool { return c.roots[key].node != nil }

// Check checks one params or result value (raw; nil when absent, which
// reads as {} as the codec reads it) against the definition of key and
// returns its problems, with pointers under base, sorted by pointer. A
// value that is not JSON has none: the codec reports the line. tree, when
// not nil, is raw already parsed (codec.Decoded.Trees), which saves parsing
// it again; it is given only for raw that is valid UTF-8, which the codec
// has checked already.
func (c *Checker) Check(key schemamodel.Key, raw []byte, tree *jsonv.Value, base string) []codec.Problem {
	r, _ := c.runs.Get().(*run)
	if r == nil {
		r = &run{loc: make([]string, 0, 64)}
	}
	// Most messages are of the method of the one before (session/update
	// after session/update): comparing the key beats hashing it.
	if !r.known || r.lastKey != key {
		// The key kept is the schema's own (root.key), not the caller's,
		// whose method may share memory the caller reuses.
		r.lastDef = c.roots[key]
		r.lastKey, r.known = r.lastDef.key, r.lastDef.node != nil
	}
	root, msg := r.lastDef.node, r.lastDef.msg
	if root == nil {
		c.runs.Put(r)
		return nil
	}
	// Most values come parsed (tree): the arena is then left as it is.
	parsed := false
	defer func() {
		if parsed {
			r.arena.Reset()
		}
		r.rep = report{}
		r.value = jsonv.Value{}
		if cap(r.clean) > maxKept {
			r.clean = nil
		}
		c.runs.Put(r)
	}()
	// v points into r rather than at a local, which escaping into the
	// report would allocate on every check.
	var v *jsonv.Value
	switch {
	case raw == nil:
		r.value = jsonv.Value{Kind: jsonv.Object}
		v = &r.value
	case tree != nil:
		v = tree
	default:
		src := raw
		if !utf8.Valid(src) {
			// encoding/json, which the validator read values with, reads
			// each byte that is not UTF-8 as U+FFFD.
			r.clean = toValidUTF8(r.clean[:0], src)
			src = r.clean
		}
		var err error
		parsed = true
		if r.value, err = r.arena.ParseNext(src); err != nil {
			return nil
		}
		v = &r.value
	}
	rep := &r.rep
	*rep = report{c: c, key: key, root: v, base: base, def: msg.Def}
	if !valid(root, v) {
		e := check(root, v, nil)
		if e == nil {
			panic(fmt.Sprintf("schemacheck: %s: valid and check disagree", msg.Def))
		}
		if e.kind == eGroup {
			for _, cause := range e.causes {
				rep.walk(cause)
			}
		} else {
			rep.walk(e)
		}
		if v.Kind == jsonv.Null && key.Kind == schemamodel.KindResponse {
			// "result": null for an object result: the codec's own rule
			// (ACP-SCH-003) says it better than a type error.
			for i, p := range rep.probs {
				if p.Kind == codec.ProbType && p.Pointer == base {
					rep.probs[i] = codec.Problem{Kind: codec.ProbNullResult, Pointer: base, Def: msg.Def,
						Detail: fmt.Sprintf(`%s result is null; the schema wants an object, so send {}`, key.Method)}
				}
			}
		}
	}
	var bad *badLocs
	if rep.bad.here || rep.bad.kids != nil {
		bad = &rep.bad
	}
	rep.extras(msg.Shape, r.lastDef.facts, v, r.loc[:0], bad)
	// extras saw every "_meta" meta would judge, unless it left a part
	// out; then the text says whether there is any.
	if rep.sawMeta || (rep.partial && bytes.Contains(raw, metaKey)) {
		rep.meta(msg.Shape, v, r.loc[:0])
	}
	if len(rep.probs) > 1 {
		sort.SliceStable(rep.probs, func(i, j int) bool { return rep.probs[i].Pointer < rep.probs[j].Pointer })
	}
	// Member names and values may share the memory of the input or of
	// the arena, which the caller and the next check reuse.
	for i := range rep.probs {
		rep.probs[i].Member = strings.Clone(rep.probs[i].Member)
		rep.probs[i].Value = strings.Clone(rep.probs[i].Value)
	}
	return rep.probs
}

// toValidUTF8 appends src to dst with each byte that does not start a
// valid UTF-8 sequence replaced by U+FFFD.
func toValidUTF8(dst, src []byte) []byte {
	for i := 0; i < len(src); {
		r, size := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, "\uFFFD"...)
			i++
			continue
		}
		dst = append(dst, src[i:i+size]...)
		i += size
	}
	return dst
}
