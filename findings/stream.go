package findings

import (
	"bufio"
	"errors"
	"io"
)

// Stream writes findings as they are produced, in the order they are
// added, so that a run's memory does not grow with its number of findings.
// Formats with an envelope get it written first (SARIF's header and
// rule catalog) and closed by Close; JUnit, whose suite and document counts
// precede the cases they count, keeps the cases in a spill file until the
// counts are known (report_junit.go).
//
// Unlike Write, a Stream neither sorts nor drops duplicates: both need
// every finding at once.
type Stream struct {
	format Format
	// out buffers the real output; item is a small buffer in front of it
	// into which the per-finding writers (which flush when they are done)
	// flush, so that a finding costs no system call of its own.
	out, item *bufio.Writer
	sarif     *sarifStream
	junit     *junitStream
	err       error
	closed    bool
}

// NewStream starts a report in format f on w. Of r, only Tool, Version and
// Rules are used (r.Findings is ignored; Add them). SARIF's header is
// written here; a finding whose rule is not among r.Rules (or the catalog
// when r.Rules is nil) gets no ruleIndex, since the rule descriptors
// precede the results.
func NewStream(w io.Writer, f Format, r Report) (*Stream, error) {
	return newStream(w, f, r, nil)
}

// newStream is NewStream with SARIF descriptors for rules outside r.Rules.
func newStream(w io.Writer, f Format, r Report, extraSARIF []sarifRule) (*Stream, error) {
	if _, err := ParseFormat(string(f)); err != nil {
		return nil, err
	}
	if r.Tool == "" {
		r.Tool = "acplint"
	}
	out := bufio.NewWriterSize(w, 64<<10)
	// hidden: bufio.NewWriterSize would return out itself for item.
	hidden := struct{ io.Writer }{out}
	s := &Stream{format: f, out: out, item: bufio.NewWriterSize(hidden, 4096)}
	switch f {
	case FormatSARIF:
		s.sarif, s.err = startSARIF(s.out, r, extraSARIF)
	case FormatJUnit:
		s.junit, s.err = startJUnit(r)
	}
	return s, s.err
}

// StartFile says that the findings that follow are about file, so that
// JUnit starts a suite for it (a clean one if no finding follows), unless
// the current suite is file's already. Other formats need no such mark. A
// finding about another file than the current one starts a suite of its
// own, so a caller may as well mark a file after its findings, to list it
// when it had none.
func (s *Stream) StartFile(file string) error {
	if s.err != nil || s.junit == nil {
		return s.err
	}
	s.err = s.junit.startFile(orDash(file))
	return s.err
}

// Add writes one finding. After an error every call returns it.
func (s *Stream) Add(f ValidationFinding) error {
	if s.err != nil {
		return s.err
	}
	if s.closed {
		return errors.New("findings: Add after Close")
	}
	f = normalize(f)
	// The single-finding writers flush s.item (bufio.NewWriter returns it
	// as is: it is large enough) into s.out, which writes to w when full.
	one := Report{Findings: []ValidationFinding{f}}
	switch s.format {
	case FormatText:
		s.err = writeText(s.item, one)
	case FormatJSON:
		s.err = writeJSON(s.item, one)
	case FormatGitHub:
		s.err = writeGitHub(s.item, one)
	case FormatSARIF:
		s.err = s.sarif.add(s.out, f)
	case FormatJUnit:
		s.err = s.junit.add(f)
	}
	return s.err
}

// Flush writes what is buffered to the output, for a reader that follows
// the report live. A JUnit or SARIF document is only complete after Close.
func (s *Stream) Flush() error {
	if s.err != nil {
		return s.err
	}
	if s.err = s.item.Flush(); s.err == nil {
		s.err = s.out.Flush()
	}
	return s.err
}

// Close ends the report (SARIF's and JUnit's closing elements) and flushes
// it. It releases the spill file even after an error.
func (s *Stream) Close() error {
	if s.closed {
		return s.err
	}
	s.closed = true
	if s.junit != nil {
		defer s.junit.release()
	}
	if s.err != nil {
		return s.err
	}
	switch {
	case s.sarif != nil:
		s.err = s.sarif.finish(s.out)
	case s.junit != nil:
		s.err = s.junit.finish(s.out)
	}
	if s.err == nil {
		s.err = s.Flush()
	}
	return s.err
}

// orDash names an unnamed input "-", as every report does.
func orDash(file string) string {
	if file == "" {
		return "-"
	}
	return file
}
