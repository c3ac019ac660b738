package protocol

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
)

// TestChecksAreWellFormed guards the shape of checkList: unique names,
// one line of doc, and hooks whose function fits their trigger.
func TestChecksAreWellFormed(t *testing.T) {
	names := map[string]bool{}
	framing := 0
	for _, ch := range checkList() {
		if ch.Name == "" || names[ch.Name] {
			t.Errorf("check name %q is empty or not unique", ch.Name)
		}
		names[ch.Name] = true
		if ch.Doc == "" || strings.Contains(ch.Doc, "\n") {
			t.Errorf("check %s: the doc must be one line", ch.Name)
		}
		if len(ch.Hooks) == 0 || len(ch.Rules) == 0 {
			t.Errorf("check %s has no hooks or no rules", ch.Name)
		}
		for i, h := range ch.Hooks {
			var request, response, end, methods, problem bool
			switch h.On {
			case OnProblem:
				problem = true
				if len(h.Problem.Kinds) == 0 {
					t.Errorf("check %s hook %d takes problems of no kind", ch.Name, i)
				}
			case OnFraming:
				framing++ // the machine runs the framing itself: no function
			case OnArrival, OnEveryRequest:
				request = true
			case OnRequestTo:
				request, methods = true, true
			case OnErrorAnswer, OnEveryResponse:
				response = true
			case OnResponseTo:
				response, methods = true, true
			case OnEnd:
				end = true
			default:
				t.Errorf("check %s hook %d has no known trigger", ch.Name, i)
			}
			if request != (h.request != nil) || response != (h.response != nil) || end != (h.end != nil) ||
				problem != (h.problem != nil) || methods != (len(h.Methods) > 0) {
				t.Errorf("check %s hook %d (%v) does not fit its trigger", ch.Name, i, h)
			}
		}
	}
	if framing != 1 {
		t.Errorf("%d hooks claim the framing, want 1", framing)
	}
}

// TestChecksReturnsCopies proves callers of Checks cannot change the
// machine's checks.
func TestChecksReturnsCopies(t *testing.T) {
	cs := Checks()
	first := cs[0].Rules[0]
	cs[0].Rules[0] = nil
	cs[0].Name = "changed"
	again := Checks()
	if again[0].Rules[0] != first || again[0].Name == "changed" {
		t.Fatal("changing the result of Checks changed the machine's checks")
	}
}

// TestEveryRuleHasOneCheck proves that a rule the machine raises has one
// home: exactly one check declares it, and it is the catalog's rule.
func TestEveryRuleHasOneCheck(t *testing.T) {
	owner := map[*findings.Rule]string{}
	for _, ch := range checkList() {
		for _, r := range ch.Rules {
			if cat, ok := findings.ByID(r.ID); !ok || cat != r {
				t.Errorf("check %s declares %s, which is not the catalog's rule", ch.Name, r.ID)
			}
			if prev, dup := owner[r]; dup {
				t.Errorf("%s is declared by check %s and by check %s; a rule has one home", r.ID, prev, ch.Name)
			}
			owner[r] = ch.Name
		}
	}
}

// framingEntries are the framing's functions that advance calls.
var framingEntries = []string{"onRequest", "onNotification", "onResponse", "finish"}

// TestChecksDeclareWhatTheyRaise proves, from the source, that the rules
// each check's code can raise are exactly the rules it declares: a check
// that raises a rule it does not declare would be caught at run time
// (TestUndeclaredRuleIsAnError) only on a transcript that reaches the
// code, and a declared rule the code never raises is a stale claim.
//
// A check's code is its hook functions and everything in the package they
// name, the way a reader would follow them; hooks of other checks are
// reached only through the dispatch tables, which this walk does not
// enter. Naming is over-approximated (any identifier that is the name of a
// package-level function, method or variable counts), so the walk can only
// find too much, never too little.
func TestChecksDeclareWhatTheyRaise(t *testing.T) {
	code := parsePackage(t)
	raisedSomewhere := map[string]bool{}
	for _, ch := range checkList() {
		var entries []string
		for _, h := range ch.Hooks {
			switch h.On {
			case OnFraming:
				entries = append(entries, framingEntries...)
			default:
				entries = append(entries, funcName(t, h))
			}
		}
		raised := code.rulesReachedFrom(t, entries)
		var declared []string
		for _, r := range ch.Rules {
			declared = append(declared, ruleVar(r))
		}
		for _, r := range raised {
			raisedSomewhere[r] = true
			if !slices.Contains(declared, r) {
				t.Errorf("check %s raises findings.%s but does not declare it", ch.Name, r)
			}
		}
		for _, r := range declared {
			if !slices.Contains(raised, r) {
				t.Errorf("check %s declares findings.%s but its code never raises it", ch.Name, r)
			}
		}
	}
	for r := range code.allRules() {
		if !raisedSomewhere[r] {
			t.Errorf("findings.%s is named in package protocol outside the code of any check", r)
		}
	}
}

// TestUndeclaredRuleIsAnError shows the run-time side: a check that
// raises a rule it does not declare gives an error that is not a
// Violation, which the lint driver reports as ACP-LINT-003.
func TestUndeclaredRuleIsAnError(t *testing.T) {
	ch := &Check{Name: "narrow", Rules: []*findings.Rule{findings.SESRelativeCwd}}
	c := &ctx{r: &report{}, m: &domain.Message{}, d: &dispatch{checks: []*Check{ch}}}
	c.add(findings.SESRelativeCwd, "/params/cwd", "declared")
	f := c.add(findings.SIDUnknownSession, "/params/sessionId", "not declared")
	f.Severity = findings.SeverityInfo // callers may adjust what add returns
	vs, other := Violations(c.r.err())
	if len(vs) != 1 || vs[0].Finding.RuleID != findings.SESRelativeCwd.ID {
		t.Errorf("violations = %v, want the declared ACP-SES-001 only", vs)
	}
	var undeclared *undeclaredRule
	if len(other) != 1 || !errors.As(other[0], &undeclared) || undeclared.rule != findings.SIDUnknownSession {
		t.Fatalf("other errors = %v, want one undeclared ACP-SID-001", other)
	}
	if msg := other[0].Error(); !strings.Contains(msg, `check "narrow"`) || !strings.Contains(msg, "ACP-SID-001") {
		t.Errorf("error %q does not name the check and the rule", msg)
	}
}

// ruleVar returns the name of r's variable in package findings.
func ruleVar(r *findings.Rule) string {
	v := reflect.ValueOf(r).Pointer()
	for name, rule := range catalogVars() {
		if reflect.ValueOf(rule).Pointer() == v {
			return name
		}
	}
	return r.ID
}

// catalogVars maps the name of every catalog variable to its rule, read
// from package findings' source.
var catalogVars = sync.OnceValue(func() map[string]*findings.Rule {
	fset := token.NewFileSet()
	files, _ := filepath.Glob("../findings/catalog_*.go")
	out := map[string]*findings.Rule{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			panic(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, s := range g.Specs {
				for i, n := range s.(*ast.ValueSpec).Names {
					lit, ok := s.(*ast.ValueSpec).Values[i].(*ast.UnaryExpr)
					if !ok {
						continue
					}
					for _, e := range lit.X.(*ast.CompositeLit).Elts {
						kv, ok := e.(*ast.KeyValueExpr)
						if ok && kv.Key.(*ast.Ident).Name == "ID" {
							id := strings.Trim(kv.Value.(*ast.BasicLit).Value, `"`)
							if r, ok := findings.ByID(id); ok {
								out[n.Name] = r
							}
						}
					}
				}
			}
		}
	}
	return out
})

// funcName returns the package-level declaration h's function comes from:
// "checkAuthMethodIDs", or "coreSessionReopen" for a closure it returns.
func funcName(t *testing.T, h Hook) string {
	var f any
	switch {
	case h.request != nil:
		f = h.request
	case h.response != nil:
		f = h.response
	case h.problem != nil:
		f = h.problem
	default:
		f = h.end
	}
	full := runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()
	name := strings.TrimPrefix(full, "github.com/acplint/acplint/protocol.")
	name = closureSuffix.ReplaceAllString(name, "")
	// A closure inlined into checkList is named checkList.outer.func1.
	name = name[strings.LastIndex(name, ".")+1:]
	if !strings.HasPrefix(full, "github.com/acplint/acplint/protocol.") || name == "" {
		t.Fatalf("hook function %s is not a package-level function of protocol", full)
	}
	return name
}

var closureSuffix = regexp.MustCompile(`(\.func\d+)+$`)

// packageCode is package protocol's non-test source, by declaration.
type packageCode struct {
	// rules and names map each package-level function, method and
	// variable to the catalog variables it names and the package-level
	// declarations it names.
	rules map[string][]string
	names map[string][]string
	decls map[string]bool
}

func parsePackage(t *testing.T) *packageCode {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	type decl struct {
		name string
		node ast.Node
	}
	var decls []decl
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				decls = append(decls, decl{d.Name.Name, d})
			case *ast.GenDecl:
				if d.Tok != token.VAR {
					continue
				}
				for _, s := range d.Specs {
					for _, n := range s.(*ast.ValueSpec).Names {
						decls = append(decls, decl{n.Name, s})
					}
				}
			}
		}
	}
	known := map[string]bool{}
	for _, d := range decls {
		known[d.name] = true
	}
	rules := catalogVars()
	code := &packageCode{rules: map[string][]string{}, names: map[string][]string{}, decls: known}
	for _, d := range decls {
		if d.name == "checkList" {
			continue // names every hook: the walk would reach them all
		}
		ast.Inspect(d.node, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.SelectorExpr:
				if pkg, ok := x.X.(*ast.Ident); ok && pkg.Name == "findings" {
					if _, ok := rules[x.Sel.Name]; ok {
						code.rules[d.name] = append(code.rules[d.name], x.Sel.Name)
					}
					return false
				}
				if known[x.Sel.Name] {
					code.names[d.name] = append(code.names[d.name], x.Sel.Name) // a method
				}
			case *ast.Ident:
				if known[x.Name] && x.Name != d.name {
					code.names[d.name] = append(code.names[d.name], x.Name)
				}
			}
			return true
		})
	}
	return code
}

// rulesReachedFrom returns the catalog variables the code reachable from
// entries names, sorted.
func (c *packageCode) rulesReachedFrom(t *testing.T, entries []string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(name string) {
		if seen[name] {
			return
		}
		seen[name] = true
		for _, n := range c.names[name] {
			walk(n)
		}
	}
	for _, e := range entries {
		if !c.decls[e] {
			t.Fatalf("no declaration %s in package protocol", e)
		}
		walk(e)
	}
	set := map[string]bool{}
	for name := range seen {
		for _, r := range c.rules[name] {
			set[r] = true
		}
	}
	out := make([]string, 0, len(set))
	for r := range set {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// allRules returns every catalog variable the package names.
func (c *packageCode) allRules() map[string]bool {
	out := map[string]bool{}
	for _, rs := range c.rules {
		for _, r := range rs {
			out[r] = true
		}
	}
	return out
}

// TestProblemKeysDoNotOverlap proves that the check order never decides
// which rule a codec problem breaks: two keys that rank the same
// (problemPrecedence) never take the same problem.
func TestProblemKeysDoNotOverlap(t *testing.T) {
	type keyed struct {
		check string
		key   ProblemKey
	}
	var all []keyed
	for _, ch := range checkList() {
		for _, h := range ch.Hooks {
			if h.On == OnProblem {
				all = append(all, keyed{ch.Name, h.Problem})
			}
		}
	}
	overlap := func(a, b []string) bool {
		return len(a) == 0 || len(b) == 0 || slices.ContainsFunc(a, func(s string) bool { return slices.Contains(b, s) })
	}
	for i, a := range all {
		for _, b := range all[i+1:] {
			if problemPrecedence(a.key, b.key) != 0 || a.key.Request != b.key.Request {
				continue
			}
			kindsMeet := slices.ContainsFunc(a.key.Kinds, func(k domain.ProblemKind) bool { return slices.Contains(b.key.Kinds, k) })
			defsMeet := overlap(a.key.Defs, b.key.Defs) &&
				(strings.HasPrefix(a.key.DefPrefix, b.key.DefPrefix) || strings.HasPrefix(b.key.DefPrefix, a.key.DefPrefix)) &&
				(strings.HasSuffix(a.key.DefSuffix, b.key.DefSuffix) || strings.HasSuffix(b.key.DefSuffix, a.key.DefSuffix))
			if kindsMeet && defsMeet && overlap(a.key.Members, b.key.Members) {
				t.Errorf("check %s's key %v and check %s's key %v rank the same and take the same problems", a.check, a.key, b.check, b.key)
			}
		}
	}
}

// TestEveryProblemKindIsTaken proves that every kind of problem the driver
// hands over (all but the byte-stream ones lint reports itself and the
// count of problems past the cap) has a hook that takes it whatever its
// definition and member.
func TestEveryProblemKindIsTaken(t *testing.T) {
	d := newDispatch(checkList())
	for k := domain.ProbDuplicate; k < domain.ProbTooMany; k++ {
		p := &domain.Problem{Kind: k, Def: "SomeDefinition", Member: "someMember", Pointer: "/params/x"}
		if d.problemHook(p, &domain.Message{Kind: domain.KindRequest}) == nil {
			t.Errorf("no check takes a %s problem", k)
		}
	}
}
