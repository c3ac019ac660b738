package lint

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/internal/jsonv"
	"github.com/acplint/acplint/schemacheck"
	"github.com/acplint/acplint/schemamodel"
)

// Schema is a version of the ACP schema to check params and results
// against instead of the one compiled into acplint (acplint lint --schema).
// Each message is checked against its own method's $def (never the schema
// root, whose extension definitions admit anything) by package
// schemacheck, which compiles the file into one-pass checkers when it is
// loaded; it also flags what JSON Schema does not reject: unknown members
// and values of open enums.
type Schema struct {
	model *schemamodel.Schema
	check *schemacheck.Checker
}

// LoadSchema reads and compiles a schema file in the upstream format. It
// resolves only references inside the file ("#/$defs/…"): a schema is
// input, and must not make acplint read other files or the network.
func LoadSchema(file string) (*Schema, error) {
	m, err := schemamodel.LoadFile(file, schemamodel.Options{})
	if err != nil {
		return nil, err
	}
	return CompileSchema(m)
}

// CompileSchema compiles a loaded schema for checking.
func CompileSchema(m *schemamodel.Schema) (*Schema, error) {
	if err := checkLocalRefs(m); err != nil {
		return nil, err
	}
	ck, err := schemacheck.Compile(m)
	if err != nil {
		return nil, err
	}
	return &Schema{model: m, check: ck}, nil
}

// refKeywords are the keywords whose value is a URI reference to another
// schema.
var refKeywords = []string{"$ref", "$dynamicRef", "$recursiveRef"}

// dataKeywords hold instance values, not schemas: a {"$ref":…} inside an
// enum or a default is data, never resolved.
var dataKeywords = map[string]bool{"const": true, "enum": true, "default": true, "examples": true}

// checkLocalRefs fails on the first reference in m that leaves the file,
// naming it with its JSON Pointer and line. Only fragment references
// ("#/$defs/…", "#anchor") are resolved.
func checkLocalRefs(m *schemamodel.Schema) error {
	var first, firstPtr string
	outside := 0
	var walk func(node any, ptr jsonv.Pointer)
	walk = func(node any, ptr jsonv.Pointer) {
		switch n := node.(type) {
		case map[string]any:
			for _, kw := range refKeywords {
				if ref, ok := n[kw].(string); ok && !strings.HasPrefix(ref, "#") {
					if outside == 0 {
						first, firstPtr = ref, string(ptr.Key(kw))
					}
					outside++
				}
			}
			keys := make([]string, 0, len(n))
			for k := range n {
				if !dataKeywords[k] {
					keys = append(keys, k)
				}
			}
			sort.Strings(keys) // the same ref is reported first every time
			for _, k := range keys {
				walk(n[k], ptr.Key(k))
			}
		case []any:
			for i, e := range n {
				walk(e, ptr.Index(i))
			}
		}
	}
	walk(m.Doc, "")
	if outside == 0 {
		return nil
	}
	more := ""
	if outside > 1 {
		more = fmt.Sprintf(" (and %d more refs outside the file)", outside-1)
	}
	return fmt.Errorf("%s:%d: %s: reference %q points outside the file; --schema resolves only refs inside it (\"#/…\")%s",
		m.File, m.Line(firstPtr), firstPtr, first, more)
}

// File is the schema file as it was named.
func (s *Schema) File() string { return s.model.File }

// schemaKinds are the codec problems that depend on the schema version;
// with --schema they come from the given schema instead: the shapes from
// validation, and where "_meta" must be an object from its declarations
// (schemafacts.go). Envelope and duplicate-member problems do not depend
// on it.
var schemaKinds = map[codec.ProblemKind]bool{
	codec.ProbMissing: true, codec.ProbType: true, codec.ProbRange: true, codec.ProbEnum: true,
	codec.ProbOpenEnum: true, codec.ProbUnknownVariant: true, codec.ProbUnknownMember: true,
	codec.ProbNullResult: true, codec.ProbMeta: true,
}

// schemaProblems is the --schema hook of the driver: for message i of d it
// drops the compiled-in schema problems of the params or result and adds
// those of l.schema. Without --schema it returns its arguments unchanged.
// (Whether l.schema defines the method at all is the protocol machine's
// question, asked of the schema's method table: Event.Methods.) Params
// were checked already, by the read-ahead worker that decoded the line
// (pre); a result is checked here, since its method is the machine's
// knowledge.
func (l *linter) schemaProblems(d *codec.Decoded, i int, m *domain.Message, msgProbs, resultProbs []codec.Problem) (_, _ []codec.Problem) {
	if l.schema == nil {
		return msgProbs, resultProbs
	}
	t, ok := schemaTarget(d, i, m)
	if !ok {
		return msgProbs, resultProbs
	}
	msgProbs = dropSchemaProblems(msgProbs, t.base)
	resultProbs = dropSchemaProblems(resultProbs, t.base)
	var probs []codec.Problem
	if i < len(l.pre) && l.pre[i].done {
		if l.pre[i].panicked != nil {
			panic(l.pre[i].panicked) // where the check itself would have
		}
		probs = l.pre[i].probs
	} else {
		probs = l.schema.check.Check(t.key, t.raw, t.tree, t.base)
	}
	if t.key.Kind == schemamodel.KindResponse {
		return msgProbs, append(resultProbs, probs...)
	}
	return append(msgProbs, probs...), resultProbs
}

// schemaValue is the value --schema checks of one message.
type schemaValue struct {
	key  schemamodel.Key
	raw  json.RawMessage
	tree *jsonv.Value // raw parsed by the codec; nil when it must be parsed
	base string       // its JSON Pointer in the line
}

// schemaTarget returns the params or result of message i of d that
// --schema checks; false for a message that has none to check (an
// extension method, an error, a broken envelope).
func schemaTarget(d *codec.Decoded, i int, m *domain.Message) (schemaValue, bool) {
	if m.Method == "" || m.Method.IsExtension() {
		return schemaValue{}, false
	}
	var t schemaValue
	switch m.Kind {
	case domain.KindRequest:
		t.key, t.raw = schemamodel.Key{Method: string(m.Method), Kind: schemamodel.KindRequest}, m.RawParams
	case domain.KindNotification:
		t.key, t.raw = schemamodel.Key{Method: string(m.Method), Kind: schemamodel.KindNotification}, m.RawParams
	case domain.KindResult:
		t.key, t.raw = schemamodel.Key{Method: string(m.Method), Kind: schemamodel.KindResponse}, m.RawResult
	default:
		return schemaValue{}, false
	}
	t.base = "/params"
	if t.key.Kind == schemamodel.KindResponse {
		t.base = "/result"
	}
	if len(d.Msgs) > 1 || isBatchLine(d) {
		t.base = "/" + strconv.Itoa(i) + t.base
	}
	// Check finds nothing to say of a method the schema does not define.
	params, result := d.Trees(i)
	t.tree = params
	if t.key.Kind == schemamodel.KindResponse {
		t.tree = result
	}
	return t, true
}

// paramsCheck is the --schema check of one message's params, made by the
// read-ahead worker that decoded its line.
type paramsCheck struct {
	done  bool // false for a result, which the machine checks
	probs []codec.Problem
	// panicked is what the check panicked with, raised again on the
	// machine's goroutine when it reaches the message, so that the bug is
	// reported on its line and after the line's other findings, as before.
	panicked any
}

// checkParams checks the params of each request and notification of d
// against s into out (one entry a message), on a read-ahead worker: their
// definition depends on the message alone, unlike a result's.
func (s *Schema) checkParams(d *codec.Decoded, out []paramsCheck) []paramsCheck {
	for i, m := range d.Msgs {
		var c paramsCheck
		if m.Kind == domain.KindRequest || m.Kind == domain.KindNotification {
			if t, ok := schemaTarget(d, i, m); ok {
				c = s.checkOne(t)
			}
		}
		out = append(out, c)
	}
	return out
}

func (s *Schema) checkOne(t schemaValue) (c paramsCheck) {
	c.done = true
	defer func() {
		if v := recover(); v != nil {
			c.probs, c.panicked = nil, v
		}
	}()
	c.probs = s.check.Check(t.key, t.raw, t.tree, t.base)
	return c
}

func dropSchemaProblems(ps []codec.Problem, base string) []codec.Problem {
	out := ps[:0:0]
	for _, p := range ps {
		if schemaKinds[p.Kind] && (p.Pointer == base || strings.HasPrefix(p.Pointer, base+"/")) {
			continue
		}
		out = append(out, p)
	}
	return out
}
