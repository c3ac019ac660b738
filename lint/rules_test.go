package lint

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/acplint/acplint/internal/catalogsrc"
)

// TestRulesListsWhatLintRaises proves that Rules, lint's claim on its
// rules, is what lint's code raises: every catalog variable the package
// names outside Rules is in the list, and every one in the list is named
// somewhere else too.
func TestRulesListsWhatLintRaises(t *testing.T) {
	vars := catalogVars(t)
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	raised := map[string]bool{}
	fset := token.NewFileSet()
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == "Rules" && fd.Recv == nil {
				continue
			}
			ast.Inspect(d, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "findings" && vars[sel.Sel.Name] != "" {
					raised[vars[sel.Sel.Name]] = true
				}
				return true
			})
		}
	}
	var got, want []string
	for id := range raised {
		got = append(got, id)
	}
	for _, r := range Rules() {
		want = append(want, r.ID)
	}
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("lint's code raises %v, but Rules lists %v", got, want)
	}
}

// catalogVars maps the names of the catalog's variables in package
// findings to their rule IDs, read from its source.
func catalogVars(t *testing.T) map[string]string {
	t.Helper()
	vars, err := catalogsrc.RuleVars("../findings")
	if err != nil {
		t.Fatal(err)
	}
	return vars
}
