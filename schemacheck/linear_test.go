package schemacheck

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/acplint/acplint/internal/proctest"
	"github.com/acplint/acplint/schemamodel"
)

// TestHostileValuesLinear checks values built to make a careless checker
// quadratic: one object with a great many members (unknown, or all of one
// name), an array of a great many wrong elements, each a problem of its
// own. At this size a walk that scans the members or the problems found
// so far once per member takes minutes; a linear one well under a second.
func TestHostileValuesLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("builds values of megabytes")
	}
	if proctest.RaceEnabled {
		// The race detector multiplies the time the bound is about;
		// .ci/run runs this test without it.
		t.Skip("bounds wall time: timed, run without -race (.ci/run does)")
	}
	p := loadPair(t, "../internal/reference/acp-schema.unstable.json")
	prompt := schemamodel.Key{Method: "session/prompt", Kind: schemamodel.KindRequest}
	repeat := func(format string, n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, format, i)
		}
		return b.String()
	}
	// A wrong element costs some microseconds to explain (which variant
	// of a content block it fails), so there are fewer of them.
	const members, elems = 200_000, 100_000
	for _, c := range []struct {
		name, raw string
		probs     int
	}{
		{"unknown members", `{"sessionId":"s","prompt":[],` + repeat(`"x%d":1`, members) + `}`, members},
		{"one member repeated", `{"sessionId":"s","prompt":[],` + repeat(`"x":%d`, members) + `}`, 1},
		{"wrong elements", `{"sessionId":"s","prompt":[` + repeat(`%d`, elems) + `]}`, elems},
		{"wrong elements, unknown members", `{"sessionId":"s","prompt":[` + repeat(`%d`, elems) + `],` + repeat(`"x%d":1`, members) + `}`, elems + members},
	} {
		start := time.Now()
		got := p.ck.Check(prompt, []byte(c.raw), nil, "/params")
		took := time.Since(start)
		t.Logf("%s: %d bytes, %d problems in %v", c.name, len(c.raw), len(got), took)
		if len(got) != c.probs {
			t.Errorf("%s: %d problems, want %d", c.name, len(got), c.probs)
		}
		// Linear work here is about a second; the bound leaves room
		// for a loaded machine, quadratic work took minutes.
		if took > 10*time.Second {
			t.Errorf("%s: %d bytes took %v", c.name, len(c.raw), took)
		}
	}
}
