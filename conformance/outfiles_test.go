package conformance

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/acplint/acplint/conformance/agents"
)

// TestReproductionFilesArePrivate: check --out writes transcripts of an
// agent's traffic, which may hold its secrets: they are 0600, and a link
// planted at a reproduction's path is replaced, its target left alone.
func TestReproductionFilesArePrivate(t *testing.T) {
	opts := testOptions(t, string(agents.EchoVersion))
	opts.Runs = 10
	opts.ShrinkTime = 300 * time.Millisecond
	opts.OutDir = t.TempDir()
	target := filepath.Join(t.TempDir(), "target")
	if err := os.WriteFile(target, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(opts.OutDir, "ACP-VER-007.jsonl")
	if err := os.Symlink(target, planted); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	v, err := Check(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep := v.rule("ACP-VER-007").Reproduction; rep == nil || rep.File != planted {
		var text bytes.Buffer
		_ = v.Write(&text, FormatText)
		t.Fatalf("no reproduction written to %s: %+v\n%s", planted, rep, text.String())
	}
	if b, _ := os.ReadFile(target); string(b) != "keep me" {
		t.Errorf("the planted link's target was overwritten: %q", b)
	}
	entries, err := os.ReadDir(opts.OutDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		if !info.Mode().IsRegular() || info.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want a regular file, 0600", e.Name(), info.Mode())
		}
	}
}
