package tap

import (
	"io"
	"sync"
	"time"
)

// DetachedWriter writes to an io.Writer that may block for ever (a stderr
// nobody reads, a full disk, a FIFO) without ever blocking its callers:
// Write copies into a buffer of bounded size that a goroutine drains, and
// when the buffer is full, or the destination failed, bytes are counted
// and dropped. The tap's findings go through one, so that the editor's
// connection never waits on who reads them.
type DetachedWriter struct {
	dst io.Writer
	max int

	mu      sync.Mutex
	buf     []byte
	dropped int64
	err     error // the destination's first error; nothing is written after it
	closed  bool
	wake    chan struct{}
	done    chan struct{}
}

// NewDetachedWriter returns a writer that buffers up to max bytes for dst.
func NewDetachedWriter(dst io.Writer, max int) *DetachedWriter {
	w := &DetachedWriter{dst: dst, max: max, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go w.run()
	return w
}

// Write queues p whole, or drops it whole when it does not fit (so a
// finding line is never cut in two). It never blocks and never fails.
func (w *DetachedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.err != nil || len(w.buf)+len(p) > w.max {
		w.dropped += int64(len(p))
		return len(p), nil
	}
	w.buf = append(w.buf, p...)
	select {
	case w.wake <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (w *DetachedWriter) run() {
	defer close(w.done)
	var out []byte
	for {
		w.mu.Lock()
		for len(w.buf) == 0 && !w.closed {
			w.mu.Unlock()
			<-w.wake
			w.mu.Lock()
		}
		if len(w.buf) == 0 {
			w.mu.Unlock()
			return
		}
		// Swap buffers so writers append while this one is written.
		out, w.buf = w.buf, out[:0]
		w.mu.Unlock()
		_, err := w.dst.Write(out)
		if err != nil {
			w.mu.Lock()
			w.err = err
			w.dropped += int64(len(out) + len(w.buf))
			w.buf = nil
			w.mu.Unlock()
			return
		}
	}
}

// Close writes what is buffered, waiting at most timeout for the
// destination, and reports how many bytes were dropped on the way and the
// destination's error, if any. Writes after Close are dropped.
func (w *DetachedWriter) Close(timeout time.Duration) (dropped int64, err error) {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
	select {
	case <-w.done:
	case <-time.After(timeout):
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dropped + int64(len(w.buf)), w.err
}
