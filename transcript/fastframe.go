package transcript

import (
	"bytes"
	"time"
	"unicode/utf8"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/internal/jsonv"
)

// A recording is read back by the live linter of the tap that writes it
// and by every lint of it, so reading a frame must cost little next to
// linting it: encoding/json took a third of the tap's CPU with live lint.
// Nearly every line of a recording is a frame in exactly the layout Writer
// writes, and parseWritten and decodeWritten read that layout directly.
// They accept only what encoding/json reads the same way (no other
// spacing or member order, valid UTF-8) and leave everything else, gap
// records included, to ParseFrame's general path.

// parseWritten reads the start of line if it is a frame in Writer's
// layout: the frame is returned with Data unset, and start is where the
// body of its "frame" string starts, for decodeWritten.
func parseWritten(line []byte) (f Frame, start int, ok bool) {
	rest, ok := bytes.CutPrefix(line, []byte(`{"t":`))
	if !ok {
		return Frame{}, 0, false
	}
	var t, conn int64
	if t, rest, ok = jsonInt(rest); !ok {
		return Frame{}, 0, false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"conn":`)); !ok {
		return Frame{}, 0, false
	}
	if conn, rest, ok = jsonInt(rest); !ok || int64(int(conn)) != conn {
		return Frame{}, 0, false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"from":"`)); !ok {
		return Frame{}, 0, false
	}
	var from domain.Direction
	switch {
	case bytes.HasPrefix(rest, []byte(`client"`)):
		from, rest = domain.FromClient, rest[len(`client"`):]
	case bytes.HasPrefix(rest, []byte(`agent"`)):
		from, rest = domain.FromAgent, rest[len(`agent"`):]
	case bytes.HasPrefix(rest, []byte(`unknown"`)):
		from, rest = domain.DirUnknown, rest[len(`unknown"`):]
	default:
		return Frame{}, 0, false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"frame":"`)); !ok {
		return Frame{}, 0, false
	}
	return Frame{From: from, T: time.Duration(t), Conn: int(conn)}, len(line) - len(rest), true
}

// decodeWritten appends to dst the text of the "frame" string of line,
// whose body starts at start (parseWritten), and reports whether it is
// what encoding/json reads there: the string is well formed, valid UTF-8,
// and ends the line's object, which ends the line. The text is never
// longer than the body (each escape is longer than what it stands for).
// line is only read: dst must not overlap it. The buffer is returned
// even when the line is refused, for the caller to reuse.
func decodeWritten(dst, line []byte, start int) ([]byte, bool) {
	text, end, err := jsonv.AppendUnescaped(dst, line, start)
	// jsonv keeps bytes that are not UTF-8, which encoding/json replaces.
	if err != nil || end != len(line)-2 || line[end+1] != '}' || !utf8.Valid(line[start:end]) {
		return text, false
	}
	return text, true
}

// jsonInt reads a JSON integer of at most 18 digits (no overflow of an
// int64 to think of) from the start of b.
func jsonInt(b []byte) (n int64, rest []byte, ok bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	i := 0
	for i < len(b) && i <= 18 && b[i] >= '0' && b[i] <= '9' {
		n = n*10 + int64(b[i]-'0')
		i++
	}
	// JSON allows no leading zero; 19 digits might not fit.
	if i == 0 || i > 18 || (b[0] == '0' && i > 1) {
		return 0, nil, false
	}
	if neg {
		n = -n
	}
	return n, b[i:], true
}
