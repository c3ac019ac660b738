package rulehomes

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/acplint/acplint/conformance"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/internal/catalogsrc"
	"github.com/acplint/acplint/internal/golden"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/protocol"
)

const (
	module         = "github.com/acplint/acplint"
	findingsPkg    = module + "/findings"
	protocolPkg    = module + "/protocol"
	lintPkg        = module + "/lint"
	conformancePkg = module + "/conformance"
)

// TestEveryRuleHasOneHome proves that each rule of the catalog lives in
// one place. A rule's home is the one package whose code may raise it:
//
//   - protocol, for a rule one of its checks declares (protocol.Checks):
//     every rule about messages, the codec's problems included;
//   - lint, for a rule lint.Rules lists: the byte stream, the reaction to
//     a malformed line, and acplint's own ACP-LINT rules, whose findings
//     other packages build with lint's constructors;
//   - conformance, for a rule conformance.Rules lists: one no transcript
//     decides (findings.Rule.Undecidable) and lint never raises.
//
// No rule has two homes. A rule without a home must be listed as not
// checked yet in the corpus (a todo.txt, conformance.Unchecked), and a
// rule listed there has none. Then every non-test Go file of the module
// is parsed, and each catalog variable (findings.X) may be named only in
// its home package. Reading a rule's ID to recognise its findings
// (findings.X.ID) is not raising it and may happen anywhere.
func TestEveryRuleHasOneHome(t *testing.T) {
	homes := map[string][]string{} // rule ID -> the homes that claim it
	for _, ch := range protocol.Checks() {
		for _, r := range ch.Rules {
			homes[r.ID] = append(homes[r.ID], protocolPkg)
		}
	}
	for _, r := range lint.Rules() {
		homes[r.ID] = append(homes[r.ID], lintPkg)
	}
	for _, r := range conformance.Rules() {
		homes[r.ID] = append(homes[r.ID], conformancePkg)
		if r.Undecidable == "" {
			t.Errorf("%s is a conformance rule but a transcript can decide it: it belongs in a protocol check or in lint", r.ID)
		}
	}
	todo, err := golden.Unchecked(conformance.Corpus())
	if err != nil {
		t.Fatal(err)
	}
	vars := catalogVars(t)
	named := namedRules(t, vars)
	for _, r := range findings.All() {
		_, _, proved := golden.ProvedBy(todo[r.ID])
		_, listed := todo[r.ID]
		notYet := listed && !proved
		switch h := homes[r.ID]; {
		case len(h) > 1:
			t.Errorf("%s has %d homes (%s); a rule has one", r.ID, len(h), strings.Join(h, ", "))
		case len(h) == 0 && !notYet:
			t.Errorf("%s has no home: declare it in a protocol check, lint.Rules or conformance.Rules, or list it in a todo.txt", r.ID)
		case len(h) == 1 && notYet:
			t.Errorf("%s is listed as not checked yet (%s) but %s is its home", r.ID, todo[r.ID], h[0])
		}
		var want []string
		if len(homes[r.ID]) == 1 {
			want = homes[r.ID]
		}
		if got := named[r.ID]; !slices.Equal(got, want) {
			t.Errorf("%s (findings.%s) is named in %v; only its home %v may name it", r.ID, vars[r.ID], got, want)
		}
	}
}

// catalogVars maps rule IDs to the names of their variables in package
// findings, read from its source.
func catalogVars(t *testing.T) map[string]string {
	t.Helper()
	byName, err := catalogsrc.RuleVars(filepath.Join(moduleRoot, "findings"))
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]string, len(byName))
	for name, id := range byName {
		out[id] = name
	}
	for _, r := range findings.All() {
		if out[r.ID] == "" {
			t.Fatalf("no variable found for %s in findings/catalog_*.go", r.ID)
		}
	}
	return out
}

const moduleRoot = "../.."

// namedRules maps rule IDs to the packages (import paths, sorted) whose
// non-test code names the rule's variable other than to read its ID.
func namedRules(t *testing.T, vars map[string]string) map[string][]string {
	t.Helper()
	byVar := map[string]string{}
	for id, v := range vars {
		byVar[v] = id
	}
	sets := map[string]map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(moduleRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != moduleRoot && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(moduleRoot, filepath.Dir(p))
		if err != nil {
			return err
		}
		pkg := path.Join(module, filepath.ToSlash(rel))
		if pkg == findingsPkg {
			return nil // the catalog itself
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		local := ""
		for _, imp := range f.Imports {
			if imp.Path.Value == strconv.Quote(findingsPkg) {
				local = "findings"
				if imp.Name != nil {
					local = imp.Name.Name
				}
			}
		}
		if local == "" {
			return nil
		}
		idReads := map[*ast.SelectorExpr]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "ID" {
				if inner, ok := sel.X.(*ast.SelectorExpr); ok {
					idReads[inner] = true
				}
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok || idReads[sel] {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == local {
				if id, ok := byVar[sel.Sel.Name]; ok {
					if sets[id] == nil {
						sets[id] = map[string]bool{}
					}
					sets[id][pkg] = true
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for id, set := range sets {
		for pkg := range set {
			out[id] = append(out[id], pkg)
		}
		sort.Strings(out[id])
	}
	return out
}
