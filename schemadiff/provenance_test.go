package schemadiff

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"regexp"
	"testing"
)

// TestProvenance checks that the committed schema files are the ones
// testdata/PROVENANCE.md names, so a silently edited copy fails.
func TestProvenance(t *testing.T) {
	doc, err := os.ReadFile("testdata/PROVENANCE.md")
	if err != nil {
		t.Fatal(err)
	}
	sums := regexp.MustCompile("(?m)^- `([^`]+)` `([0-9a-f]{64})`$").FindAllStringSubmatch(string(doc), -1)
	if len(sums) != 2 {
		t.Fatalf("PROVENANCE.md lists %d file hashes; want 2", len(sums))
	}
	for _, m := range sums {
		b, err := os.ReadFile("testdata/" + m[1])
		if err != nil {
			t.Error(err)
			continue
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != m[2] {
			t.Errorf("%s: SHA-256 %s; PROVENANCE.md says %s", m[1], got, m[2])
		}
	}
}
