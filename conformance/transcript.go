package conformance

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/transcript"
)

// Record is one line that crossed the agent's stdio, as sent or received.
type Record struct {
	Dir  domain.Direction
	At   time.Time
	Line []byte // the bytes of the line, with its terminator when it had one
	// lostBytes, when positive, makes this the record of a line the harness
	// did not keep (longer than Options.MaxLine): Line is then nil.
	lostBytes int64
}

// Bounds of what a transcript keeps, whatever the agent writes. The spill
// file holds the run from its start, which is where the requests of a
// failure are; the ring holds the most recent records after that, which is
// where the failure shows. Everything between is counted, not kept.
const (
	defaultSpillMax  = 64 << 20 // bytes of encoded records on disk per run
	defaultRingMax   = 1024     // records kept in memory after the spill is full
	defaultRingBytes = 8 << 20  // bytes of those records
	// indexEvery: the spill's offset is remembered for every indexEvery-th
	// record, so that a window is found by a short scan, not a full one.
	indexEvery = 64
	// maxWindowText is the most of one line a verdict's window shows.
	maxWindowText = 16 << 10
)

// Transcript keeps the lines both ways in the order the client side of
// the pipe saw them: a client line when it is written, an agent line when
// it is read. That order is what a tap at the client would record, which is
// the order the protocol machine's race rules are written for.
//
// Memory and disk are bounded whatever the agent writes: each record is
// encoded once, as it arrives, and goes to the live lint (which judges the
// whole run), to a spill file of at most spillMax bytes (the run from its
// start) and, once that is full, to a ring of the most recent records. A
// transcript written out is the spill, then a gap record counting the lines
// dropped between, then the ring. The zero value is ready to use.
type Transcript struct {
	mu sync.Mutex
	n  int // records so far

	spill        *os.File // unlinked at creation; nil if it could not be made
	spillW       *bufio.Writer
	spillTried   bool
	spillBytes   int64
	spillRecords int     // records 1..spillRecords are the spill's first lines
	spillLines   int     // lines in the spill file
	spillIndex   []int64 // offset of file line i*indexEvery+1
	// tailFirst, once the tail was moved to the spill (finish), is the
	// record number of its first record, and tailLine that record's line in
	// the file; 0 before.
	tailFirst, tailLine int
	spillFull           bool
	spillMax            int64

	ring                  []Record // circular, ringLen records from ringStart
	ringStart, ringLen    int
	ringBytes             int
	ringMax, ringBytesMax int
	dropped               int64 // records between the spill and the ring
	droppedBytes          int64
	enc                   bytes.Buffer
	live                  *liveLint
	closed                bool
	spillErr              error
}

// add appends a line and returns its 1-based transcript line number and the
// time it was recorded.
func (t *Transcript) add(dir domain.Direction, line []byte) (int, time.Time) {
	return t.addRecord(Record{Dir: dir, At: time.Now(), Line: line})
}

// addLost records a line of n bytes that was not kept.
func (t *Transcript) addLost(dir domain.Direction, n int64) (int, time.Time) {
	return t.addRecord(Record{Dir: dir, At: time.Now(), lostBytes: n})
}

func (t *Transcript) addRecord(r Record) (int, time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n++
	if t.closed {
		return t.n, r.At
	}
	t.enc.Reset()
	encodeRecord(&t.enc, r)
	defer t.releaseLongRecord()
	if t.live != nil {
		t.live.write(t.enc.Bytes())
	}
	t.openSpill()
	if !t.spillFull && t.spill != nil && t.spillBytes+int64(t.enc.Len()) <= t.spillMax {
		t.spillWrite(t.enc.Bytes())
		t.spillRecords++
		return t.n, r.At
	}
	t.spillFull = true
	r.Line = bytes.Clone(r.Line)
	t.pushRing(r)
	return t.n, r.At
}

// maxKeptEncoding is the largest buffer a Transcript keeps for encoding
// its next record.
const maxKeptEncoding = 1 << 20

// releaseLongRecord drops the encoding buffer when a long line grew it: a
// check keeps the transcripts of its runs until it reports, and each
// would hold the buffer of its longest line (up to --max-line, and twice
// that as the buffer grew) for nothing.
func (t *Transcript) releaseLongRecord() {
	if t.enc.Cap() > maxKeptEncoding {
		t.enc = bytes.Buffer{}
	}
}

// spillWrite appends one encoded line to the spill file.
func (t *Transcript) spillWrite(line []byte) {
	if t.spillLines%indexEvery == 0 {
		t.spillIndex = append(t.spillIndex, t.spillBytes)
	}
	if _, err := t.spillW.Write(line); err != nil && t.spillErr == nil {
		t.spillErr = err
	}
	t.spillBytes += int64(len(line))
	t.spillLines++
}

// openSpill creates the spill file on first use. It is unlinked at once:
// nothing is left on disk however acplint ends, and nobody else can open
// it (it is created 0600 in any case).
func (t *Transcript) openSpill() {
	if t.spillTried {
		return
	}
	t.spillTried = true
	if t.spillMax == 0 {
		t.spillMax = defaultSpillMax
	}
	if t.ringMax == 0 {
		t.ringMax, t.ringBytesMax = defaultRingMax, defaultRingBytes
	}
	f, err := os.CreateTemp("", "acplint-check-transcript-*.jsonl")
	if err != nil {
		t.spillErr = err
		return
	}
	// Where an open file cannot be removed (Windows), release removes it.
	_ = os.Remove(f.Name())
	t.spill = f
	t.spillW = bufio.NewWriterSize(f, 64<<10)
}

// pushRing adds r to the ring, dropping the oldest records beyond its
// bounds (always keeping r itself).
func (t *Transcript) pushRing(r Record) {
	if t.ring == nil {
		t.ring = make([]Record, t.ringMax)
	}
	size := len(r.Line)
	for t.ringLen > 0 && (t.ringLen == len(t.ring) || t.ringBytes+size > t.ringBytesMax) {
		old := &t.ring[t.ringStart]
		t.dropped++
		t.droppedBytes += int64(len(old.Line)) + old.lostBytes
		t.ringBytes -= len(old.Line)
		*old = Record{}
		t.ringStart = (t.ringStart + 1) % len(t.ring)
		t.ringLen--
	}
	t.ring[(t.ringStart+t.ringLen)%len(t.ring)] = r
	t.ringLen++
	t.ringBytes += size
}

// Len is the number of records so far.
func (t *Transcript) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.n
}

// Dropped is the number of records that were neither spilled nor kept in
// the ring: a transcript written out has a gap record in their place.
func (t *Transcript) Dropped() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dropped
}

// startLint judges every record from now on with the protocol machine, as
// it is recorded, so that findings cover the whole run even when the
// transcript does not keep it all.
func (t *Transcript) startLint() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.live = startLiveLint()
}

// finish ends the run's transcript: nothing is recorded after it. The
// tail moves from memory to the spill file, after a gap record when lines
// were dropped, so that a transcript kept for the verdict holds no memory
// beyond its index. It returns the live lint's findings (nil when lint
// was not started).
func (t *Transcript) finish() []findings.ValidationFinding {
	t.mu.Lock()
	t.closed = true
	live := t.live
	t.live = nil
	if t.spill != nil && t.ringLen > 0 {
		t.enc.Reset()
		if t.dropped > 0 {
			encodeGap(&t.enc, t.ring[t.ringStart].At, t.dropped, t.droppedBytes)
			t.spillWrite(t.enc.Bytes())
		}
		t.tailFirst, t.tailLine = t.n-t.ringLen+1, t.spillLines+1
		for i := range t.ringLen {
			t.enc.Reset()
			encodeRecord(&t.enc, t.ring[(t.ringStart+i)%len(t.ring)])
			t.spillWrite(t.enc.Bytes())
		}
		t.ring, t.ringStart, t.ringLen, t.ringBytes = nil, 0, 0, 0
	}
	t.mu.Unlock()
	if live == nil {
		return nil
	}
	return live.finish()
}

// release frees the spill file and the ring; the transcript then reads as
// empty, though Len still counts its records.
func (t *Transcript) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	t.ring, t.ringStart, t.ringLen, t.ringBytes = nil, 0, 0, 0
	if t.spill != nil {
		name := t.spill.Name()
		t.spill.Close()
		_ = os.Remove(name) // already gone where unlinking an open file works
		t.spill, t.spillW = nil, nil
		t.spillRecords, t.spillLines, t.spillBytes, t.spillIndex = 0, 0, 0, nil
		t.tailFirst, t.tailLine = 0, 0
	}
}

// WriteJSONL writes the transcript as direction-tagged JSON Lines, the
// format `acplint lint` reads: {"ts":…,"dir":"client->agent","msg":…}.
// A line that is one JSON object, valid UTF-8, ended by a plain newline is
// embedded as is, byte for byte; any other line (not JSON, CRLF-ended,
// unterminated) is kept verbatim as a string with its terminator. Records
// that were not kept are one gap record: {"ts":…,"lost":{…}}.
func (t *Transcript) WriteJSONL(w io.Writer) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.spillErr != nil && t.spill != nil {
		return fmt.Errorf("the run's transcript could not be kept: %w", t.spillErr)
	}
	if t.spill != nil {
		if err := t.spillW.Flush(); err != nil {
			return err
		}
		if _, err := io.Copy(w, io.NewSectionReader(t.spill, 0, t.spillBytes)); err != nil {
			return err
		}
	}
	// The tail still in memory (finish moves it to the spill).
	var buf bytes.Buffer
	if t.dropped > 0 && t.ringLen > 0 {
		encodeGap(&buf, t.ring[t.ringStart].At, t.dropped, t.droppedBytes)
		if _, err := w.Write(buf.Bytes()); err != nil {
			return err
		}
	}
	for i := range t.ringLen {
		buf.Reset()
		encodeRecord(&buf, t.ring[(t.ringStart+i)%len(t.ring)])
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
	if r.lostBytes > 0 {
		encodeLost(b, r.At, 1, r.lostBytes, "the line is longer than the longest line acplint check keeps (--max-line)")
		return
	}
	dir := "client->agent"
	if r.Dir == domain.FromAgent {
		dir = "agent->client"
	}
	b.WriteString(`{"ts":"`)
	b.WriteString(r.At.UTC().Format("2006-01-02T15:04:05.000000Z"))
	b.WriteString(`","dir":"`)
	b.WriteString(dir)
	b.WriteString(`","msg":`)
	b.Write(transcript.AppendJSONLMessage(b.AvailableBuffer(), r.Line))
	b.WriteString("}\n")
}

func encodeGap(b *bytes.Buffer, at time.Time, frames, n int64) {
	encodeLost(b, at, frames, n, "acplint check keeps the start of a run and its most recent lines; the lines between were judged, not kept")
}

// encodeLost writes a gap record, named as acplint's own recordings name
// them ("lost"): lint reports it instead of taking it for traffic.
func encodeLost(b *bytes.Buffer, at time.Time, frames, n int64, reason string) {
	r, _ := json.Marshal(reason)
	fmt.Fprintf(b, `{"ts":"%s","lost":{"frames":%d,"bytes":%d,"reason":%s}}`+"\n",
		at.UTC().Format("2006-01-02T15:04:05.000000Z"), frames, n, r)
}

// Lines returns the JSONL lines with the given 1-based numbers, in the
// order given; numbers out of range, and lines the transcript did not
// keep, are skipped.
func (t *Transcript) Lines(nums []int) []WindowLine {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []WindowLine
	var b bytes.Buffer
	for _, n := range nums {
		var text []byte
		switch {
		case n < 1 || n > t.n:
			continue
		case n <= t.spillRecords:
			text = t.spillLine(n)
		case t.tailFirst > 0 && n >= t.tailFirst:
			text = t.spillLine(t.tailLine + n - t.tailFirst)
		case n > t.n-t.ringLen:
			b.Reset()
			encodeRecord(&b, t.ring[(t.ringStart+n-(t.n-t.ringLen)-1)%len(t.ring)])
			text = b.Bytes()
		}
		if text == nil {
			continue
		}
		text = bytes.TrimSuffix(text, []byte("\n"))
		if len(text) > maxWindowText {
			// A window is for reading: a line of megabytes is shown by its
			// start.
			text = fmt.Appendf(text[:maxWindowText:maxWindowText], "… [%d more bytes]", len(text)-maxWindowText)
		}
		out = append(out, WindowLine{Line: n, Text: string(text)})
	}
	return out
}

// spillLine reads line n back from the spill file: from the nearest
// indexed offset, at most indexEvery lines.
func (t *Transcript) spillLine(n int) []byte {
	if err := t.spillW.Flush(); err != nil {
		return nil
	}
	i := (n - 1) / indexEvery
	off := t.spillIndex[i]
	br := bufio.NewReader(io.NewSectionReader(t.spill, off, t.spillBytes-off))
	var line []byte
	for k := i*indexEvery + 1; k <= n; k++ {
		var err error
		line, err = br.ReadBytes('\n')
		if err != nil {
			return nil
		}
	}
	return line
}

// liveLint judges records as they are recorded: lint reads them from a
// pipe in a goroutine of its own. The pipe has no buffer of its own, so a
// lint that falls behind slows the recording (and, through the stdout
// pipe, the agent) instead of piling records up in memory.
type liveLint struct {
	pw   *io.PipeWriter
	w    *bufio.Writer
	err  error
	done chan struct{}
	res  []findings.ValidationFinding
}

func startLiveLint() *liveLint {
	pr, pw := io.Pipe()
	l := &liveLint{pw: pw, w: bufio.NewWriterSize(pw, 64<<10), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		l.res = lintTranscript(pr, "")
		// Anything written after lint stopped reading fails at once
		// instead of blocking the recorder.
		pr.Close()
	}()
	return l
}

func (l *liveLint) write(rec []byte) {
	if l.err == nil {
		_, l.err = l.w.Write(rec)
	}
}

func (l *liveLint) finish() []findings.ValidationFinding {
	if l.err == nil {
		l.err = l.w.Flush()
	}
	l.pw.Close()
	<-l.done
	return l.res
}
