package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/schemamodel"
	"github.com/acplint/acplint/transcript"
)

// LintInput is lint_transcript's arguments.
type LintInput struct {
	Path     string   `json:"path,omitempty" jsonschema:"the transcript file to lint; relative paths are taken from the server's first root. Give path or content"`
	Content  string   `json:"content,omitempty" jsonschema:"the transcript itself, instead of a path"`
	Format   string   `json:"format,omitempty" jsonschema:"input format; auto (the default) detects it from the first line"`
	Schema   string   `json:"schema,omitempty" jsonschema:"an ACP schema file in the upstream format (such as an SDK's schema/v1/schema.json) to check params and results against, instead of the compiled-in schema"`
	Severity string   `json:"severity,omitempty" jsonschema:"report only findings at least this severe (default info: all)"`
	Enable   []string `json:"enable,omitempty" jsonschema:"report only these rule IDs (such as ACP-SES-002)"`
	Disable  []string `json:"disable,omitempty" jsonschema:"drop these rule IDs from the report"`
	CleanEnd bool     `json:"clean_end,omitempty" jsonschema:"the transcript ends with a clean shutdown: unanswered requests are errors, not a truncated recording"`
}

// LintOutput is lint_transcript's structured content. Findings have the
// fields of 'acplint lint -f json' lines.
type LintOutput struct {
	File     string                 `json:"file" jsonschema:"the transcript, as named in the findings (- for content)"`
	Format   string                 `json:"format" jsonschema:"the input format read"`
	Lines    int                    `json:"lines" jsonschema:"transcript lines read"`
	Messages int                    `json:"messages" jsonschema:"JSON-RPC messages decoded"`
	Findings []findings.JSONFinding `json:"findings" jsonschema:"the findings, in transcript order, as acplint lint -f json prints them"`
	Total    int                    `json:"total" jsonschema:"findings reported, including those not returned"`
	Errors   int                    `json:"errors"`
	Warnings int                    `json:"warnings"`
	Infos    int                    `json:"infos"`
	// Truncated says Findings holds the first MaxFindings of Total.
	Truncated bool `json:"truncated" jsonschema:"true when findings holds only the first of total findings (acplint mcp --max-findings)"`
}

func (s *server) lintTool() (*mcp.Tool, mcp.ToolHandlerFor[LintInput, LintOutput]) {
	in := schemaFor[LintInput]()
	var formats []string
	for _, f := range transcript.Formats {
		formats = append(formats, string(f))
	}
	enum(in, "format", formats...)
	enum(in, "severity", "info", "warning", "error")
	tool := &mcp.Tool{
		Name:  "lint_transcript",
		Title: "Lint an ACP transcript",
		Description: `Check recorded Agent Client Protocol traffic (a file under the server's roots, or the content itself) against the protocol: every rule a message breaks, in both directions, with its line, the side at fault and the spec page behind the rule.
Formats: ndjson (raw JSON-RPC lines), jsonl (direction-tagged records, acp-inspector traces), zed (Zed's "Copy All Messages" array), acplint (acplint tap's recordings).
Findings come as structured content with the fields of 'acplint lint -f json'; at most the server's --max-findings are returned, with the total counted.`,
		InputSchema:  in,
		OutputSchema: schemaFor[LintOutput](),
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}
	return tool, s.lintTranscript
}

func (s *server) lintTranscript(ctx context.Context, _ *mcp.CallToolRequest, in LintInput) (*mcp.CallToolResult, LintOutput, error) {
	var out LintOutput
	if (in.Path == "") == (in.Content == "") {
		return nil, out, errors.New("lint_transcript: give either path (a transcript file) or content (the transcript itself)")
	}
	format, err := transcript.ParseFormat(orDefault(in.Format, "auto"))
	if err != nil {
		return nil, out, fmt.Errorf("lint_transcript: format: %w", err)
	}
	floor, err := findings.ParseSeverity(orDefault(in.Severity, "info"))
	if err != nil {
		return nil, out, fmt.Errorf("lint_transcript: severity: %w", err)
	}
	enabled, err := ruleSet("enable", in.Enable)
	if err != nil {
		return nil, out, err
	}
	disabled, err := ruleSet("disable", in.Disable)
	if err != nil {
		return nil, out, err
	}
	if int64(len(in.Content)) > s.opts.MaxFileSize {
		return nil, out, fmt.Errorf("lint_transcript: content: %d bytes, %w: at most %d", len(in.Content), errTooLarge, s.opts.MaxFileSize)
	}
	err = s.bounded(ctx, s.opts.Timeout, func(ctx context.Context) error {
		var schema *lint.Schema
		if in.Schema != "" {
			b, err := s.roots.readFile(ctx, in.Schema, s.opts.MaxFileSize)
			if err != nil {
				return fmt.Errorf("schema: %w", err)
			}
			m, err := schemamodel.Parse(in.Schema, b, schemamodel.Options{})
			if err != nil {
				return fmt.Errorf("schema: %s: %w", in.Schema, err)
			}
			if schema, err = lint.CompileSchema(m); err != nil {
				return fmt.Errorf("schema: %w", err)
			}
		}
		var r io.Reader
		out.File = in.Path
		if in.Content != "" {
			out.File = "-"
			r = &boundedReader{ctx: ctx, r: strings.NewReader(in.Content), left: s.opts.MaxFileSize, name: "content", max: s.opts.MaxFileSize}
		} else {
			f, done, err := s.roots.open(ctx, in.Path, s.opts.MaxFileSize)
			if err != nil {
				return err
			}
			defer done()
			r = f
		}
		out.Findings = []findings.JSONFinding{}
		res, err := lint.Transcript(r, lint.Options{
			Format: format, File: out.File, CleanEnd: in.CleanEnd, Schema: schema,
			Filter: func(f findings.ValidationFinding) bool {
				return (enabled == nil || enabled[f.RuleID]) && !disabled[f.RuleID] && f.Severity >= floor
			},
			OnFinding: func(f findings.ValidationFinding) {
				out.Total++
				switch f.Severity {
				case findings.SeverityError:
					out.Errors++
				case findings.SeverityWarning:
					out.Warnings++
				default:
					out.Infos++
				}
				if len(out.Findings) < s.opts.MaxFindings {
					out.Findings = append(out.Findings, findings.NewJSONFinding(f))
				} else {
					out.Truncated = true
				}
			},
		})
		if err != nil {
			return err
		}
		out.Format, out.Lines, out.Messages = string(res.Format), res.Lines, res.Messages
		return nil
	})
	if err != nil {
		return nil, LintOutput{}, fmt.Errorf("lint_transcript: %w", err)
	}
	return textResult(lintSummary(out)), out, nil
}

// lintSummary is the text beside the findings: the counts and the first
// few findings as 'acplint lint' prints them.
func lintSummary(out LintOutput) string {
	const shown = 10
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s: %d lines (%s), %d findings: %d errors, %d warnings, %d info.\n", out.File, out.Lines, out.Format, out.Total, out.Errors, out.Warnings, out.Infos)
	first := make([]findings.ValidationFinding, 0, min(len(out.Findings), shown))
	for _, f := range out.Findings[:cap(first)] {
		first = append(first, f.ValidationFinding)
	}
	if len(first) > 0 {
		findings.Write(&b, findings.FormatText, findings.Report{Findings: first})
	}
	if out.Total > len(first) {
		fmt.Fprintf(&b, "… %d more findings", out.Total-len(first))
		if out.Truncated {
			fmt.Fprintf(&b, " (the structured content holds the first %d)", len(out.Findings))
		} else {
			b.WriteString(" in the structured content")
		}
		b.WriteString(".\n")
	}
	return b.String()
}

// ruleSet checks rule IDs against the catalog; nil for none.
func ruleSet(what string, ids []string) (map[string]bool, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	set := map[string]bool{}
	for _, id := range ids {
		id = strings.ToUpper(strings.TrimSpace(id))
		if _, ok := findings.ByID(id); !ok {
			return nil, fmt.Errorf("lint_transcript: %s: unknown rule %q; list_rules lists them", what, id)
		}
		set[id] = true
	}
	return set, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
