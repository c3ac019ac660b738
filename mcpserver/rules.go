package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acplint/acplint/conformance"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/internal/golden"
)

// Rule is one catalog entry. The fields list_rules returns are those of
// 'acplint rules -f json'; explain_rule adds the rationale and examples.
type Rule struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Severity    string   `json:"severity" jsonschema:"default severity: error, warning or info"`
	Blame       string   `json:"blame" jsonschema:"the side at fault by default: client, agent, either or tool"`
	Spec        string   `json:"spec" jsonschema:"the spec page that states the rule"`
	TCK         []string `json:"tck,omitempty" jsonschema:"matching official TCK requirement ids"`
	Undecidable string   `json:"undecidable,omitempty" jsonschema:"why a transcript alone cannot decide the rule, when it cannot"`
	NotChecked  string   `json:"notChecked,omitempty" jsonschema:"why acplint does not check the rule yet, when it does not"`
	Home        string   `json:"home,omitempty" jsonschema:"where acplint raises the rule: protocol/CHECK, lint or conformance"`
	Doc         string   `json:"doc,omitempty" jsonschema:"what the rule checks and why it matters"`
	Failing     *Example `json:"failingExample,omitempty" jsonschema:"a transcript from acplint's golden corpus that breaks the rule"`
	Passing     *Example `json:"passingExample,omitempty" jsonschema:"a transcript from acplint's golden corpus that exercises the rule and keeps it"`
}

// Example is a golden corpus case shown with a rule.
type Example struct {
	Case       string `json:"case" jsonschema:"the case's name in conformance/testdata"`
	Comment    string `json:"comment,omitempty"`
	Format     string `json:"format" jsonschema:"the transcript's section name, which says its format"`
	Transcript string `json:"transcript"`
	// Lines are the lines the rule's findings are at (failing example).
	Lines []int `json:"findingLines,omitempty" jsonschema:"the lines of the transcript the rule reports"`
}

// corpus is the golden corpus and its todo lists, read once.
var corpus = sync.OnceValues(func() (*catalog, error) {
	cases, err := golden.LoadCases(conformance.Corpus())
	if err != nil {
		return nil, fmt.Errorf("reading the example corpus: %w", err)
	}
	unchecked, err := golden.Unchecked(conformance.Corpus())
	if err != nil {
		return nil, fmt.Errorf("reading the example corpus: %w", err)
	}
	return &catalog{cases: cases, unchecked: unchecked, homes: conformance.RuleHomes()}, nil
})

type catalog struct {
	cases     []*golden.Case
	unchecked map[string]string
	homes     map[string]string // rule ID → conformance.RuleHomes
}

// entry is rule r as list_rules shows it; explained adds the rest.
func (c *catalog) entry(r *findings.Rule, explained bool) Rule {
	e := Rule{ID: r.ID, Title: r.Title, Severity: r.Severity.String(), Blame: r.Blame.String(), Spec: r.Spec,
		TCK: r.TCK, Undecidable: r.Undecidable, NotChecked: golden.NotChecked(c.unchecked, r.ID), Home: c.homes[r.ID]}
	if !explained {
		return e
	}
	e.Doc = r.Doc
	failing, passing := golden.Examples(c.cases, r.ID)
	e.Failing, e.Passing = example(failing, r.ID), example(passing, r.ID)
	return e
}

func example(c *golden.Case, id string) *Example {
	if c == nil {
		return nil
	}
	ex := &Example{Case: c.Name, Comment: c.Comment, Format: c.TranscriptName, Transcript: string(c.Transcript)}
	for _, w := range c.Want {
		if w.Rule == id {
			ex.Lines = append(ex.Lines, w.Line)
		}
	}
	return ex
}

// ExplainInput is explain_rule's arguments.
type ExplainInput struct {
	ID string `json:"id" jsonschema:"the rule ID, such as ACP-SES-002 (any case)"`
}

func (s *server) explainTool() (*mcp.Tool, mcp.ToolHandlerFor[ExplainInput, Rule]) {
	return &mcp.Tool{
		Name:         "explain_rule",
		Title:        "Explain an acplint rule",
		Description:  "Describe one rule of acplint's catalog: what it checks and why, its severity, the side it blames, the spec page behind it, and a failing and a passing transcript from acplint's golden corpus. The same entry is the resource acplint://rules/{id}.",
		InputSchema:  schemaFor[ExplainInput](),
		OutputSchema: schemaFor[Rule](),
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, s.explainRule
}

func (s *server) explainRule(ctx context.Context, _ *mcp.CallToolRequest, in ExplainInput) (*mcp.CallToolResult, Rule, error) {
	r, ok := findings.ByID(strings.ToUpper(strings.TrimSpace(in.ID)))
	if !ok {
		return nil, Rule{}, fmt.Errorf("explain_rule: unknown rule %q; list_rules lists them", in.ID)
	}
	var e Rule
	err := s.bounded(ctx, s.opts.Timeout, func(context.Context) error {
		c, err := corpus()
		if err != nil {
			return err
		}
		e = c.entry(r, true)
		return nil
	})
	if err != nil {
		return nil, Rule{}, fmt.Errorf("explain_rule: %w", err)
	}
	return textResult(explainText(e)), e, nil
}

// explainText is the entry for a reader: the rule and its rationale (the
// examples are in the structured content).
func explainText(e Rule) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\nSeverity: %s    Blame: %s\nSpec: %s\n", e.ID, e.Title, e.Severity, e.Blame, e.Spec)
	if len(e.TCK) > 0 {
		fmt.Fprintf(&b, "TCK: %s\n", strings.Join(e.TCK, ", "))
	}
	fmt.Fprintf(&b, "\n%s\n", e.Doc)
	if e.Undecidable != "" {
		fmt.Fprintf(&b, "\nacplint cannot decide this rule from a transcript: %s\n", e.Undecidable)
	}
	if e.NotChecked != "" {
		fmt.Fprintf(&b, "\nNot checked yet: %s\n", e.NotChecked)
	}
	for _, ex := range []struct {
		title string
		ex    *Example
	}{{"Failing example", e.Failing}, {"Passing example", e.Passing}} {
		if ex.ex != nil {
			fmt.Fprintf(&b, "\n%s: %s (%d lines)", ex.title, ex.ex.Case, strings.Count(ex.ex.Transcript, "\n"))
			if len(ex.ex.Lines) > 0 {
				fmt.Fprintf(&b, ", reported at line %s", strings.Trim(fmt.Sprint(ex.ex.Lines), "[]"))
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// ListInput is list_rules's arguments.
type ListInput struct {
	Area     string `json:"area,omitempty" jsonschema:"only rules of this area: the middle of the ID, such as SES for ACP-SES-002"`
	Severity string `json:"severity,omitempty" jsonschema:"only rules whose default severity is at least this"`
}

// ListOutput is list_rules's structured content.
type ListOutput struct {
	Rules []Rule `json:"rules" jsonschema:"the rules, sorted by ID, with the fields of acplint rules -f json"`
}

func (s *server) listTool() (*mcp.Tool, mcp.ToolHandlerFor[ListInput, ListOutput]) {
	in := schemaFor[ListInput]()
	enum(in, "area", areas()...)
	enum(in, "severity", "info", "warning", "error")
	return &mcp.Tool{
		Name:         "list_rules",
		Title:        "List acplint's rules",
		Description:  "List the rule catalog acplint checks ACP traffic against: ID, title, default severity, the side blamed by default and the spec page, optionally of one protocol area or from a severity up. The catalog is also the resource acplint://rules.",
		InputSchema:  in,
		OutputSchema: schemaFor[ListOutput](),
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, s.listRules
}

// areas lists the catalog's areas (SES, RPC, …), sorted.
func areas() []string {
	var out []string
	for _, r := range findings.All() {
		if a := r.Area(); a != "" && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return out
}

func (s *server) listRules(ctx context.Context, _ *mcp.CallToolRequest, in ListInput) (*mcp.CallToolResult, ListOutput, error) {
	area := strings.ToUpper(strings.TrimSpace(in.Area))
	if area != "" && !slices.Contains(areas(), area) {
		return nil, ListOutput{}, fmt.Errorf("list_rules: unknown area %q (want one of %s)", in.Area, strings.Join(areas(), ", "))
	}
	floor, err := findings.ParseSeverity(orDefault(in.Severity, "info"))
	if err != nil {
		return nil, ListOutput{}, fmt.Errorf("list_rules: severity: %w", err)
	}
	var out ListOutput
	err = s.bounded(ctx, s.opts.Timeout, func(context.Context) error {
		l, err := listed(area, floor)
		out = l
		return err
	})
	if err != nil {
		return nil, ListOutput{}, fmt.Errorf("list_rules: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d rules\n", len(out.Rules))
	for _, r := range out.Rules {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\n", r.ID, r.Severity, r.Blame, r.Title)
	}
	return textResult(b.String()), out, nil
}

func listed(area string, floor findings.Severity) (ListOutput, error) {
	c, err := corpus()
	if err != nil {
		return ListOutput{}, err
	}
	out := ListOutput{Rules: []Rule{}}
	for _, r := range findings.All() {
		if (area == "" || r.Area() == area) && r.Severity >= floor {
			out.Rules = append(out.Rules, c.entry(r, false))
		}
	}
	return out, nil
}

// Resources: the catalog, each rule, and the spec pages behind them.
const (
	rulesURI    = "acplint://rules"
	ruleURIBase = "acplint://rules/"
	specURI     = "acplint://spec"
)

// SpecPage is one spec page and the rules that cite it.
type SpecPage struct {
	URL   string   `json:"url"`
	Rules []string `json:"rules"`
}

func (s *server) addResources(srv *mcp.Server) {
	srv.AddResource(&mcp.Resource{URI: rulesURI, Name: "rules", Title: "acplint's rule catalog", MIMEType: "application/json",
		Description: "Every rule acplint checks, as list_rules returns them."},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			out, err := listed("", findings.SeverityInfo)
			if err != nil {
				return nil, err
			}
			return jsonResource(req.Params.URI, out)
		})
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: ruleURIBase + "{id}", Name: "rule", Title: "One acplint rule", MIMEType: "application/json",
		Description: "One rule with its rationale and a failing and a passing transcript, as explain_rule returns it; {id} is a rule ID such as ACP-SES-002."},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			id := strings.TrimPrefix(req.Params.URI, ruleURIBase)
			r, ok := findings.ByID(strings.ToUpper(id))
			if !ok {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			c, err := corpus()
			if err != nil {
				return nil, err
			}
			return jsonResource(req.Params.URI, c.entry(r, true))
		})
	srv.AddResource(&mcp.Resource{URI: specURI, Name: "spec", Title: "ACP spec pages behind the rules", MIMEType: "application/json",
		Description: "The Agent Client Protocol spec pages acplint's rules cite, each with the IDs of its rules."},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return jsonResource(req.Params.URI, specPages())
		})
}

func specPages() []SpecPage {
	var pages []SpecPage
	for _, r := range findings.All() {
		if r.Spec == "" {
			continue
		}
		i := slices.IndexFunc(pages, func(p SpecPage) bool { return p.URL == r.Spec })
		if i < 0 {
			pages = append(pages, SpecPage{URL: r.Spec})
			i = len(pages) - 1
		}
		pages[i].Rules = append(pages[i].Rules, r.ID)
	}
	slices.SortFunc(pages, func(a, b SpecPage) int { return strings.Compare(a.URL, b.URL) })
	return pages
}

func jsonResource(uri string, v any) (*mcp.ReadResourceResult, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
}
