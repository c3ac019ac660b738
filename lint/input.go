package lint

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

// Frame is one message of a transcript, with what the format says about it.
type Frame struct {
	Line codec.Line
	// Dir is the sender as the format records it; DirUnknown for raw NDJSON.
	Dir domain.Direction
	// Bad, when set, says why the frame is not in the declared format
	// (ACP-LINT-002); Line.Bytes is then the wrapper line itself.
	Bad string
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
}

// source yields frames.
type source interface {
	Next() (Frame, error)
}

// open detects the format (when auto) and returns a frame source and the
// buffered reader under it.
func open(r io.Reader, f Format) (source, Format, *bufio.Reader, error) {
	br := bufio.NewReaderSize(r, 256<<10)
	src, f, err := openBuffered(br, f)
	return src, f, br, err
}

func openBuffered(br *bufio.Reader, f Format) (source, Format, error) {
	if f == FormatAuto || f == "" {
		f = sniff(br)
	}
	switch f {
	case FormatZed:
		return newZedSource(br)
	case FormatJSONL:
		return &blockSource{src: &jsonlSource{lines: codec.NewLineReader(br)}}, FormatJSONL, nil
	case FormatTranscript:
		return &canonicalSource{lines: codec.NewLineReader(br)}, FormatTranscript, nil
	}
	return &blockSource{src: &ndjsonSource{lines: codec.NewLineReader(br)}}, FormatNDJSON, nil
}

// sniff looks at the first non-blank line without consuming it.
func sniff(br *bufio.Reader) Format {
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
				return sniffLine(line)
			}
		}
		if err != nil || n >= 16<<20 {
			return sniffLine(trimmed)
		}
	}
}

func sniffLine(line []byte) Format {
	if isCanonicalHeader(line) {
		return FormatTranscript
	}
	v, err := jsonv.Parse(bytes.TrimSpace(line))
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

func (s *ndjsonSource) Next() (Frame, error) {
	l, err := s.lines.Next()
	if err != nil {
		return Frame{}, err
	}
	return Frame{Line: l}, nil
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

func (s *jsonlSource) setLineAlloc(alloc func(n int) []byte) { s.lines.SetAlloc(alloc) }

func (s *jsonlSource) Next() (Frame, error) {
	l, err := s.lines.Next()
	for err == nil && l.IsBlank() {
		// A blank line of the recording is not traffic: the recorder wrote
		// it, not a peer. (A blank line on the wire is a record whose
		// message is an empty string.)
		l, err = s.lines.Next()
	}
	if err != nil {
		return Frame{}, err
	}
	fr := Frame{Line: l}
	v, perr := jsonv.Parse(l.Bytes)
	if perr != nil {
		fr.Bad = "the line is not JSON: " + perr.Error()
		return fr, nil
	}
	dir, msg, ok := wrapperFields(&v)
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

// zedSource reads Zed's pretty-printed array. The array is parsed whole:
// the format gives no way to stream it.
type zedSource struct {
	frames []Frame
	i      int
}

func newZedSource(r io.Reader) (source, Format, error) {
	all, err := io.ReadAll(r)
	if err != nil {
		return nil, FormatZed, err
	}
	v, perr := jsonv.Parse(all)
	if perr != nil || v.Kind != jsonv.Array {
		msg := "the input is not a JSON array"
		if perr != nil {
			msg = "the input is not JSON: " + perr.Error()
		}
		return &zedSource{frames: []Frame{{Line: codec.Line{Num: 1, Bytes: all}, Bad: msg}}}, FormatZed, nil
	}
	lineAt := newLineIndex(all)
	s := &zedSource{}
	elems := v.Elems()
	for i := range elems {
		e := &elems[i]
		fr := Frame{Synthetic: true, Line: codec.Line{Num: lineAt(e.Start), Offset: int64(e.Start)}}
		msg, dir, bad := zedMessage(e, all)
		fr.Dir, fr.Bad = dir, bad
		if bad != "" {
			fr.Line.Bytes = e.Raw(all)
		} else {
			fr.Line.Bytes = msg
		}
		s.frames = append(s.frames, fr)
	}
	return s, FormatZed, nil
}

func (s *zedSource) Next() (Frame, error) {
	if s.i >= len(s.frames) {
		return Frame{}, io.EOF
	}
	s.i++
	return s.frames[s.i-1], nil
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

// newLineIndex returns a function from byte offset to 1-based line.
func newLineIndex(src []byte) func(off int) int {
	var starts []int
	starts = append(starts, 0)
	for i, c := range src {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return func(off int) int {
		lo, hi := 0, len(starts)
		for lo+1 < hi {
			mid := (lo + hi) / 2
			if starts[mid] <= off {
				lo = mid
			} else {
				hi = mid
			}
		}
		return lo + 1
	}
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
}

type aheadFrame struct {
	fr Frame
	// json is 1 when the frame's line is JSON on its own, -1 when it is
	// not, 0 when not yet known.
	json int8
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
	}
	if s.head+i >= len(s.buf) {
		return nil, false
	}
	return &s.buf[s.head+i], true
}

// lineIsJSON reports whether frame a is one JSON value on its own.
func (a *aheadFrame) lineIsJSON() bool {
	if a.json == 0 {
		a.json = -1
		if isJSON(a.fr.Line.Bytes) {
			a.json = 1
		}
	}
	return a.json > 0
}

// text reports whether a is a traffic line that is not JSON: neither a
// blank line nor a wrapper problem nor a rebuilt Zed envelope.
func (a *aheadFrame) text() bool {
	return a.fr.Bad == "" && !a.fr.Synthetic && a.fr.Splits == 0 && !a.fr.Line.IsBlank() && !a.lineIsJSON()
}

func (s *blockSource) Next() (Frame, error) {
	first, ok := s.peek(0)
	if !ok {
		return Frame{}, s.err
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
	n := 1
	for {
		next, ok := s.peek(n)
		if !ok || !next.text() || next.fr.Dir != first.fr.Dir {
			break
		}
		if _, _, joins := s.join(n); joins {
			break // a split message starts here
		}
		n++
	}
	return s.take(n), nil
}

// take removes n frames from the read-ahead and returns the first with the
// lines of the others as Extra.
func (s *blockSource) take(n int) Frame {
	ahead := s.buf[s.head:]
	fr := ahead[0].fr
	for i := 1; i < n; i++ {
		fr.Extra = append(fr.Extra, ahead[i].fr.Line)
	}
	clear(ahead[:n])
	s.head += n
	s.consumed += n
	if s.head == len(s.buf) {
		// Start over at the front of the backing array, so that one array
		// serves the whole transcript instead of the read-ahead creeping
		// forward and growing a new one. (Most frames are taken as soon as
		// they are read, so this is the common case.)
		s.buf, s.head = s.buf[:0], 0
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
	if abs := s.consumed + k; abs > s.unclosedFrom && abs <= s.unclosedTo {
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
			if a.fr.Bad != "" || a.fr.Synthetic || a.fr.Splits > 0 || a.fr.Dir != first.fr.Dir {
				return 0, nil, false
			}
			if a.lineIsJSON() && isMessageLike(a.fr.Line.Bytes) {
				// A whole message on its own line: the line that
				// started the search was cut short, not split.
				return 0, nil, false
			}
		}
		if !sc.feed(line, &out) {
			return 0, nil, false
		}
		if sc.depth == 0 && !sc.inString {
			if i == k || !isJSON(out.Bytes()) {
				return 0, nil, false
			}
			return i - k + 1, out.Bytes(), true
		}
		if sc.inString {
			out.WriteString(`\n`)
		} else {
			out.WriteByte('\n')
		}
	}
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
	if len(bytes.TrimSpace(b)) == 0 {
		return false
	}
	// This runs on every line, ahead of the real decode, only to spot
	// text and split messages. A line that opens and closes like an object
	// is taken as JSON without a full check: if it is not, the decode
	// reports it (ACP-WIRE-001); only a split whose first piece happens to
	// end in "}" goes unjoined.
	t := bytes.TrimSpace(b)
	if t[0] == '{' && t[len(t)-1] == '}' {
		return true
	}
	return json.Valid(b)
}

// isMessageLike reports whether b is JSON shaped like a JSON-RPC message
// (or a batch of them): an object with "jsonrpc", "method", or "id" and a
// "result" or "error".
func isMessageLike(b []byte) bool {
	v, err := jsonv.Parse(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")))
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
