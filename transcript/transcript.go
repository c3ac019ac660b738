// Package transcript reads transcripts in every format acplint lints (raw
// NDJSON, direction-tagged JSON Lines, Zed's log array, and its own) as
// Entries (Reader, ReadFrames), and writes and reads acplint's canonical
// transcript format, written by `acplint tap --record` and `acplint
// convert`.
//
// acplint's own transcript is JSON Lines. The first line is a header:
//
//	{"format":"acplint-transcript","version":1,"producer":"acplint devel",
//	 "started":"2026-11-23T10:00:00Z","redacted":false}
//
// Every other line is one frame, in the order the recorder saw them:
//
//	{"t":1520000,"conn":1,"from":"client","frame":"{\"jsonrpc\":\"2.0\",…}"}
//
// t is nanoseconds since "started" on a monotonic clock; conn numbers the
// connection (a recorder may see several); from is "client" or "agent"
// ("unknown" when the frame was converted from a format without
// directions and nobody could tell its sender);
// frame is the line exactly as it crossed the pipe, without its "\n", as a
// JSON string even when it is not JSON. A frame that is not valid UTF-8
// cannot be a JSON string and is stored base64-encoded in "frame_b64"
// instead. The format is versioned: readers reject versions they do not
// know rather than guess.
//
// A recorder that could not keep every frame (it fell behind, or a line
// was longer than it keeps) writes a gap record where the frames are
// missing, so a reader knows the recording is incomplete there:
//
//	{"t":1530000,"conn":1,"lost":{"frames":3,"bytes":70000,"reason":"…"}}
package transcript

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/internal/jsonv"
)

// FormatName and Version identify the format in the header.
const (
	FormatName = "acplint-transcript"
	Version    = 1
)

// Header is the first line of a transcript.
type Header struct {
	Format   string    `json:"format"`
	Version  int       `json:"version"`
	Producer string    `json:"producer"`
	Started  time.Time `json:"started"`
	// Redacted says secrets were replaced in the frames (tap --redact);
	// the traffic itself was forwarded unchanged.
	Redacted bool `json:"redacted"`
	// Command is the agent command line, when the recorder started it.
	Command []string `json:"command,omitempty"`
}

// Frame is one line that crossed the connection.
type Frame struct {
	From domain.Direction
	// T is the time since the header's Started, from a monotonic clock.
	T    time.Duration
	Conn int
	// Data is the line without its trailing "\n" (a "\r" stays).
	Data []byte
	// Lost, when set, makes this a gap record: frames the recorder did not
	// keep at this point. From and Data are then unset.
	Lost *Lost
}

// Lost describes frames a recorder dropped instead of recording.
type Lost struct {
	Frames int64  `json:"frames"`
	Bytes  int64  `json:"bytes"`
	Reason string `json:"reason"`
}

type wireFrame struct {
	T        int64   `json:"t"`
	Conn     int     `json:"conn"`
	From     string  `json:"from,omitempty"`
	Frame    *string `json:"frame,omitempty"`
	FrameB64 *string `json:"frame_b64,omitempty"`
	Lost     *Lost   `json:"lost,omitempty"`
}

// Writer writes a transcript.
type Writer struct {
	w   *bufio.Writer
	err error
}

// NewWriter writes h and returns a writer for the frames. Format and
// Version are filled in.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	h.Format, h.Version = FormatName, Version
	tw := &Writer{w: bufio.NewWriterSize(w, 64<<10)}
	b, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	tw.write(b)
	return tw, tw.Flush()
}

func (tw *Writer) write(b []byte) {
	if tw.err != nil {
		return
	}
	if _, err := tw.w.Write(b); err != nil {
		tw.err = err
		return
	}
	tw.err = tw.w.WriteByte('\n')
}

// Write appends one frame. Errors stick: after one, Write does nothing and
// Flush returns it.
func (tw *Writer) Write(f Frame) error {
	if f.Lost != nil {
		b, err := json.Marshal(wireFrame{T: int64(f.T), Conn: f.Conn, Lost: f.Lost})
		if err != nil {
			return err
		}
		tw.write(b)
		return tw.err
	}
	if tw.err != nil {
		return tw.err
	}
	// The frame is escaped straight into the buffered writer, not built
	// whole first: a line of 60 MiB of NUL bytes is 360 MiB of JSON, and a
	// recorder must not hold that (or twice that, with a marshaller's
	// growing buffer) to write it.
	w := tw.w
	text := utf8.Valid(f.Data)
	w.Write(appendFrameHead(w.AvailableBuffer(), f, text))
	if text {
		writeJSONString(w, f.Data)
	} else {
		enc := base64.NewEncoder(base64.StdEncoding, w)
		enc.Write(f.Data)
		enc.Close()
	}
	w.WriteString(`"}`)
	tw.err = w.WriteByte('\n')
	return tw.err
}

// maxFrameFraming bounds what Write puts around a frame's data: the
// members' names, the time, the connection and the sender.
const maxFrameFraming = 128

// writtenLen is the length of the line Write makes of data frame f, its
// newline excluded, counted in bounded pieces without holding the line.
func writtenLen(f Frame) int64 {
	var head [maxFrameFraming]byte
	text := utf8.Valid(f.Data)
	n := len(appendFrameHead(head[:0], f, text)) + len(`"}`)
	if !text {
		return int64(n) + int64(base64.StdEncoding.EncodedLen(len(f.Data)))
	}
	total := int64(n)
	// The zero Mode escapes byte by byte, as writeJSONString relies on, so
	// the pieces may end anywhere.
	const piece = 4096
	buf := make([]byte, 0, piece*jsonv.MaxEscapedLen)
	for b := f.Data; len(b) > 0; {
		k := min(len(b), piece)
		total += int64(len(jsonv.AppendStringBody(buf[:0], b[:k], 0)))
		b = b[k:]
	}
	return total
}

// appendFrameHead appends what Write puts before a data frame's data: the
// time, connection and sender, and the name of the member the data is in
// (frame for text, frame_b64 for other bytes).
func appendFrameHead(dst []byte, f Frame, text bool) []byte {
	dst = append(dst, `{"t":`...)
	dst = strconv.AppendInt(dst, int64(f.T), 10)
	dst = append(dst, `,"conn":`...)
	dst = strconv.AppendInt(dst, int64(f.Conn), 10)
	dst = append(dst, `,"from":"`...)
	dst = append(dst, f.From.String()...)
	if text {
		return append(dst, `","frame":"`...)
	}
	return append(dst, `","frame_b64":"`...)
}

// writeJSONString writes valid UTF-8 text as the body of a JSON string:
// quotes, backslashes and control characters escaped, every other byte as
// it is (no HTML escaping: a recording is not a web page). It escapes in
// pieces straight into the writer's free space, so a huge frame costs no
// buffer of its own; jsonv's zero Mode escapes byte by byte, so a piece
// may end anywhere.
func writeJSONString(w *bufio.Writer, b []byte) {
	const minPiece = 512
	for len(b) > 0 {
		if w.Available() < minPiece*jsonv.MaxEscapedLen {
			if w.Flush() != nil {
				return // the error sticks in w; the frame's last write returns it
			}
		}
		n := min(len(b), w.Available()/jsonv.MaxEscapedLen)
		w.Write(jsonv.AppendStringBody(w.AvailableBuffer(), b[:n], 0))
		b = b[n:]
	}
}

// Flush writes buffered frames to the underlying writer.
func (tw *Writer) Flush() error {
	if tw.err != nil {
		return tw.err
	}
	tw.err = tw.w.Flush()
	return tw.err
}

// ParseHeader reads line as a header. ok is false when the line is not an
// acplint transcript header at all; err is set when it is one this reader
// cannot read (another version).
func ParseHeader(line []byte) (h Header, ok bool, err error) {
	// Every input's first line is asked; most are ACP messages. Without
	// the format's name, written out or escaped, the line is no header,
	// and encoding/json (whose first use builds its per-type tables) need
	// not read it.
	if !bytes.Contains(line, []byte(FormatName)) && bytes.IndexByte(line, '\\') < 0 {
		return Header{}, false, nil
	}
	var probe struct {
		Format string `json:"format"`
	}
	if json.Unmarshal(line, &probe) != nil || probe.Format != FormatName {
		return Header{}, false, nil
	}
	if err := json.Unmarshal(line, &h); err != nil {
		return Header{}, true, fmt.Errorf("bad %s header: %v", FormatName, err)
	}
	if h.Version != Version {
		return h, true, fmt.Errorf("%s version %d is not supported (this acplint reads version %d)", FormatName, h.Version, Version)
	}
	return h, true, nil
}

// ErrNotFrame is wrapped by ParseFrame for lines that are not frames.
var ErrNotFrame = errors.New("not a transcript frame")

// ParseFrame reads one frame line.
func ParseFrame(line []byte) (Frame, error) {
	if f, start, ok := parseWritten(line); ok {
		if data, ok := decodeWritten(nil, line, start); ok {
			f.Data = data
			return f, nil
		}
	}
	return parseFrameJSON(line)
}

// parseFrameJSON is ParseFrame for any line, through encoding/json.
func parseFrameJSON(line []byte) (Frame, error) {
	var wf wireFrame
	if err := json.Unmarshal(line, &wf); err != nil {
		return Frame{}, fmt.Errorf("%w: %v", ErrNotFrame, err)
	}
	f := Frame{T: time.Duration(wf.T), Conn: wf.Conn}
	if wf.Lost != nil {
		if wf.From != "" || wf.Frame != nil || wf.FrameB64 != nil {
			return Frame{}, fmt.Errorf("%w: a gap record (\"lost\") has no \"from\", \"frame\" or \"frame_b64\"", ErrNotFrame)
		}
		f.Lost = wf.Lost
		return f, nil
	}
	switch wf.From {
	case "client":
		f.From = domain.FromClient
	case "agent":
		f.From = domain.FromAgent
	case "unknown":
		// acplint convert of a frame whose sender nobody can tell.
		f.From = domain.DirUnknown
	default:
		return Frame{}, fmt.Errorf("%w: \"from\" is %q, want \"client\", \"agent\" or \"unknown\"", ErrNotFrame, wf.From)
	}
	switch {
	case wf.Frame != nil && wf.FrameB64 == nil:
		f.Data = []byte(*wf.Frame)
	case wf.FrameB64 != nil && wf.Frame == nil:
		b, err := base64.StdEncoding.DecodeString(*wf.FrameB64)
		if err != nil {
			return Frame{}, fmt.Errorf("%w: frame_b64: %v", ErrNotFrame, err)
		}
		f.Data = b
	default:
		return Frame{}, fmt.Errorf("%w: want exactly one of \"frame\" and \"frame_b64\"", ErrNotFrame)
	}
	return f, nil
}
