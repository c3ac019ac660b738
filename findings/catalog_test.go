package findings

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

var idPattern = regexp.MustCompile(`^ACP-([A-Z]+)-\d{3}$`)

// areaFile maps each rule area to the one file allowed to define it.
var areaFile = map[string]string{
	"WIRE": "catalog_wire.go", "RPC": "catalog_rpc.go", "SCH": "catalog_sch.go",
	"SEQ": "catalog_seq.go", "VER": "catalog_ver.go", "CAP": "catalog_cap.go",
	"SID": "catalog_sid.go", "SES": "catalog_ses.go", "TURN": "catalog_turn.go",
	"CXL": "catalog_cxl.go", "UPD": "catalog_upd.go", "TOOL": "catalog_tool.go",
	"PERM": "catalog_perm.go", "TERM": "catalog_term.go", "FS": "catalog_fs.go",
	"AUTHN": "catalog_authn.go", "MODE": "catalog_mode.go", "CFG": "catalog_mode.go",
	"CONT": "catalog_cont.go", "ELIC": "catalog_elic.go", "EXTN": "catalog_extn.go",
	"LINT": "catalog_lint.go",
}

func TestCatalogFields(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range All() {
		if r == nil {
			t.Fatal("All() contains nil")
		}
		m := idPattern.FindStringSubmatch(r.ID)
		if m == nil {
			t.Errorf("%q does not match %s", r.ID, idPattern)
			continue
		}
		if seen[r.ID] {
			t.Errorf("%s is defined twice", r.ID)
		}
		seen[r.ID] = true
		if _, ok := areaFile[m[1]]; !ok {
			t.Errorf("%s: unknown area %s", r.ID, m[1])
		}
		if r.Area() != m[1] {
			t.Errorf("%s: Area() = %q", r.ID, r.Area())
		}
		checkTitle(t, r)
		if strings.TrimSpace(r.Doc) == "" {
			t.Errorf("%s: empty Doc", r.ID)
		}
		if !strings.HasPrefix(r.Spec, "https://agentclientprotocol.com/") {
			t.Errorf("%s: Spec %q is not an agentclientprotocol.com URL", r.ID, r.Spec)
		}
		if strings.ContainsAny(r.Spec, " \t\n#") || strings.HasSuffix(r.Spec, "/") || strings.HasSuffix(r.Spec, ".mdx") {
			t.Errorf("%s: Spec %q does not look like a page URL", r.ID, r.Spec)
		}
		for _, id := range r.TCK {
			if !regexp.MustCompile(`^ACP-[A-Z-]+-\d{3}$`).MatchString(id) {
				t.Errorf("%s: TCK id %q is malformed", r.ID, id)
			}
		}
		if strings.ContainsAny(r.Undecidable, "\n\r") {
			t.Errorf("%s: Undecidable must be one line", r.ID)
		}
		if r.Severity < SeverityInfo || r.Severity > SeverityError {
			t.Errorf("%s: bad severity %d", r.ID, r.Severity)
		}
		if r.Blame < PartyEither || r.Blame > PartyTool {
			t.Errorf("%s: bad blame %d", r.ID, r.Blame)
		}
		if (r.Area() == "LINT") != (r.Blame == PartyTool) && r.ID != "ACP-VER-005" && r.ID != "ACP-EXTN-008" {
			t.Errorf("%s: only acplint's own rules (LINT, VER-005, EXTN-008) blame the tool; blame is %s", r.ID, r.Blame)
		}
	}
}

func checkTitle(t *testing.T, r *Rule) {
	t.Helper()
	switch first, _ := utf8.DecodeRuneInString(r.Title); {
	case r.Title == "":
		t.Errorf("%s: empty title", r.ID)
	case unicode.IsUpper(first):
		t.Errorf("%s: title %q must start lowercase", r.ID, r.Title)
	case strings.HasSuffix(r.Title, "."):
		t.Errorf("%s: title %q ends with a period", r.ID, r.Title)
	case utf8.RuneCountInString(r.Title) > 60:
		t.Errorf("%s: title %q is longer than 60 characters", r.ID, r.Title)
	case strings.TrimSpace(r.Title) != r.Title || strings.Contains(r.Title, "\n"):
		t.Errorf("%s: title %q has stray whitespace", r.ID, r.Title)
	}
}

func TestAllSortedAndFresh(t *testing.T) {
	a := All()
	if !slices.IsSortedFunc(a, func(x, y *Rule) int { return strings.Compare(x.ID, y.ID) }) {
		for i := 1; i < len(a); i++ {
			if a[i-1].ID >= a[i].ID {
				t.Errorf("All() is not sorted by ID: %s before %s", a[i-1].ID, a[i].ID)
			}
		}
	}
	// Callers may reorder the result; that must not affect the next call.
	a[0], a[1] = a[1], a[0]
	if b := All(); b[0].ID > b[1].ID {
		t.Error("All() returned a shared slice")
	}
}

func TestByID(t *testing.T) {
	for _, r := range All() {
		got, ok := ByID(r.ID)
		if !ok || got != r {
			t.Errorf("ByID(%q) = %v, %v; want the catalog entry", r.ID, got, ok)
		}
	}
	for _, id := range []string{"", "ACP-SES-999", "acp-ses-002", "ACP-SES-002 "} {
		if r, ok := ByID(id); ok {
			t.Errorf("ByID(%q) = %s; want not found", id, r.ID)
		}
	}
}

// ruleVar is a package-level `var Name = &Rule{...}` found in the source.
type ruleVar struct {
	name, file, id string
}

// parseRuleVars finds every package-level *Rule variable in the package's
// non-test files. Parsing the source, rather than trusting All(), is what
// catches a rule someone defined but forgot to list.
func parseRuleVars(t *testing.T) []ruleVar {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var vars []ruleVar
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, ident := range vs.Names {
					if i >= len(vs.Values) {
						if isRuleType(vs.Type) {
							t.Errorf("%s: var %s is a *Rule without a literal value", name, ident.Name)
						}
						continue
					}
					lit := ruleLiteral(vs.Values[i])
					if lit == nil {
						if isRuleType(vs.Type) {
							t.Errorf("%s: var %s must be initialised with &Rule{...}", name, ident.Name)
						}
						continue
					}
					vars = append(vars, ruleVar{name: ident.Name, file: name, id: literalID(t, name, ident.Name, lit)})
				}
			}
		}
	}
	return vars
}

func isRuleType(e ast.Expr) bool {
	star, ok := e.(*ast.StarExpr)
	if !ok {
		return false
	}
	id, ok := star.X.(*ast.Ident)
	return ok && id.Name == "Rule"
}

func ruleLiteral(e ast.Expr) *ast.CompositeLit {
	u, ok := e.(*ast.UnaryExpr)
	if !ok || u.Op != token.AND {
		return nil
	}
	cl, ok := u.X.(*ast.CompositeLit)
	if !ok {
		return nil
	}
	if id, ok := cl.Type.(*ast.Ident); !ok || id.Name != "Rule" {
		return nil
	}
	return cl
}

func literalID(t *testing.T, file, name string, cl *ast.CompositeLit) string {
	t.Helper()
	for _, elt := range cl.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			t.Errorf("%s: %s uses positional fields; name them", file, name)
			continue
		}
		if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "ID" {
			bl, ok := kv.Value.(*ast.BasicLit)
			if !ok || bl.Kind != token.STRING {
				t.Errorf("%s: %s.ID must be a string literal", file, name)
				return ""
			}
			id, err := strconv.Unquote(bl.Value)
			if err != nil {
				t.Fatal(err)
			}
			return id
		}
	}
	t.Errorf("%s: %s has no ID", file, name)
	return ""
}

func TestEveryRuleVarIsInAll(t *testing.T) {
	vars := parseRuleVars(t)
	inAll := map[string]bool{}
	for _, r := range All() {
		inAll[r.ID] = true
	}
	declared := map[string]string{}
	for _, v := range vars {
		if prev, dup := declared[v.id]; dup {
			t.Errorf("%s and %s both declare %s", prev, v.name, v.id)
		}
		declared[v.id] = v.name
		if !inAll[v.id] {
			t.Errorf("%s (%s, %s) is missing from All()", v.name, v.id, v.file)
		}
		if !ast.IsExported(v.name) {
			t.Errorf("%s: rule variables are exported so checks in other packages can use them", v.name)
		}
		m := idPattern.FindStringSubmatch(v.id)
		if m == nil {
			continue
		}
		if want := areaFile[m[1]]; v.file != want {
			t.Errorf("%s (%s) is in %s; area %s belongs in %s", v.name, v.id, v.file, m[1], want)
		}
		if !strings.HasPrefix(v.name, m[1]) || len(v.name) == len(m[1]) {
			t.Errorf("%s (%s): variable names start with the area, e.g. %sSomething", v.name, v.id, m[1])
		}
	}
	if len(vars) != len(All()) {
		t.Errorf("source declares %d rules, All() returns %d", len(vars), len(All()))
	}
	for id := range inAll {
		if _, ok := declared[id]; !ok {
			t.Errorf("%s is in All() but no package-level variable declares it", id)
		}
	}
}

// TestSpecRuleIDs checks the catalog against the IDs the protocol reference
// proposes (copied into testdata, since the reference lives outside the
// module): every proposed ID must exist. The catalog may go beyond them
// (acplint's LINT rules, and rules found since in real traffic, which take
// the next free number of their area), so adding a rule never means
// editing a copy of somebody else's document.
func TestSpecRuleIDs(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "spec-rule-ids.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !idPattern.MatchString(line) {
			t.Errorf("spec-rule-ids.txt: malformed line %q", line)
		}
		want[line] = true
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 {
		t.Fatal("spec-rule-ids.txt lists no IDs")
	}
	for id := range want {
		if _, ok := ByID(id); !ok {
			t.Errorf("the spec proposes %s but the catalog lacks it", id)
		}
	}
}
