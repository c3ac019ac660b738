package lint

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/protocol"
)

// RawFrame is one frame of a transcript as ReadFrames yields it.
type RawFrame struct {
	Line int // line in the input where the frame starts
	// Dir is the sender: as the format records it or, where it does not
	// (raw NDJSON, a recorder that wrote "unknown"), as lint infers it.
	// DirUnknown when neither says; Unknown then says why.
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
	// Unknown is set for a frame whose sender nobody can tell: the message
	// of the ACP-LINT-001 finding lint gives it, or why lint has no
	// sender to infer (text, a response that answers nothing pending).
	Unknown string
}

// ReadFrames reads a transcript in format f (FormatAuto detects it) and
// calls fn for every frame, for `acplint convert`. Directions the format
// does not record are inferred as lint infers them, by running lint's
// protocol machine over the messages. It returns the format read.
func ReadFrames(r io.Reader, f Format, fn func(RawFrame) error) (Format, error) {
	src, format, _, err := open(r, f)
	if err != nil {
		return "", err
	}
	// Lint reads a message a sender split over several lines, and a run of
	// text lines, as one frame. Conversion keeps the physical lines (the
	// split stays split, for lint to report in the new format), so the
	// lines are kept as they are read, to be given out with their frame.
	var physical *physicalLines
	if b, ok := src.(*blockSource); ok {
		physical = &physicalLines{src: b.src}
		b.src = physical
	}
	var dirFinding string
	l := &linter{phase: protocol.ACP.Initial, res: &Result{Format: format}, onFinding: func(f findings.ValidationFinding) {
		if f.Rule == findings.LINTDirectionUnknown {
			dirFinding = f.Message
		}
	}}
	for {
		fr, err := src.Next()
		if errors.Is(err, io.EOF) {
			return format, nil
		}
		if err != nil {
			return format, err
		}
		dir, unknown := fr.Dir, ""
		if fr.Bad == "" && fr.Lost == "" {
			dirFinding = ""
			d := codec.DecodeLine(fr.Line)
			l.frame(fr, d)
			// Only the directions matter here: the findings, and the wire
			// bookkeeping that only makes findings (every malformed line
			// is watched to the end), would grow with the input.
			l.res.Findings = l.res.Findings[:0]
			l.wire = wireState{}
			dir = sender(d, fr.Dir)
			if dir == domain.DirUnknown {
				unknown = dirFinding
				if unknown == "" {
					unknown = whyNoSender(d)
				}
			}
		}
		lines := []Frame{fr}
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

// sender is the side that sent every message of d, as the linter settled
// it; recorded is the direction the format gave.
func sender(d *codec.Decoded, recorded domain.Direction) domain.Direction {
	if recorded != domain.DirUnknown || len(d.Msgs) == 0 {
		return recorded
	}
	dir := d.Msgs[0].Dir
	for _, m := range d.Msgs[1:] {
		if m.Dir != dir {
			return domain.DirUnknown
		}
	}
	return dir
}

// whyNoSender explains a sender lint could not infer without reporting
// ACP-LINT-001 for it.
func whyNoSender(d *codec.Decoded) string {
	if len(d.Msgs) == 0 {
		return "cannot tell which side sent this line: it holds no JSON-RPC message to infer the sender from"
	}
	m := d.Msgs[0]
	if len(d.Msgs) == 1 && (m.Kind == domain.KindResult || m.Kind == domain.KindError) {
		return fmt.Sprintf("cannot tell which side sent the response with id %s: no request with that id is pending on either side", m.ID)
	}
	return "cannot tell which side sent this line: its messages do not show one sender"
}

// physicalLines passes the frames of a line-based source through,
// keeping each until take gives it out: the lines under the frames the
// blockSource above it builds.
type physicalLines struct {
	src  source
	kept []Frame
	head int // the first of kept not yet given out
}

func (p *physicalLines) Next() (Frame, error) {
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
func (p *physicalLines) take(n int) []Frame {
	n = min(n, len(p.kept)-p.head)
	out := append([]Frame(nil), p.kept[p.head:p.head+n]...)
	clear(p.kept[p.head : p.head+n])
	p.head += n
	if p.head == len(p.kept) {
		// Start over at the front, so one array serves the whole input.
		p.kept, p.head = p.kept[:0], 0
	}
	return out
}
