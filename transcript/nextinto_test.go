package transcript_test

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/acplint/acplint/transcript"
)

// NextInto is Next without the copies: over inputs that take every path of
// the NDJSON reader (text runs, split messages, blank, CRLF, unterminated
// and too-long lines) and the other formats, it gives the same entries, and
// it overwrites a slot that held an earlier entry whole.
func TestNextIntoIsNext(t *testing.T) {
	inputs := map[string]string{
		"ndjson":       initReq + "\n" + initRes + "\r\n\n  \n" + initReq,
		"text run":     initReq + "\nsome log line\nanother one\n" + initRes + "\n",
		"split":        `{"jsonrpc":"2.0","id":1,` + "\n" + `"method":"session/new","params":{"cwd":"/a` + "\n" + `b","mcpServers":[]}}` + "\n" + initRes + "\n",
		"too long":     initReq + "\n" + strings.Repeat("x", 300) + "\n" + initRes + "\n" + strings.Repeat("y", 400),
		"not closing":  "{\n[\n" + initReq + "\n{\"a\":\n",
		"jsonl":        `{"ts":1,"dir":"client","msg":` + initReq + "}\n" + `{"ts":2,"dir":"agent","msg":` + initRes + "}\n",
		"zed":          "[\n  {\"_direction\":\"outgoing\",\"_type\":\"request\",\"id\":0,\"method\":\"initialize\",\"params\":{}}\n]\n",
		"empty":        "",
		"crlf at end":  initReq + "\r\n",
		"batch":        "[" + initReq + "," + initReq + "]\n",
		"lone newline": "\n",
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			want := readAll(t, strings.NewReader(in), transcript.FormatAuto, 256)
			rd := transcript.NewReader(strings.NewReader(in), transcript.FormatAuto, 256)
			// A slot that holds an entry of everything, as a batch's slot
			// does from its last use.
			slot := transcript.Entry{Bad: "stale", Lost: "stale", Synthetic: true, Splits: 3, Time: "stale", Recorded: []byte("stale")}
			var got []transcript.Entry
			for {
				err := rd.NextInto(&slot)
				if errors.Is(err, io.EOF) {
					if !reflect.DeepEqual(slot, transcript.Entry{}) {
						t.Errorf("after the end the slot holds %+v", slot)
					}
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, slot)
				slot.Bad, slot.Lost, slot.Synthetic, slot.Splits = "stale", "stale", true, 3
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("NextInto gave\n%+v\nNext gave\n%+v", got, want)
			}
		})
	}
}
