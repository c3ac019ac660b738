package htmlreport

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/acplint/acplint/internal/golden"
)

var update = flag.Bool("update", false, "rewrite testdata/*.html from the pages written now")

// goldenCases are corpus cases whose pages are kept in testdata: a batch
// (two rows on one line), an acplint recording (times, a gap record), a
// jsonl recording of a real SDK peer (times, a cancelled streaming turn),
// and findings with related lines.
var goldenCases = []string{
	"wire/batch-request",
	"lint/recording-with-gap",
	"sdk/cancel-stream",
	"rpc/duplicate-pending-id",
}

// corpusCase reads a case of the golden corpus.
func corpusCase(t *testing.T, name string) *golden.Case {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "conformance", "testdata", name+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := golden.ParseCase(name, data)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// pageOf writes the report of one corpus case.
func pageOf(t *testing.T, c *golden.Case, opts Options) []byte {
	t.Helper()
	lo := lintOptions(c)
	var out bytes.Buffer
	w := New(&out, opts)
	if _, err := w.Lint(bytes.NewReader(c.Transcript), lo); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// The compiled-in style and script are not part of the golden structure
// (the browser test covers them), and neither are their hashes.
var (
	styleBody  = regexp.MustCompile(`(?s)<style>.*?</style>`)
	scriptBody = regexp.MustCompile(`(?s)<script>.*?</script>`)
	hashes     = regexp.MustCompile(`sha256-(?:[A-Za-z0-9+/=]|&#43;)+`)
)

func structure(page []byte) []byte {
	page = styleBody.ReplaceAll(page, []byte("<style>…</style>"))
	page = scriptBody.ReplaceAll(page, []byte("<script>…</script>"))
	return hashes.ReplaceAll(page, []byte("sha256-…"))
}

// TestGoldenPages compares the page of each golden case, less the style
// and script, with testdata/CASE.html: the skeleton, and one data record
// per message and finding.
func TestGoldenPages(t *testing.T) {
	for _, name := range goldenCases {
		t.Run(name, func(t *testing.T) {
			c := corpusCase(t, name)
			got := structure(pageOf(t, c, Options{Version: "test"}))
			file := filepath.Join("testdata", strings.ReplaceAll(name, "/", "-")+".html")
			if *update {
				if err := os.WriteFile(file, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test ./htmlreport -run TestGoldenPages -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("the page of %s differs from %s (rerun with -update and read the diff):\n%s", name, file, firstDifference(got, want))
			}
		})
	}
}

// firstDifference shows the first line where got and want differ.
func firstDifference(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n got: " + gl + "\nwant: " + wl
		}
	}
	return ""
}
