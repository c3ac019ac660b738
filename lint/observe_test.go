package lint

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/internal/proctest"
)

// TestObserveMatchesEveryRecordScan: observe, which visits only the
// malformed lines whose outcome is still open, settles every line as a
// scan of all of them in order does, the way it was first written.
func TestObserveMatchesEveryRecordScan(t *testing.T) {
	dirs := []domain.Direction{domain.DirUnknown, domain.FromClient, domain.FromAgent}
	replies, nexts := 0, 0
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 7))
		l := &linter{}
		var ref []*malformedLine
		line := 1
		for range 400 {
			if rng.IntN(3) == 0 {
				line++
			}
			if rng.IntN(4) == 0 {
				sender := dirs[rng.IntN(3)]
				l.noteMalformed(line, sender, "x")
				ref = append(ref, &malformedLine{line: line, sender: sender, what: "x", receiver: sender.Opposite()})
				continue
			}
			m := &domain.Message{Dir: dirs[rng.IntN(3)], Kind: domain.KindNotification, Method: "x"}
			if rng.IntN(2) == 0 {
				code := []domain.ErrorCode{domain.CodeParseError, domain.CodeInvalidRequest}[rng.IntN(2)]
				m = &domain.Message{Dir: m.Dir, Kind: domain.KindError, ID: domain.RequestID{Raw: []byte("null")},
					Error: &domain.Error{Code: int64(code)}}
			}
			l.observe(m, line)
			observeEveryRecord(ref, m, line)
		}
		for i, r := range l.wire.malformed {
			want := ref[i]
			if want.reply > 0 {
				replies++
			}
			if want.next > 0 {
				nexts++
			}
			if r.reply != want.reply || r.code != want.code || r.next != want.next {
				t.Fatalf("seed %d: malformed line %d (record %d, receiver %s): reply %d code %d next %d, want reply %d code %d next %d",
					seed, r.line, i, r.receiver, r.reply, r.code, r.next, want.reply, want.code, want.next)
			}
		}
	}
	if replies < 1000 || nexts < 1000 {
		t.Fatalf("the cases settled %d replies and %d next messages: too few to compare", replies, nexts)
	}
}

// observeEveryRecord is observe as it was first written: it visits every
// malformed line of the transcript for every message.
func observeEveryRecord(records []*malformedLine, m *domain.Message, line int) {
	for _, r := range records {
		if r.next > 0 || line <= r.line {
			continue
		}
		if r.receiver == domain.DirUnknown {
			if r.reply == 0 && r.waited < replyWindow && isParseReply(m) {
				r.reply, r.code = line, m.Error.Code
				break
			}
			r.waited++
			continue
		}
		if m.Dir != r.receiver {
			continue
		}
		if isParseReply(m) {
			if r.reply == 0 {
				r.reply, r.code = line, m.Error.Code
				break
			}
			continue
		}
		r.next = line
	}
}

// TestMalformedLinesLinear: a transcript of many malformed lines, each
// followed by a message, lints in time linear in its length. Watching every
// malformed line for every message, as observe once did, takes minutes
// here (k²/2 > 10¹¹ visits); linear work takes a few seconds at most.
func TestMalformedLinesLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("lints 40 MB")
	}
	if proctest.RaceEnabled {
		// The race detector multiplies the time the bound is about;
		// .ci/run runs this test without it.
		t.Skip("bounds CPU time: timed, run without -race (.ci/run does)")
	}
	const k = 500_000
	for _, tc := range []struct{ name, malformed, message string }{
		// The receiver of a raw transcript's line is unknown.
		{"raw", "x\n", `{"jsonrpc":"2.0","method":"_x/n"}` + "\n"},
		// The client never reacts to the agent's lines.
		{"agent lines", `{"dir":"agent","msg":"x"}` + "\n", `{"dir":"agent","msg":{"jsonrpc":"2.0","method":"_x/n"}}` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A message after each malformed line: the reader takes a run
			// of lines that are not JSON as one.
			in := strings.Repeat(tc.malformed+tc.message, k)
			cpu, start := processCPU(), time.Now()
			res, err := Transcript(strings.NewReader(in), Options{File: "t", MaxPerRule: 10})
			if err != nil {
				t.Fatal(err)
			}
			used, wall := processCPU()-cpu, time.Since(start)
			t.Logf("%d lines in %v CPU, %v wall, %d findings", 2*k, used, wall, len(res.Findings))
			if used > 30*time.Second || (used == 0 && wall > 30*time.Second) {
				t.Errorf("%d malformed lines and %d messages took %v of CPU; linear work takes a few seconds", k, k, used)
			}
		})
	}
}
