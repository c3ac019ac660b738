package protocol

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/domain"
)

// TestKeptParamsServeEveryCheck steps every golden transcript, and a
// generated one, keeping the params of pending requests whole and keeping
// what keptParams keeps: the findings and the phases (but for those
// params) must be the same, so that no check reads a member of a pending
// request's params that keptParams drops.
func TestKeptParamsServeEveryCheck(t *testing.T) {
	defer func() { keepWholeParams = false }()
	eachCorpusTranscript(t, 5, func(name string, events []Event) {
		events = append(events, Event{End: true, Truncated: true})
		whole, kept := newPhase(), newPhase()
		for i, ev := range events {
			keepWholeParams = true
			errWhole := StepInPlace(&whole, ev)
			keepWholeParams = false
			errKept := StepInPlace(&kept, ev)
			if !sameFindings(errWhole, errKept) {
				t.Fatalf("%s: message %d (line %d): the findings differ when pending requests keep their params whole:\nwhole: %v\nkept:  %v", name, i, ev.Loc.Line, errWhole, errKept)
			}
			if !reflect.DeepEqual(withoutPendingParams(whole), withoutPendingParams(kept)) {
				t.Fatalf("%s: message %d (line %d): the phase differs when pending requests keep their params whole", name, i, ev.Loc.Line)
			}
		}
	})
}

// withoutPendingParams is a copy of p whose pending requests hold no params.
func withoutPendingParams(p Phase) Phase {
	c := p.Clone()
	for d := range c.pending {
		reqs := &c.pending[d].reqs
		var keys []string
		for k := range reqs.All() {
			keys = append(keys, k)
		}
		for _, k := range keys {
			r, _ := reqs.Get(k)
			r.Params = nil
			reqs.Set(k, r)
		}
	}
	return c
}

// TestKeptParamsOwnTheirMemory: a driver reuses a message's memory once
// the step returns (lint's batches), while the machine keeps what
// keptParams copies until the answer, so the copy must share nothing with
// the line it was decoded from. Each request is decoded, copied, and its
// line scribbled on; the copy must not change.
func TestKeptParamsOwnTheirMemory(t *testing.T) {
	long := strings.Repeat(`long text with \"escapes\"\n`, 20)
	requests := []string{
		`{"jsonrpc":"2.0","id":8,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"` + long + `","title":"` + long + `"},"options":[{"optionId":"` + long + `","name":"` + long + `","kind":"allow_once","_meta":{"k":"` + long + `"},"extra":"` + long + `"}]}}`,
		`{"jsonrpc":"2.0","id":9,"method":"fs/read_text_file","params":{"sessionId":"` + long + `","path":"/tmp/` + long + `"}}`,
		`{"jsonrpc":"2.0","id":10,"method":"terminal/create","params":{"sessionId":"` + long + `","command":"ls","outputByteLimit":10}}`,
		`{"jsonrpc":"2.0","id":11,"method":"terminal/output","params":{"sessionId":"` + long + `","terminalId":"` + long + `"}}`,
		`{"jsonrpc":"2.0","id":12,"method":"terminal/wait_for_exit","params":{"sessionId":"` + long + `","terminalId":"` + long + `"}}`,
		`{"jsonrpc":"2.0","id":13,"method":"terminal/kill","params":{"sessionId":"` + long + `","terminalId":"` + long + `"}}`,
		`{"jsonrpc":"2.0","id":14,"method":"terminal/release","params":{"sessionId":"` + long + `","terminalId":"` + long + `"}}`,
		`{"jsonrpc":"2.0","id":15,"method":"session/new","params":{"cwd":"/` + long + `","additionalDirectories":["/` + long + `"],"mcpServers":[{"name":"` + long + `","command":"x","args":["` + long + `"],"env":[]}]}}`,
		`{"jsonrpc":"2.0","id":16,"method":"session/set_mode","params":{"sessionId":"` + long + `","modeId":"` + long + `"}}`,
	}
	for _, req := range requests {
		var bd codec.BatchDecoder
		line := []byte(req)
		d := bd.DecodeLine(codec.Line{Num: 1, Bytes: line})
		if len(d.Msgs) != 1 || d.Msgs[0].Params == nil {
			t.Fatalf("%.60s: decoded to %d messages, problems %v", req, len(d.Msgs), d.Problems)
		}
		kept := keptParams(d.Msgs[0].Params)
		if kept == nil {
			t.Fatalf("%.60s: keptParams keeps nothing", req)
		}
		want := domain.Detach(kept)
		copy(line, bytes.Repeat([]byte{'#'}, len(line)))
		bd.Reset()
		for range 20 {
			bd.DecodeLine(codec.Line{Num: 2, Bytes: []byte(strings.ReplaceAll(req, "long", "LONG"))})
		}
		if diff := cmp.Diff(want, kept); diff != "" {
			t.Errorf("%.60s: the kept params changed with the memory they were decoded from (-before +after):\n%s", req, diff)
		}
	}
}
