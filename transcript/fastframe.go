package transcript

import (
	"bytes"
	"time"
	"unicode/utf8"

	"github.com/acplint/acplint/domain"
)

// A recording is read back by the live linter of the tap that writes it
// and by every lint of it, so reading a frame must cost little next to
// linting it: encoding/json took a third of the tap's CPU with live lint.
// Nearly every line of a recording is a frame in exactly the layout Writer
// writes, and parseWritten reads that layout directly. It accepts only
// what encoding/json reads the same way (no other spacing or member order,
// only the escapes that keep each byte a byte, valid UTF-8) and leaves
// everything else, gap records included, to ParseFrame's general path.

// parseWritten reads line if it is a frame in Writer's layout: the frame
// is returned with Data unset, and body is the frame's JSON string body,
// still escaped and checked to unescape into itself (unescapeInto).
func parseWritten(line []byte) (f Frame, body []byte, ok bool) {
	rest, ok := bytes.CutPrefix(line, []byte(`{"t":`))
	if !ok {
		return Frame{}, nil, false
	}
	var t, conn int64
	if t, rest, ok = jsonInt(rest); !ok {
		return Frame{}, nil, false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"conn":`)); !ok {
		return Frame{}, nil, false
	}
	if conn, rest, ok = jsonInt(rest); !ok || int64(int(conn)) != conn {
		return Frame{}, nil, false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"from":"`)); !ok {
		return Frame{}, nil, false
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
		return Frame{}, nil, false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"frame":"`)); !ok {
		return Frame{}, nil, false
	}
	if body, ok = bytes.CutSuffix(rest, []byte(`"}`)); !ok || !plainString(body) {
		return Frame{}, nil, false
	}
	return Frame{From: from, T: time.Duration(t), Conn: int(conn)}, body, true
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

// plainString reports whether body, the inside of a JSON string, is valid
// UTF-8 with no raw control character or quote, and escapes that each
// stand for one byte below 0x80 (\u only as \u00XX below \u0080): then it
// unescapes to what encoding/json gives, each escape no longer than its
// text.
func plainString(body []byte) bool {
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c < 0x20 || c == '"':
			return false
		case c == '\\':
			if i+1 >= len(body) {
				return false
			}
			switch body[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if i+5 >= len(body) || body[i+2] != '0' || body[i+3] != '0' || body[i+4] > '7' || body[i+4] < '0' || unhex(body[i+5]) < 0 {
					return false
				}
				i += 5
			default:
				return false
			}
		}
	}
	return utf8.Valid(body)
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// unescapeInto appends to dst the bytes body (checked by plainString)
// stands for. dst may be body[:0]: each escape is longer than its byte, so
// the writes never overtake the reads.
func unescapeInto(dst, body []byte) []byte {
	for {
		i := bytes.IndexByte(body, '\\')
		if i < 0 {
			return append(dst, body...)
		}
		dst = append(dst, body[:i]...)
		switch c := body[i+1]; c {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			dst = append(dst, byte(unhex(body[i+4])<<4|unhex(body[i+5])))
			body = body[i+6:]
			continue
		default: // '"', '\\', '/'
			dst = append(dst, c)
		}
		body = body[i+2:]
	}
}
