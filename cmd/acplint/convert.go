package main

import (
	"context"
	"fmt"

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

	reported, err := lint.Convert(in, e.stdout, lint.ConvertOptions{
		From: inFormat, To: *to, File: name, Producer: "acplint convert " + acplintVersion(),
		Report: func(f findings.ValidationFinding) {
			fmt.Fprintf(e.stderr, "%s:%d: %s: %s (%s)\n", findings.Escape(name), f.Location.Line, f.Severity, findings.Escape(f.Message), f.RuleID)
		},
	})
	if err != nil {
		e.errorf("convert: %v", err)
		return exitUsage
	}
	if reported > 0 {
		return exitFindings
	}
	return exitClean
}
