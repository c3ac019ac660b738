package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/transcript"
)

const convertDoc = `
Convert reads a transcript in any format lint reads (see 'acplint help
lint') and writes it in another, to standard output:

	acplint   acplint's transcript format (the default): a versioned header,
	          then each frame with its direction and verbatim bytes
	jsonl     {"dir":"client|agent","msg":…} lines; a frame that is not JSON
	          is kept as a string in "msg"
	ndjson    the raw frames, one per line (directions are dropped)

Frames are copied byte for byte; a frame whose direction the input format
cannot record is written with direction "unknown" to jsonl and is refused
by the acplint format (convert to jsonl instead, or record with 'acplint tap').
`

func runConvert(_ context.Context, args []string, e *env) int {
	fs := newFlagSet("convert", "acplint convert [flags] [FILE]", convertDoc, e)
	input := fs.String("input", "auto", "input `format`: auto, ndjson, jsonl, zed or acplint")
	to := fs.String("to", "acplint", "output `format`: acplint, jsonl or ndjson")
	if code, ok := parseFlags(fs, args, e); !ok {
		return code
	}
	inFormat, err := lint.ParseFormat(*input)
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
	in, done, err := openInput(name, e.stdin)
	if err != nil {
		e.errorf("convert: %v", err)
		return exitUsage
	}
	defer done()

	out := bufio.NewWriter(e.stdout)
	var write func(lint.RawFrame) error
	finish := func() error { return nil } // flushes a format's own buffering
	switch *to {
	case "acplint":
		w, err := transcript.NewWriter(out, transcript.Header{Producer: "acplint convert " + version, Started: time.Now().UTC()})
		if err != nil {
			e.errorf("convert: %v", err)
			return exitUsage
		}
		write = func(f lint.RawFrame) error {
			if f.Dir == domain.DirUnknown {
				return fmt.Errorf("%s:%d: the input does not say which side sent this frame, and the acplint format requires it; convert --to jsonl instead", name, f.Line)
			}
			return w.Write(transcript.Frame{From: f.Dir, Conn: 1, Data: f.Data})
		}
		finish = w.Flush
	case "jsonl":
		write = func(f lint.RawFrame) error {
			rec := struct {
				Dir string          `json:"dir"`
				Msg json.RawMessage `json:"msg"`
			}{Dir: f.Dir.String()}
			if json.Valid(f.Data) && len(f.Data) > 0 {
				rec.Msg = f.Data
			} else {
				s, _ := json.Marshal(string(f.Data))
				rec.Msg = s
			}
			b, err := json.Marshal(rec)
			if err != nil {
				return err
			}
			out.Write(b)
			return out.WriteByte('\n')
		}
	case "ndjson":
		write = func(f lint.RawFrame) error {
			out.Write(f.Data)
			return out.WriteByte('\n')
		}
	default:
		e.errorf("convert: unknown output format %q (want acplint, jsonl or ndjson)", *to)
		return exitUsage
	}

	bad := 0
	_, err = lint.ReadFrames(in, inFormat, func(f lint.RawFrame) error {
		if f.Bad != "" {
			bad++
			fmt.Fprintf(e.stderr, "acplint: %s:%d: skipped: %s\n", name, f.Line, f.Bad)
			return nil
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
	if bad > 0 {
		return exitFindings
	}
	return exitClean
}
