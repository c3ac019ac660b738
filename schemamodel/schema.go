// Package schemamodel loads one version of the ACP JSON Schema, in the
// upstream format (the schema.json and schema.unstable.json files that the
// SDK packages ship), into the model the wire sees: per method and message
// kind (Schema.Message), with $ref, allOf and unions resolved into Shapes,
// and the line of every JSON Pointer for reports.
//
// It is its own package because two unrelated users read it: schemadiff
// compares two versions, and lint checks traffic against a schema version
// other than the compiled-in one. Neither should depend on the other.
package schemamodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/acplint/acplint/internal/reference"
)

// Side is a party of an ACP connection.
type Side string

const (
	SideClient Side = "client"
	SideAgent  Side = "agent"
	// SideEither is for messages both parties may send ($/cancel_request,
	// and the "both" and "proxy" methods of the unstable schema).
	SideEither Side = "either"
)

// Opposite returns the other party; SideEither stays SideEither.
func (s Side) Opposite() Side {
	switch s {
	case SideClient:
		return SideAgent
	case SideAgent:
		return SideClient
	}
	return SideEither
}

// Kind is the kind of message a $def describes.
type Kind string

const (
	KindRequest      Kind = "request"      // the params of a request
	KindResponse     Kind = "response"     // the result of a successful response
	KindNotification Kind = "notification" // the params of a notification
)

// Message is one params or result type of a method, as the x-method and
// x-side annotations of a $def name it.
type Message struct {
	Method string
	Kind   Kind
	Def    string // the $defs entry
	// Handler is the side that implements the method (x-side): it reads
	// requests and notifications and writes the responses.
	Handler Side
	// Unstable is set when the message is not part of the stable surface
	// (see Schema.Stable).
	Unstable bool
	Shape    *Shape
}

// Writer is the side that sends this message.
func (m *Message) Writer() Side {
	if m.Kind == KindResponse {
		return m.Handler
	}
	return m.Handler.Opposite()
}

// Reader is the side that receives this message.
func (m *Message) Reader() Side {
	if m.Kind == KindResponse {
		return m.Handler.Opposite()
	}
	return m.Handler
}

// Member is where the message sits in a JSON-RPC envelope.
func (m *Message) Member() string {
	if m.Kind == KindResponse {
		return "result"
	}
	return "params"
}

// Key identifies a message across schema versions.
type Key struct {
	Method string
	Kind   Kind
}

func (k Key) String() string { return k.Method + " " + string(k.Kind) }

// Schema is one loaded schema file.
type Schema struct {
	File string // as given by the caller; used in reports
	Raw  []byte
	Doc  map[string]any
	Defs map[string]any
	// Superset is set for an unstable superset (any definition carries
	// upstream's **UNSTABLE** marker). A file without the marker is a
	// stable schema: everything in it is stable.
	Superset bool
	Messages map[Key]*Message

	lines *lineIndex
	b     *builder
}

// DefShape returns the resolved shape of a $defs entry, or nil.
func (s *Schema) DefShape(name string) *Shape {
	if _, ok := s.Defs[name]; !ok {
		return nil
	}
	return s.b.def(name)
}

// unstableMarker is how upstream marks unstable definitions, members and
// variants in their descriptions.
const unstableMarker = "**UNSTABLE**"

// unstableKeyword is the annotation form of the same marker, for schemas
// that mark stability in a keyword rather than in prose.
const unstableKeyword = "x-unstable"

// Options tune how a schema is read.
type Options struct {
	// StableMethods lists the methods of the stable surface, for unstable
	// supersets, whose method definitions are not all marked. Nil means
	// the method table acplint embeds (upstream meta.json of schema-v1.21.0).
	StableMethods map[string]bool
}

// EmbeddedStableMethods returns the stable v1 method names of the meta.json
// that acplint embeds.
func EmbeddedStableMethods() map[string]bool {
	m, err := ParseMeta(reference.Meta)
	if err != nil {
		panic("schemamodel: embedded meta.json: " + err.Error())
	}
	return m
}

// ParseMeta reads an upstream meta.json (agentMethods, clientMethods,
// protocolMethods) into a set of method names.
func ParseMeta(b []byte) (map[string]bool, error) {
	var meta map[string]json.RawMessage
	if err := json.Unmarshal(b, &meta); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for key, raw := range meta {
		if !strings.HasSuffix(key, "Methods") {
			continue
		}
		var table map[string]string
		if err := json.Unmarshal(raw, &table); err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		for _, name := range table {
			out[name] = true
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no agentMethods, clientMethods or protocolMethods table")
	}
	return out, nil
}

// LoadFile reads and parses a schema file.
func LoadFile(name string, opts Options) (*Schema, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	s, err := Parse(name, b, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

// Parse reads a schema in the upstream format. It fails when the document
// is not JSON or has no method definitions (x-method annotations).
func Parse(name string, b []byte, opts Options) (*Schema, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("not a JSON Schema document: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("not a JSON Schema document: more than one JSON value")
	}
	defs, _ := doc["$defs"].(map[string]any)
	if defs == nil {
		return nil, fmt.Errorf("no $defs: not an ACP schema in the upstream format")
	}
	s := &Schema{File: name, Raw: b, Doc: doc, Defs: defs, Messages: map[Key]*Message{}}
	// Upstream marks unstable definitions, members and variants in their
	// descriptions; a stable file has no marker anywhere.
	s.Superset = bytes.Contains(b, []byte(unstableMarker)) || bytes.Contains(b, []byte(`"`+unstableKeyword+`"`))
	stable := opts.StableMethods
	if stable == nil {
		stable = EmbeddedStableMethods()
	}
	b2 := newBuilder(s)
	s.b = b2
	for _, name := range sortedKeys(defs) {
		d, _ := defs[name].(map[string]any)
		method, _ := d["x-method"].(string)
		if method == "" {
			continue
		}
		kind, ok := kindOf(name)
		if !ok {
			continue
		}
		side, _ := d["x-side"].(string)
		m := &Message{Method: method, Kind: kind, Def: name, Handler: sideOf(side)}
		m.Shape = b2.def(name)
		m.Unstable = hasMarker(d) || (s.Superset && !stable[method])
		k := Key{method, kind}
		if prev, dup := s.Messages[k]; dup {
			return nil, fmt.Errorf("$defs %s and %s both describe the %s of %s", prev.Def, name, kind, method)
		}
		s.Messages[k] = m
	}
	if len(s.Messages) == 0 {
		return nil, fmt.Errorf("no $defs with x-method annotations: not an ACP schema in the upstream format")
	}
	return s, nil
}

// Message returns the params (request, notification) or result
// (response) type of method, or nil when the schema does not define it.
func (s *Schema) Message(method string, kind Kind) *Message { return s.Messages[Key{method, kind}] }

// Methods returns the sorted names of the methods the schema defines.
func (s *Schema) Methods() []string {
	seen := map[string]bool{}
	var out []string
	for k := range s.Messages {
		if !seen[k.Method] {
			seen[k.Method] = true
			out = append(out, k.Method)
		}
	}
	sort.Strings(out)
	return out
}

// FileKind names the kind of file for reports.
func (s *Schema) FileKind() string {
	if s.Superset {
		return "unstable superset"
	}
	return "stable"
}

// Line returns the 1-based line of the JSON value at pointer ptr, or 0.
func (s *Schema) Line(ptr string) int {
	if s.lines == nil {
		s.lines = indexLines(s.Raw)
	}
	return s.lines.line(ptr)
}

func kindOf(def string) (Kind, bool) {
	switch {
	case strings.HasSuffix(def, "Request"):
		return KindRequest, true
	case strings.HasSuffix(def, "Response"):
		return KindResponse, true
	case strings.HasSuffix(def, "Notification"):
		return KindNotification, true
	}
	return "", false
}

func sideOf(xside string) Side {
	switch xside {
	case "client":
		return SideClient
	case "agent":
		return SideAgent
	}
	return SideEither // "protocol", "both", "proxy"
}

func hasMarker(node any) bool {
	m, _ := node.(map[string]any)
	if flag, _ := m[unstableKeyword].(bool); flag {
		return true
	}
	d, _ := m["description"].(string)
	return strings.Contains(d, unstableMarker)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ProtocolMajor returns the ACP protocol major version the schema
// describes, and the fact it was told by; 0 when the file does not say.
// Upstream files carry no version field (ProtocolVersion is just an
// integer type in both), so the method inventory decides: protocol v2
// renamed authenticate to auth/login (acp-spec.md §a.4), and every v1
// schema since the first published one defines authenticate.
func (s *Schema) ProtocolMajor() (major int, why string) {
	switch {
	case hasMethod(s, "authenticate"):
		return 1, "it defines authenticate, a protocol v1 method"
	case hasMethod(s, "auth/login"):
		return 2, "it defines auth/login and not authenticate, as protocol v2 does"
	}
	return 0, "it defines neither authenticate (v1) nor auth/login (v2)"
}

func hasMethod(s *Schema, method string) bool {
	for k := range s.Messages {
		if k.Method == method {
			return true
		}
	}
	return false
}
