package transcript

import (
	"bytes"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/acplint/acplint/domain"
)

// writtenLen must count exactly the line Write makes: a live linter judges
// a frame too long by it where lint of the recording measures the line.
func TestWrittenLenIsWrittenLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabets := []string{"abc {}\":\\", "\x00\x01\x1f\"\\\n\r\t", "é✓\u2028\U0001F600", "\xff\xfe\xc0abc"}
	for i := range 2000 {
		n := rng.IntN(10000)
		if i%100 == 0 {
			n = rng.IntN(40000) // across writeJSONString's pieces
		}
		alpha := alphabets[rng.IntN(len(alphabets))]
		var data []byte
		for len(data) < n {
			data = append(data, alpha[rng.IntN(len(alpha))])
		}
		f := Frame{From: []domain.Direction{domain.FromClient, domain.FromAgent}[rng.IntN(2)],
			T: time.Duration(rng.Int64N(1 << 50)), Conn: rng.IntN(1 << 20), Data: data}
		var buf bytes.Buffer
		w, err := NewWriter(&buf, Header{})
		if err != nil {
			t.Fatal(err)
		}
		head := buf.Len()
		if err := w.Write(f); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if got, want := writtenLen(f), int64(buf.Len()-head-1); got != want {
			t.Fatalf("frame %d (%d bytes of %q): writtenLen %d, the written line is %d bytes", i, n, alpha, got, want)
		}
	}
}

// A frame whose recorded line passes maxLine is, handed over live, the same
// skipped line that reading the recording gives, though the frame itself
// is shorter than maxLine: escaping made its line six times as long.
func TestFrameReaderSkipsWhatTheRecordingSkips(t *testing.T) {
	const maxLine = 1000
	frames := []Frame{
		{From: domain.FromClient, T: time.Millisecond, Data: []byte(`{"jsonrpc":"2.0","method":"x"}`)},
		{From: domain.FromClient, T: 2 * time.Millisecond, Data: bytes.Repeat([]byte{1}, 300)},    // 1,800 bytes escaped
		{From: domain.FromAgent, T: 3 * time.Millisecond, Data: bytes.Repeat([]byte{0xff}, 900)},  // 1,200 as base64
		{From: domain.FromAgent, T: 4 * time.Millisecond, Data: []byte(strings.Repeat("a", 900))}, // fits
		{From: domain.FromAgent, T: 5 * time.Millisecond, Data: []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)},
	}
	var rec bytes.Buffer
	w, err := NewWriter(&rec, Header{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range frames {
		if err := w.Write(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	offline := entries(t, NewReader(&rec, FormatTranscript, maxLine))
	handed := false
	live := entries(t, NewFrameReader(func() ([]Frame, error) {
		if handed {
			return nil, io.EOF
		}
		handed = true
		return frames, nil
	}, time.Time{}, maxLine))
	if len(live) != len(offline) {
		t.Fatalf("live: %d entries, offline: %d", len(live), len(offline))
	}
	skipped := 0
	for i := range offline {
		o, l := offline[i], live[i]
		if o.Line.Num != l.Line.Num || o.Lost != l.Lost || o.Dir != l.Dir || !bytes.Equal(o.Line.Bytes, l.Line.Bytes) {
			t.Errorf("entry %d: live {line %d, dir %v, lost %q, %d bytes}, offline {line %d, dir %v, lost %q, %d bytes}",
				i, l.Line.Num, l.Dir, l.Lost, len(l.Line.Bytes), o.Line.Num, o.Dir, o.Lost, len(o.Line.Bytes))
		}
		if o.Lost != "" {
			skipped++
		}
	}
	if skipped != 2 {
		t.Errorf("%d entries skipped as too long, want the 2 frames whose lines pass %d bytes", skipped, maxLine)
	}
}

func entries(t *testing.T, r *Reader) []Entry {
	t.Helper()
	var out []Entry
	for {
		e, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		e.Line.Bytes = bytes.Clone(e.Line.Bytes)
		out = append(out, e)
	}
}

// frameTimes writes what Format(time.RFC3339Nano) writes, frame after
// frame: many in a second (the text it keeps), across seconds, zone
// changes and years of other than four digits, in zones with and without
// an offset.
func TestFrameTimesIsFormat(t *testing.T) {
	zones := []*time.Location{time.UTC, time.FixedZone("IST", 5*3600+1800), time.FixedZone("PST", -8*3600), time.FixedZone("GMT", 0)}
	if ny, err := time.LoadLocation("America/New_York"); err == nil {
		zones = append(zones, ny) // its offset changes at 2026-03-08T07:00:00Z
	}
	starts := []time.Time{
		time.Date(2026, 3, 8, 6, 59, 58, 0, time.UTC),
		time.Date(2026, 11, 23, 10, 0, 0, 999_999_999, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 59, 500, time.UTC),
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, zone := range zones {
		for _, start := range starts {
			c := frameTimes{started: start.In(zone)}
			var d time.Duration
			for range 3000 {
				switch rng.IntN(4) {
				case 0:
					d += time.Duration(rng.IntN(1000)) // nanoseconds
				case 1:
					d += time.Duration(rng.IntN(1e6)) * time.Microsecond / 1000
				case 2:
					d += time.Duration(rng.IntN(1500)) * time.Millisecond
				default:
					d += time.Duration(rng.IntN(10)) * 100 * time.Millisecond
				}
				if rng.IntN(50) == 0 {
					d -= time.Duration(rng.IntN(3000)) * time.Millisecond // out of order
				}
				if got, want := c.text(d), c.started.Add(d).Format(time.RFC3339Nano); got != want {
					t.Fatalf("%v + %v: %q, want %q", c.started, d, got, want)
				}
			}
		}
	}
}
