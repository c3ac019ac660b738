package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/transcript"
)

const convertDoc = `
Convert reads a transcript in any format lint reads (see 'acplint help
lint') and writes it in another, to standard output:

	acplint   acplint's transcript format (the default): a versioned header,
	          then each frame with its direction and verbatim bytes
	jsonl     {"dir":"client|agent|unknown","msg":…} lines: a frame that is
	          one JSON object is embedded byte for byte, white space and all;
	          any other frame is a JSON string of its bytes and terminator
	          (bytes that are not UTF-8 are kept as they are, which acplint
	          reads back exactly)
	ndjson    the raw frames, one per line (directions are dropped)

Frames are copied byte for byte, and whatever convert writes, convert and
lint read back as the same frames. Where the input does not record which
side sent a frame (raw NDJSON), convert infers it as lint does; a frame
whose sender nobody can tell is written with direction "unknown" (lint
infers it again from there) and reported on standard error as ACP-LINT-001
with its line. Lines that are not frames of the input's format
(ACP-LINT-002), and gaps a recorder marked or lines longer than acplint
reads (ACP-LINT-004), are reported and skipped.

Exit codes: 0 every frame converted with its direction; 1 some lines were
reported; 2 usage or I/O error.
`

func runConvert(_ context.Context, args []string, e *env) int {
	fs := newFlagSet("convert", "acplint convert [flags] [FILE]", convertDoc, e)
	input := fs.String("input", "auto", "input `format`: auto, ndjson, jsonl, zed or acplint")
	to := fs.String("to", "acplint", "output `format`: acplint, jsonl or ndjson")
	if code, ok := parseFlags(fs, args, e); !ok {
		return code
	}
	inFormat, err := transcript.ParseFormat(*input)
	if err != nil {
		e.errorf("convert: %v", err)
		return exitUsage
	}
	if fs.NArg() > 1 {
		e.errorf("convert: one input at a time")
		return exitUsage
	}
	name := "-"
	if fs.NArg() == 1 {
		name = fs.Arg(0)
	}
	if name == "-" && isTerminal(e.stdin) {
		fmt.Fprintln(e.stderr, stdinHint)
	}
	in, done, err := openInput(name, e.stdin)
	if err != nil {
		e.errorf("convert: %v", err)
		return exitUsage
	}
	defer done()

	out := bufio.NewWriter(e.stdout)
	var write func(transcript.RawFrame) error
	finish := func() error { return nil } // flushes a format's own buffering
	recordsDirections := true
	switch *to {
	case "acplint":
		w, err := transcript.NewWriter(out, transcript.Header{Producer: "acplint convert " + version, Started: time.Now().UTC()})
		if err != nil {
			e.errorf("convert: %v", err)
			return exitUsage
		}
		write = func(f transcript.RawFrame) error {
			// A frame of the acplint format is one wire line, as tap
			// records it: a frame holding several is written as they were.
			for line := range bytes.SplitSeq(f.Data, []byte("\n")) {
				if err := w.Write(transcript.Frame{From: f.Dir, Conn: 1, Data: line}); err != nil {
					return err
				}
			}
			return nil
		}
		finish = w.Flush
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
		e.errorf("convert: unknown output format %q (want acplint, jsonl or ndjson)", *to)
		return exitUsage
	}

	reported := 0
	report := func(line int, rule *findings.Rule, msg string) {
		reported++
		fmt.Fprintf(e.stderr, "%s:%d: %s: %s (%s)\n", findings.Escape(name), line, rule.Severity, findings.Escape(msg), rule.ID)
	}
	_, err = transcript.ReadFrames(in, inFormat, lint.InferSenders(), func(f transcript.RawFrame) error {
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
	if err != nil {
		e.errorf("convert: %v", err)
		return exitUsage
	}
	if reported > 0 {
		return exitFindings
	}
	return exitClean
}
