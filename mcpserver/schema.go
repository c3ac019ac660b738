package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/schemadiff"
	"github.com/acplint/acplint/schemamodel"
)

// DiffInput is schema_diff's arguments.
type DiffInput struct {
	OldPath           string `json:"old_path" jsonschema:"the ACP schema file before the upgrade (upstream format, such as an SDK's schema/schema.json)"`
	NewPath           string `json:"new_path" jsonschema:"the ACP schema file after the upgrade"`
	Surface           string `json:"surface,omitempty" jsonschema:"report the stable surface, the unstable one or all (the default)"`
	FailOn            string `json:"fail_on,omitempty" jsonschema:"failed is true when a change has at least this severity (default error); none never fails"`
	Severity          string `json:"severity,omitempty" jsonschema:"return only changes with at least this severity (default warning; info shows every addition)"`
	AllowCrossVersion bool   `json:"allow_cross_version,omitempty" jsonschema:"diff files of different protocol major versions (v1 against v2) instead of refusing"`
}

// DiffOutput is schema_diff's structured content; Changes have the fields
// of 'acplint schema diff -f json' lines.
type DiffOutput struct {
	Old          string              `json:"old"`
	New          string              `json:"new"`
	Changes      []schemadiff.Change `json:"changes" jsonschema:"the classified changes, as acplint schema diff -f json prints them"`
	Total        int                 `json:"total" jsonschema:"changes at or above severity on the surfaces asked for, including those not returned"`
	Breaking     int                 `json:"breaking"`
	Unclassified int                 `json:"unclassified"`
	NonBreaking  int                 `json:"nonBreaking"`
	// Failed applies fail_on, as the command's exit code does.
	Failed    bool     `json:"failed" jsonschema:"a change is at or above fail_on (acplint schema diff would exit 1)"`
	Notes     []string `json:"notes,omitempty" jsonschema:"how the comparison was limited"`
	Truncated bool     `json:"truncated" jsonschema:"true when changes holds only the first of total (acplint mcp --max-findings)"`
}

func (s *server) diffTool() (*mcp.Tool, mcp.ToolHandlerFor[DiffInput, DiffOutput]) {
	in := schemaFor[DiffInput]()
	enum(in, "surface", "all", "stable", "unstable")
	enum(in, "fail_on", "error", "warning", "info", "none")
	enum(in, "severity", "info", "warning", "error")
	return &mcp.Tool{
		Name:  "schema_diff",
		Title: "Diff two ACP schema versions",
		Description: `Compare two ACP JSON Schema files (the schema.json an SDK package ships, before and after an upgrade) the way the wire sees them, per method and message, and classify each change: breaking (for readers or for writers, naming the side), unclassified (a person decides) or non-breaking, with a stable check ID (ACP-DIFF-NNN) and JSON Pointers into both files.
Both files must be under the server's roots and describe the same protocol major version unless allow_cross_version is set.`,
		InputSchema:  in,
		OutputSchema: schemaFor[DiffOutput](),
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, s.schemaDiff
}

func (s *server) schemaDiff(ctx context.Context, _ *mcp.CallToolRequest, in DiffInput) (*mcp.CallToolResult, DiffOutput, error) {
	if in.OldPath == "" || in.NewPath == "" {
		return nil, DiffOutput{}, fmt.Errorf("schema_diff: give both old_path and new_path")
	}
	surfaces, err := schemadiff.ParseSurface(in.Surface)
	if err != nil {
		return nil, DiffOutput{}, fmt.Errorf("schema_diff: surface: %w", err)
	}
	threshold, gate, err := schemadiff.ParseFailOn(orDefault(in.FailOn, "error"))
	if err != nil {
		return nil, DiffOutput{}, fmt.Errorf("schema_diff: fail_on: %w", err)
	}
	floor, err := findings.ParseSeverity(orDefault(in.Severity, "warning"))
	if err != nil {
		return nil, DiffOutput{}, fmt.Errorf("schema_diff: severity: %w", err)
	}
	var out DiffOutput
	err = s.bounded(ctx, s.opts.Timeout, func(ctx context.Context) error {
		load := func(name string) (*schemamodel.Schema, error) {
			b, err := s.roots.readFile(ctx, name, s.opts.MaxFileSize)
			if err != nil {
				return nil, err
			}
			m, err := schemamodel.Parse(name, b, schemamodel.Options{})
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			return m, nil
		}
		old, err := load(in.OldPath)
		if err != nil {
			return err
		}
		new, err := load(in.NewPath)
		if err != nil {
			return err
		}
		cross := schemadiff.CrossVersion(old, new)
		if cross != nil && !in.AllowCrossVersion {
			return fmt.Errorf("%w; allow_cross_version diffs them anyway", cross)
		}
		res := schemadiff.Diff(old, new)
		out.Old, out.New, out.Notes = in.OldPath, in.NewPath, res.Notes
		if cross != nil {
			out.Notes = append(out.Notes, "allow_cross_version: "+cross.Error())
		}
		shown := res.Filter(floor, surfaces)
		out.Total = len(shown)
		out.Changes = shown[:min(len(shown), s.opts.MaxFindings)]
		out.Truncated = len(out.Changes) < len(shown)
		for _, c := range shown {
			switch c.Category {
			case schemadiff.Breaking:
				out.Breaking++
			case schemadiff.Unclassified:
				out.Unclassified++
			default:
				out.NonBreaking++
			}
			out.Failed = out.Failed || gate && c.Severity >= threshold
		}
		return nil
	})
	if err != nil {
		return nil, DiffOutput{}, fmt.Errorf("schema_diff: %w", err)
	}
	if out.Changes == nil {
		out.Changes = []schemadiff.Change{}
	}
	return textResult(diffSummary(out)), out, nil
}

func diffSummary(out DiffOutput) string {
	const shown = 10
	var b strings.Builder
	fmt.Fprintf(&b, "%s -> %s: %d changes: %d breaking, %d unclassified, %d non-breaking", out.Old, out.New, out.Total, out.Breaking, out.Unclassified, out.NonBreaking)
	if out.Failed {
		b.WriteString("; fails the gate (fail_on)")
	}
	b.WriteString(".\n")
	for _, n := range out.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	for _, c := range out.Changes[:min(len(out.Changes), shown)] {
		fmt.Fprintf(&b, "%s %s [%s, %s surface] %s %s %s: %s\n", c.CheckID, c.Severity, c.Category, c.Surface, c.Method, c.Kind, c.Path, c.Message)
	}
	if out.Total > shown {
		fmt.Fprintf(&b, "… %d more in the structured content", out.Total-shown)
		if out.Truncated {
			fmt.Fprintf(&b, " (which holds the first %d)", len(out.Changes))
		}
		b.WriteString(".\n")
	}
	return b.String()
}
