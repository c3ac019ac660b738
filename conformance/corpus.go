package conformance

import (
	"embed"
	"io/fs"
)

// corpus is the golden transcript corpus, embedded so that `acplint
// explain` and `acplint rules` can show each rule's examples and why a
// rule is not checked yet. Its format is package internal/golden's; the
// embed stays here because go:embed only reaches below its own package,
// and the cases live where `go test ./conformance -run TestGolden -update`
// rewrites them.
//
//go:embed testdata
var corpus embed.FS

// Corpus returns the golden corpus rooted at its area directories
// (testdata/ses/x.txtar is ses/x.txtar), for golden.LoadCases and
// golden.Unchecked.
func Corpus() fs.FS {
	sub, err := fs.Sub(corpus, "testdata")
	if err != nil {
		panic("conformance: " + err.Error()) // only for an invalid path
	}
	return sub
}
