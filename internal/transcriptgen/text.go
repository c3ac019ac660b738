package transcriptgen

import (
	"fmt"
	"path"
	"strings"
)

// project is a code base the user works on.
type project struct {
	root  string
	files []string // relative to root
	test  string   // the command that runs its tests
}

var projects = []project{
	{
		root:  "/home/dana/src/billing-service",
		files: []string{"internal/invoice/invoice.go", "internal/invoice/tax.go", "internal/ledger/ledger.go", "cmd/billingd/main.go", "README.md"},
		test:  "go test ./...",
	},
	{
		root:  "/Users/sam/work/web-dashboard",
		files: []string{"src/components/ChartPanel.tsx", "src/api/client.ts", "src/hooks/useSession.ts", "package.json", "src/index.css"},
		test:  "npm test -- --watch=false",
	},
	{
		root:  "/home/ci/checkouts/ingest-pipeline",
		files: []string{"ingest/reader.py", "ingest/schema.py", "tests/test_reader.py", "pyproject.toml"},
		test:  "pytest -q tests",
	},
	{
		root:  "/workspace/terminal-ui",
		files: []string{"src/render.rs", "src/input.rs", "src/main.rs", "Cargo.toml"},
		test:  "cargo test --quiet",
	},
}

var (
	verbs    = []string{"refactor", "fix", "speed up", "document", "add tests for", "simplify", "rename the helpers in", "handle errors in"}
	subjects = []string{"the retry logic", "the cache", "pagination", "the config loader", "the date parsing", "the error messages", "the request handler", "input validation"}
	openers  = []string{"Let me", "I'll", "Next I'll", "First, I'll", "Now I can", "I'm going to"}
	actions  = []string{"look at", "read", "check", "update", "trace", "compare", "clean up", "rewrite"}
	objects  = []string{"how the handler builds its response", "where the timeout is set", "the failing assertion", "the call sites", "the struct definition", "the existing tests", "the error path", "the import list"}
	closers  = []string{"so the change stays small.", "to keep behaviour the same.", "before touching anything else.", "and then run the tests.", "since that is where the bug starts.", "to confirm the fix."}
	idents   = []string{"parseConfig", "loadInvoice", "retryWithBackoff", "renderChart", "validateInput", "flushBuffer", "openSession", "computeTax", "readHeader", "applyPatch"}
	types    = []string{"Config", "Invoice", "Session", "Buffer", "Client", "Ledger", "Chart", "Reader"}
)

func (g *gen) request(focus string) string {
	return fmt.Sprintf("Please %s %s in %s. Keep the public API unchanged.", g.pick(verbs), g.pick(subjects), focus)
}

func (g *gen) sentence() string {
	return fmt.Sprintf("%s %s %s %s", g.pick(openers), g.pick(actions), g.pick(objects), g.pick(closers))
}

func (g *gen) symbol() string { return g.pick(idents) }

// source returns lines of plausible code for file, ending in a newline.
func (g *gen) source(file string, lines int) string {
	var b strings.Builder
	lang := langOf(file)
	for i := 0; i < lines; i++ {
		id, typ := g.pick(idents), g.pick(types)
		switch lang {
		case "go":
			switch i % 4 {
			case 0:
				fmt.Fprintf(&b, "func %s(ctx context.Context, c *%s) error {\n", id, typ)
			case 1:
				fmt.Fprintf(&b, "\tif err := c.%s(ctx); err != nil {\n", strings.ToUpper(id[:1])+id[1:])
			case 2:
				fmt.Fprintf(&b, "\t\treturn fmt.Errorf(\"%s: %%w\", err)\n", id)
			default:
				b.WriteString("\t}\n")
			}
		case "tsx", "ts":
			fmt.Fprintf(&b, "export const %s = async (input: %s): Promise<void> => { await client.%s(input); };\n", id, typ, id)
		case "python":
			fmt.Fprintf(&b, "def %s(value: %s) -> None:\n    return _%s(value)\n", id, typ, id)
		case "rust":
			fmt.Fprintf(&b, "pub fn %s(input: &%s) -> Result<(), Error> { input.%s() }\n", id, typ, id)
		default:
			fmt.Fprintf(&b, "%s = \"%s\" # %d\n", id, typ, i)
		}
	}
	return b.String()
}

// edit changes one or two lines of old.
func (g *gen) edit(old string) string {
	lines := strings.SplitAfter(old, "\n")
	for n := g.between(1, 2); n > 0; n-- {
		i := g.rnd.IntN(len(lines))
		if lines[i] == "" {
			continue
		}
		lines[i] = strings.Replace(lines[i], g.pick(idents), g.pick(idents), 1)
		lines[i] = strings.TrimSuffix(lines[i], "\n") + " // " + g.pick(subjects) + "\n"
	}
	return strings.Join(lines, "")
}

func (g *gen) testOutput() string {
	var b strings.Builder
	for i, n := 0, g.between(2, 6); i < n; i++ {
		fmt.Fprintf(&b, "ok  \t%s/%s\t0.%03ds\n", path.Base(g.project.root), g.pick(idents), g.between(5, 999))
	}
	b.WriteString("PASS\n")
	return b.String()
}

func langOf(file string) string {
	switch path.Ext(file) {
	case ".go":
		return "go"
	case ".tsx":
		return "tsx"
	case ".ts":
		return "ts"
	case ".py":
		return "python"
	case ".rs":
		return "rust"
	case ".md":
		return "markdown"
	case ".json":
		return "json"
	case ".toml":
		return "toml"
	}
	return ""
}

func mimeOf(file string) string {
	switch path.Ext(file) {
	case ".go":
		return "text/x-go"
	case ".tsx", ".ts":
		return "text/x-typescript"
	case ".py":
		return "text/x-python"
	case ".rs":
		return "text/x-rust"
	case ".md":
		return "text/markdown"
	case ".json":
		return "application/json"
	}
	return "text/plain"
}
