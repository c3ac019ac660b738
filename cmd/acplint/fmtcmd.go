package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/acplint/acplint/codec"
)

const fmtDoc = `
Fmt decodes each line of a raw NDJSON transcript into typed ACP messages
and writes it back out re-encoded, one message per line. Decoding is
lossless: "_meta", members acplint does not know and extension payloads
come out as they went in. Lines that do not decode are copied unchanged,
and each problem is reported on standard error with its line number.

Exit codes: 0 every line decoded cleanly; 1 some lines have problems;
2 usage or I/O error.
`

func runFmt(_ context.Context, args []string, e *env) int {
	fs := newFlagSet("fmt", "acplint fmt [FILE|-]", fmtDoc, e)
	if code, ok := parseFlags(fs, args, e); !ok {
		return code
	}
	if fs.NArg() > 1 {
		e.errorf("fmt: at most one FILE; run 'acplint help fmt' for usage")
		return exitUsage
	}
	name := "-"
	if fs.NArg() == 1 {
		name = fs.Arg(0)
	}
	in, done, err := openInput(name, e.stdin)
	if err != nil {
		e.errorf("%v", err)
		return exitUsage
	}
	defer done()
	out := bufio.NewWriter(e.stdout)
	lines := codec.NewLineReader(in)
	code := exitClean
	for {
		l, err := lines.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			e.errorf("%s: %v", name, err)
			return exitUsage
		}
		d := codec.DecodeLine(l)
		for _, p := range d.Problems {
			fmt.Fprintf(e.stderr, "%s:%d: %s\n", name, l.Num, p)
			code = exitFindings
		}
		if len(d.Msgs) != 1 || d.Msgs[0].Kind == 0 {
			out.Write(l.Bytes) // keep what cannot be re-encoded exactly as it was
		} else {
			out.Write(codec.Encode(d.Msgs[0]))
		}
		out.WriteByte('\n')
	}
	if err := out.Flush(); err != nil {
		e.errorf("fmt: %v", err)
		return exitUsage
	}
	return code
}
