package codec

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/internal/jsonv"
)

// Decoded is one transcript line after decoding.
type Decoded struct {
	Line Line
	// Msgs are the JSON-RPC messages on the line: none when it is not
	// JSON-RPC, one normally, several for a batch.
	Msgs []*domain.Message
	// Problems found on the line, in order. Problems of batch element i
	// carry the pointer prefix "/i".
	Problems []Problem

	src      []byte          // the bytes that were parsed (BOM stripped)
	root     jsonv.Value     // src parsed, when parsed is set
	parsed   bool            // src is JSON and root its tree
	results  []*jsonv.Value  // the parsed "result" member of each message, for DecodeResult
	params   []*jsonv.Value  // the parsed "params" member of each message, for Tree
	prefixes []jsonv.Pointer // where each message sits on the line ("" or "/i" in a batch)
	metas    []bool          // MetaSeen of each message
	notUTF8  bool            // src is not valid UTF-8 (ProbNotUTF8)

	// Backing arrays for a line of one message (all but batches), so that
	// the slices above cost no allocation of their own.
	msgBuf [1]*domain.Message
	// msg holds the message of such a line: a Decoded is reused from
	// batch to batch (BatchDecoder), and so is its message; update holds
	// its params when it is a session/update, most of any transcript.
	msg       domain.Message
	update    domain.SessionNotification
	resultBuf [1]*jsonv.Value
	paramsBuf [1]*jsonv.Value
	prefixBuf [1]jsonv.Pointer
	metaBuf   [1]bool
	// dec is the decoder of the message or result being decoded, kept
	// to save allocating one per message: the BatchDecoder's, which all
	// its lines share (one decoder, a third of a kilobyte, stays in the
	// cache where one a line did not), or d's own for DecodeLine.
	dec *decoder
	// strs is the string cache of the BatchDecoder; nil for DecodeLine.
	strs *stringCache
	// arms are the union arm pools of the BatchDecoder (arms.go); nil for
	// DecodeLine.
	arms *genArms
}

// Tree returns the parse tree of the line and the bytes it was parsed
// from (the line without a byte order mark); ok is false when the line is
// not JSON. A caller that needs byte offsets in the line (the column of a
// finding's pointer) reads them here instead of parsing it again. The tree
// is valid as long as the messages are.
func (d *Decoded) Tree() (root *jsonv.Value, src []byte, ok bool) {
	return &d.root, d.src, d.parsed
}

// decoder returns d's decoder, reset for a message at base. Field by
// field: clearing the whole decoder, mostly pathBuf, whose stale segments
// lie past path's length, wrote a third of a kilobyte per message.
func (d *Decoded) decoder(base jsonv.Pointer) *decoder {
	if d.dec == nil {
		d.dec = new(decoder)
	}
	dec := d.dec
	dec.src, dec.base, dec.strs, dec.arms = d.src, base, d.strs, d.arms
	dec.path, dec.problems = dec.pathBuf[:0], nil
	dec.metaSeen, dec.unknownNames = false, nil
	dec.reported, dec.lastDropped = 0, droppedReject{}
	return dec
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// DecodeLine decodes one transcript line. It never fails: whatever is wrong
// is reported in Problems and the line is kept. Its parse is bounded as
// BatchDecoder.SetMaxLine(0) bounds a batch's.
//
// The decoded message shares memory with l.Bytes (raw members and strings
// point into it), so the caller must not modify l.Bytes afterwards; lines
// from a LineReader own their bytes.
func DecodeLine(l Line) *Decoded {
	d := parseLine(l, nil, new(Decoded))
	d.TypeMessages()
	return d
}

// SetMaxLine bounds the parse of each line, for lines of at most n bytes
// (0 means DefaultMaxLine), to MaxValues(n) values: a line with more is
// not typed, and its one problem is ProbTooManyValues. A BatchDecoder's
// zero value has no bound.
func (bd *BatchDecoder) SetMaxLine(n int) { bd.arena.SetMaxValues(MaxValues(n)) }

// BatchDecoder decodes a batch of lines that all stay valid until Reset,
// in memory that the next batch reuses: the messages, and the text and raw
// JSON of what they hold, which share the parse's memory and the lines'
// (ids, enum values and map keys are copies). A caller must not keep a
// message or anything it points to past Reset, or past the reuse of the
// lines, without domain.Detach (ids and enum values, which are short
// copies shared through a cache, aside; the protocol machine copies the
// rest of what it keeps of a request until its answer). A reader that
// hands lines to another goroutine in batches needs the whole batch alive
// at once. The lines share one decoder: no two of them may be decoded, or
// have their results decoded (Decoded.DecodeResult), at the same time.
type BatchDecoder struct {
	arena jsonv.Arena
	lines []*Decoded // one per line since Reset; kept for reuse
	n     int
	strs  stringCache
	arms  genArms
	dec   decoder
}

// DecodeLine is the package's DecodeLine; the result is valid until Reset.
func (bd *BatchDecoder) DecodeLine(l Line) *Decoded {
	d := bd.ParseLine(l)
	d.TypeMessages()
	return d
}

// ParseLine is the first half of DecodeLine: it checks and parses l, and
// TypeMessages, the second half, types the messages of the result. A
// batch parsed line by line and then typed line by line runs the parser's
// code, and then the decoders', many times in a row, each staying in the
// core's instruction cache; parsing and typing each line in turn, the two
// evicted each other line after line. The result is valid until Reset.
func (bd *BatchDecoder) ParseLine(l Line) *Decoded {
	if bd.n == len(bd.lines) {
		bd.lines = append(bd.lines, new(Decoded))
	}
	d := bd.lines[bd.n]
	d.strs, d.arms, d.dec = &bd.strs, &bd.arms, &bd.dec
	bd.n++
	parseLine(l, &bd.arena, d)
	return d
}

// Reset starts a new batch; what the last one decoded becomes invalid,
// the messages with it.
func (bd *BatchDecoder) Reset() {
	bd.arena.Reset()
	bd.arms.reset()
	bd.n = 0
}

// parseLine checks and parses l into d, in arena (after what the arena
// already holds) when that is not nil.
//
// d may hold the last line a BatchDecoder decoded into it. Only what every
// line sets is reset here, and msg, update and dec when a line uses them:
// clearing all of d, near a kilobyte, for every line was a third of the
// memory lint wrote, and most lines need less than half of it.
func parseLine(l Line, arena *jsonv.Arena, d *Decoded) *Decoded {
	d.Line, d.Problems, d.src, d.root, d.parsed, d.notUTF8 = l, nil, nil, jsonv.Value{}, false, false
	d.Msgs, d.results, d.prefixes, d.metas = d.msgBuf[:0], d.resultBuf[:0], d.prefixBuf[:0], d.metaBuf[:0]
	d.params = d.paramsBuf[:0]
	src := l.Bytes
	if l.CRLF {
		d.Problems = append(d.Problems, Problem{Kind: ProbCRLF, Detail: `line ends in "\r\n"`})
	}
	if bytes.HasPrefix(src, bom) {
		d.Problems = append(d.Problems, Problem{Kind: ProbBOM, Detail: "line starts with a UTF-8 byte order mark"})
		src = src[len(bom):]
	}
	// A line that starts a JSON value is not blank: most lines are
	// answered by their first byte rather than by a trim of both ends.
	if (len(src) == 0 || (src[0] != '{' && src[0] != '[')) && len(bytes.TrimSpace(src)) == 0 {
		d.Problems = append(d.Problems, Problem{Kind: ProbBlank, Detail: "empty line"})
		return d
	}
	if !utf8.Valid(src) {
		d.notUTF8 = true
		d.Problems = append(d.Problems, Problem{Kind: ProbNotUTF8, Offset: invalidUTF8At(src),
			Detail: fmt.Sprintf("invalid UTF-8 at byte %d", invalidUTF8At(src))})
	}
	d.src = src
	var root jsonv.Value
	var err error
	if arena != nil {
		root, err = arena.ParseNext(src)
	} else {
		root, err = jsonv.ParseOwnedMax(src, MaxValues(DefaultMaxLine))
	}
	if tooMany, ok := err.(*jsonv.TooManyValuesError); ok {
		d.Problems = append(d.Problems, Problem{Kind: ProbTooManyValues, Offset: tooMany.Offset, Detail: TooManyValues(tooMany.Max)})
		return d
	}
	if err != nil {
		off := 0
		if se, ok := err.(*jsonv.SyntaxError); ok {
			off = se.Offset
		}
		d.Problems = append(d.Problems, Problem{Kind: ProbNotJSON, Offset: off, Detail: "not JSON: " + err.Error()})
		return d
	}
	d.root, d.parsed = root, true
	return d
}

// TypeMessages types the messages of a line that ParseLine parsed, once;
// it does nothing for a line that is not JSON.
func (d *Decoded) TypeMessages() {
	if !d.parsed {
		return
	}
	switch root := &d.root; root.Kind {
	case jsonv.Array:
		elems := root.Elems()
		d.Problems = append(d.Problems, Problem{Kind: ProbBatch,
			Detail: fmt.Sprintf("a JSON-RPC batch of %d messages", len(elems))})
		for i := range elems {
			d.decodeMessage(&elems[i], jsonv.Pointer("").Index(i))
		}
	case jsonv.Object:
		d.decodeMessage(root, "")
	default:
		d.Problems = append(d.Problems, Problem{Kind: ProbNotObject,
			Detail: fmt.Sprintf("a JSON %s, not a JSON-RPC message object", root.Kind)})
	}
}

func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

// envelope member names, as bits of a seen-set.
const (
	envJSONRPC = 1 << iota
	envID
	envMethod
	envParams
	envResult
	envError
)

// envelopeBit returns the bit of an envelope member name, 0 for others.
func envelopeBit(name string) int {
	switch name {
	case "jsonrpc":
		return envJSONRPC
	case "id":
		return envID
	case "method":
		return envMethod
	case "params":
		return envParams
	case "result":
		return envResult
	case "error":
		return envError
	}
	return 0
}

func (d *Decoded) decodeMessage(v *jsonv.Value, ptr jsonv.Pointer) {
	if v.Kind != jsonv.Object {
		d.Problems = append(d.Problems, Problem{Kind: ProbNotObject, Pointer: string(ptr),
			Detail: fmt.Sprintf("batch element is a JSON %s, not a message object", v.Kind)})
		return
	}
	dec := d.decoder(ptr)
	var m *domain.Message
	if len(d.Msgs) == 0 {
		d.msg = domain.Message{}
		m = &d.msg
	} else {
		m = new(domain.Message) // a batch's further messages
	}
	var method, params, result, errv, id *jsonv.Value
	seen := 0
	members := v.Members()
	for i := range members {
		mem := &members[i]
		bit := envelopeBit(mem.Key)
		if bit == 0 && !dec.repeatedUnknown(m.Unknown, mem.Key) {
			m.Unknown = append(m.Unknown, domain.Member{Name: mem.Key, Value: dec.raw(&mem.Value)})
			dec.reportMember(mem.Key, Problem{Kind: ProbUnknownMember, Def: "JSON-RPC envelope",
				Detail: fmt.Sprintf("%q is not a JSON-RPC envelope member", mem.Key)})
			continue
		}
		// A repeat, of a member of the envelope or of one it does not
		// declare.
		if bit == 0 || seen&bit != 0 {
			dec.reportMember(mem.Key, Problem{Kind: ProbDuplicate,
				Detail: fmt.Sprintf("envelope member %q appears more than once", mem.Key)})
			m.Unknown = append(m.Unknown, domain.Member{Name: mem.Key, Value: dec.raw(&mem.Value)})
			continue
		}
		seen |= bit
		switch bit {
		case envJSONRPC:
			m.JSONRPC = dec.raw(&mem.Value)
			if mem.Value.Kind != jsonv.String || mem.Value.Str() != "2.0" {
				dec.reportMember("jsonrpc", Problem{Kind: ProbJSONRPC, Value: dec.short(&mem.Value),
					Detail: fmt.Sprintf(`"jsonrpc" is %s; want "2.0"`, dec.short(&mem.Value))})
			}
		case envID:
			id = &mem.Value
		case envMethod:
			method = &mem.Value
		case envParams:
			params = &mem.Value
		case envResult:
			result = &mem.Value
		case envError:
			errv = &mem.Value
		}
	}
	if m.JSONRPC == nil {
		dec.add(Problem{Kind: ProbJSONRPC, Pointer: string(ptr),
			Detail: `the message lacks "jsonrpc": "2.0"`})
	}
	if params != nil {
		m.RawParams = dec.raw(params)
	}
	if result != nil {
		m.RawResult = dec.raw(result)
	}
	if id != nil {
		m.ID = domain.RequestID{Raw: dec.raw(id)}
	}
	whole := func(p Problem) { p.Pointer = string(ptr); dec.add(p) }
	var resultTree *jsonv.Value
	switch {
	case method != nil:
		if method.Kind != jsonv.String {
			dec.reportMember("method", Problem{Kind: ProbEnvelope,
				Detail: fmt.Sprintf(`"method" is %s; want a string`, article(method.Kind.String()))})
			// Keep it, so that the message re-encodes as written.
			m.Unknown = append(m.Unknown, domain.Member{Name: "method", Value: dec.raw(method)})
			break
		}
		m.Method = domain.Method(dec.name(method.Str()))
		m.Kind = domain.KindNotification
		if id != nil {
			m.Kind = domain.KindRequest
			checkEnvelopeID(dec, id)
		}
		if result != nil || errv != nil {
			whole(Problem{Kind: ProbEnvelope, Detail: `a message with "method" must not carry "result" or "error"`})
		}
		if params != nil && params.Kind != jsonv.Object && params.Kind != jsonv.Array {
			dec.reportMember("params", Problem{Kind: ProbEnvelope,
				Detail: fmt.Sprintf(`"params" is %s; JSON-RPC allows only an object or an array`, article(params.Kind.String()))})
		}
		if mi, ok := domain.LookupMethod(m.Method); ok {
			m.Params = decodeParams(dec, mi, params, d.paramsTarget(m, mi))
			m.ParamsOmitted = params == nil
		}
	case id == nil:
		whole(Problem{Kind: ProbEnvelope, Detail: `the message has neither "method" nor "id"`})
	case result != nil && errv != nil:
		whole(Problem{Kind: ProbEnvelope, Detail: `the response carries both "result" and "error"`})
	case result == nil && errv == nil:
		whole(Problem{Kind: ProbEnvelope, Detail: `the response carries neither "result" nor "error"`})
	case result != nil:
		m.Kind = domain.KindResult
		resultTree = result
		if id.Kind == jsonv.Null {
			dec.reportMember("id", Problem{Kind: ProbEnvelope, Detail: `a successful response has "id": null`})
		}
	default:
		m.Kind = domain.KindError
		m.Error = decodeError(dec, errv)
	}
	if m.Kind == domain.KindInvalid && errv != nil {
		// Keep whatever the envelope carried so nothing is lost on re-encoding.
		m.Error = decodeError(newDecoder(d.src, ptr), errv)
	}
	d.Msgs = append(d.Msgs, m)
	d.results = append(d.results, resultTree)
	d.params = append(d.params, params)
	d.prefixes = append(d.prefixes, ptr)
	d.metas = append(d.metas, dec.metaSeen)
	d.Problems = append(d.Problems, dec.finish(string(ptr))...)
}

// paramsTarget returns memory for the params of m, the message of method
// mi: d's own for the session/update of a one-message line, which lives
// and dies with the line like m itself; the BatchDecoder's pools for
// anything else; nil, for a new allocation, without a BatchDecoder.
func (d *Decoded) paramsTarget(m *domain.Message, mi *domain.MethodInfo) any {
	if m != &d.msg || mi.Name != domain.MethodSessionUpdate || m.Kind != domain.KindNotification {
		if d.arms != nil {
			return d.arms.params(mi.Name)
		}
		return nil
	}
	d.update = domain.SessionNotification{}
	return &d.update
}

// MetaSeen reports whether typing message i's params, or its result once
// DecodeResult has typed it, met a "_meta" member at any depth. Without
// one there is no trace context to check (ACP-EXTN-005).
func (d *Decoded) MetaSeen(i int) bool { return i < len(d.metas) && d.metas[i] }

// checkEnvelopeID reports request ids that JSON-RPC discourages or forbids.
func checkEnvelopeID(dec *decoder, id *jsonv.Value) {
	switch id.Kind {
	case jsonv.Null:
		dec.reportMember("id", Problem{Kind: ProbIDNull, Detail: `the request id is null`})
	case jsonv.Number:
		if strings.ContainsAny(id.Str(), ".eE") {
			// -1e2 is an integer in value, but not in form: decoders that
			// read ids as integers refuse it like 2.5.
			what := "has a fractional part"
			if !strings.Contains(id.Str(), ".") {
				what = "is written with an exponent"
			}
			dec.reportMember("id", Problem{Kind: ProbIDFraction, Value: id.Str(),
				Detail: fmt.Sprintf("the request id %s %s", id.Str(), what)})
		}
	case jsonv.String:
	default:
		dec.reportMember("id", Problem{Kind: ProbEnvelope,
			Detail: fmt.Sprintf(`"id" is %s; want a string or a number`, article(id.Kind.String()))})
	}
}

// decodeParams types params as the params of method mi, into target when
// it is not nil (see Decoded.paramsTarget).
func decodeParams(dec *decoder, mi *domain.MethodInfo, params *jsonv.Value, target any) any {
	if params == nil {
		// JSON-RPC lets params be omitted; ACP methods all take an object,
		// so decode as {} and let the required members be reported.
		params = &jsonv.Value{Kind: jsonv.Object}
	}
	if target == nil {
		target = mi.NewParams()
	}
	dec.pushKey("params")
	defer dec.pop()
	switch params.Kind {
	case jsonv.Object:
	case jsonv.Array:
		// By-position params are JSON-RPC, but every ACP method takes an
		// object.
		dec.typeProblem(params, mi.ParamsDef, "object")
		return nil
	default:
		return nil // not JSON-RPC at all: reported with the envelope
	}
	dec.decodeObject(params, target)
	return target
}

func decodeError(dec *decoder, v *jsonv.Value) *domain.Error {
	if v.Kind != jsonv.Object {
		dec.reportMember("error", Problem{Kind: ProbErrorObject,
			Detail: fmt.Sprintf(`"error" is %s; want an object with "code" and "message"`, article(v.Kind.String()))})
		return nil
	}
	e := &domain.Error{}
	sub := newDecoder(dec.src, dec.base)
	sub.pushKey("error")
	sub.decodeObject(v, e)
	for _, p := range sub.problems {
		switch p.Kind {
		case ProbUnknownMember:
			// JSON-RPC's error object is closed, but extra members are
			// harmless to every reader; they round-trip via Unknown.
			continue
		case ProbMissing, ProbType, ProbRange:
			p.Kind = ProbErrorObject
		}
		dec.add(p)
	}
	// The error object's problems past its own cap count in the message's.
	dec.reported += sub.reported - len(sub.problems)
	return e
}

// Trees returns the parsed "params" and "result" members of message i
// (nil when absent), so that a second checker of the values (lint
// --schema) need not parse them again. They share d's memory: valid until
// d is reused, and not to be modified. A line that is not valid UTF-8 has
// none: the tree keeps its bytes as they are, where a checker that reads
// them as encoding/json does (U+FFFD for each) must parse them itself.
func (d *Decoded) Trees(i int) (params, result *jsonv.Value) {
	if i >= len(d.params) || d.notUTF8 {
		return nil, nil
	}
	return d.params[i], d.results[i]
}

// DecodeResult types the result of response i of the line (0 unless the
// line is a batch) as the result of method mi, the method of the request it
// answers. It sets Msgs[i].Result and returns the problems found.
func (d *Decoded) DecodeResult(i int, mi *domain.MethodInfo) []Problem {
	if i >= len(d.results) || d.results[i] == nil || mi.NewResult == nil {
		return nil
	}
	m := d.Msgs[i]
	m.Method = mi.Name
	v := d.results[i]
	dec := d.decoder(d.prefixes[i])
	dec.pushKey("result")
	var target any
	if d.arms != nil {
		target = d.arms.result(mi.Name)
	}
	if target == nil {
		target = mi.NewResult()
	}
	switch {
	case v.Kind == jsonv.Null && mi.EmptyResult:
		dec.reportHere(Problem{Kind: ProbNullResult, Def: mi.ResultDef,
			Detail: fmt.Sprintf(`%s result is null; the schema wants an object, so send {}`, mi.Name)})
		m.Result = target
	case v.Kind != jsonv.Object:
		dec.typeProblem(v, mi.ResultDef, "object")
	default:
		dec.decodeObject(v, target)
		m.Result = target
	}
	d.metas[i] = d.metas[i] || dec.metaSeen
	return dec.finish(string(d.prefixes[i]))
}

// Encode renders m as one line of JSON (without the newline). Typed params
// and results are encoded from their values; members the codec could not
// type are written back verbatim.
func Encode(m *domain.Message) []byte {
	b := make([]byte, 0, 256)
	b = append(b, '{')
	first := true
	member := func(name string) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendString(b, name)
		b = append(b, ':')
	}
	if m.JSONRPC != nil {
		member("jsonrpc")
		b = append(b, m.JSONRPC...)
	}
	if len(m.ID.Raw) > 0 {
		member("id")
		b = append(b, m.ID.Raw...)
	}
	if m.Kind == domain.KindRequest || m.Kind == domain.KindNotification {
		member("method")
		b = appendString(b, string(m.Method))
	}
	switch {
	case m.ParamsOmitted:
	case m.Params != nil:
		member("params")
		b = appendValue(b, reflect.ValueOf(m.Params).Elem())
	case m.RawParams != nil:
		member("params")
		b = append(b, m.RawParams...)
	}
	switch {
	case m.Result != nil:
		member("result")
		b = appendValue(b, reflect.ValueOf(m.Result).Elem())
	case m.RawResult != nil:
		member("result")
		b = append(b, m.RawResult...)
	}
	if m.Error != nil {
		member("error")
		b = appendValue(b, reflect.ValueOf(m.Error).Elem())
	}
	for _, u := range m.Unknown {
		member(u.Name)
		b = append(b, u.Value...)
	}
	return append(b, '}')
}
