package reference

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"regexp"
	"testing"
)

// TestHashes checks that the embedded files are the ones README.md names.
func TestHashes(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, m := range regexp.MustCompile("(?m)^- `([^`]+)` `([0-9a-f]{64})`$").FindAllStringSubmatch(string(readme), -1) {
		want[m[1]] = m[2]
	}
	files := map[string][]byte{
		"acp-schema.json":          StableSchema,
		"acp-schema.unstable.json": UnstableSchema,
		"acp-meta.json":            Meta,
	}
	if len(want) != len(files) {
		t.Errorf("README.md lists %d hashes; want one for each of the %d files", len(want), len(files))
	}
	for name, b := range files {
		sum := sha256.Sum256(b)
		got := hex.EncodeToString(sum[:])
		switch w, ok := want[name]; {
		case !ok:
			t.Errorf("README.md gives no SHA-256 for %s", name)
		case got != w:
			t.Errorf("%s: SHA-256 is %s; README.md says %s", name, got, w)
		}
		if !json.Valid(b) {
			t.Errorf("%s is not valid JSON", name)
		}
	}
}
