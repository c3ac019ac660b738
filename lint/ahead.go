package lint

import (
	"bufio"
	"bytes"

	"github.com/acplint/acplint/codec"
)

// Reading and decoding a line does not depend on anything the protocol
// machine knows, so a second goroutine does it while the machine judges
// the lines before: on a machine with two cores the two halves of the work
// overlap. Results are decoded later, by the machine's goroutine, because
// which method a response answers is machine state.
//
// Lines travel in batches to keep the hand-over cheap; a fixed number of
// batches circulates between the goroutines, so memory does not depend on
// the transcript's length, and each batch decodes into memory that its
// next use reuses.

// batchLines is how many frames a batch carries at most; batchesInFlight
// how many batches exist. Reading stops while all of them wait for the
// machine.
const (
	batchLines      = 64
	batchesInFlight = 4
)

// decodedFrame is a frame and, unless the frame is a bad wrapper, its
// decoded line. d is valid until the batch goes back to the reader.
type decodedFrame struct {
	fr Frame
	d  *codec.Decoded
}

type frameBatch struct {
	frames []decodedFrame
	// err is the source's error after the frames (io.EOF at the end); the
	// reader stops after sending it.
	err error
	dec codec.BatchDecoder
}

// readAhead reads and decodes frames from src on its own goroutine. The
// caller ranges over batches and gives each back with recycle once done
// with its frames; after a batch with err set no more arrive. whole
// reports whether another whole line is already buffered: when it is not,
// the next read may wait on the writer (a live tap), so the batch is sent
// as it is rather than held until it fills.
type readAhead struct {
	batches chan *frameBatch
	free    chan *frameBatch
	done    chan struct{}
}

func startReadAhead(src source, whole func() bool) *readAhead {
	ra := &readAhead{
		batches: make(chan *frameBatch, batchesInFlight),
		free:    make(chan *frameBatch, batchesInFlight),
		done:    make(chan struct{}),
	}
	for range batchesInFlight {
		ra.free <- &frameBatch{frames: make([]decodedFrame, 0, batchLines)}
	}
	go ra.run(src, whole)
	return ra
}

func (ra *readAhead) run(src source, whole func() bool) {
	defer close(ra.batches)
	for {
		var b *frameBatch
		select {
		case b = <-ra.free:
		case <-ra.done:
			return
		}
		b.frames, b.err = b.frames[:0], nil
		b.dec.Reset()
		for len(b.frames) < batchLines {
			fr, err := src.Next()
			if err != nil {
				b.err = err
				break
			}
			df := decodedFrame{fr: fr}
			if fr.Bad == "" {
				df.d = b.dec.DecodeLine(fr.Line)
			}
			b.frames = append(b.frames, df)
			if !whole() {
				break
			}
		}
		select {
		case ra.batches <- b:
		case <-ra.done:
			return
		}
		if b.err != nil {
			return
		}
	}
}

// recycle gives b back to the reader.
func (ra *readAhead) recycle(b *frameBatch) { ra.free <- b }

// stop ends the reader early; it must not be called twice.
func (ra *readAhead) stop() { close(ra.done) }

// wholeLineBuffered reports whether br holds a complete line, so that
// reading it cannot wait on the writer.
func wholeLineBuffered(br *bufio.Reader) func() bool {
	return func() bool {
		buf, _ := br.Peek(br.Buffered())
		return bytes.IndexByte(buf, '\n') >= 0
	}
}
