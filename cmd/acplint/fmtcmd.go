package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/findings"
)

const fmtDoc = `
Fmt rewrites a raw NDJSON transcript in acplint's canonical form, one
line at a time. A line that holds one JSON-RPC message which decodes
without any problem is re-encoded compactly: the members a type declares
in schema order, then the others ("_meta", extensions, members acplint
does not know) as they came. Fmt writes the re-encoding only when it is
provably the same JSON value as the line, with every number spelled and
every string written as before; every other line (a problem, a batch,
text, a number or string the re-encoding would change) is copied byte
for byte, so fmt never changes what a line says. Line endings ("\r\n",
a last line without one) are kept. Each problem is reported on standard
error with its line number. A line longer than --max-line is copied
through as it is read, never held, and reported as not decoded.

Exit codes: 0 every line decoded cleanly; 1 some lines have problems;
2 usage or I/O error.
`

func runFmt(_ context.Context, args []string, e *env) int {
	fs := newFlagSet("fmt", "acplint fmt [FILE|-]", fmtDoc, e)
	maxLine := fs.Int("max-line", codec.DefaultMaxLine, "longest line, in `bytes`, that is decoded; a longer one is copied through unchanged")
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
	if name == "-" && isTerminal(e.stdin) {
		fmt.Fprintln(e.stderr, stdinHint)
	}
	in, done, err := openInput(name, e.stdin)
	if err != nil {
		e.errorf("%v", err)
		return exitUsage
	}
	defer done()
	out := bufio.NewWriter(e.stdout)
	lines := codec.NewLineReader(in)
	lines.SetMaxLine(*maxLine)
	// An over-long line goes straight to the output, in order: everything
	// before it is flushed first.
	lines.SetPassLong(flushFirst{out})
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
		if l.TooLong > 0 {
			fmt.Fprintf(e.stderr, "%s:%d: the line is %d bytes, longer than --max-line %d: copied, not decoded\n", findings.Escape(name), l.Num, l.TooLong, *maxLine)
			code = exitFindings
			continue // its bytes, terminator included, are already out
		}
		d := codec.DecodeLine(l)
		for _, p := range d.Problems {
			fmt.Fprintf(e.stderr, "%s:%d: %s\n", findings.Escape(name), l.Num, findings.Escape(p.String()))
			code = exitFindings
		}
		if b, ok := codec.Reencode(d); ok {
			out.Write(b)
		} else {
			out.Write(l.Bytes)
		}
		switch {
		case l.Unterminated:
		case l.CRLF:
			out.WriteString("\r\n")
		default:
			out.WriteByte('\n')
		}
	}
	if err := out.Flush(); err != nil {
		e.errorf("fmt: %v", err)
		return exitUsage
	}
	return code
}

// flushFirst writes to a buffered writer's destination directly, after
// what the buffer holds, so a long line passes through without filling it.
type flushFirst struct{ w *bufio.Writer }

func (f flushFirst) Write(p []byte) (int, error) {
	if f.w.Buffered() > 0 {
		if err := f.w.Flush(); err != nil {
			return 0, err
		}
	}
	return f.w.Write(p)
}
