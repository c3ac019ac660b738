package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/acplint/acplint/domain"
	"github.com/google/go-cmp/cmp"
)

func TestRoundTrip(t *testing.T) {
	frames := []Frame{
		{From: domain.FromClient, T: 10, Conn: 1, Data: []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`)},
		{From: domain.FromAgent, T: 20, Conn: 1, Data: []byte("not json at all\r")},
		{From: domain.FromAgent, T: 30, Conn: 1, Data: []byte{0xff, 0xfe, '{', '}'}},
		{From: domain.FromClient, T: 40, Conn: 2, Data: []byte{}},
	}
	var buf bytes.Buffer
	started := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	w, err := NewWriter(&buf, Header{Producer: "test", Started: started, Redacted: true, Command: []string{"agent", "--stdio"}})
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
	sc := bufio.NewScanner(&buf)
	if !sc.Scan() {
		t.Fatal("no header")
	}
	h, ok, err := ParseHeader(sc.Bytes())
	if !ok || err != nil {
		t.Fatalf("ParseHeader = %v, %v", ok, err)
	}
	want := Header{Format: FormatName, Version: Version, Producer: "test", Started: started, Redacted: true, Command: []string{"agent", "--stdio"}}
	if diff := cmp.Diff(want, h); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
	var got []Frame
	for sc.Scan() {
		f, err := ParseFrame(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, f)
	}
	if diff := cmp.Diff(frames, got, cmp.Comparer(bytes.Equal)); diff != "" {
		t.Errorf("frames (-want +got):\n%s", diff)
	}
}

func TestParseHeaderRejects(t *testing.T) {
	if _, ok, _ := ParseHeader([]byte(`{"jsonrpc":"2.0","id":1}`)); ok {
		t.Error("a JSON-RPC message was taken for a header")
	}
	_, ok, err := ParseHeader([]byte(`{"format":"acplint-transcript","version":9}`))
	if !ok || err == nil || !strings.Contains(err.Error(), "version 9") {
		t.Errorf("future version: ok=%v err=%v", ok, err)
	}
}

// ParseHeader's quick refusal of lines without the format's name must not
// refuse a header that escapes it, or whose keys differ in case (which
// encoding/json accepts).
func TestParseHeaderEscaped(t *testing.T) {
	for _, line := range []string{
		`{"format":"acplint\u002dtranscript","version":1}`,
		`{"FORMAT":"acplint-transcript","version":1}`,
	} {
		if _, ok, err := ParseHeader([]byte(line)); !ok || err != nil {
			t.Errorf("ParseHeader(%s): ok=%v err=%v, want a header", line, ok, err)
		}
	}
}

func TestParseFrameRejects(t *testing.T) {
	for _, line := range []string{
		`not json`,
		`{"t":1,"conn":1,"from":"editor","frame":"{}"}`,
		`{"t":1,"conn":1,"from":"client"}`,
		`{"t":1,"conn":1,"from":"client","frame":"{}","frame_b64":"e30="}`,
		`{"t":1,"conn":1,"from":"agent","frame_b64":"!!"}`,
		`{"t":1,"conn":1,"from":"agent","frame":"{}","lost":{"frames":1,"bytes":2,"reason":"x"}}`,
	} {
		if _, err := ParseFrame([]byte(line)); err == nil {
			t.Errorf("ParseFrame(%s) succeeded", line)
		}
	}
}

// TestGapRoundTrip: a gap record written by a recorder that dropped
// frames reads back as the same gap, not as a frame of either side.
func TestGapRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, Header{})
	gap := Frame{T: 5, Conn: 1, Lost: &Lost{Frames: 3, Bytes: 70000, Reason: "the recorder fell behind"}}
	if err := w.Write(gap); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	got, err := ParseFrame([]byte(lines[1]))
	if err != nil {
		t.Fatal(err)
	}
	if got.Lost == nil || *got.Lost != *gap.Lost || got.T != 5 || got.Data != nil {
		t.Errorf("gap read back as %+v (lost %+v), want %+v", got, got.Lost, gap.Lost)
	}
	if strings.Contains(lines[1], `"from"`) {
		t.Errorf("a gap record names a sender: %s", lines[1])
	}
}

func FuzzParseFrame(f *testing.F) {
	f.Add([]byte(`{"t":1,"conn":1,"lost":{"frames":1,"bytes":9,"reason":"r"}}`))
	f.Add([]byte(`{"t":1,"conn":1,"from":"client","frame":"{}"}`))
	f.Add([]byte(`{"t":1,"conn":1,"from":"agent","frame_b64":"/w=="}`))
	for _, l := range writtenLayoutCases {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkFastPath(t, line)
		fr, err := ParseFrame(line)
		if err != nil {
			return
		}
		// Whatever parses must write back and parse to the same frame.
		var buf bytes.Buffer
		w, _ := NewWriter(&buf, Header{})
		if err := w.Write(fr); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		lines := bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))
		again, err := ParseFrame(lines[len(lines)-1])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again.Data, fr.Data) || again.From != fr.From {
			t.Fatalf("round trip changed the frame: %+v vs %+v", fr, again)
		}
	})
}

// TestWriteStreamsTheFrame: a frame is escaped straight into the writer,
// so a 16 MiB line of NUL bytes (96 MiB of JSON) costs the writer its
// buffer, not a copy of the JSON; and it reads back the same.
func TestWriteStreamsTheFrame(t *testing.T) {
	data := make([]byte, 16<<20) // NUL bytes: six bytes of JSON each
	var out bytes.Buffer
	out.Grow(6*len(data) + 1024)
	w, _ := NewWriter(&out, Header{})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := w.Write(Frame{From: domain.FromAgent, T: 7, Conn: 1, Data: data}); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("writing a 16 MiB frame allocated %d MiB", alloc>>20)
	}
	lines := bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n"))
	got, err := ParseFrame(lines[len(lines)-1])
	if err != nil || !bytes.Equal(got.Data, data) || got.From != domain.FromAgent || got.T != 7 {
		t.Errorf("read back %d bytes from %v (%v), want the %d written", len(got.Data), got.From, err, len(data))
	}
	// Every byte that needs escaping, and some that must not be.
	for _, s := range []string{"\"\\\x00\x1f\x7f\n\r\t<>&\u2028é", "\xff\xfe invalid"} {
		var b bytes.Buffer
		w, _ := NewWriter(&b, Header{})
		w.Write(Frame{From: domain.FromClient, Data: []byte(s)})
		w.Flush()
		ls := bytes.Split(bytes.TrimSuffix(b.Bytes(), []byte("\n")), []byte("\n"))
		if fr, err := ParseFrame(ls[len(ls)-1]); err != nil || string(fr.Data) != s {
			t.Errorf("%q read back as %q (%v)", s, fr.Data, err)
		}
	}
}

// TestWriteStopsWhenOutputFails: once the output fails, a frame larger
// than the buffer ends with the error instead of waiting forever for free
// space that a failed flush never makes.
func TestWriteStopsWhenOutputFails(t *testing.T) {
	out := &failingWriter{okWrites: 1} // the header, then nothing
	w, err := NewWriter(out, Header{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- w.Write(Frame{From: domain.FromAgent, Data: make([]byte, 1<<20)}) }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("Write returned no error after the output failed")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Write did not return after the output failed")
	}
}

type failingWriter struct{ okWrites int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.okWrites == 0 {
		return 0, errors.New("disk full")
	}
	w.okWrites--
	return len(p), nil
}

// TestEntryTime: entries carry the time their format records, for reports
// to show: a jsonl record's member as written, an acplint transcript's
// header start plus the frame's t; nothing for raw NDJSON.
func TestEntryTime(t *testing.T) {
	for _, tc := range []struct {
		name, input string
		want        []string
	}{
		{"jsonl", `{"ts":"2026-11-23T10:30:36.891Z","dir":"client","msg":{"jsonrpc":"2.0","method":"a"}}
{"timestamp":1763893836891,"dir":"agent","msg":{"jsonrpc":"2.0","method":"b"}}
{"dir":"agent","msg":{"jsonrpc":"2.0","method":"c"}}
{"time":{"not":"a time"},"dir":"agent","msg":{"jsonrpc":"2.0","method":"d"}}
`, []string{"2026-11-23T10:30:36.891Z", "1763893836891", "", ""}},
		{"acplint", `{"format":"acplint-transcript","version":1,"producer":"t","started":"2026-11-23T10:00:00Z","redacted":false}
{"t":1500000,"conn":1,"from":"client","frame":"{\"jsonrpc\":\"2.0\",\"method\":\"a\"}"}
{"t":2000000000,"conn":1,"from":"agent","frame":"{\"jsonrpc\":\"2.0\",\"method\":\"b\"}"}
`, []string{"2026-11-23T10:00:00.0015Z", "2026-11-23T10:00:02Z"}},
		{"ndjson", `{"jsonrpc":"2.0","method":"a"}
`, []string{""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tc.input), FormatAuto, 0)
			var got []string
			for {
				e, err := r.Next()
				if err != nil {
					break
				}
				got = append(got, e.Time)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("times (-want +got):\n%s", diff)
			}
		})
	}
}

// writtenLayoutCases are lines in, or near, the layout Writer writes, which
// parseWritten reads without encoding/json.
var writtenLayoutCases = []string{
	`{"t":0,"conn":1,"from":"client","frame":"{}"}`,
	`{"t":-0,"conn":-3,"from":"unknown","frame":""}`,
	`{"t":123456789012345678,"conn":1,"from":"agent","frame":"x"}`,
	`{"t":1234567890123456789,"conn":1,"from":"agent","frame":"19 digits"}`,
	`{"t":01,"conn":1,"from":"agent","frame":"leading zero"}`,
	`{"t":1.5,"conn":1,"from":"agent","frame":"float"}`,
	`{"t":1,"conn":1,"from":"agent","frame":"\"q\" \\ \/ \b\f\n\r\t \u0000\u001F\u007f é"}`,
	`{"t":1,"conn":1,"from":"agent","frame":"\u00e9 is two bytes"}`,
	`{"t":1,"conn":1,"from":"agent","frame":"\u0085 is two bytes"}`,
	`{"t":1,"conn":1,"from":"agent","frame":"\ud83d\ude00 surrogates"}`,
	`{"t":1,"conn":1,"from":"agent","frame":"\ud800 lone \udc00\ud800 swapped \ud83d\u0041 unpaired \ud83d"}`,
	`{"t":1,"conn":1,"from":"agent","frame":"\u12g4 bad hex"}`,
	`{"t":1,"conn":1,"from":"agent","frame":"\x bad escape"}`,
	`{"t":1,"conn":1,"from":"agent","frame":"ends in a backslash\"}`,
	`{"t":1,"conn":1,"from":"agent","frame":"a","x":1}`,
	`{"t":1,"conn":1,"from":"agent","frame":"a"}}`,
	`{"t":1,"conn":1,"from":"agent","frame":"a"`,
	`{"t":1,"conn":1,"from":"agent","frame":"`,
	`{"t":1,"conn":1,"from":"agent","frame":"raw "quote"}`,
	`{"t":1,"conn":1,"from":"agent","frame":"raw` + "\x01" + ` control"}`,
	`{"t":1,"conn":1,"from":"agent","frame":"bad utf-8 ` + "\xff" + `"}`,
	`{"t":1,"conn":1,"from":"agent","frame":"x"} `,
	`{"t":1,"conn":1,"from":"agent","frame":"x","frame":"y"}`,
	`{"t":1,"conn":1,"from":"agents","frame":"x"}`,
	`{"t":1,"conn":1,"from":"agent","frame_b64":"eA=="}`,
	`{"t":1,"conn":1,"lost":{"frames":1,"bytes":9,"reason":"r"}}`,
}

// checkFastPath: whatever parseWritten and decodeWritten read, they read
// as encoding/json does; and a Reader of a recording holding line reads
// it as ParseFrame does, through the fast path or not (lint's path
// decodes in the line's own memory, which a line the fast path refuses
// must reach the general path unchanged).
func checkFastPath(t *testing.T, line []byte) {
	t.Helper()
	want, wantErr := parseFrameJSON(line)
	if f, start, ok := parseWritten(line); ok {
		for _, dst := range [][]byte{nil, make([]byte, 0, 2*len(line)+64)} {
			data, ok := decodeWritten(dst, line, start)
			if !ok {
				break
			}
			if wantErr != nil {
				t.Fatalf("%q: the fast path read a line encoding/json refuses: %v", line, wantErr)
			}
			if f.From != want.From || f.T != want.T || f.Conn != want.Conn || want.Lost != nil || !bytes.Equal(data, want.Data) {
				t.Fatalf("%q: fast path read %+v %q, encoding/json %+v %q", line, f, data, want, want.Data)
			}
		}
	}
	if bytes.ContainsAny(line, "\r\n") || len(bytes.TrimSpace(line)) == 0 {
		return // not one line of a recording
	}
	rec := []byte(`{"format":"acplint-transcript","version":1,"producer":"t","started":"2026-11-23T10:00:00Z","redacted":false}` + "\n")
	rec = append(append(rec, line...), '\n')
	e, err := NewReader(bytes.NewReader(rec), FormatTranscript, 0).Next()
	if err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	if wantErr != nil {
		if e.Bad != wantErr.Error() || !bytes.Equal(e.Line.Bytes, line) {
			t.Fatalf("%q: read as %+v, want the line with its error %q", line, e, wantErr)
		}
		return
	}
	wantEntry := FrameEntry(want, 2, time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC))
	wantEntry.Line.Offset = e.Line.Offset
	if !reflect.DeepEqual(e, wantEntry) {
		t.Fatalf("%q: read as %+v, want %+v", line, e, wantEntry)
	}
}

// TestFastPath: the layout Writer writes is read without encoding/json,
// exactly as encoding/json reads it, and what the fast path refuses is
// still read by ParseFrame.
func TestFastPath(t *testing.T) {
	fast := 0
	for _, l := range writtenLayoutCases {
		checkFastPath(t, []byte(l))
		if _, start, ok := parseWritten([]byte(l)); ok {
			if _, ok := decodeWritten(nil, []byte(l), start); ok {
				fast++
			}
		}
	}
	if fast < 4 {
		t.Errorf("the fast path read %d of the cases, want at least 4", fast)
	}
	// What Writer writes takes the fast path.
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, Header{})
	w.Write(Frame{From: domain.FromAgent, T: 42, Conn: 1, Data: []byte(`{"jsonrpc":"2.0","method":"x","params":{"text":"tab\t \"q\" \u00e9"}}` + "\x00\x1f")})
	w.Flush()
	lines := bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))
	if _, start, ok := parseWritten(lines[1]); !ok {
		t.Errorf("a frame Writer wrote does not take the fast path: %s", lines[1])
	} else if _, ok := decodeWritten(nil, lines[1], start); !ok {
		t.Errorf("a frame Writer wrote does not take the fast path: %s", lines[1])
	}
}
