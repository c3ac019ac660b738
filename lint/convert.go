package lint

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"time"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/transcript"
)

// ConvertFormats are the formats Convert writes.
var ConvertFormats = []string{"acplint", "jsonl", "ndjson"}

// ConvertOptions configure Convert.
type ConvertOptions struct {
	// From is the input's format; transcript.FormatAuto (or "") detects it.
	From transcript.Format
	// To is one of ConvertFormats.
	To string
	// File names the input in reported findings.
	File string
	// Producer goes into the header of the acplint format.
	Producer string
	// Report, when set, gets each line that was skipped (ACP-LINT-002 for
	// a line that is not a frame of its format, ACP-LINT-004 for a gap or
	// a line too long) or written without a direction (ACP-LINT-001).
	Report func(findings.ValidationFinding)
}

// Convert reads a transcript in any format lint reads and writes its frames
// to w in opts.To, byte for byte, with their directions (inferred as lint
// infers them where the input does not record them). It returns the number
// of lines it reported. It fails before reading anything when opts.To is
// not a format it writes; an error writing w ends the conversion.
func Convert(r io.Reader, w io.Writer, opts ConvertOptions) (reported int, err error) {
	out := bufio.NewWriter(w)
	var write func(transcript.RawFrame) error
	finish := func() error { return nil } // flushes a format's own buffering
	recordsDirections := true
	switch opts.To {
	case "acplint":
		tw, err := transcript.NewWriter(out, transcript.Header{Producer: opts.Producer, Started: time.Now().UTC()})
		if err != nil {
			return 0, err
		}
		write = func(f transcript.RawFrame) error {
			// A frame of the acplint format is one wire line, as tap
			// records it: a frame holding several is written as they were.
			for line := range bytes.SplitSeq(f.Data, []byte("\n")) {
				if err := tw.Write(transcript.Frame{From: f.Dir, Conn: 1, Data: line}); err != nil {
					return err
				}
			}
			return nil
		}
		finish = tw.Flush
	case "jsonl":
		var rec, line []byte
		write = func(f transcript.RawFrame) error {
			rec = append(rec[:0], `{"dir":"`...)
			rec = append(rec, f.Dir.String()...)
			rec = append(rec, `","msg":`...)
			line = append(append(line[:0], f.Data...), '\n')
			rec = transcript.AppendJSONLMessage(rec, line)
			rec = append(rec, "}\n"...)
			_, err := out.Write(rec)
			return err
		}
	case "ndjson":
		recordsDirections = false
		write = func(f transcript.RawFrame) error {
			out.Write(f.Data)
			return out.WriteByte('\n')
		}
	default:
		return 0, fmt.Errorf("unknown output format %q (want acplint, jsonl or ndjson)", opts.To)
	}

	report := func(line int, rule *findings.Rule, msg string) {
		reported++
		if opts.Report != nil {
			opts.Report(findings.New(rule, findings.Location{File: opts.File, Line: line}, msg))
		}
	}
	_, err = transcript.ReadFrames(r, opts.From, InferSenders(), func(f transcript.RawFrame) error {
		switch {
		case f.Bad != "":
			report(f.Line, findings.LINTBadWrapper, "skipped: "+f.Bad)
			return nil
		case f.Lost != "":
			report(f.Line, findings.LINTFramesLost, "skipped: "+f.Lost)
			return nil
		case f.Dir == domain.DirUnknown && recordsDirections:
			report(f.Line, findings.LINTDirectionUnknown, f.Unknown+`; written with direction "unknown"`)
		}
		return write(f)
	})
	if ferr := finish(); err == nil {
		err = ferr
	}
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	return reported, err
}
