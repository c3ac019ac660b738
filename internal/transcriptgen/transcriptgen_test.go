package transcriptgen

import (
	"bytes"
	"testing"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/transcript"
)

// TestLintsClean checks that generated traffic is protocol-valid: linting
// it gives no error finding (and shows what else it gives).
func TestLintsClean(t *testing.T) {
	for _, seed := range []int64{1, 2, 3, 42} {
		var buf bytes.Buffer
		if err := Write(&buf, Options{Seed: seed, Bytes: 200 << 10}); err != nil {
			t.Fatal(err)
		}
		res, err := lint.Transcript(bytes.NewReader(buf.Bytes()), lint.Options{File: "generated.ndjson"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Lines == 0 {
			t.Fatalf("seed %d: no lines", seed)
		}
		for _, f := range res.Findings {
			if f.Severity == findings.SeverityError {
				t.Errorf("seed %d: %s: %s %s (%s)", seed, f.Location, f.Severity, f.Message, f.RuleID)
			} else {
				t.Logf("seed %d: %s: %s %s (%s)", seed, f.Location, f.Severity, f.Message, f.RuleID)
			}
		}
	}
}

func generate(t *testing.T, opts Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, opts); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestDeterministic: a seed always gives the same bytes, and another seed
// other bytes.
func TestDeterministic(t *testing.T) {
	a := generate(t, Options{Seed: 9, Bytes: 64 << 10})
	b := generate(t, Options{Seed: 9, Bytes: 64 << 10})
	c := generate(t, Options{Seed: 10, Bytes: 64 << 10})
	if !bytes.Equal(a, b) {
		t.Error("the same seed gave different transcripts")
	}
	if bytes.Equal(a, c) {
		t.Error("seeds 9 and 10 gave the same transcript")
	}
}

// TestSize: the transcript reaches the requested size and ends soon after.
func TestSize(t *testing.T) {
	for _, size := range []int64{1, 10 << 10, 1 << 20} {
		got := int64(len(generate(t, Options{Seed: 5, Bytes: size})))
		if got < size || got > size+64<<10 {
			t.Errorf("Bytes %d gave %d bytes", size, got)
		}
	}
}

// TestTraffic checks that the transcript holds the traffic the package
// promises, and that every line is one well-formed message.
func TestTraffic(t *testing.T) {
	src := generate(t, Options{Seed: 3, Bytes: 256 << 10})
	counts := map[string]int{}
	lr := codec.NewLineReader(bytes.NewReader(src))
	for {
		l, err := lr.Next()
		if err != nil {
			break
		}
		d := codec.DecodeLine(l)
		if len(d.Problems) != 0 || len(d.Msgs) != 1 {
			t.Fatalf("line %d: %v", l.Num, d.Problems)
		}
		m := d.Msgs[0]
		counts[string(m.Method)]++
		if sn, ok := m.Params.(*domain.SessionNotification); ok {
			switch u := sn.Update.(type) {
			case domain.AgentMessageChunk:
				counts["agent_message_chunk"]++
			case domain.Plan:
				counts["plan"]++
			case domain.ToolCall:
				if c, ok := u.Content.Get(); ok && len(c) > 0 {
					if _, diff := c[0].(domain.Diff); diff && u.Locations.IsSet() {
						counts["diff with locations"]++
					}
				}
			}
		}
		if bytes.Contains(l.Bytes, []byte(`"stopReason":"end_turn"`)) {
			counts["end_turn"]++
		}
	}
	for _, want := range []string{"initialize", "session/new", "session/prompt", "agent_message_chunk", "plan",
		"diff with locations", "fs/read_text_file", "fs/write_text_file", "session/request_permission", "terminal/create", "end_turn"} {
		if counts[want] == 0 {
			t.Errorf("no %s in the transcript", want)
		}
	}
	if counts["session/new"] < 3 {
		t.Errorf("%d sessions; want several", counts["session/new"])
	}
}

// TestLongSessions: with Sessions set, that many sessions run every turn
// of the transcript, and it lints clean.
func TestLongSessions(t *testing.T) {
	src := generate(t, Options{Seed: 4, Bytes: 1 << 20, Sessions: 3})
	news := bytes.Count(src, []byte(`"method":"session/new"`))
	prompts := bytes.Count(src, []byte(`"method":"session/prompt"`))
	closes := bytes.Count(src, []byte(`"method":"session/close"`))
	if news != 3 || closes != 3 || prompts < 30 {
		t.Errorf("%d session/new, %d session/close, %d session/prompt; want 3, 3 and many", news, closes, prompts)
	}
	res, err := lint.Transcript(bytes.NewReader(src), lint.Options{File: "generated.ndjson", CleanEnd: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		t.Errorf("%s: %s %s (%s)", f.Location, f.Severity, f.Message, f.RuleID)
	}
}

// TestTokenChunks: ChunkMin and ChunkMax cut the streamed text into chunks
// of that size, which lint clean and make more messages per megabyte
// (the token-sized mix of the CPU benchmarks).
func TestTokenChunks(t *testing.T) {
	const size = 512 << 10
	messagesPerByte := func(src []byte) float64 {
		return float64(bytes.Count(src, []byte("\n"))) / float64(len(src))
	}
	sentences := generate(t, Options{Seed: 4, Bytes: size})
	tokens := generate(t, Options{Seed: 4, Bytes: size, ChunkMin: 2, ChunkMax: 40})
	ratio := messagesPerByte(tokens) / messagesPerByte(sentences)
	t.Logf("token-sized chunks: %.2f× the messages per byte", ratio)
	if ratio < 1.15 {
		t.Errorf("token-sized chunks give %.2f× the messages per byte of sentence chunks; want at least 1.15×", ratio)
	}
	lr := codec.NewLineReader(bytes.NewReader(tokens))
	chunks := 0
	for {
		l, err := lr.Next()
		if err != nil {
			break
		}
		d := codec.DecodeLine(l)
		sn, ok := d.Msgs[0].Params.(*domain.SessionNotification)
		if !ok {
			continue
		}
		if c, ok := sn.Update.(domain.AgentMessageChunk); ok {
			chunks++
			if text := c.Content.(domain.TextContent).Text; len(text) < 1 || len(text) > 40 {
				t.Fatalf("line %d: chunk of %d bytes, want 1 to 40 (the last of a message may be short)", l.Num, len(text))
			}
		}
	}
	if chunks == 0 {
		t.Fatal("no agent_message_chunk")
	}
	res, err := lint.Transcript(bytes.NewReader(tokens), lint.Options{File: "tokens.ndjson", CleanEnd: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		t.Errorf("%s: %s %s (%s)", f.Location, f.Severity, f.Message, f.RuleID)
	}
}

// TestSides: Side names the sender of every line, so the transcript
// recorded with those directions (as a tap records a replay of it) lints
// without an error.
func TestSides(t *testing.T) {
	var sides []domain.Direction
	src := generate(t, Options{Seed: 4, Bytes: 200 << 10, Side: func(from domain.Direction) { sides = append(sides, from) }})
	lines := bytes.SplitAfter(src, []byte("\n"))
	lines = lines[:len(lines)-1] // after the last "\n"
	if len(sides) != len(lines) {
		t.Fatalf("Side was called %d times for %d lines", len(sides), len(lines))
	}
	var rec bytes.Buffer
	w, err := transcript.NewWriter(&rec, transcript.Header{Producer: "transcriptgen test"})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[domain.Direction]int{}
	for i, l := range lines {
		seen[sides[i]]++
		w.Write(transcript.Frame{From: sides[i], Conn: 1, Data: bytes.TrimSuffix(l, []byte("\n"))})
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if seen[domain.FromClient] == 0 || seen[domain.FromAgent] == 0 {
		t.Fatalf("lines by side: %v; want both sides", seen)
	}
	res, err := lint.Transcript(&rec, lint.Options{Format: transcript.FormatTranscript, File: "sides.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		if f.Severity == findings.SeverityError {
			t.Errorf("%s: %s %s (%s)", f.Location, f.Severity, f.Message, f.RuleID)
		}
	}
}
