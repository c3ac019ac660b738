package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/transcript"
)

// FuzzLiveFrames: the live linter process's frame decoder takes any bytes
// on its stdin without a panic and without memory beyond maxLine a frame;
// the frames it gives encode to bytes it decodes to the same frames; and
// lint reads them, gaps and all, without a panic of its own (lintLive
// would hide one behind a finding).
func FuzzLiveFrames(f *testing.F) {
	seed := func(frames ...transcript.Frame) []byte {
		var b []byte
		for _, fr := range frames {
			b = appendLiveFrame(b, fr)
			if fr.Lost == nil {
				b = append(b, fr.Data...)
			}
		}
		return b
	}
	f.Add(seed(
		transcript.Frame{From: domain.FromClient, T: 5, Conn: 1, Data: []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`)},
		transcript.Frame{From: domain.FromAgent, T: 6, Conn: 1, Data: []byte(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}`)},
		transcript.Frame{T: 8, Conn: 1, Lost: &transcript.Lost{Frames: 3, Bytes: 99, Reason: "fell behind"}},
		transcript.Frame{From: domain.FromClient, T: -1, Conn: -7, Data: []byte{}},
	))
	f.Add([]byte{liveGap, 0x80})
	f.Add([]byte{byte(domain.FromAgent), 2, 2, 0xff, 0xff, 0xff, 0xff, 0x0f})
	const maxLine = 1 << 10
	f.Fuzz(func(t *testing.T, wire []byte) {
		frames := decodeLiveFrames(t, wire, maxLine)
		for _, fr := range frames {
			if fr.Lost == nil && len(fr.Data) > maxLine {
				t.Fatalf("a frame of %d bytes, over maxLine %d", len(fr.Data), maxLine)
			}
		}
		again := decodeLiveFrames(t, seed(frames...), maxLine)
		if len(again) != len(frames) {
			t.Fatalf("%d frames encode to %d", len(frames), len(again))
		}
		for i := range frames {
			a, b := frames[i], again[i]
			if a.From != b.From || a.T != b.T || a.Conn != b.Conn || !bytes.Equal(a.Data, b.Data) || (a.Lost == nil) != (b.Lost == nil) || (a.Lost != nil && *a.Lost != *b.Lost) {
				t.Fatalf("frame %d: %+v encodes to %+v", i, a, b)
			}
		}
		given := false
		next := func() ([]transcript.Frame, error) {
			if given {
				return nil, io.EOF
			}
			given = true
			return frames, nil
		}
		src := transcript.NewFrameReader(next, time.Unix(0, 0), maxLine)
		if _, err := lint.Source(src, lint.Options{File: "tap"}); err != nil {
			t.Logf("lint: %v", err)
		}
	})
}

// decodeLiveFrames reads the frames in wire, up to what ends it.
func decodeLiveFrames(t *testing.T, wire []byte, maxLine int) []transcript.Frame {
	r := &liveFrameReader{br: bufio.NewReaderSize(bytes.NewReader(wire), 16), maxLine: maxLine}
	var out []transcript.Frame
	for {
		b, err := r.next()
		for _, fr := range b {
			if fr.Data != nil {
				fr.Data = bytes.Clone(fr.Data)
			}
			out = append(out, fr)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, errBadLiveFrame) && err.Error() != "binary: varint overflows a 64-bit integer" {
				t.Fatalf("an error of its own: %v", err)
			}
			return out
		}
	}
}
