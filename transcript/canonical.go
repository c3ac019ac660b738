package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/internal/jsonv"
)

// FormatTranscript is acplint's own recording format (Writer, ParseFrame),
// written by `acplint tap --record` and `acplint convert`: a header line,
// then one frame per line with its direction, time and the verbatim bytes.
const FormatTranscript Format = "acplint"

// canonicalSource reads FormatTranscript. Findings point at the line of
// the transcript file (the header is line 1), which is where a user looks.
type canonicalSource struct {
	lines  *codec.LineReader
	header bool
	// started is the header's start time, which frame times count from.
	started time.Time
	// text holds the text of the last frame decoded (decode).
	text []byte
}

func (s *canonicalSource) setLineAlloc(alloc func(n int) []byte) { s.lines.SetAlloc(alloc) }

func (s *canonicalSource) Next() (Entry, error) {
	for {
		l, err := s.lines.Next()
		if err != nil {
			return Entry{}, err
		}
		if !s.header {
			s.header = true
			if h, ok, err := ParseHeader(l.Bytes); ok {
				if err != nil {
					return Entry{}, fmt.Errorf("line %d: %w", l.Num, err)
				}
				s.started = h.Started
				continue
			}
			return Entry{Line: l, Bad: fmt.Sprintf("the first line is not an %s header; use --input to name the format", FormatName)}, nil
		}
		if l.TooLong > 0 {
			return tooLong(l, s.lines.MaxLine()), nil
		}
		if l.IsBlank() {
			continue
		}
		f, ok := s.decode(l.Bytes)
		if !ok {
			if f, err = parseFrameJSON(l.Bytes); errors.Is(err, ErrNotFrame) {
				return Entry{Line: l, Bad: err.Error()}, nil
			}
		}
		e := FrameEntry(f, l.Num, s.started)
		e.Line.Offset = l.Offset
		return e, nil
	}
}

// decode reads line if it is a frame in Writer's layout (parseWritten).
// The frame's text is decoded into s.text and copied back over the line,
// whose memory is this entry's alone: the frame's Data is the start of
// its string's body. Only a decode that succeeds writes to the line, so
// that a line the fast path refuses is left whole for the general path.
func (s *canonicalSource) decode(line []byte) (Frame, bool) {
	f, start, ok := parseWritten(line)
	if !ok {
		return Frame{}, false
	}
	text, ok := decodeWritten(s.text[:0], line, start)
	if cap(text) <= maxKeptText {
		s.text = text
	}
	if !ok {
		return Frame{}, false
	}
	f.Data = line[start : start+copy(line[start:], text)]
	return f, true
}

// maxKeptText is the largest buffer for a frame's text that a
// canonicalSource keeps from one frame to the next.
const maxKeptText = 1 << 20

// NewFrameReader reads an acplint transcript given as frames rather than
// as bytes: a live tap's, as they cross. next returns the frames that came
// since it was last called, waiting for some; after the last, none and
// io.EOF (or another error). The entries are those a Reader of the recording
// gives (the header on line 1, the frames from line 2 on, with times from
// started; split messages rebuilt and text grouped alike), with no line
// written or parsed on the way. They share the frames' Data.
//
// A frame whose line in the recording would be longer than maxLine bytes (0
// means DefaultMaxLine, as for NewReader) is given as the skipped line that
// reading the recording gives: escaping can make a frame's line several
// times its own length, and live lint must judge the line lint of the
// recording will read.
func NewFrameReader(next func() ([]Frame, error), started time.Time, maxLine int) *Reader {
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	fs := &frameSource{next: next, started: started, num: 1, maxLine: maxLine}
	return &Reader{src: &blockSource{src: fs}, format: FormatTranscript, frames: fs, maxLine: maxLine}
}

// frameSource gives the frames that next hands over as entries.
type frameSource struct {
	next    func() ([]Frame, error)
	batch   []Frame // handed over, not yet given out
	num     int     // the line of the last frame given out
	started time.Time
	maxLine int
}

func (s *frameSource) Next() (Entry, error) {
	for len(s.batch) == 0 {
		b, err := s.next()
		if err != nil {
			return Entry{}, err
		}
		s.batch = b
	}
	f := s.batch[0]
	s.batch[0] = Frame{} // given out: the reader no longer holds it
	s.batch = s.batch[1:]
	s.num++
	// Only a frame whose escaped line might pass maxLine is measured.
	if f.Lost == nil && len(f.Data) > (s.maxLine-maxFrameFraming)/jsonv.MaxEscapedLen {
		if n := writtenLen(f); n > int64(s.maxLine) {
			return tooLong(codec.Line{Num: s.num, TooLong: n}, s.maxLine), nil
		}
	}
	return FrameEntry(f, s.num, s.started), nil
}

// FrameEntry is the entry a Reader gives for frame f of an acplint
// transcript, read from line num of a recording whose header says started
// (zero: no times). A live linter is handed the frames this way, so that it
// lints exactly what `acplint lint` of the recording does, with neither
// writing nor parsing a line. The entry shares f.Data.
func FrameEntry(f Frame, num int, started time.Time) Entry {
	if f.Lost != nil {
		return Entry{Line: codec.Line{Num: num}, Lost: describeLost(f.Lost)}
	}
	data := f.Data
	wire := codec.Line{Num: num, Bytes: data}
	if n := len(data); n > 0 && data[n-1] == '\r' {
		wire.Bytes, wire.CRLF = data[:n-1], true
	}
	e := Entry{Line: wire, Dir: f.From}
	if !started.IsZero() {
		e.Time = started.Add(f.T).Format(time.RFC3339Nano)
	}
	return e
}

// describeLost is the message of the ACP-LINT-004 finding for a gap.
func describeLost(l *Lost) string {
	reason := l.Reason
	if reason == "" {
		reason = "the recorder did not say why"
	}
	return fmt.Sprintf("%d frames (%d bytes) are missing here: %s; findings after this point may be wrong", l.Frames, l.Bytes, reason)
}

// isCanonicalHeader reports whether line starts an acplint transcript.
func isCanonicalHeader(line []byte) bool {
	_, ok, _ := ParseHeader(bytes.TrimSpace(line))
	return ok
}
