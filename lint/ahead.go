package lint

import (
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/internal/slab"
	"github.com/acplint/acplint/transcript"
)

// Reading and decoding a line does not depend on anything the protocol
// machine knows, so other goroutines do it while the machine judges the
// lines before. Workers take turns reading and framing a batch of lines
// (framing is sequential: a frame may span lines), decode the batches
// they read in parallel, and the machine takes the batches in their
// order. With two cores, decoding uses whatever time the machine leaves.
// Results are decoded later, by the machine's goroutine, because which
// method a response answers is machine state.
//
// Lines travel in batches to keep the hand-over cheap; a fixed number of
// batches circulates, so memory does not depend on the transcript's
// length. Each batch reads its lines into, and decodes them into, memory
// that its next use reuses: nothing derived from a batch may be kept once
// it is recycled unless it is copied (the protocol machine copies what it
// keeps; see protocol.Phase).

// batchLines is how many frames a batch carries at most; batchesInFlight
// how many batches exist. Reading stops while all of them are in use.
// Lines in flight let the decoders run ahead of a slow stretch of the
// machine and the machine ahead of a slow batch (long lines): six batches
// of 64 lines were 10-20% faster than four, and 8 of 32 no faster than
// four of 64. Each batch holds its lines, their parse trees and typed
// messages, about 0.3 MiB live; with the memory budget of gcpolicy, six
// keep the 1 GB benchmark near 30 MiB resident.
const batchesInFlight = 6

// soloBatchesInFlight replaces batchesInFlight at GOMAXPROCS=1, where
// no worker runs: the machine's goroutine reads and decodes each batch
// itself when it asks for the next (nextSolo), and refills the batch it
// gave back last, which is still in the core's caches. With a worker
// goroutine, that one thread read and decoded every free batch before the
// machine judged the first, by when the earlier ones had left the nearer
// caches: cachegrind (1 MiB last-level cache, 8 MB realistic mix) counted
// 40% fewer last-level misses than with two batches taking turns that
// way, and 30% fewer than a second batch refilled in turn. The second
// batch is for drain, which takes the rest after a panic with the batch
// that panicked still out.
const soloBatchesInFlight = 2

// batchLines is a variable only so that tests can change it.
var batchLines = 64

// batchBytes ends a batch early once its lines hold this many bytes, so
// that a batch, whose reused memory is sized by its largest use, stays
// small when lines are long.
const batchBytes = 128 << 10

// linesBudget bounds the bytes of lines held by batches read and not yet
// recycled: a worker about to read waits while they hold more, unless no
// batch is out, so a line longer than the budget still goes through, alone.
// Lint takes several times a line's bytes to hold its parse tree and typed
// messages; without the budget, each batch in flight could hold a long
// line, batchesInFlight × that multiple × --max-line in all. Ordinary
// batches (at most batchLines lines or a little over batchBytes) never
// reach it, so reading ahead is not slowed where lines are short.
const linesBudget = 2 * batchBytes * batchesInFlight

// decodedFrame is a frame and, unless the frame is a bad wrapper, its
// decoded line. d is valid until the batch is recycled.
type decodedFrame struct {
	fr transcript.Entry
	d  *codec.Decoded
	// pre holds, one entry a message of d, the --schema check of the
	// params the worker made (nil without --schema); it shares the
	// batch's memory.
	pre []paramsCheck
}

type frameBatch struct {
	frames []decodedFrame
	// err is the source's error after the frames (io.EOF at the end); no
	// batch is read after it.
	err error
	dec codec.BatchDecoder
	// checks is the memory of the frames' pre, reused batch after batch.
	checks []paramsCheck
	// lines holds the bytes of the batch's lines (the source's line reader
	// takes them from here), until the batch is filled again.
	lines slab.Slab[byte]
	// decoded receives a value once a decoder is done with the batch.
	decoded chan struct{}
	// panicAt is the index of the frame whose decoding panicked (with
	// panicValue), -1 if none did; the frames from it on are not decoded.
	panicAt    int
	panicValue any
	// size is the bytes of the batch's lines, counted in readAhead.held
	// while the batch is out.
	size int
}

// readAhead reads frames from src and decodes them on goroutines of its
// own. The caller ranges over next and gives each batch back with
// recycle once done with its frames; after a batch with err set no more
// arrive. whole reports whether another whole line is already buffered:
// when it is not, the next read may wait on the writer (a live tap), so
// the batch is sent as it is rather than held until it fills.
//
// Each worker goroutine reads a batch, taking turns at the source, and
// then decodes it: the lines are still in the cache of the core that read
// them, where a reader of its own handed them to another core.
type readAhead struct {
	ordered chan *frameBatch // read batches, in transcript order
	free    chan *frameBatch
	done    chan struct{}

	// reading is held while a worker reads a batch, which keeps batches
	// in order; the fields after it belong to its holder.
	reading sync.Mutex
	src     *transcript.Reader
	whole   func() bool
	// filling is the batch being read, whose memory takes the lines.
	filling *frameBatch
	// schema is --schema, whose checks of params the workers make after
	// decoding (nil without): off the machine's goroutine, they cost
	// linting no wall time while a core is free.
	schema *Schema
	// finished is set once the source has ended (or failed).
	finished bool
	// solo is set at GOMAXPROCS=1, where next reads and decodes batches
	// itself and no worker runs; spare then holds the batches given back,
	// the last on top.
	solo  bool
	spare []*frameBatch

	// budget guards held and out, the bytes of lines (frameBatch.size) and
	// the number of batches read and not yet recycled, and stopped, set by
	// stop; a worker waits on roomy for linesBudget (not in solo mode,
	// where nothing reads ahead of the machine).
	budget  sync.Mutex
	roomy   sync.Cond
	held    int
	out     int
	stopped bool
	// current is the batch next gave the machine and recycle has not taken
	// back yet (machine's goroutine only), for abandon.
	current *frameBatch
}

func startReadAhead(src *transcript.Reader, whole func() bool, schema *Schema) *readAhead {
	inFlight := batchesInFlight
	if runtime.GOMAXPROCS(0) == 1 {
		inFlight = soloBatchesInFlight
	}
	ra := &readAhead{
		schema:  schema,
		ordered: make(chan *frameBatch, inFlight),
		free:    make(chan *frameBatch, inFlight),
		done:    make(chan struct{}),
		src:     src,
		whole:   whole,
		solo:    inFlight == soloBatchesInFlight,
	}
	ra.roomy.L = &ra.budget
	for range inFlight {
		b := &frameBatch{frames: make([]decodedFrame, 0, min(batchLines, 64)), decoded: make(chan struct{}, 1)}
		b.dec.SetMaxLine(src.MaxLine())
		ra.free <- b
	}
	src.SetLineAlloc(func(n int) []byte { return ra.filling.lines.Take(n) })
	if ra.solo {
		return ra
	}
	for range max(1, runtime.GOMAXPROCS(0)) {
		go ra.work()
	}
	return ra
}

// work reads batches and decodes them until the source ends or stop.
func (ra *readAhead) work() {
	if testHookWorker != nil {
		testHookWorker()
	}
	for {
		var b *frameBatch
		select {
		case b = <-ra.free:
		case <-ra.done:
			return
		}
		if !ra.read(b) {
			ra.free <- b // unused; never blocks, there is room for every batch
			return
		}
		b.dec.Reset()
		decodeFrames(b, ra.schema)
		b.decoded <- struct{}{}
	}
}

// decodeFrames decodes b's frames, and checks their params against schema
// unless it is nil: it parses every frame first and then types them, so
// that the parser's code and then the decoders' stay in the instruction
// cache (codec.BatchDecoder.ParseLine). A panic in the decoder is
// recovered and left in b for the machine's goroutine to report
// (Transcript): a worker that died would leave the machine waiting for
// the batch.
func decodeFrames(b *frameBatch, schema *Schema) {
	b.panicAt = -1
	typeFrames(b, parseFrames(b), schema)
}

// parseFrames parses b's frames and returns how many it did: all of them
// unless parsing one panicked, which it records in b.
func parseFrames(b *frameBatch) (parsed int) {
	i := 0
	defer func() {
		if v := recover(); v != nil {
			b.panicAt, b.panicValue, parsed = i, v, i
		}
	}()
	for ; i < len(b.frames); i++ {
		if df := &b.frames[i]; df.fr.Bad == "" && df.fr.Lost == "" {
			if testHookDecode != nil {
				testHookDecode(df.fr.Line.Num)
			}
			df.d = b.dec.ParseLine(df.fr.Line)
		}
	}
	return i
}

// typeFrames types the messages of the first n frames of b, parsed, and
// checks their params against schema unless it is nil. A panic is
// recorded in b, where it replaces a later one of parseFrames.
func typeFrames(b *frameBatch, n int, schema *Schema) {
	i := 0
	defer func() {
		if v := recover(); v != nil {
			b.panicAt, b.panicValue = i, v
		}
	}()
	for ; i < n; i++ {
		if df := &b.frames[i]; df.d != nil {
			if testHookType != nil {
				testHookType(df.fr.Line.Num)
			}
			df.d.TypeMessages()
			if schema != nil {
				start := len(b.checks)
				b.checks = schema.checkParams(df.d, b.checks)
				df.pre = b.checks[start:len(b.checks):len(b.checks)]
			}
		}
	}
}

// testHookDecode and testHookType, when set by a test, are called before
// each frame is parsed and typed (a nil check otherwise).
var testHookDecode, testHookType func(line int)

// testHookWorker, when set by a test, is called as each read-ahead worker
// starts, on its goroutine: the benchmarks label the workers' profile
// samples apart from the machine's with it (profile_labels_test.go).
var testHookWorker func()

// read fills b with the next frames and queues it for the machine; it
// reports false, leaving b alone, once the source has ended.
func (ra *readAhead) read(b *frameBatch) bool {
	ra.reading.Lock()
	defer ra.reading.Unlock()
	if ra.finished || !ra.waitForRoom() {
		return false
	}
	b.frames, b.err = b.frames[:0], nil
	b.lines.Reset()
	ra.filling = b
	size := 0
	for len(b.frames) < batchLines && size < batchBytes {
		// Read into its slot: an entry returned and then stored was
		// copied at every layer of the reader.
		b.frames = slices.Grow(b.frames, 1)[:len(b.frames)+1]
		df := &b.frames[len(b.frames)-1]
		df.d, df.pre = nil, nil
		if err := ra.src.NextInto(&df.fr); err != nil {
			b.frames = b.frames[:len(b.frames)-1]
			b.err = err
			break
		}
		size += frameSize(&df.fr)
		if !ra.whole() {
			break
		}
	}
	if ra.src.HoldsEntries() {
		// Lines read ahead for a later batch sit in this batch's
		// memory: give that memory up to the collector rather than
		// reuse it under them. (Rare: only text and split messages
		// make the source read ahead.)
		b.lines = slab.Slab[byte]{}
	}
	b.size = size
	if !ra.solo {
		ra.budget.Lock()
		ra.held += size
		ra.out++
		ra.budget.Unlock()
	}
	// Never blocks: there are never more batches than room. Sending under
	// the lock keeps the batches in the order they were read.
	ra.ordered <- b
	if b.err != nil {
		ra.finished = true
		close(ra.ordered)
	}
	return true
}

// waitForRoom waits, with reading held, until the batches out hold at most
// linesBudget bytes of lines or none is out; it reports false if stop came
// first. Every batch out is already queued in order, and a worker decodes
// it without taking reading, so the machine takes back each in turn (or
// drain abandons the one it kept) and the wait ends.
func (ra *readAhead) waitForRoom() bool {
	if ra.solo {
		return true
	}
	ra.budget.Lock()
	defer ra.budget.Unlock()
	for ra.held > linesBudget && ra.out > 0 && !ra.stopped {
		ra.roomy.Wait()
	}
	return !ra.stopped
}

// release takes b's lines off the budget and wakes a worker waiting for
// room.
func (ra *readAhead) release(b *frameBatch) {
	if ra.solo {
		return
	}
	ra.budget.Lock()
	ra.held -= b.size
	ra.out--
	ra.budget.Unlock()
	ra.roomy.Signal()
}

// frameSize is the memory a frame holds, for batchBytes: its line and the
// further lines of a run of text, each of which costs a codec.Line besides
// its bytes (a run of 10 000 one-byte lines is 640 KB, not 10 KB).
func frameSize(fr *transcript.Entry) int {
	n := len(fr.Line.Bytes)
	for _, x := range fr.Extra {
		n += len(x.Bytes) + int(unsafe.Sizeof(x))
	}
	return n
}

// next returns the next batch, decoded, or nil after the last one.
func (ra *readAhead) next() *frameBatch {
	if ra.solo {
		return ra.nextSolo()
	}
	b, ok := <-ra.ordered
	if !ok {
		return nil
	}
	<-b.decoded
	ra.current = b
	return b
}

// nextSolo is next at GOMAXPROCS=1: the caller's goroutine reads and
// decodes the batch.
func (ra *readAhead) nextSolo() *frameBatch {
	var b *frameBatch
	if n := len(ra.spare); n > 0 {
		b, ra.spare = ra.spare[n-1], ra.spare[:n-1]
	} else {
		b = <-ra.free // never blocks: only drain holds two batches at once
	}
	if !ra.read(b) {
		ra.spare = append(ra.spare, b)
		return nil
	}
	b.dec.Reset()
	decodeFrames(b, ra.schema)
	ra.current = <-ra.ordered // b, which read queued
	return ra.current
}

// recycle gives b back to the workers, to be read into again.
func (ra *readAhead) recycle(b *frameBatch) {
	for i := range b.frames {
		b.frames[i] = decodedFrame{} // drop what the frames point to
	}
	clear(b.checks)
	b.checks = b.checks[:0]
	if b.size > bigBatch {
		// A long line's memory, and its parse tree's in the decoder, is
		// left to the collector now rather than held by a free batch
		// until that batch's next turn.
		b.lines, b.dec = slab.Slab[byte]{}, codec.BatchDecoder{}
		b.dec.SetMaxLine(ra.src.MaxLine())
	}
	ra.current = nil
	ra.release(b)
	if ra.solo {
		ra.spare = append(ra.spare, b)
		return
	}
	ra.free <- b
}

// bigBatch is the size of lines past which recycle drops a batch's memory.
const bigBatch = 2 * batchBytes

// abandon takes the batch the machine still holds, which it will not give
// back (drain, after a panic), off the budget, so that reading goes on.
func (ra *readAhead) abandon() {
	if ra.current != nil {
		ra.release(ra.current)
		ra.current = nil
	}
}

// stop ends the workers early, waking one waiting for room; it must not be
// called twice.
func (ra *readAhead) stop() {
	close(ra.done)
	ra.budget.Lock()
	ra.stopped = true
	ra.budget.Unlock()
	ra.roomy.Broadcast()
}
