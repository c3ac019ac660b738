package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/internal/jsonv"
)

// extnState is the bookkeeping of the extensibility checks.
type extnState struct {
	// reported holds the extension and $/ methods already reported as
	// unadvertised (ACP-EXTN-006) or unknown (ACP-EXTN-007), so that a
	// method used a thousand times is reported once; the latest
	// reportedWindow, since a sender may name any number of methods.
	reported recentKeys
}

// checkMethodName reports method names v1 (or the schema the event is
// judged by) does not define and methods sent by the side that should
// receive them.
func checkMethodName(p *Phase, c *ctx) {
	m := c.m
	if mi, ok := c.method(); ok {
		if want := mi.Receiver.Sender(); want != domain.DirUnknown && m.Dir != domain.DirUnknown && m.Dir != want {
			c.add(findings.EXTNUnknownMethod, "/method", "the %s sent %s, a method only the %s may send; the %s has no handler for it and answers -32601", m.Dir, m.Method, want, m.Dir.Opposite())
		}
		return
	}
	switch {
	case m.Method.IsExtension(), m.Method.IsProtocolLevel():
	case c.isUnstable(m.Method):
		c.add(findings.CAPUnstable, "/method", "%s is an unstable ACP method, not part of the stable v1 protocol; peers without the unstable feature answer -32601", m.Method)
	case c.ev.Methods != nil:
		c.add(findings.EXTNUnknownMethod, "/method", "method %q is not defined by the schema %s; a peer built on that schema answers -32601 (method not found)", m.Method, c.ev.Methods.Schema)
	default:
		c.add(findings.EXTNUnknownMethod, "/method", "method %q is not an ACP v1 method; custom methods must start with \"_\", and a peer that does not know it answers -32601", m.Method)
	}
}

// checkExtensionErrorCode judges the code of an error answer to an
// extension request (ACP-EXTN-003) or an unknown $/ request (ACP-EXTN-007):
// a receiver that does not implement it answers -32601.
func checkExtensionErrorCode(p *Phase, c *ctx, req Pending) {
	e := c.m.Error
	if req.Method == ProbeMethod {
		code := domain.ErrorCode(e.Code)
		cancelled := code == domain.CodeRequestCancelled && (req.CancelLine > 0 || cancelCascade(p, req))
		if code != domain.CodeMethodNotFound && !cancelled {
			c.add(findings.EXTNExtensionNotFoundCode, "/error/code", "%s, acplint's probe for how unknown methods are refused, is answered with %d; no peer implements it, and the code for an extension the receiver does not implement is -32601, which callers test for to fall back", req.Method, e.Code)
		}
		return
	}
	if !refusesAsUnknown(p, e) {
		return
	}
	switch {
	case req.Method.IsExtension():
		c.add(findings.EXTNExtensionNotFoundCode, "/error/code", "extension request %s is refused as unknown with %d; the code for an extension the receiver does not implement is -32601, which callers test for to fall back", req.Method, e.Code)
	case req.Method.IsProtocolLevel():
		if _, known := c.ev.Methods.Lookup(req.Method); !known {
			c.add(findings.EXTNUnknownDollarMethod, "/error/code", "unknown protocol-level request %s is refused with %d; an unknown $/ request should get -32601", req.Method, e.Code)
		}
	}
}

// checkProbeResult reports a result to acplint check's probe
// (ACP-EXTN-003): the receiver answers a method nobody implements as if
// it knew it.
func checkProbeResult(p *Phase, c *ctx, req Pending) {
	if c.m.Kind == domain.KindResult {
		c.add(findings.EXTNExtensionNotFoundCode, "/result", "%s, acplint's probe for how unknown methods are refused, is answered with a result; no peer implements it, so the %s answers methods it does not know as if it did, and callers cannot fall back (the code for an unknown extension is -32601)", req.Method, c.m.Dir)
	}
}

// checkParamsTraceContext and checkResultTraceContext judge the trace
// context under the _meta of a message's params and result (ACP-EXTN-005).
func checkParamsTraceContext(p *Phase, c *ctx) {
	if !c.ev.MetaAbsent && mentionsMeta(c.m.RawParams) && c.rawMentions(c.m.RawParams, traceKeys...) {
		checkTraceContext(c, reflect.ValueOf(c.m.Params), "/params")
	}
}

func checkResultTraceContext(p *Phase, c *ctx, _ Pending) {
	if c.succeeded() && !c.ev.MetaAbsent && mentionsMeta(c.m.RawResult) && c.rawMentions(c.m.RawResult, traceKeys...) {
		checkTraceContext(c, reflect.ValueOf(c.m.Result), "/result")
	}
}

// checkExtensionMethod reports "_" methods that neither side advertises
// under _meta (ACP-EXTN-006) and unknown "$/" notifications (ACP-EXTN-007),
// once per method.
func checkExtensionMethod(p *Phase, c *ctx) {
	m := c.m
	if p.extn.reported.Has(string(m.Method)) {
		return
	}
	switch {
	case m.Method.IsExtension():
		// Advertising is judged once both sides have shown their
		// capabilities; the sender must be known to name the receiver.
		if p.ClientCaps == nil || p.AgentCaps == nil || m.Dir == domain.DirUnknown {
			return
		}
		if advertisesExtension(p, m.Method) {
			return
		}
		receiver := m.Dir.Opposite()
		c.add(findings.EXTNCapabilityOutsideMeta, "/method",
			"extension method %s is used, but neither side's capabilities mention it under _meta; the %s cannot tell the %s supports it, and an unsupported request only gets -32601",
			m.Method, m.Dir, receiver)
	case m.Method.IsProtocolLevel() && m.Kind == domain.KindNotification:
		if _, known := c.ev.Methods.Lookup(m.Method); known || c.isUnstable(m.Method) {
			return
		}
		c.add(findings.EXTNUnknownDollarMethod, "/method",
			"%s is not a protocol-level notification ACP defines; $/ notifications are implementation-dependent and receivers that do not know it ignore it", m.Method)
	default:
		return
	}
	p.extn.reported.Add(string(m.Method))
}

// advertisesExtension reports whether any _meta of either side's
// capabilities names method: a key or string value that is the method, its
// namespace (the part before the first "/", e.g. "zed.dev" for
// "_zed.dev/workspace/buffers") or a prefix of it. The match is lenient on
// purpose: the spec does not fix how an extension is advertised, so only
// a method that nothing mentions is reported.
func advertisesExtension(p *Phase, method domain.Method) bool {
	name := strings.TrimPrefix(string(method), "_")
	found := false
	visit := func(v reflect.Value, _ jsonv.Pointer) {
		if found {
			return
		}
		meta := metaOf(v)
		if len(meta) == 0 {
			return
		}
		tree, err := jsonv.Parse(meta)
		if err != nil {
			return
		}
		found = mentions(&tree, name)
	}
	eachStruct(reflect.ValueOf(p.AgentCaps), "", visit)
	eachStruct(reflect.ValueOf(p.ClientCaps), "", visit)
	return found
}

func mentions(v *jsonv.Value, name string) bool {
	names := func(s string) bool {
		s = strings.TrimPrefix(s, "_")
		return len(s) >= 2 && strings.HasPrefix(name, s)
	}
	switch v.Kind {
	case jsonv.String:
		return names(v.Str())
	case jsonv.Array:
		elems := v.Elems()
		for i := range elems {
			if mentions(&elems[i], name) {
				return true
			}
		}
	case jsonv.Object:
		members := v.Members()
		for i := range members {
			if names(members[i].Key) || mentions(&members[i].Value, name) {
				return true
			}
		}
	}
	return false
}

// metaOf returns the raw _meta member of struct v, if it has one.
func metaOf(v reflect.Value) json.RawMessage {
	f := v.FieldByName("Meta")
	if !f.IsValid() || f.Type() != reflect.TypeFor[json.RawMessage]() {
		return nil
	}
	return f.Interface().(json.RawMessage)
}

// W3C Trace Context (traceparent, tracestate) and W3C Baggage syntax.
var (
	traceparentRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$`)
	})
	tracestateKey = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^([a-z0-9][_0-9a-z\-*/]{0,255}|[a-z0-9][_0-9a-z\-*/]{0,240}@[a-z][_0-9a-z\-*/]{0,13})$`)
	})
	tracestateVal = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$`)
	})
	baggageKey   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^[!#$%&'*+\\-.^_`|~0-9A-Za-z]+$") })
	baggageValue = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*$`) })
)

// mentionsMeta reports whether raw may hold a "_meta" member, where trace
// context lives: one quick search spares the full scan of most messages.
// It looks for the name without its opening quote, then checks for the
// quote: JSON is full of quotes and a search that starts from each one
// is three times slower than one for the rare "_".
func mentionsMeta(raw []byte) bool {
	for i := 1; i < len(raw); i++ {
		j := bytes.Index(raw[i:], metaTail)
		if j < 0 {
			return false
		}
		i += j
		if raw[i-1] == '"' {
			return true
		}
	}
	return false
}

var metaTail = []byte(`_meta"`)

// traceKeys are the _meta members checkTraceContext judges.
var traceKeys = []string{`"traceparent"`, `"tracestate"`, `"baggage"`}

// checkTraceContext checks the W3C trace context keys of every _meta
// reachable from a typed params or result value (ACP-EXTN-005).
func checkTraceContext(c *ctx, root reflect.Value, prefix jsonv.Pointer) {
	eachStruct(root, prefix, func(v reflect.Value, ptr jsonv.Pointer) {
		meta := metaOf(v)
		if len(meta) == 0 {
			return
		}
		tree, err := jsonv.Parse(meta)
		if err != nil || tree.Kind != jsonv.Object {
			return // ACP-EXTN-004 reports a _meta that is not an object
		}
		members := tree.Members()
		for i := range members {
			mem := &members[i]
			at := string(ptr.Key("_meta").Key(mem.Key))
			if why := traceValueProblem(mem.Key, &mem.Value, meta); why != "" {
				c.add(findings.EXTNTraceContext, at, "_meta %q %s; trace propagation across the connection breaks, since W3C tracers drop a malformed header", mem.Key, why)
			}
		}
	})
}

// traceValueProblem says what is wrong with the value of a reserved trace
// context key, or "" when it is well formed or the key is not reserved.
func traceValueProblem(key string, v *jsonv.Value, src []byte) string {
	switch key {
	case "traceparent", "tracestate", "baggage":
	default:
		return ""
	}
	if v.Kind != jsonv.String {
		return fmt.Sprintf("is %s; W3C trace context values are strings", string(v.Raw(src)))
	}
	s := v.Str()
	switch key {
	case "traceparent":
		if !traceparentRe().MatchString(s) {
			return fmt.Sprintf("is %q; want version-traceid-parentid-flags in lowercase hex, e.g. 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", s)
		}
		parts := strings.Split(s, "-")
		switch {
		case parts[0] == "ff":
			return fmt.Sprintf("is %q; version ff is invalid", s)
		case strings.Trim(parts[1], "0") == "":
			return fmt.Sprintf("is %q; an all-zero trace id is invalid", s)
		case strings.Trim(parts[2], "0") == "":
			return fmt.Sprintf("is %q; an all-zero parent id is invalid", s)
		}
	case "tracestate":
		members := strings.Split(s, ",")
		if len(members) > 32 {
			return fmt.Sprintf("has %d list members; tracestate allows at most 32", len(members))
		}
		for _, m := range members {
			m = strings.Trim(m, " \t")
			if m == "" {
				continue
			}
			k, val, ok := strings.Cut(m, "=")
			if !ok || !tracestateKey().MatchString(k) || !tracestateVal().MatchString(val) {
				return fmt.Sprintf("member %q is not key=value in W3C tracestate syntax", m)
			}
		}
	case "baggage":
		for _, m := range strings.Split(s, ",") {
			m = strings.Trim(m, " \t")
			if m == "" {
				continue
			}
			kv, _, _ := strings.Cut(m, ";") // properties follow ";"
			k, val, ok := strings.Cut(kv, "=")
			if !ok || !baggageKey().MatchString(strings.Trim(k, " \t")) || !baggageValue().MatchString(strings.Trim(val, " \t")) {
				return fmt.Sprintf("member %q is not key=value in W3C baggage syntax (values are percent-encoded)", m)
			}
		}
	}
	return ""
}

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	optionalType   = reflect.TypeFor[domain.Optional]()
)

// eachStruct calls visit for every struct reachable from v, a typed params
// or result value, with the JSON Pointer of the object it was decoded from.
// It follows the json tags of package domain: Opt members count only when
// set, inline members share their parent's pointer, and raw JSON is not
// entered.
func eachStruct(v reflect.Value, ptr jsonv.Pointer, visit func(reflect.Value, jsonv.Pointer)) {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	if !v.IsValid() {
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		if v.Type().Implements(optionalType) {
			if v.Interface().(domain.Optional).Presence() == domain.Present {
				eachStruct(v.Field(0), ptr, visit)
			}
			return
		}
		visit(v, ptr)
		t := v.Type()
		for i := range t.NumField() {
			sf := t.Field(i)
			if !sf.IsExported() || sf.Type == rawMessageType {
				continue
			}
			tag := sf.Tag.Get("json")
			name, opts, _ := strings.Cut(tag, ",")
			switch {
			case tag == "-":
				continue
			case name == "" && strings.Contains(opts, "inline"):
				eachStruct(v.Field(i), ptr, visit)
			case name != "":
				eachStruct(v.Field(i), ptr.Key(name), visit)
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type() == rawMessageType || v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		for i := range v.Len() {
			eachStruct(v.Index(i), ptr.Index(i), visit)
		}
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		for _, k := range keys {
			eachStruct(v.MapIndex(k), ptr.Key(fmt.Sprint(k)), visit)
		}
	}
}

// metaProblem reports a "_meta" that is neither an object nor null
// (ACP-EXTN-004), a codec problem.
func metaProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.EXTNMetaNotObject, pr.Pointer, "%s; typed SDKs fail to decode it or drop it, losing the metadata", pr.Detail)
}

// ProbeMethod is a request `acplint check` sends to learn how the agent
// refuses a method it does not know. It is in acplint's own extension
// namespace, which no peer implements: any answer but -32601 is
// ACP-EXTN-003.
const ProbeMethod domain.Method = "_acplint/no_such_method"
