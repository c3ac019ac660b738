// Package catalogsrc reads the rule catalog's source (findings/catalog_*.go)
// for tests that check which package names which rule variable: the
// variables are only visible as names in source, not at run time.
package catalogsrc

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
)

// RuleVars maps the name of each rule variable declared in the catalog
// files under findingsDir to its rule ID.
func RuleVars(findingsDir string) (map[string]string, error) {
	files, err := filepath.Glob(filepath.Join(findingsDir, "catalog_*.go"))
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			return nil, err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			spec, ok := n.(*ast.ValueSpec)
			if !ok {
				return true
			}
			for i, v := range spec.Values {
				lit, ok := v.(*ast.UnaryExpr)
				if !ok {
					continue
				}
				cl, ok := lit.X.(*ast.CompositeLit)
				if !ok {
					continue
				}
				for _, e := range cl.Elts {
					kv, ok := e.(*ast.KeyValueExpr)
					if !ok {
						continue
					}
					if key, ok := kv.Key.(*ast.Ident); !ok || key.Name != "ID" {
						continue
					}
					if bl, ok := kv.Value.(*ast.BasicLit); ok {
						if id, err := strconv.Unquote(bl.Value); err == nil {
							out[spec.Names[i].Name] = id
						}
					}
				}
			}
			return false
		})
	}
	return out, nil
}
