package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"
	"unsafe"

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
	// times formats frame times from the header's start time.
	times frameTimes
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
				s.times.started = h.Started
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
		e := frameEntry(f, l.Num, &s.times)
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
	fs := &frameSource{next: next, times: frameTimes{started: started}, num: 1, maxLine: maxLine}
	return &Reader{src: &blockSource{src: fs}, format: FormatTranscript, frames: fs, maxLine: maxLine}
}

// frameSource gives the frames that next hands over as entries.
type frameSource struct {
	next    func() ([]Frame, error)
	batch   []Frame // handed over, not yet given out
	num     int     // the line of the last frame given out
	times   frameTimes
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
	return frameEntry(f, s.num, &s.times), nil
}

// FrameEntry is the entry a Reader gives for frame f of an acplint
// transcript, read from line num of a recording whose header says started
// (zero: no times). A live linter is handed the frames this way, so that it
// lints exactly what `acplint lint` of the recording does, with neither
// writing nor parsing a line. The entry shares f.Data.
func FrameEntry(f Frame, num int, started time.Time) Entry {
	return frameEntry(f, num, &frameTimes{started: started})
}

// frameEntry is FrameEntry with the times formatted by times.
func frameEntry(f Frame, num int, times *frameTimes) Entry {
	if f.Lost != nil {
		return Entry{Line: codec.Line{Num: num}, Lost: describeLost(f.Lost)}
	}
	data := f.Data
	wire := codec.Line{Num: num, Bytes: data}
	if n := len(data); n > 0 && data[n-1] == '\r' {
		wire.Bytes, wire.CRLF = data[:n-1], true
	}
	e := Entry{Line: wire, Dir: f.From}
	if !times.started.IsZero() {
		e.Time = times.text(f.T)
	}
	return e
}

// frameTimes formats the times of a recording's frames, its start plus
// their t, as Format(time.RFC3339Nano) does. Frames come many to a
// second, so it keeps the text of the last second it formatted, date,
// time and zone (a zone's offset changes only between seconds), and
// writes only the fraction for the next frame in the same second.
type frameTimes struct {
	started time.Time
	// sec is the second, in Unix time, whose text is head and zone;
	// head is empty when none is kept.
	sec        int64
	head, zone string
	// chunk holds the text of the times given out since it was made,
	// each written once and never again: a string each, without an
	// allocation each.
	chunk []byte
}

// text is started+t as Format(time.RFC3339Nano) writes it.
func (c *frameTimes) text(t time.Duration) string {
	at := c.started.Add(t)
	if sec := at.Unix(); sec != c.sec || c.head == "" {
		full := at.Format(time.RFC3339Nano)
		c.sec, c.head, c.zone = sec, "", ""
		// "2006-01-02T15:04:05", then a fraction, then the zone; a year
		// not of four digits is left to Format every time.
		if len(full) > len("2006-01-02T15:04:05") && full[4] == '-' {
			c.head = full[:len("2006-01-02T15:04:05")]
			zone := full[len(c.head):]
			if zone[0] == '.' {
				zone = strings.TrimLeft(zone[1:], "0123456789")
			}
			c.zone = zone
		}
		return full
	}
	var buf [64]byte
	b := append(buf[:0], c.head...)
	if ns := at.Nanosecond(); ns != 0 {
		// Nine digits, then the trailing zeros dropped.
		b = append(b, '.')
		frac := len(b)
		b = append(b, "000000000"...)
		for i := len(b) - 1; ns > 0; i-- {
			b[i] = byte('0' + ns%10)
			ns /= 10
		}
		b = bytes.TrimRight(b[frac:], "0")
		b = buf[:frac+len(b)]
	}
	b = append(b, c.zone...)
	if cap(c.chunk)-len(c.chunk) < len(b) {
		c.chunk = make([]byte, 0, 4096)
	}
	start := len(c.chunk)
	c.chunk = append(c.chunk, b...)
	return unsafe.String(&c.chunk[start], len(b))
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
