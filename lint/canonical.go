package lint

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/transcript"
)

// FormatTranscript is acplint's own recording format (package transcript),
// written by `acplint tap --record` and `acplint convert`: a header line,
// then one frame per line with its direction, time and the verbatim bytes.
const FormatTranscript Format = "acplint"

// canonicalSource reads FormatTranscript. Findings point at the line of
// the transcript file (the header is line 1), which is where a user looks.
type canonicalSource struct {
	lines  *codec.LineReader
	header bool
}

func (s *canonicalSource) setLineAlloc(alloc func(n int) []byte) { s.lines.SetAlloc(alloc) }

func (s *canonicalSource) Next() (Frame, error) {
	for {
		l, err := s.lines.Next()
		if err != nil {
			return Frame{}, err
		}
		if !s.header {
			s.header = true
			if _, ok, err := transcript.ParseHeader(l.Bytes); ok {
				if err != nil {
					return Frame{}, fmt.Errorf("line %d: %w", l.Num, err)
				}
				continue
			}
			return Frame{Line: l, Bad: fmt.Sprintf("the first line is not an %s header; use --input to name the format", transcript.FormatName)}, nil
		}
		if l.IsBlank() {
			continue
		}
		f, err := transcript.ParseFrame(l.Bytes)
		if errors.Is(err, transcript.ErrNotFrame) {
			return Frame{Line: l, Bad: err.Error()}, nil
		}
		data := f.Data
		wire := codec.Line{Num: l.Num, Offset: l.Offset, Bytes: data}
		if n := len(data); n > 0 && data[n-1] == '\r' {
			wire.Bytes, wire.CRLF = data[:n-1], true
		}
		return Frame{Line: wire, Dir: f.From}, nil
	}
}

// isCanonicalHeader reports whether line starts an acplint transcript.
func isCanonicalHeader(line []byte) bool {
	_, ok, _ := transcript.ParseHeader(bytes.TrimSpace(line))
	return ok
}

// RawFrame is one frame of a transcript as ReadFrames yields it.
type RawFrame struct {
	Line int              // line in the input where the frame starts
	Dir  domain.Direction // DirUnknown when the format does not record it
	Data []byte           // the frame's bytes as they crossed the wire ("\r" kept)
	// Bad says why the input line is not a frame of its format; Data is
	// then the input line.
	Bad string
}

// ReadFrames reads a transcript in format f (FormatAuto detects it) and
// calls fn for every frame, for `acplint convert`. It returns the format
// read.
func ReadFrames(r io.Reader, f Format, fn func(RawFrame) error) (Format, error) {
	src, format, _, err := open(r, f)
	if err != nil {
		return "", err
	}
	if b, ok := src.(*blockSource); ok {
		// Conversion keeps physical lines: a message a sender split over
		// several lines stays split, for lint to report in the new format.
		src = b.src
	}
	for {
		fr, err := src.Next()
		if errors.Is(err, io.EOF) {
			return format, nil
		}
		if err != nil {
			return format, err
		}
		data := fr.Line.Bytes
		if fr.Line.CRLF {
			data = append(bytes.Clone(data), '\r')
		}
		if err := fn(RawFrame{Line: fr.Line.Num, Dir: fr.Dir, Data: data, Bad: fr.Bad}); err != nil {
			return format, err
		}
	}
}
