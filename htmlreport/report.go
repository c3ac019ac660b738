// Package htmlreport writes what lint found as one self-contained HTML
// page: the transcript as a timeline of client and agent messages, each
// finding pinned to the message it is about, with filters, search and
// permalinks (`acplint lint -f html`, `check --html`, `tap --html`).
//
// The page is written while lint reads: each message goes into the page
// as soon as it is linted, in blocks of JSON data
// (<script type="application/json">), and each finding as soon as it is
// found, so memory does not grow with the transcript or the findings. The
// page's script, at the end, joins findings to their messages (a finding
// may come long after its message) and draws only the rows in view, so a
// transcript of 100,000 messages scrolls without freezing the browser.
//
// Every string from the transcript or a finding is untrusted. Data blocks
// are JSON with '<', '>', '&', U+2028 and U+2029 escaped (appendString),
// so no text can close its element; the page's script puts text into the
// document only as text (textContent), never as markup, and makes links
// only of the rule catalog's spec pages; the page's Content-Security-Policy
// allows its own script and style alone, and no network access at all.
package htmlreport

import (
	"bufio"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"sync"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/tap"
	"github.com/acplint/acplint/transcript"
)

// Options configure a report.
type Options struct {
	// Title heads the page; "" names it after the first file.
	Title string
	// Tool and Version name the producer in the page's footer.
	Tool, Version string
	// Redact replaces secret values, as `acplint tap --redact` does in a
	// recording (tap.Redact), in every message and finding text before it
	// is written into the page.
	Redact bool
}

// The data records, one JSON array each; the page's script (assets/
// report.js, take) reads them in this order.
//
//	["F", name]                                   a transcript starts
//	["M", line, dir, kind, method, id, session, update, time, raw]
//	                                              one message (a row)
//	["R", severity, rule, blame, line, pointer, message, spec, [[line, message]…]]
//	                                              one finding
//	["E", format, lines, messages, error]         the transcript ended
//
// dir is "c", "a" or "?"; kind one of the kinds below; raw the message as
// it was read, or 0 for a further message of the line before (a batch).
const (
	kindRequest      = "req"
	kindNotification = "note"
	kindResult       = "res"
	kindError        = "err"
	kindInvalid      = "inv"  // JSON that fits no JSON-RPC envelope
	kindText         = "text" // a line (or run of lines) that is not a message
	kindBad          = "bad"  // a record not in the transcript's format
	kindGap          = "gap"  // frames the recorder lost; raw says why
)

// A data block ends after this many bytes or records, so that the browser
// parses the page in pieces, and a block costs no more than this to write.
const (
	blockBytes   = 1 << 20
	blockRecords = 4096
)

// Writer writes one report. Its methods are not safe for concurrent use;
// errors stick, and Close returns the first.
type Writer struct {
	w    *bufio.Writer
	opts Options
	err  error

	// buf holds the record being built; inBlock and records say whether a
	// data block is open and how many records it holds, blockSize its
	// bytes so far.
	buf       []byte
	inBlock   bool
	records   int
	blockSize int

	headed   bool
	lastLine int // the line of the last message written, to spot a batch
	// rules are the rule IDs reported, whose explanations the page gets at
	// the end: bounded by the catalog.
	rules map[string]bool
	// sessionIndex caches, per params or result type, the index of its
	// SessionID field (nil when it has none).
	sessionIndex map[reflect.Type][]int
}

// New starts a report on w. Nothing is written until the first file
// starts or Close.
func New(w io.Writer, opts Options) *Writer {
	if opts.Tool == "" {
		opts.Tool = "acplint"
	}
	return &Writer{w: bufio.NewWriterSize(w, 64<<10), opts: opts, rules: map[string]bool{},
		sessionIndex: map[reflect.Type][]int{}}
}

// Lint lints one transcript, as lint.Transcript does with opts, and writes
// it and its findings into the page as they are read. OnFinding and
// OnEntry in opts are still called.
func (w *Writer) Lint(r io.Reader, opts lint.Options) (*lint.Result, error) {
	return w.LintSource(transcript.NewReader(r, opts.Format, opts.MaxLine), opts)
}

// LintSource is Lint of what src reads (lint.Source).
func (w *Writer) LintSource(src *transcript.Reader, opts lint.Options) (*lint.Result, error) {
	w.StartFile(opts.File)
	onFinding, onEntry := opts.OnFinding, opts.OnEntry
	opts.OnFinding = func(f findings.ValidationFinding) {
		w.Finding(f)
		if onFinding != nil {
			onFinding(f)
		}
	}
	opts.OnEntry = func(e transcript.Entry, msgs []*domain.Message) {
		w.Entry(e, msgs)
		if onEntry != nil {
			onEntry(e, msgs)
		}
	}
	res, err := lint.Source(src, opts)
	w.EndFile(res, err)
	return res, err
}

// StartFile says the entries and findings that follow are of the
// transcript called name.
func (w *Writer) StartFile(name string) {
	if name == "" {
		name = "-"
	}
	w.head(name)
	w.lastLine = 0
	w.buf = append(w.buf[:0], `["F",`...)
	w.buf = appendString(w.buf, name)
	w.record()
}

// EndFile ends the transcript started last: res is what lint returned, err
// the error that stopped it early (shown on the page), either may be nil.
func (w *Writer) EndFile(res *lint.Result, err error) {
	var format transcript.Format
	lines, messages := 0, 0
	if res != nil {
		format, lines, messages = res.Format, res.Lines, res.Messages
	}
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	w.buf = append(w.buf[:0], `["E",`...)
	w.buf = appendString(w.buf, string(format))
	w.buf = append(w.buf, ',')
	w.buf = strconv.AppendInt(w.buf, int64(lines), 10)
	w.buf = append(w.buf, ',')
	w.buf = strconv.AppendInt(w.buf, int64(messages), 10)
	w.buf = append(w.buf, ',')
	w.buf = appendString(w.buf, w.redactText(msg))
	w.record()
}

// Entry writes one entry of the transcript with its messages (see
// lint.Options.OnEntry): a row per message, or one for the entry when it
// holds none.
func (w *Writer) Entry(e transcript.Entry, msgs []*domain.Message) {
	switch {
	case e.Lost != "":
		w.row(e, kindGap, nil, func(b []byte) []byte { return appendString(b, e.Lost) })
	case e.Bad != "":
		w.row(e, kindBad, nil, w.rawOf(e))
	case len(msgs) == 0:
		w.row(e, kindText, nil, w.rawOf(e))
	default:
		for i, m := range msgs {
			raw := w.rawOf(e)
			if i > 0 {
				raw = func(b []byte) []byte { return append(b, '0') }
			}
			w.row(e, kindOf(m.Kind), m, raw)
		}
	}
}

// rawOf returns the writer of e's bytes as a JSON string: the line (a
// message a sender split, rebuilt) and, for a run of text lines, the
// further lines.
func (w *Writer) rawOf(e transcript.Entry) func([]byte) []byte {
	return func(b []byte) []byte {
		b = append(b, '"')
		b = appendStringBody(b, w.redact(e.Line.Bytes))
		if e.Splits == 0 {
			for _, l := range e.Extra {
				b = append(b, `\n`...)
				b = appendStringBody(b, w.redact(l.Bytes))
			}
		}
		return append(b, '"')
	}
}

func (w *Writer) row(e transcript.Entry, kind string, m *domain.Message, raw func([]byte) []byte) {
	b := append(w.buf[:0], `["M",`...)
	b = strconv.AppendInt(b, int64(e.Line.Num), 10)
	dir := e.Dir
	if m != nil {
		dir = m.Dir
	}
	switch dir {
	case domain.FromClient:
		b = append(b, `,"c",`...)
	case domain.FromAgent:
		b = append(b, `,"a",`...)
	default:
		b = append(b, `,"?",`...)
	}
	b = append(b, '"')
	b = append(b, kind...)
	b = append(b, `",`...)
	var method, id, session, update string
	if m != nil {
		method = string(m.Method)
		if len(m.ID.Raw) > 0 {
			id = string(m.ID.Raw)
		}
		session = w.sessionOf(m)
		update = updateOf(m)
	}
	b = appendString(b, method)
	b = append(b, ',')
	b = appendString(b, id)
	b = append(b, ',')
	b = appendString(b, session)
	b = append(b, ',')
	b = appendString(b, update)
	b = append(b, ',')
	b = appendString(b, e.Time)
	b = append(b, ',')
	w.buf = raw(b)
	w.record()
	w.lastLine = e.Line.Num
}

// Finding writes one finding.
func (w *Writer) Finding(f findings.ValidationFinding) {
	w.rules[f.RuleID] = true
	b := append(w.buf[:0], `["R",`...)
	b = appendString(b, f.Severity.String())
	b = append(b, ',')
	b = appendString(b, f.RuleID)
	b = append(b, ',')
	b = appendString(b, f.Blame.String())
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(f.Location.Line), 10)
	b = append(b, ',')
	b = appendString(b, f.Location.Pointer)
	b = append(b, ',')
	b = appendString(b, w.redactText(f.Message))
	b = append(b, ',')
	b = appendString(b, f.SpecURL)
	b = append(b, ",["...)
	for i, r := range f.Related {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(r.Location.Line), 10)
		b = append(b, ',')
		b = appendString(b, w.redactText(r.Message))
		b = append(b, ']')
	}
	w.buf = append(b, ']')
	w.record()
}

// record ends the record in w.buf and writes it into the open data block,
// opening one first and closing it once it is full.
func (w *Writer) record() {
	w.buf = append(w.buf, ']')
	if w.err != nil {
		return
	}
	w.head("")
	if !w.inBlock {
		w.write(`<script type="application/json" class="acp-data">[` + "\n")
		w.inBlock, w.records, w.blockSize = true, 0, 0
	} else {
		w.write(",\n")
	}
	if _, err := w.w.Write(w.buf); err != nil && w.err == nil {
		w.err = err
	}
	w.records++
	w.blockSize += len(w.buf)
	if w.records >= blockRecords || w.blockSize >= blockBytes {
		w.endBlock()
	}
	if cap(w.buf) > blockBytes {
		w.buf = nil // one huge line does not keep its buffer for ever
	}
}

func (w *Writer) endBlock() {
	if w.inBlock {
		w.write("\n]</script>\n")
		w.inBlock = false
	}
}

func (w *Writer) write(s string) {
	if w.err != nil {
		return
	}
	if _, err := w.w.WriteString(s); err != nil {
		w.err = err
	}
}

// head writes the page up to the data, once; name titles a page that has
// no title of its own.
func (w *Writer) head(name string) {
	if w.headed {
		return
	}
	w.headed = true
	title := w.opts.Title
	if title == "" && name != "" {
		title = name
	}
	if w.err == nil {
		w.err = writeHead(w.w, title, w.opts)
	}
}

// Close ends the page: the rule explanations and the script. It does not
// close the underlying writer.
func (w *Writer) Close() error {
	w.head("")
	w.endBlock()
	if w.err == nil {
		w.err = writeTail(w.w, w.opts, w.rules)
	}
	if err := w.w.Flush(); w.err == nil {
		w.err = err
	}
	if w.err != nil {
		return fmt.Errorf("writing the HTML report: %w", w.err)
	}
	return nil
}

func (w *Writer) redact(b []byte) []byte {
	if w.opts.Redact {
		return tap.Redact(b)
	}
	return b
}

func (w *Writer) redactText(s string) string {
	if w.opts.Redact && s != "" {
		return string(tap.Redact([]byte(s)))
	}
	return s
}

func kindOf(k domain.Kind) string {
	switch k {
	case domain.KindRequest:
		return kindRequest
	case domain.KindNotification:
		return kindNotification
	case domain.KindResult:
		return kindResult
	case domain.KindError:
		return kindError
	}
	return kindInvalid
}

// sessionOf is the session m is about: the sessionId of its params or, for
// a session/new result, of its result; "" when it names none (a response
// takes its request's on the page).
func (w *Writer) sessionOf(m *domain.Message) string {
	if n, ok := m.Params.(*domain.SessionNotification); ok {
		// Most messages of a transcript: spare them the reflection.
		if n == nil {
			return ""
		}
		return string(n.SessionID)
	}
	if s := w.sessionField(m.Params); s != "" {
		return s
	}
	return w.sessionField(m.Result)
}

func (w *Writer) sessionField(v any) string {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			return ""
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return ""
	}
	t := rv.Type()
	index, seen := w.sessionIndex[t]
	if !seen {
		if f, ok := t.FieldByName("SessionID"); ok && f.Type == reflect.TypeFor[domain.SessionID]() {
			index = f.Index
		}
		w.sessionIndex[t] = index
	}
	if index == nil {
		return ""
	}
	return rv.FieldByIndex(index).String()
}

// updateTags maps each session/update variant's type to its
// "sessionUpdate" value.
var updateTags = sync.OnceValue(func() map[reflect.Type]string {
	m := map[reflect.Type]string{}
	if u, ok := domain.UnionOf(reflect.TypeFor[domain.SessionUpdate]()); ok {
		for _, v := range u.Variants {
			m[v.Type] = v.Tag
		}
	}
	return m
})

// updateOf is the kind of a session/update ("agent_message_chunk"), ""
// for other messages and for an update of a kind acplint does not know
// (the page reads it from the message then).
func updateOf(m *domain.Message) string {
	n, ok := m.Params.(*domain.SessionNotification)
	if !ok || n == nil || n.Update == nil {
		return ""
	}
	return updateTags()[reflect.TypeOf(n.Update)]
}
