package schemadiff

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestProvenance checks that the committed schema files are the ones
// testdata/PROVENANCE.md names, so a silently edited copy fails, and that
// no file under testdata/npm is committed without an entry there.
func TestProvenance(t *testing.T) {
	doc, err := os.ReadFile("testdata/PROVENANCE.md")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{}
	for _, m := range regexp.MustCompile("(?m)^- `([^`]+)` `([0-9a-f]{64})`$").FindAllStringSubmatch(string(doc), -1) {
		listed[m[1]] = m[2]
	}
	onDisk := map[string]bool{}
	err = filepath.WalkDir("testdata/npm", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel("testdata", path)
		onDisk[filepath.ToSlash(rel)] = true
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for name := range onDisk {
		if _, ok := listed[name]; !ok {
			t.Errorf("%s is committed but PROVENANCE.md has no SHA-256 for it", name)
		}
	}
	for name, want := range listed {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Error(err)
			continue
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != want {
			t.Errorf("%s: SHA-256 %s; PROVENANCE.md says %s", name, got, want)
		}
	}
	if len(listed) == 0 {
		t.Error("PROVENANCE.md lists no file hashes")
	}
}
