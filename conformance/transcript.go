package conformance

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/internal/jsonv"
)

// Record is one line that crossed the agent's stdio, as sent or received.
type Record struct {
	Dir  domain.Direction
	At   time.Time
	Line []byte // the bytes of the line, with its terminator when it had one
}

// Transcript keeps every line both ways in the order the client side of
// the pipe saw them: a client line when it is written, an agent line when
// it is read. That order is what a tap at the client would record, which is
// the order the protocol machine's race rules are written for.
type Transcript struct {
	mu      sync.Mutex
	records []Record
}

// add appends a line and returns its 1-based transcript line number.
func (t *Transcript) add(dir domain.Direction, line []byte) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.records = append(t.records, Record{Dir: dir, At: time.Now(), Line: bytes.Clone(line)})
	return len(t.records)
}

// Records returns a copy of the records so far.
func (t *Transcript) Records() []Record {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Record(nil), t.records...)
}

// Len is the number of records so far.
func (t *Transcript) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.records)
}

// WriteJSONL writes the transcript as direction-tagged JSON Lines, the
// format `acplint lint` reads: {"ts":…,"dir":"client->agent","msg":…}.
// A line that is one JSON object, valid UTF-8, ended by a plain newline is
// embedded as is, byte for byte; any other line (not JSON, CRLF-ended,
// unterminated) is kept verbatim as a string with its terminator.
func (t *Transcript) WriteJSONL(w io.Writer) error {
	var buf bytes.Buffer
	for _, r := range t.Records() {
		buf.Reset()
		encodeRecord(&buf, r)
		if _, err := w.Write(buf.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// JSONL returns the transcript as WriteJSONL writes it.
func (t *Transcript) JSONL() []byte {
	var b bytes.Buffer
	_ = t.WriteJSONL(&b)
	return b.Bytes()
}

func encodeRecord(b *bytes.Buffer, r Record) {
	dir := "client->agent"
	if r.Dir == domain.FromAgent {
		dir = "agent->client"
	}
	b.WriteString(`{"ts":"`)
	b.WriteString(r.At.UTC().Format("2006-01-02T15:04:05.000000Z"))
	b.WriteString(`","dir":"`)
	b.WriteString(dir)
	b.WriteString(`","msg":`)
	if body, ok := embeddable(r.Line); ok {
		b.Write(body)
	} else {
		s, _ := json.Marshal(string(r.Line))
		b.Write(s)
	}
	b.WriteString("}\n")
}

// embeddable reports whether line can be written as a raw JSON member
// without losing a byte, and returns it without its newline.
func embeddable(line []byte) ([]byte, bool) {
	body, ok := bytes.CutSuffix(line, []byte("\n"))
	if !ok || bytes.ContainsAny(body, "\r\n") || !utf8.Valid(body) {
		return nil, false
	}
	v, err := jsonv.Parse(body)
	if err != nil || v.Kind != jsonv.Object {
		return nil, false
	}
	// Leading or trailing blanks would be lost inside the wrapper's member.
	if len(body) == 0 || body[0] != '{' || body[len(body)-1] != '}' {
		return nil, false
	}
	return body, true
}

// Lines returns the JSONL lines with the given 1-based numbers, in the
// order given; numbers out of range are skipped.
func (t *Transcript) Lines(nums []int) []WindowLine {
	recs := t.Records()
	var out []WindowLine
	var b bytes.Buffer
	for _, n := range nums {
		if n < 1 || n > len(recs) {
			continue
		}
		b.Reset()
		encodeRecord(&b, recs[n-1])
		out = append(out, WindowLine{Line: n, Text: string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))})
	}
	return out
}
