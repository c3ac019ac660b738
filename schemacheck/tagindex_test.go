package schemacheck

import (
	"strconv"
	"testing"
)

// TestTagIndexAnswersAsItsMap checks both lookups, the scan of a few tags
// and the map past tagScan, against the map the index was built from.
func TestTagIndexAnswersAsItsMap(t *testing.T) {
	for _, n := range []int{0, 1, 3, tagScan, tagScan + 1, 40} {
		m := map[string]int{}
		for i := range n {
			m["tag"+strconv.Itoa(i)] = i * 7
		}
		ix := newTagIndex(m)
		for i := range n + 2 { // two names the union lacks
			name := "tag" + strconv.Itoa(i)
			want, wantOK := m[name]
			got, ok := ix.get(name)
			if got != want || ok != wantOK {
				t.Errorf("%d tags: get(%q) = %d, %v; the map says %d, %v", n, name, got, ok, want, wantOK)
			}
		}
		if _, ok := ix.get(""); ok {
			t.Errorf("%d tags: the empty name found", n)
		}
	}
}
