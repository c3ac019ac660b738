package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/internal/golden"
)

// copyTree copies the module's directories dirs (and go.mod, go.sum) into
// a fresh root, so the scaffold can be written and built without touching
// the tree the test runs in.
func copyTree(t *testing.T, dirs ...string) string {
	t.Helper()
	src, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	for _, f := range []string{"go.mod", "go.sum"} {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range dirs {
		err := filepath.WalkDir(filepath.Join(src, d), func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			r, _ := filepath.Rel(src, path)
			if e.IsDir() {
				return os.MkdirAll(filepath.Join(dst, r), 0o755)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dst, r), data, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

var moduleDirs = []string{"domain", "findings", "protocol", "internal/jsonv", "internal/slab", "internal/reference", "conformance/testdata/upd"}

// TestScaffoldBuildsAndFailsUntilFilled scaffolds a rule into an existing
// check and into a new one, and checks that the result compiles, that the
// catalog and the check declare the rule, and that the failing case
// expects the rule's finding (so the golden test stays red until a
// maintainer writes the check and the transcripts).
func TestScaffoldBuildsAndFailsUntilFilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a copy of the module")
	}
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"existing check", Options{Area: "UPD", Name: "UPDScaffolded", Title: "a scaffolded rule", Check: "update"}},
		{"new check", Options{Area: "UPD", Name: "UPDScaffolded", Title: "a scaffolded rule", NewCheck: "scaffolded"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := copyTree(t, moduleDirs...)
			o := tc.opts
			o.Root = root
			res, err := Scaffold(o)
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"findings/catalog_upd.go", "findings/catalog.go", "protocol/checks.go"}
			if tc.opts.NewCheck != "" {
				want = append(want, "conformance/testdata/upd/scaffolded-ok.txtar", "conformance/testdata/upd/scaffolded.txtar", "protocol/scaffolded.go")
			} else {
				want = append(want, "conformance/testdata/upd/scaffolded-ok.txtar", "conformance/testdata/upd/scaffolded.txtar")
			}
			if strings.Join(res.Files, " ") != strings.Join(want, " ") {
				t.Errorf("wrote %v, want %v", res.Files, want)
			}
			highest := ""
			for _, r := range findings.All() {
				if r.Area() == "UPD" && r.ID > highest {
					highest = r.ID
				}
			}
			if n, _ := strconv.Atoi(strings.TrimPrefix(highest, "ACP-UPD-")); res.ID != fmt.Sprintf("ACP-UPD-%03d", n+1) {
				t.Errorf("ID %s: want the area's next free number after %s", res.ID, highest)
			}
			read := func(f string) string {
				data, err := os.ReadFile(filepath.Join(root, f))
				if err != nil {
					t.Fatal(err)
				}
				return string(data)
			}
			if !strings.Contains(read("findings/catalog_upd.go"), `ID:       "`+res.ID+`"`) {
				t.Error("the catalog entry does not carry the new ID")
			}
			if !strings.Contains(read("findings/catalog.go"), "\t\tUPDScaffolded,\n") {
				t.Error("All() does not list the new rule")
			}
			if !strings.Contains(read("protocol/checks.go"), "findings.UPDScaffolded") {
				t.Error("no check declares the new rule")
			}
			c, err := golden.ParseCase("upd/scaffolded.txtar", []byte(read("conformance/testdata/upd/scaffolded.txtar")))
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Want) != 1 || c.Want[0].Rule != res.ID {
				t.Errorf("the failing case wants %v, want one finding of %s", c.Want, res.ID)
			}
			ok, err := golden.ParseCase("upd/scaffolded-ok.txtar", []byte(read("conformance/testdata/upd/scaffolded-ok.txtar")))
			if err != nil {
				t.Fatal(err)
			}
			if len(ok.Want) != 0 {
				t.Errorf("the passing case wants %v, want nothing", ok.Want)
			}
			build := exec.Command("go", "build", "./findings", "./protocol")
			build.Dir = root
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("the scaffold does not build: %v\n%s", err, out)
			}
			// A second run refuses: IDs and files are never overwritten.
			if _, err := Scaffold(o); err == nil {
				t.Error("scaffolding the same rule twice succeeded")
			}
		})
	}
}

func TestScaffoldRefusesBadOptions(t *testing.T) {
	root := copyTree(t, "findings", "protocol")
	before, _ := os.ReadFile(filepath.Join(root, "protocol", "checks.go"))
	for _, o := range []Options{
		{Area: "upd", Name: "UPDX", Title: "t", Check: "update"},
		{Area: "UPD", Name: "SESX", Title: "t", Check: "update"},
		{Area: "UPD", Name: "UPDX", Title: "Ends with a period.", Check: "update"},
		{Area: "UPD", Name: "UPDX", Title: "t"},
		{Area: "UPD", Name: "UPDX", Title: "t", Check: "update", NewCheck: "x"},
		{Area: "UPD", Name: "UPDX", Title: "t", Check: "nosuchcheck"},
		{Area: "ZZZ", Name: "ZZZX", Title: "t", Check: "update"},
		{Area: "UPD", Name: "UPDPlanShrinks", Title: "t", Check: "update"},
	} {
		o.Root = root
		if _, err := Scaffold(o); err == nil {
			t.Errorf("%+v: scaffolded, want a refusal", o)
		}
	}
	after, _ := os.ReadFile(filepath.Join(root, "protocol", "checks.go"))
	if !bytes.Equal(before, after) {
		t.Error("a refused scaffold changed protocol/checks.go")
	}
}
