package transcript

import (
	"bytes"
	"errors"
	"io"

	"github.com/acplint/acplint/domain"
)

// RawFrame is one frame of a transcript as ReadFrames yields it.
type RawFrame struct {
	Line int // line in the input where the frame starts
	// Dir is the sender: as the format records it or, where it does not
	// (raw NDJSON, a recorder that wrote "unknown"), as ReadFrames'
	// senders infer it. DirUnknown when neither says; Unknown then says why.
	Dir domain.Direction
	// Data is the frame's bytes as they crossed the wire ("\r" kept). It
	// holds a raw newline only where a recorder kept several wire lines
	// as one frame (a jsonl string).
	Data []byte
	// Bad says why the input line is not a frame of its format; Data is
	// then the input line.
	Bad string
	// Lost, when set, makes this a recorder's gap record (ACP-LINT-004):
	// frames are missing here, as Lost says; there is no Data.
	Lost string
	// Unknown is set for a frame whose sender nobody can tell, saying why
	// (lint.InferSenders: the message of the ACP-LINT-001 finding lint
	// gives it, or why lint has no sender to infer).
	Unknown string
}

// ReadFrames reads a transcript in format f (FormatAuto detects it) and
// calls fn for every frame, for `acplint convert`. senders, when not nil,
// is called with every entry that holds traffic (neither Bad nor Lost), in
// order, and gives the sender of its frames where the format does not
// record it, and why when it cannot (lint.InferSenders runs lint's
// protocol machine for that); with nil, frames keep the direction the
// format records. It returns the format read.
func ReadFrames(r io.Reader, f Format, senders func(Entry) (dir domain.Direction, unknown string), fn func(RawFrame) error) (Format, error) {
	rd := NewReader(r, f, 0)
	format := rd.Format()
	// Lint reads a message a sender split over several lines, and a run of
	// text lines, as one frame. Conversion keeps the physical lines (the
	// split stays split, for lint to report in the new format), so the
	// lines are kept as they are read, to be given out with their frame.
	var physical *physicalLines
	if b, ok := rd.src.(*blockSource); ok {
		physical = &physicalLines{src: b.src}
		b.src = physical
	}
	for {
		fr, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return format, nil
		}
		if err != nil {
			return format, err
		}
		dir, unknown := fr.Dir, ""
		if fr.Bad == "" && fr.Lost == "" && senders != nil {
			dir, unknown = senders(fr)
		}
		lines := []Entry{fr}
		if physical != nil {
			lines = physical.take(1 + len(fr.Extra))
		}
		for _, pl := range lines {
			data := pl.Line.Bytes
			if pl.Recorded != nil {
				data = pl.Recorded
			}
			if pl.Line.CRLF {
				data = append(bytes.Clone(data), '\r')
			}
			raw := RawFrame{Line: pl.Line.Num, Dir: dir, Data: data, Bad: pl.Bad, Lost: pl.Lost, Unknown: unknown}
			if pl.Bad != "" || pl.Lost != "" {
				raw.Dir, raw.Unknown = pl.Dir, ""
			}
			if err := fn(raw); err != nil {
				return format, err
			}
		}
	}
}

// physicalLines passes the frames of a line-based source through,
// keeping each until take gives it out: the lines under the frames the
// blockSource above it builds.
type physicalLines struct {
	src  source
	kept []Entry
	head int // the first of kept not yet given out
}

func (p *physicalLines) Next() (Entry, error) {
	fr, err := p.src.Next()
	if err == nil {
		p.kept = append(p.kept, fr)
	}
	return fr, err
}

func (p *physicalLines) setLineAlloc(alloc func(n int) []byte) {
	if under, ok := p.src.(lineMemory); ok {
		under.setLineAlloc(alloc)
	}
}

// take gives out the next n lines kept, in order.
func (p *physicalLines) take(n int) []Entry {
	n = min(n, len(p.kept)-p.head)
	out := append([]Entry(nil), p.kept[p.head:p.head+n]...)
	clear(p.kept[p.head : p.head+n])
	p.head += n
	if p.head == len(p.kept) {
		// Start over at the front, so one array serves the whole input.
		p.kept, p.head = p.kept[:0], 0
	}
	return out
}
