package codec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/acplint/acplint/domain"
)

// manyMembers is a request whose params repeat one member n times and
// then, with bad set, give clientCapabilities a type it cannot have.
func manyMembers(n int, bad bool) []byte {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1`)
	for i := range n {
		fmt.Fprintf(&b, `,"x":%d`, i)
	}
	if bad {
		b.WriteString(`,"clientCapabilities":"all of them"`)
	}
	b.WriteString(`}}`)
	return []byte(b.String())
}

// TestProblemsPerMessageAreCapped: a message keeps at most
// MaxProblemsPerMessage problems, and one more counts the rest, so a line
// of a hundred thousand repeated members costs a hundred problems.
func TestProblemsPerMessageAreCapped(t *testing.T) {
	const n = 100_000
	d := DecodeLine(Line{Num: 1, Bytes: manyMembers(n, false)})
	if len(d.Problems) != MaxProblemsPerMessage+1 {
		t.Fatalf("%d problems kept, want %d and one counting the rest", len(d.Problems), MaxProblemsPerMessage)
	}
	last := d.Problems[len(d.Problems)-1]
	want := fmt.Sprintf("%d more problems", n-MaxProblemsPerMessage)
	if last.Kind != ProbTooMany || !strings.Contains(last.Detail, want) {
		t.Errorf("last problem %v, want %s saying %q", last, ProbTooMany, want)
	}
	for _, p := range d.Problems[:MaxProblemsPerMessage] {
		if p.Kind == ProbTooMany {
			t.Fatalf("a count among the kept problems: %v", p)
		}
	}
	// Under the cap nothing changes.
	d = DecodeLine(Line{Num: 1, Bytes: manyMembers(10, false)})
	for _, p := range d.Problems {
		if p.Kind == ProbTooMany {
			t.Errorf("10 repeats counted as too many: %v", p)
		}
	}
}

// TestRejectionPastTheCap: a member of the wrong type is left unset even
// when its problem comes after the cap and is only counted; otherwise
// rules would take a zero value for what the peer sent.
func TestRejectionPastTheCap(t *testing.T) {
	for _, n := range []int{3, 2 * MaxProblemsPerMessage} {
		d := DecodeLine(Line{Num: 1, Bytes: manyMembers(n, true)})
		params, ok := d.Msgs[0].Params.(*domain.InitializeRequest)
		if !ok {
			t.Fatalf("%d repeats: params %T", n, d.Msgs[0].Params)
		}
		if params.ClientCapabilities.State == domain.Present {
			t.Errorf("%d repeats: clientCapabilities of the wrong type is present (%+v)", n, params.ClientCapabilities)
		}
	}
}

// BenchmarkManyProblems: past the cap a problem costs no pointer, no text
// and no memory.
func BenchmarkManyProblems(b *testing.B) {
	line := manyMembers(100_000, false)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		DecodeLine(Line{Num: 1, Bytes: line})
	}
}
