package transcript

import "io"

// RejoinWork reads an NDJSON transcript through the source that rejoins
// split lines and returns the bytes it read and the bytes its search for
// split messages scanned.
func RejoinWork(r io.Reader) (read, work int64) {
	bs := NewReader(r, FormatNDJSON, 0).src.(*blockSource)
	for {
		if _, err := bs.Next(); err != nil {
			return bs.read, bs.joinWork
		}
	}
}
