package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/internal/jsonv"
)

// Format is a transcript format acplint reads.
type Format string

const (
	// FormatAuto picks the format from the first non-blank line.
	FormatAuto Format = "auto"
	// FormatNDJSON is raw traffic: one JSON-RPC message per line, both
	// directions interleaved. Directions are inferred from the method
	// tables and id correlation.
	FormatNDJSON Format = "ndjson"
	// FormatJSONL is direction-tagged JSON Lines: {"ts":…,"dir":…,"msg":…}
	// and the common variants of those names, including the
	// acp-inspector-trace v1 format {"ts","direction","json"}.
	FormatJSONL Format = "jsonl"
	// FormatZed is the JSON array Zed's ACP log view copies with "Copy All
	// Messages". It has no timestamps and no "jsonrpc" member, and a
	// response's result and error share one "params" member.
	FormatZed Format = "zed"
)

// Formats lists the formats in help order.
var Formats = []Format{FormatAuto, FormatNDJSON, FormatJSONL, FormatZed, FormatTranscript}

// ParseFormat accepts a format name.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	switch s {
	case "inspector", "acp-inspector", "acp-inspector-trace":
		return FormatJSONL, nil
	}
	return "", fmt.Errorf("unknown input format %q (want auto, ndjson, jsonl, zed or acplint)", s)
}

// FormatLimits says what each format cannot record, for --help and docs.
var FormatLimits = map[Format]string{
	FormatNDJSON:     "no directions (inferred from methods and ids; a message whose sender cannot be proven is reported, not guessed) and no timestamps",
	FormatJSONL:      "what the recorder wrote; frames whose direction value is not recognised are reported",
	FormatTranscript: "nothing a peer sent: directions, times and the verbatim bytes of every line are kept (after --redact, secret values are replaced)",
	FormatZed:        "no timestamps and no \"jsonrpc\" member; a response's result and error are merged in \"params\" (an object with integer \"code\" and string \"message\" is read as an error); line numbers point at each element's first line",
}

// Entry is one message of a transcript, in any format a Reader reads, with
// what the format says about it. (A Frame is a line of acplint's own
// format as it is stored.)
type Entry struct {
	Line codec.Line
	// Dir is the sender as the format records it; DirUnknown for raw NDJSON.
	Dir domain.Direction
	// Bad, when set, says why the frame is not in the declared format
	// (ACP-LINT-002); Line.Bytes is then the wrapper line itself.
	Bad string
	// Lost, when set, says frames are missing from the transcript here (a
	// recorder's gap record, ACP-LINT-004); the frame carries no message.
	Lost string
	// Synthetic marks an envelope acplint rebuilt (Zed), so envelope
	// members the format drops are not reported missing.
	Synthetic bool
	// Extra are the further physical lines this frame spans: the rest of a
	// message split by raw newlines (Splits > 0), or the further lines of a
	// run of text that is not JSON (Splits == 0).
	Extra []codec.Line
	// Splits counts the raw newlines acplint removed to rebuild a message
	// that a sender split (ACP-WIRE-003); Line.Bytes is then the rebuilt
	// message.
	Splits int
	// Recorded is the frame as the recorder wrote it, when Line.Bytes was
	// rebuilt from one recorded frame (a jsonl string holding raw
	// newlines), for convert to copy.
	Recorded []byte
	// Time is when the frame was recorded, where the format says: the
	// "ts" (or "timestamp", "time") member of a jsonl record as written (a
	// string, or a number's literal), or an acplint transcript's header
	// start plus the frame's t, in RFC 3339. Empty when the format has no
	// times (raw NDJSON, Zed). Reports show it; lint does not judge it.
	Time string
}

// source yields entries.
type source interface {
	Next() (Entry, error)
}

// lineMemory is a source whose lines can be put in memory of the caller's
// choosing (codec.LineReader.SetAlloc).
type lineMemory interface {
	setLineAlloc(alloc func(n int) []byte)
}

// lookahead is a source that may hold entries it has read but not returned.
type lookahead interface {
	holdsFrames() bool
}

// DefaultMaxLine is the longest line a Reader keeps by default,
// codec.DefaultMaxLine.
const DefaultMaxLine = codec.DefaultMaxLine

// Reader reads the entries of a transcript in one of the Formats.
type Reader struct {
	src source
	br  *bufio.Reader
	// in counts the bytes br has read; lineEndsBy is a count of bytes
	// read from br by which a buffered line ends (WholeLineBuffered).
	in         *countingReader
	lineEndsBy int64
	format     Format
	// frames is the source of a NewFrameReader, which has no br.
	frames *frameSource
	// maxLine is the longest line (or Zed element, or frame) kept.
	maxLine int
	// ndjson is src when it reads raw NDJSON, for NextInto's fast path.
	ndjson *blockSource
}

// NewReader reads a transcript in format f from r, detecting the format
// when f is FormatAuto (or ""). A line, or Zed array element, longer than
// maxLine bytes (0 means DefaultMaxLine) is given as an entry with Lost set
// and read past without being held.
func NewReader(r io.Reader, f Format, maxLine int) *Reader {
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	in := &countingReader{r: r}
	br := bufio.NewReaderSize(in, 256<<10)
	src, f := openBuffered(br, f, maxLine)
	rd := &Reader{src: src, br: br, in: in, format: f, maxLine: maxLine}
	if b, ok := src.(*blockSource); ok && b.lines != nil {
		rd.ndjson = b
	}
	return rd
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Format is the format read (after detection).
func (r *Reader) Format() Format { return r.format }

// MaxLine is the longest line the reader keeps; a decoder of its lines
// bounds their parse by it (codec.MaxValues).
func (r *Reader) MaxLine() int { return r.maxLine }

// Next returns the next entry, or io.EOF after the last. Other errors are
// the input's, or a transcript header this reader cannot read.
func (r *Reader) Next() (Entry, error) { return r.src.Next() }

// NextInto is Next filling *e, which the caller owns (a slot of lint's
// batch): raw NDJSON, nearly all lint reads, then goes from the line
// reader to *e without copying the entry through the layers between.
// *e is overwritten whole; after an error it is the zero Entry.
func (r *Reader) NextInto(e *Entry) error {
	if r.ndjson != nil {
		return r.ndjson.nextInto(e)
	}
	var err error
	*e, err = r.src.Next()
	return err
}

// SetLineAlloc makes the lines read from now on take their memory from
// alloc (codec.LineReader.SetAlloc), so that a caller can reuse it; the
// Zed reader, which is not line-based, keeps its own.
func (r *Reader) SetLineAlloc(alloc func(n int) []byte) {
	if m, ok := r.src.(lineMemory); ok {
		m.setLineAlloc(alloc)
	}
}

// HoldsEntries reports whether the reader holds entries it has read but
// not returned yet (it reads ahead to rebuild a split message or to group
// a run of text): their lines sit in memory an earlier alloc gave.
func (r *Reader) HoldsEntries() bool {
	l, ok := r.src.(lookahead)
	return ok && l.holdsFrames()
}

// WholeLineBuffered reports whether a complete line is already buffered,
// so that reading it cannot wait on the writer (a live tap).
func (r *Reader) WholeLineBuffered() bool {
	if r.frames != nil {
		return len(r.frames.batch) > 0
	}
	// Asked after every line: the last newline buffered answers until the
	// reader passes it, where searching from the front scanned each line
	// twice, once here and once to read it.
	at := r.in.n - int64(r.br.Buffered()) // what the reader has taken from br
	if at < r.lineEndsBy {
		return true
	}
	buf, _ := r.br.Peek(r.br.Buffered())
	i := bytes.LastIndexByte(buf, '\n')
	if i < 0 {
		return false
	}
	r.lineEndsBy = at + int64(i) + 1
	return true
}

func openBuffered(br *bufio.Reader, f Format, maxLine int) (source, Format) {
	if f == FormatAuto || f == "" {
		f = sniff(br, maxLine)
	}
	lines := codec.NewLineReader(br)
	lines.SetMaxLine(maxLine)
	switch f {
	case FormatZed:
		return newZedSource(br, maxLine), FormatZed
	case FormatJSONL:
		return &blockSource{src: &jsonlSource{lines: lines}}, FormatJSONL
	case FormatTranscript:
		// A recorder keeps the lines that crossed the pipe, so a message
		// a sender split is split there too, and is rebuilt as in NDJSON.
		return &blockSource{src: &canonicalSource{lines: lines}}, FormatTranscript
	}
	return &blockSource{src: &ndjsonSource{lines: lines}, lines: lines}, FormatNDJSON
}

// tooLong is the frame for a line the line reader skipped for being longer
// than the maximum (ACP-LINT-004: nothing in it is checked).
func tooLong(l codec.Line, maxLine int) Entry {
	return Entry{Line: codec.Line{Num: l.Num, Offset: l.Offset}, Lost: skippedMessage("line", l.TooLong, maxLine)}
}

func skippedMessage(what string, n int64, maxLine int) string {
	return fmt.Sprintf("the %s is %d bytes long, more than the longest acplint reads (%d bytes; --max-line raises it): it was skipped unchecked, and findings after it may be wrong", what, n, maxLine)
}

// sniff looks at the first non-blank line without consuming it.
func sniff(br *bufio.Reader, maxLine int) Format {
	for n := 4 << 10; ; n *= 4 {
		peek, err := br.Peek(n)
		trimmed := bytes.TrimLeft(peek, " \t\r\n\xef\xbb\xbf")
		if len(trimmed) > 0 {
			if trimmed[0] == '[' {
				// A JSON-RPC batch is one line; Zed's array is pretty-printed
				// and its elements carry "_direction".
				if bytes.Contains(peek, []byte(`"_direction"`)) {
					return FormatZed
				}
				return FormatNDJSON
			}
			line := trimmed
			if i := bytes.IndexByte(line, '\n'); i >= 0 {
				line = line[:i]
				return sniffLine(line, maxLine)
			}
		}
		if err != nil || n >= 16<<20 {
			return sniffLine(trimmed, maxLine)
		}
	}
}

func sniffLine(line []byte, maxLine int) Format {
	if isCanonicalHeader(line) {
		return FormatTranscript
	}
	// The first line may be a long one, whose tree would cost many times
	// its length (codec.MaxValues).
	v, err := jsonv.ParseMax(bytes.TrimSpace(line), codec.MaxValues(maxLine))
	if err != nil || v.Kind != jsonv.Object {
		return FormatNDJSON
	}
	for _, k := range []string{"jsonrpc", "method", "result", "error"} {
		if _, ok := v.Get(k); ok {
			return FormatNDJSON
		}
	}
	if _, _, ok := wrapperFields(&v); ok {
		return FormatJSONL
	}
	return FormatNDJSON
}

type ndjsonSource struct{ lines *codec.LineReader }

func (s *ndjsonSource) setLineAlloc(alloc func(n int) []byte) { s.lines.SetAlloc(alloc) }

func (s *ndjsonSource) Next() (Entry, error) {
	l, err := s.lines.Next()
	if err != nil {
		return Entry{}, err
	}
	if l.TooLong > 0 {
		return tooLong(l, s.lines.MaxLine()), nil
	}
	return Entry{Line: l}, nil
}

// Direction spellings seen in the wild, lower-cased. "incoming" and
// "outgoing" are ambiguous without knowing who recorded them and are not
// guessed.
var dirNames = map[string]domain.Direction{
	"client": domain.FromClient, "fromclient": domain.FromClient, "from_client": domain.FromClient,
	"c2a": domain.FromClient, "client->agent": domain.FromClient, "client_to_agent": domain.FromClient,
	"toagent": domain.FromClient, "to_agent": domain.FromClient, "stdin": domain.FromClient, "c->a": domain.FromClient,
	"agent": domain.FromAgent, "fromagent": domain.FromAgent, "from_agent": domain.FromAgent,
	"a2c": domain.FromAgent, "agent->client": domain.FromAgent, "agent_to_client": domain.FromAgent,
	"toclient": domain.FromAgent, "to_client": domain.FromAgent, "stdout": domain.FromAgent, "a->c": domain.FromAgent,
	// What acplint convert writes for a frame whose sender nobody can
	// tell: lint infers it again, as for raw NDJSON.
	"unknown": domain.DirUnknown,
}

var (
	dirKeys = []string{"dir", "direction", "from", "source", "side"}
	msgKeys = []string{"msg", "message", "json", "frame", "payload", "data"}
)

// wrapperFields finds the direction and message members of a JSONL wrapper.
func wrapperFields(v *jsonv.Value) (dir, msg *jsonv.Value, ok bool) {
	for _, k := range dirKeys {
		if d, found := v.Get(k); found {
			dir = d
			break
		}
	}
	for _, k := range msgKeys {
		if m, found := v.Get(k); found {
			msg = m
			break
		}
	}
	return dir, msg, dir != nil && msg != nil
}

type jsonlSource struct{ lines *codec.LineReader }

// timeKeys name the time member of a jsonl record, in the order looked for.
var timeKeys = []string{"ts", "timestamp", "time"}

// recordedTime is the time member of jsonl record v as written: a string's
// text or a number's literal, copied (v points into the line's memory,
// which is reused); "" without one.
func recordedTime(v *jsonv.Value) string {
	for _, k := range timeKeys {
		if t, ok := v.Get(k); ok {
			if t.Kind == jsonv.String || t.Kind == jsonv.Number {
				return strings.Clone(t.Str())
			}
			return ""
		}
	}
	return ""
}

func (s *jsonlSource) setLineAlloc(alloc func(n int) []byte) { s.lines.SetAlloc(alloc) }

// jsonlGap reads a jsonl gap record, {"ts":…,"lost":{"frames","bytes",
// "reason"}}: the same "lost" object as the acplint format's (Lost),
// which acplint check writes where it kept no lines.
func jsonlGap(v *jsonv.Value, line []byte) (*Lost, bool) {
	if lost, ok := v.Get("lost"); !ok || lost.Kind != jsonv.Object {
		return nil, false
	}
	var rec struct {
		Lost *Lost `json:"lost"`
	}
	if json.Unmarshal(line, &rec) != nil || rec.Lost == nil {
		return nil, false
	}
	return rec.Lost, true
}

func (s *jsonlSource) Next() (Entry, error) {
	l, err := s.lines.Next()
	for err == nil && l.IsBlank() && l.TooLong == 0 {
		// A blank line of the recording is not traffic: the recorder wrote
		// it, not a peer. (A blank line on the wire is a record whose
		// message is an empty string.)
		l, err = s.lines.Next()
	}
	if err != nil {
		return Entry{}, err
	}
	if l.TooLong > 0 {
		return tooLong(l, s.lines.MaxLine()), nil
	}
	fr := Entry{Line: l}
	v, perr := jsonv.ParseMax(l.Bytes, codec.MaxValues(s.lines.MaxLine()))
	if tooMany, ok := perr.(*jsonv.TooManyValuesError); ok {
		return Entry{Line: codec.Line{Num: l.Num, Offset: l.Offset}, Lost: codec.TooManyValues(tooMany.Max)}, nil
	}
	if perr != nil {
		fr.Bad = "the line is not JSON: " + perr.Error()
		return fr, nil
	}
	dir, msg, ok := wrapperFields(&v)
	if lost, gap := jsonlGap(&v, l.Bytes); !ok && gap {
		// acplint check's gap record: lines its transcript did not keep.
		fr.Line = codec.Line{Num: l.Num, Offset: l.Offset}
		fr.Lost = describeLost(lost)
		return fr, nil
	}
	if !ok {
		fr.Bad = fmt.Sprintf("the line lacks a direction (%s) or a message (%s) member",
			strings.Join(dirKeys, ", "), strings.Join(msgKeys, ", "))
		return fr, nil
	}
	if dir.Kind != jsonv.String {
		fr.Bad = "the direction member is not a string"
		return fr, nil
	}
	d, known := dirNames[strings.ToLower(dir.Str())]
	if !known {
		fr.Bad = fmt.Sprintf("direction %q is not one acplint knows (client/agent, fromClient/fromAgent, c2a/a2c)", dir.Str())
		return fr, nil
	}
	fr.Dir = d
	fr.Time = recordedTime(&v)
	inner := codec.Line{Num: l.Num, Offset: l.Offset}
	if msg.Kind == jsonv.String {
		// acp-inspector keeps the frame verbatim as a string, possibly with
		// its line terminator.
		b := []byte(msg.Str())
		if n := len(b); n > 0 && b[n-1] == '\n' {
			b = b[:n-1]
			if n := len(b); n > 0 && b[n-1] == '\r' {
				b = b[:n-1]
				inner.CRLF = true
			}
		}
		if bytes.IndexByte(b, '\n') >= 0 {
			// One recorded frame holding raw newlines: the sender split
			// the message (or wrote several lines at once).
			if fixed, n := escapeNewlinesInStrings(b); n > 0 && isJSON(fixed) {
				fr.Recorded = b
				b, fr.Splits = fixed, n
			}
		}
		inner.Bytes = b
	} else {
		inner.Bytes = msg.Raw(l.Bytes)
	}
	fr.Line = inner
	return fr, nil
}

// zedSource reads Zed's pretty-printed array as a stream, one element at
// a time, so memory is bounded by the largest element (at most the
// maximum line length) rather than by the array. An element that is not
// JSON is reported and the next one read; an array that is cut off, or
// ends in a trailing comma, gives every element before the break and one
// finding for the bad tail.
type zedSource struct {
	r   *bufio.Reader
	max int // longest element kept (NewReader's maxLine)
	// line and offset locate the next byte of r.
	line   int
	offset int64
	state  zedState
	// elem holds the element being read; reused from one to the next.
	elem []byte
}

type zedState int8

const (
	zedStart     zedState = iota // before the "["
	zedFirst                     // after the "[": an element or "]"
	zedElem                      // after a ",": an element
	zedAfterElem                 // after an element: "," or "]"
	zedDone
)

func newZedSource(r *bufio.Reader, maxLine int) *zedSource {
	return &zedSource{r: r, max: maxLine, line: 1}
}

func (s *zedSource) Next() (Entry, error) {
	for {
		if s.state == zedDone {
			return Entry{}, io.EOF
		}
		start := s.state == zedStart
		c, err := s.skipSpace(start)
		if err != nil && !errors.Is(err, io.EOF) {
			return Entry{}, err
		}
		eof := err != nil
		switch {
		case start:
			if eof || c != '[' {
				return s.badTail("the input is not a JSON array")
			}
			s.readByte()
			s.state = zedFirst
		case s.state == zedAfterElem:
			switch {
			case eof:
				return s.badTail(`the array is cut off: it ends without its closing "]"`)
			case c == ',':
				s.readByte()
				s.state = zedElem
			case c == ']':
				s.readByte()
				return s.end()
			default:
				return s.badTail(fmt.Sprintf(`%q where a "," or the array's closing "]" should follow the element`, string(rune(c))))
			}
		case eof:
			return s.badTail(`the array is cut off: it ends without its closing "]"`)
		case c == ']' && s.state == zedElem:
			return s.badTail(`trailing comma before the array's closing "]"`)
		case c == ']':
			s.readByte()
			return s.end()
		default:
			return s.element()
		}
	}
}

// end checks that nothing but white space follows the closing "]".
func (s *zedSource) end() (Entry, error) {
	s.state = zedDone
	_, err := s.skipSpace(false)
	if err == nil {
		return s.badTail(`text after the array's closing "]"`)
	}
	if errors.Is(err, io.EOF) {
		return Entry{}, io.EOF
	}
	return Entry{}, err
}

// badTail reports the rest of the input from the current line as not in
// the format; reading stops there.
func (s *zedSource) badTail(why string) (Entry, error) {
	s.state = zedDone
	return Entry{Line: codec.Line{Num: s.line, Offset: s.offset}, Bad: why}, nil
}

// element reads one element and returns its frame.
func (s *zedSource) element() (Entry, error) {
	loc := codec.Line{Num: s.line, Offset: s.offset}
	n, complete, err := s.readValue()
	if err != nil && !errors.Is(err, io.EOF) {
		return Entry{}, err
	}
	if !complete {
		s.state = zedDone
		return Entry{Line: loc, Bad: `the array is cut off inside this element`}, nil
	}
	s.state = zedAfterElem
	if n > int64(s.max) {
		return Entry{Line: loc, Lost: skippedMessage("array element", n, s.max)}, nil
	}
	raw := s.elem
	if cap(s.elem) > 1<<20 {
		s.elem = nil // a huge element is rare: do not hold its size for ever
	}
	fr := Entry{Synthetic: true, Line: loc}
	v, perr := jsonv.ParseMax(raw, codec.MaxValues(s.max))
	if tooMany, ok := perr.(*jsonv.TooManyValuesError); ok {
		return Entry{Line: loc, Lost: codec.TooManyValues(tooMany.Max)}, nil
	}
	if perr != nil {
		fr.Bad = "the element is not JSON: " + perr.Error()
		fr.Line.Bytes = bytes.Clone(raw)
		return fr, nil
	}
	msg, dir, bad := zedMessage(&v, raw)
	fr.Dir, fr.Bad = dir, bad
	if bad != "" {
		fr.Line.Bytes = bytes.Clone(raw)
	} else {
		fr.Line.Bytes = msg
	}
	return fr, nil
}

// readValue reads one JSON value's bytes into s.elem (keeping at most
// s.max of them) and returns its length. It follows strings and nesting
// only to find where the value ends; jsonv judges it. complete is false
// when the input ends inside the value.
func (s *zedSource) readValue() (n int64, complete bool, err error) {
	s.elem = s.elem[:0]
	depth := 0
	inString, escaped := false, false
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			// A bare scalar (a number, true) ends at the end of the input.
			return n, n > 0 && depth == 0 && !inString, err
		}
		if n > 0 && depth == 0 && !inString && (c == ',' || c == ']' || isSpace(c)) {
			s.r.UnreadByte()
			return n, true, nil
		}
		s.advance(c)
		n++
		if n <= int64(s.max) {
			s.elem = append(s.elem, c)
		}
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
				if depth == 0 {
					return n, true, nil
				}
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
			if depth <= 0 {
				return n, true, nil
			}
		}
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// skipSpace reads past white space (and, at the start, a byte order mark)
// and returns the next byte without consuming it.
func (s *zedSource) skipSpace(start bool) (byte, error) {
	if start {
		if bom, _ := s.r.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
			s.r.Discard(3)
			s.offset += 3
		}
	}
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return 0, err
		}
		if !isSpace(c) {
			s.r.UnreadByte()
			return c, nil
		}
		s.advance(c)
	}
}

// readByte consumes the byte skipSpace returned.
func (s *zedSource) readByte() {
	c, _ := s.r.ReadByte()
	s.advance(c)
}

// advance moves the location past c.
func (s *zedSource) advance(c byte) {
	s.offset++
	if c == '\n' {
		s.line++
	}
}

// zedMessage rebuilds the JSON-RPC message of one Zed log element.
func zedMessage(e *jsonv.Value, src []byte) (msg []byte, dir domain.Direction, bad string) {
	if e.Kind != jsonv.Object {
		return nil, 0, "the element is not an object"
	}
	get := func(k string) *jsonv.Value { v, _ := e.Get(k); return v }
	d, typ := get("_direction"), get("_type")
	if d == nil || typ == nil || d.Kind != jsonv.String || typ.Kind != jsonv.String {
		return nil, 0, `the element lacks "_direction" or "_type"`
	}
	// Zed is the client: what it sends is outgoing.
	switch d.Str() {
	case "outgoing":
		dir = domain.FromClient
	case "incoming":
		dir = domain.FromAgent
	default:
		return nil, 0, fmt.Sprintf("unknown _direction %q", d.Str())
	}
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0"`)
	if id := get("id"); id != nil && id.Kind != jsonv.Null {
		b.WriteString(`,"id":`)
		b.Write(id.Raw(src))
	}
	params := get("params")
	switch typ.Str() {
	case "request", "notification":
		m := get("method")
		if m == nil || m.Kind != jsonv.String {
			return nil, 0, `the element lacks "method"`
		}
		b.WriteString(`,"method":`)
		b.Write(m.Raw(src))
		if params != nil && params.Kind != jsonv.Null {
			b.WriteString(`,"params":`)
			b.Write(params.Raw(src))
		}
	case "response":
		if params != nil && isZedError(params) {
			b.WriteString(`,"error":`)
		} else {
			b.WriteString(`,"result":`)
		}
		if params == nil {
			b.WriteString("null")
		} else {
			b.Write(params.Raw(src))
		}
	default:
		return nil, 0, fmt.Sprintf("unknown _type %q", typ.Str())
	}
	b.WriteByte('}')
	return b.Bytes(), dir, ""
}

// isZedError guesses whether a Zed response payload was an error: Zed
// stores both in "params", so this is the one place the importer must
// judge by shape. ACP results never have exactly an integer "code" and a
// string "message" at their root.
func isZedError(v *jsonv.Value) bool {
	if v.Kind != jsonv.Object {
		return false
	}
	c, okc := v.Get("code")
	m, okm := v.Get("message")
	return okc && okm && c.Kind == jsonv.Number && m.Kind == jsonv.String
}

var errStop = errors.New("stop")

// Limits of the search for the rest of a split message: a pretty-printed
// message is rarely longer, and the read-ahead must stay bounded.
const (
	maxJoinLines = 10000
	// minUnclosedMemo: a join attempt that scanned this many lines without
	// closing is remembered, so the lines it crossed are not tried again.
	minUnclosedMemo = 64
	maxJoinBytes    = 64 << 20
	// A run of text lines reported as one frame ends after this many lines
	// or bytes, so that the lines it holds stay bounded: an endless log
	// gives one finding per run, not one per line, nor one frame holding
	// the whole input.
	maxRunLines = maxJoinLines
	maxRunBytes = 1 << 20
	// The search for split messages may scan each byte it reads this many
	// times over (plus joinWorkSlack): the attempts from successive lines
	// of a run that never closes overlap, and without a budget a run of n
	// lines that open a value costs n² (issue 13, row 8). Past the budget,
	// the search gives up until more input is read, and the lines are
	// reported as text. Real transcripts stay far below: a split message is
	// scanned once to rebuild it and once to check it.
	joinWorkFactor = 4
	joinWorkSlack  = 1 << 20
)

// blockSource regroups the frames of a line-based source. A message split
// over several lines by raw newlines (ACP-WIRE-003) becomes one frame
// holding the rebuilt message, and a run of lines that are not JSON (a
// log dump, a pretty-printed object that is not a JSON-RPC message)
// becomes one frame, so that one mistake gives one finding rather than one
// per line.
type blockSource struct {
	// consumed counts the frames returned so far, to give read-ahead
	// frames an absolute index; (unclosedFrom, unclosedTo] are frames a
	// join attempt already scanned without its value closing.
	consumed                 int
	unclosedFrom, unclosedTo int
	src                      source
	buf                      []aheadFrame // frames read ahead; those before head are returned
	head                     int          // the first frame of buf not yet returned
	err                      error        // what ended the underlying source (io.EOF at the end)
	done                     bool
	// read counts the bytes of the lines read, joinWork those the search
	// for split messages scanned (joinWorkFactor).
	read, joinWork int64
	// found is the last split message join rebuilt, at absolute frame
	// foundAt spanning foundLines frames: Next asks for it twice.
	foundAt, foundLines int
	found               []byte
	// lines, when set, is the line reader of src, an ndjsonSource, which
	// nextInto reads from directly.
	lines *codec.LineReader
}

type aheadFrame struct {
	fr Entry
	// json is 1 when the frame's line is JSON on its own, -1 when it is
	// not, 0 when not yet known; message likewise for isMessageLike.
	json, message int8
}

func (s *blockSource) setLineAlloc(alloc func(n int) []byte) {
	if under, ok := s.src.(lineMemory); ok {
		under.setLineAlloc(alloc)
	}
}

func (s *blockSource) holdsFrames() bool { return s.head < len(s.buf) }

// peek returns the frame i places ahead, reading as needed.
func (s *blockSource) peek(i int) (*aheadFrame, bool) {
	for len(s.buf)-s.head <= i && !s.done {
		fr, err := s.src.Next()
		if err != nil {
			s.err, s.done = err, true
			break
		}
		s.buf = append(s.buf, aheadFrame{fr: fr})
		s.read += int64(len(fr.Line.Bytes)) + 1
	}
	if s.head+i >= len(s.buf) {
		return nil, false
	}
	return &s.buf[s.head+i], true
}

// lineIsJSON reports whether frame a is one JSON value on its own.
func (a *aheadFrame) lineIsJSON() bool { return entryIsJSON(&a.fr, &a.json) }

// entryIsJSON is lineIsJSON for entry fr whose aheadFrame.json is *json.
func entryIsJSON(fr *Entry, json *int8) bool {
	if b := fr.Line.Bytes; *json == 0 && len(b) > 1 && b[0] == '{' && b[len(b)-1] == '}' {
		*json = 1 // what isJSON answers for it, without its trimming
	}
	if *json == 0 {
		*json = -1
		if isJSON(fr.Line.Bytes) {
			*json = 1
		}
	}
	return *json > 0
}

// wholeMessage reports whether frame a is a JSON-RPC message on its own.
func (a *aheadFrame) wholeMessage() bool {
	if a.message == 0 {
		a.message = -1
		if a.lineIsJSON() && isMessageLike(a.fr.Line.Bytes) {
			a.message = 1
		}
	}
	return a.message > 0
}

// text reports whether a is a traffic line that is not JSON: neither a
// blank line nor a wrapper problem nor a rebuilt Zed envelope.
func (a *aheadFrame) text() bool { return entryIsText(&a.fr, &a.json) }

// entryIsText is text for entry fr whose aheadFrame.json is *json.
func entryIsText(fr *Entry, json *int8) bool {
	return fr.Bad == "" && !fr.Synthetic && fr.Splits == 0 && !fr.Line.IsBlank() && !entryIsJSON(fr, json)
}

func (s *blockSource) Next() (Entry, error) {
	if s.head == len(s.buf) && !s.done {
		// Nothing is read ahead: a frame that is not text, nearly every
		// one, goes out as read rather than through the read-ahead, which
		// copied it twice more.
		fr, err := s.src.Next()
		if err != nil {
			s.err, s.done = err, true
			return Entry{}, err
		}
		s.read += int64(len(fr.Line.Bytes)) + 1
		var json int8
		if !entryIsText(&fr, &json) {
			s.consumed++
			if s.foundAt < s.consumed {
				s.found = nil
			}
			return fr, nil
		}
		s.buf = append(s.buf, aheadFrame{fr: fr, json: json})
	}
	first, ok := s.peek(0)
	if !ok {
		return Entry{}, s.err
	}
	if !first.text() {
		return s.take(1), nil
	}
	if n, msg, ok := s.join(0); ok {
		if isMessageLike(msg) {
			fr := s.take(n)
			fr.Line.Bytes = msg
			fr.Splits = n - 1
			return fr, nil
		}
		// Valid JSON once joined, but not a JSON-RPC message: a
		// pretty-printed dump of something else, reported as one text run.
		return s.take(n), nil
	}
	n, size := 1, len(first.fr.Line.Bytes)
	for n < maxRunLines && size < maxRunBytes {
		next, ok := s.peek(n)
		if !ok || !next.text() || next.fr.Dir != first.fr.Dir {
			break
		}
		if _, _, joins := s.join(n); joins {
			break // a split message starts here
		}
		size += len(next.fr.Line.Bytes)
		n++
	}
	return s.take(n), nil
}

// nextInto is Next filling *e, for a source of raw NDJSON (s.lines): a
// line read when nothing is read ahead goes from the line reader straight
// into *e unless it is text, which takes Next's path through the
// read-ahead.
func (s *blockSource) nextInto(e *Entry) error {
	if s.head == len(s.buf) && !s.done {
		*e = Entry{}
		if err := s.lines.NextInto(&e.Line); err != nil {
			s.err, s.done = err, true
			*e = Entry{}
			return err
		}
		if e.Line.TooLong > 0 {
			*e = tooLong(e.Line, s.lines.MaxLine())
		}
		s.read += int64(len(e.Line.Bytes)) + 1
		var json int8
		if b := e.Line.Bytes; len(b) > 1 && b[0] == '{' && b[len(b)-1] == '}' {
			// A message, nearly every line: what entryIsText answers for
			// a line read just now, without its copies of the line.
			json = 1
		}
		if json > 0 || !entryIsText(e, &json) {
			s.consumed++
			if s.foundAt < s.consumed {
				s.found = nil
			}
			return nil
		}
		s.buf = append(s.buf, aheadFrame{fr: *e, json: json})
	}
	var err error
	*e, err = s.Next()
	return err
}

// take removes n frames from the read-ahead and returns the first with the
// lines of the others as Extra.
func (s *blockSource) take(n int) Entry {
	ahead := s.buf[s.head:]
	fr := ahead[0].fr
	for i := 1; i < n; i++ {
		fr.Extra = append(fr.Extra, ahead[i].fr.Line)
	}
	clear(ahead[:n])
	s.head += n
	s.consumed += n
	if s.foundAt < s.consumed {
		s.found = nil // taken, or passed over
	}
	if s.head >= len(s.buf)-s.head {
		// Move what is left to the front of the backing array, so that
		// one array serves the whole transcript instead of the read-ahead
		// creeping forward and growing a new one. Most frames are taken
		// as soon as they are read, and nothing is left to move; at most
		// as many frames are moved as were taken, which keeps it linear.
		left := copy(s.buf, s.buf[s.head:])
		clear(s.buf[left:])
		s.buf, s.head = s.buf[:left], 0
	}
	return fr
}

// join tries to rebuild one JSON value from frame k and the frames after
// it, as if the raw newlines between them were part of the value. It
// returns how many frames the value spans (at least 2) and the value, with
// each newline that fell inside a string written as the escape \n.
func (s *blockSource) join(k int) (n int, msg []byte, ok bool) {
	first, _ := s.peek(k)
	b := bytes.TrimLeft(first.fr.Line.Bytes, " \t\xef\xbb\xbf")
	if len(b) == 0 || (b[0] != '{' && b[0] != '[') {
		return 0, nil, false
	}
	abs := s.consumed + k
	if s.found != nil && abs == s.foundAt {
		return s.foundLines, s.found, true
	}
	if abs > s.unclosedFrom && abs <= s.unclosedTo {
		// An earlier attempt from a line above ran through this one
		// without the value ever closing: the lines are garbage, and
		// trying again from every line would take quadratic time.
		return 0, nil, false
	}
	var sc jsonScanner
	var out bytes.Buffer
	for i := k; ; i++ {
		a, ok := s.peek(i)
		if !ok || i-k >= maxJoinLines || out.Len() > maxJoinBytes {
			if i-k >= minUnclosedMemo {
				s.unclosedFrom, s.unclosedTo = s.consumed+k, s.consumed+i
			}
			return 0, nil, false
		}
		line := a.fr.Line.Bytes
		if i == k {
			line = b
		} else {
			if a.fr.Bad != "" || a.fr.Lost != "" || a.fr.Synthetic || a.fr.Splits > 0 || a.fr.Dir != first.fr.Dir {
				return 0, nil, false
			}
			if a.wholeMessage() {
				// A whole message on its own line: the line that
				// started the search was cut short, not split.
				return 0, nil, false
			}
		}
		if !s.spend(len(line) + 1) {
			return 0, nil, false
		}
		if !sc.feed(line, &out) {
			return 0, nil, false
		}
		if sc.depth == 0 && !sc.inString {
			if i == k {
				return 0, nil, false
			}
			if !s.spend(out.Len()) || !isJSON(out.Bytes()) {
				return 0, nil, false
			}
			s.foundAt, s.foundLines, s.found = abs, i-k+1, out.Bytes()
			return i - k + 1, out.Bytes(), true
		}
		if sc.inString {
			out.WriteString(`\n`)
		} else {
			out.WriteByte('\n')
		}
	}
}

// spend counts n bytes of work for the search for split messages, unless
// they would take it past its budget (joinWorkFactor): then it reports
// false and the search gives up. The budget never goes into debt, so the
// input read after a costly stretch pays for the searches there.
func (s *blockSource) spend(n int) bool {
	if s.joinWork+int64(n) > joinWorkFactor*s.read+joinWorkSlack {
		return false
	}
	s.joinWork += int64(n)
	return true
}

// jsonScanner follows string and nesting state across the lines of a
// split JSON value.
type jsonScanner struct {
	depth    int
	inString bool
	escaped  bool
	started  bool
}

// feed copies line to out and updates the state; false means the bytes
// cannot belong to one JSON value (it closed before it opened).
func (sc *jsonScanner) feed(line []byte, out *bytes.Buffer) bool {
	for _, c := range line {
		out.WriteByte(c)
		switch {
		case sc.inString:
			switch {
			case sc.escaped:
				sc.escaped = false
			case c == '\\':
				sc.escaped = true
			case c == '"':
				sc.inString = false
			}
		case c == '"':
			sc.inString = true
		case c == '{' || c == '[':
			sc.depth++
			sc.started = true
		case c == '}' || c == ']':
			sc.depth--
			if sc.depth < 0 {
				return false
			}
		}
	}
	// A backslash at the end of a line escapes the newline: invalid JSON.
	sc.escaped = false
	return sc.started
}

// escapeNewlinesInStrings rewrites the raw newlines of b that lie inside
// JSON strings as the escape \n and returns the result with the number of
// raw newlines b held.
func escapeNewlinesInStrings(b []byte) ([]byte, int) {
	var sc jsonScanner
	var out bytes.Buffer
	lines := bytes.Split(b, []byte("\n"))
	for i, line := range lines {
		line = bytes.TrimSuffix(line, []byte("\r"))
		sc.feed(line, &out)
		if i == len(lines)-1 {
			break
		}
		if sc.inString {
			out.WriteString(`\n`)
		} else {
			out.WriteByte('\n')
		}
	}
	return out.Bytes(), len(lines) - 1
}

// isJSON reports whether b (less a leading byte order mark) is one JSON value.
func isJSON(b []byte) bool {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	t := bytes.TrimSpace(b)
	if len(t) == 0 {
		return false
	}
	// This runs on every line, ahead of the real decode, only to spot
	// text and split messages. A line that opens and closes like an object
	// is taken as JSON without a full check: if it is not, the decode
	// reports it (ACP-WIRE-001); only a split whose first piece happens to
	// end in "}" goes unjoined.
	if t[0] == '{' && t[len(t)-1] == '}' {
		return true
	}
	return json.Valid(b)
}

// isMessageLike reports whether b is JSON shaped like a JSON-RPC message
// (or a batch of them): an object with "jsonrpc", "method", or "id" and a
// "result" or "error".
func isMessageLike(b []byte) bool {
	// Past the values a line may hold (for the default --max-line), b is
	// taken for text; the decoder would not type it anyway.
	v, err := jsonv.ParseMax(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")), codec.MaxValues(DefaultMaxLine))
	if err != nil {
		return false
	}
	if v.Kind == jsonv.Array && len(v.Elems()) > 0 {
		v = v.Elems()[0]
	}
	if v.Kind != jsonv.Object {
		return false
	}
	if _, ok := v.Get("jsonrpc"); ok {
		return true
	}
	if _, ok := v.Get("method"); ok {
		return true
	}
	_, id := v.Get("id")
	_, res := v.Get("result")
	_, er := v.Get("error")
	return id && (res || er)
}

// LooksLikeTranscript reports whether head, the start of a file, is the
// start of a transcript in a format lint reads: an acplint header, a
// JSON-RPC message or batch, a direction-tagged record, or a Zed array. A
// directory walk (lint DIR, corpus DIR) uses it to pass over the other
// JSON files a repository holds (package.json, schemas, fixtures). An
// empty head is a transcript with no lines.
func LooksLikeTranscript(head []byte) bool {
	trimmed := bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf")
	if len(trimmed) == 0 {
		return true
	}
	line := trimmed
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	if trimmed[0] == '[' {
		// A Zed array is pretty-printed; a batch is one line.
		return bytes.Contains(head, []byte(`"_direction"`)) || looksLikeMessages(line)
	}
	if isCanonicalHeader(line) {
		return true
	}
	return looksLikeMessages(line)
}

// looksLikeMessages reports whether line is a JSON-RPC message, a batch of
// them, or a direction-tagged record of one.
func looksLikeMessages(line []byte) bool {
	v, err := jsonv.ParseMax(bytes.TrimSpace(line), codec.MaxValues(DefaultMaxLine))
	if err != nil {
		return false
	}
	isMessage := func(v *jsonv.Value) bool {
		for _, k := range []string{"jsonrpc", "method", "result", "error"} {
			if _, ok := v.Get(k); ok {
				return true
			}
		}
		_, _, ok := wrapperFields(v)
		return ok
	}
	switch v.Kind {
	case jsonv.Object:
		return isMessage(&v)
	case jsonv.Array:
		elems := v.Elems()
		return len(elems) > 0 && elems[0].Kind == jsonv.Object && isMessage(&elems[0])
	}
	return false
}
