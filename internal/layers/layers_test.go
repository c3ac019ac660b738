package layers

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/acplint/acplint"

// rule is what one package's non-test files may depend on. Tests may
// import more (the conformance tests run lint, domain's tests read
// internal/reference); the graph is about what ships.
type rule struct {
	// imports are the module packages it may import directly.
	imports []string
	// pulls are the modules outside the standard library it may depend
	// on, directly or through the module packages it imports: what its
	// users link and initialise when they import it.
	pulls []string
}

const (
	txtar      = "github.com/rogpeppe/go-internal"        // the golden corpus's archive format
	invopop    = "github.com/invopop/jsonschema"          // schema.json's generator
	mcpSDK     = "github.com/modelcontextprotocol/go-sdk" // acplint mcp's protocol
	toolSchema = "github.com/google/jsonschema-go"        // the MCP tools' input and output schemas
	yamlv3     = "go.yaml.in/yaml/v3"                     // acplint.yaml, read by the command alone
)

// graph is the whole layering, keyed by path in the module: domain and
// findings <- codec, protocol <- lint <- conformance <- cmd/acplint, with
// the shared internal/ packages underneath. It records what is true today;
// an edge that is not here fails the test, so adding one is a decision
// taken in this file.
var graph = map[string]rule{
	// The vocabulary: typed ACP messages and the rule catalog use the
	// standard library only, and findings the shared JSON string escaper
	// for SARIF.
	"domain":   {},
	"findings": {imports: []string{"internal/jsonv"}},

	// Shared internals with no module dependencies of their own.
	"internal/slab":       {},
	"internal/jsonv":      {imports: []string{"internal/slab"}},
	"internal/reference":  {},
	"internal/procgroup":  {},
	"internal/proctest":   {},
	"internal/safefile":   {},
	"internal/gcpolicy":   {},
	"internal/layers":     {},
	"internal/rulehomes":  {},
	"internal/newrule":    {},
	"internal/catalogsrc": {},

	// The version acplint and acplint-mcp report.
	"internal/buildversion": {},

	// acplint check's sequence generator: a copy of pgregory.net/rapid
	// whose package init does no work (issue 16; see its README.md).
	"internal/third_party/rapid": {},

	// Decoding and the protocol machine: the hot path of every command,
	// so nothing outside the standard library.
	"codec":    {imports: []string{"domain", "internal/jsonv"}},
	"protocol": {imports: []string{"domain", "findings", "internal/jsonv"}},

	// Reading and writing transcripts, and the tap that records them.
	"transcript": {imports: []string{"codec", "domain", "internal/jsonv"}},
	"tap":        {imports: []string{"codec", "domain", "internal/jsonv", "internal/procgroup", "transcript"}},

	// Schemas: the compiled-in schema.json (its generator alone may use
	// invopop), the model of a schema file, and the diff of two.
	"schema":      {},
	"schema/gen":  {imports: []string{"domain"}, pulls: []string{invopop}},
	"schemamodel": {imports: []string{"internal/jsonv", "internal/reference"}},
	"schemadiff":  {imports: []string{"findings", "internal/jsonv", "schemamodel"}},
	// lint --schema's checker: a schema file compiled into one-pass
	// checks, on the standard library alone (the JSON Schema validator it
	// replaced is its tests' oracle).
	"schemacheck": {imports: []string{"codec", "internal/jsonv", "schemamodel"}},

	// lint pulls nothing outside the standard library: not rapid
	// (internal/third_party/rapid: issue 16 keeps acplint check's
	// generator off lint's path), nor a JSON Schema validator (--schema
	// runs schemacheck).
	"lint": {
		imports: []string{"codec", "domain", "findings", "internal/jsonv", "internal/slab", "protocol", "schemacheck", "schemamodel", "transcript"},
	},

	// The HTML report: lint's traffic and findings as one page, redacted
	// as tap redacts a recording.
	"htmlreport": {
		imports: []string{"domain", "findings", "internal/jsonv", "lint", "tap", "transcript"},
	},

	// acplint check, its agents, and the golden corpus's reader.
	"conformance": {
		imports: []string{"codec", "domain", "findings", "internal/procgroup", "internal/safefile", "internal/third_party/rapid", "lint", "protocol", "transcript"},
	},
	"conformance/agents":           {},
	"conformance/agents/reference": {imports: []string{"conformance/agents"}},
	"conformance/sdkpeer":          {},
	"internal/golden":              {pulls: []string{txtar}},
	"internal/transcriptgen":       {imports: []string{"codec", "domain"}},

	// acplint mcp: the tools an MCP client calls, on the official Go SDK,
	// over the library packages the commands use.
	"mcpserver": {
		imports: []string{"conformance", "findings", "internal/golden", "internal/procgroup", "internal/safefile", "lint", "schemadiff", "schemamodel", "transcript"},
		pulls:   []string{txtar, mcpSDK, toolSchema},
	},

	// The command links everything but the schema generator and the MCP
	// server: 'acplint mcp' hands its process over to acplint-mcp, so that
	// the SDK's package inits (net/http, crypto/tls, …) are not paid for
	// by every other command at start-up (issue 16).
	"cmd/acplint": {
		imports: []string{"codec", "conformance", "domain", "findings", "htmlreport", "internal/buildversion", "internal/gcpolicy", "internal/golden", "internal/procgroup", "internal/safefile", "lint", "schemadiff", "schemamodel", "tap", "transcript"},
		pulls:   []string{txtar, yamlv3},
	},
	"cmd/acplint-mcp": {
		imports: []string{"internal/buildversion", "internal/gcpolicy", "mcpserver"},
		pulls:   []string{txtar, mcpSDK, toolSchema},
	},
}

// pkg is the part of `go list -json` output the test reads.
type pkg struct {
	ImportPath string
	Imports    []string
	Module     *struct{ Path string }
}

// TestImportGraph checks every package of the module against graph: its
// direct imports of module packages, and the outside modules it pulls in
// through them. Files for other systems count too (go list runs once per
// GOOS the code has files for).
func TestImportGraph(t *testing.T) {
	var listed []pkg
	for _, goos := range []string{"linux", "darwin", "windows"} {
		listed = append(listed, goList(t, goos)...)
	}
	moduleOf := map[string]string{} // import path -> its module; the standard library has none
	for _, p := range listed {
		if p.Module != nil {
			moduleOf[p.ImportPath] = p.Module.Path
		}
	}
	imports := map[string]map[string]bool{} // module package -> module packages it imports
	direct := map[string]map[string]bool{}  // module package -> outside modules it imports itself
	for _, p := range listed {
		if p.Module == nil || p.Module.Path != module {
			continue
		}
		name := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if imports[name] == nil {
			imports[name], direct[name] = map[string]bool{}, map[string]bool{}
		}
		for _, imp := range p.Imports {
			switch m := moduleOf[imp]; m {
			case "":
			case module:
				imports[name][strings.TrimPrefix(imp, module+"/")] = true
			default:
				direct[name][m] = true
			}
		}
	}
	for name := range graph {
		if imports[name] == nil {
			t.Errorf("graph lists %s, which is not a package of the module: remove it", name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(imports)) {
		r, ok := graph[name]
		if !ok {
			t.Errorf("%s is not in graph: add it, with what it may import, in internal/layers/layers_test.go", name)
			continue
		}
		for _, imp := range slices.Sorted(maps.Keys(imports[name])) {
			if !slices.Contains(r.imports, imp) {
				t.Errorf("%s imports %s, which graph does not allow", name, imp)
			}
		}
		pulled := map[string][]string{} // outside module -> the module packages that import it
		for dep := range closure(name, imports) {
			for m := range direct[dep] {
				pulled[m] = append(pulled[m], dep)
			}
		}
		for _, m := range slices.Sorted(maps.Keys(pulled)) {
			if !slices.Contains(r.pulls, m) {
				slices.Sort(pulled[m])
				t.Errorf("%s pulls in %s (imported by %s), which graph does not allow", name, m, strings.Join(pulled[m], ", "))
			}
		}
	}
}

// goList lists the module's packages and their dependencies as built for
// goos, the way the go command resolves build constraints.
func goList(t *testing.T, goos string) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Imports,Module", module+"/...")
	cmd.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("GOOS=%s go list: %v\n%s", goos, err, stderr.Bytes())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return pkgs
		} else if err != nil {
			t.Fatalf("GOOS=%s go list: %v", goos, err)
		}
		pkgs = append(pkgs, p)
	}
}

// closure returns name and every module package it reaches.
func closure(name string, imports map[string]map[string]bool) map[string]bool {
	seen := map[string]bool{}
	var visit func(string)
	visit = func(n string) {
		if seen[n] {
			return
		}
		seen[n] = true
		for imp := range imports[n] {
			visit(imp)
		}
	}
	visit(name)
	return seen
}
