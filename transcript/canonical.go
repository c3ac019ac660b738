package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/acplint/acplint/codec"
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
		var f Frame
		if wf, body, ok := parseWritten(l.Bytes); ok {
			// The line's memory is this entry's alone: unescape in place.
			f, f.Data = wf, unescapeInto(body[:0], body)
		} else if f, err = parseFrameJSON(l.Bytes); errors.Is(err, ErrNotFrame) {
			return Entry{Line: l, Bad: err.Error()}, nil
		}
		if f.Lost != nil {
			return Entry{Line: codec.Line{Num: l.Num, Offset: l.Offset}, Lost: describeLost(f.Lost)}, nil
		}
		data := f.Data
		wire := codec.Line{Num: l.Num, Offset: l.Offset, Bytes: data}
		if n := len(data); n > 0 && data[n-1] == '\r' {
			wire.Bytes, wire.CRLF = data[:n-1], true
		}
		e := Entry{Line: wire, Dir: f.From}
		if !s.started.IsZero() {
			e.Time = s.started.Add(f.T).Format(time.RFC3339Nano)
		}
		return e, nil
	}
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
