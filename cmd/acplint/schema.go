package main

import (
	"context"
	"fmt"
	"os"

	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/schemadiff"
	"github.com/acplint/acplint/schemamodel"
)

const schemaDoc = `
Schema works with ACP JSON Schema files in the upstream format (the
schema.json and schema.unstable.json files the SDK packages ship).

Subcommands:
	diff OLD NEW   classify every wire change between two schema versions

Run 'acplint schema diff -h' for its flags.
`

func runSchema(ctx context.Context, args []string, e *env) int {
	if len(args) > 0 && args[0] == "diff" {
		return runSchemaDiff(ctx, args[1:], e)
	}
	fs := newFlagSet("schema", "acplint schema diff [flags] OLD NEW", schemaDoc, e)
	if code, ok := parseFlags(fs, args, e); !ok {
		return code
	}
	if fs.NArg() == 0 {
		e.errorf("schema: want a subcommand (diff); run 'acplint help schema' for usage")
		return exitUsage
	}
	e.errorf("schema: unknown subcommand %q; run 'acplint help schema' for usage", fs.Arg(0))
	return exitUsage
}

const schemaDiffDoc = `
Diff compares two versions of the ACP schema the way the wire sees them:
per method and message (from the x-method and x-side annotations), with
$ref, allOf and unions resolved, so renamed definitions that leave the
wire alone are not reported. Each change gets a stable check ID
(ACP-DIFF-NNN), JSON Pointers into both files, and a category:

	breaking      the new schema admits values old readers reject (breaking
	              for readers), or rejects values old writers send
	              (breaking for writers); the report names the side
	unclassified  both schemas accept the old traffic, but its meaning or
	              the receivers' leniency changed: a person decides
	non-breaking  nothing old breaks

Both files must describe the same protocol major version: a v1 file
against a v2 file (SDK 2.x ships schema/v1/ and schema/v2/) is refused
with exit code 2, since every difference between two protocols would show
as a breaking change; --allow-cross-version diffs them anyway.

The stable and the unstable surface are reported separately. A superset
file (any **UNSTABLE** marker, e.g. schema/schema.json of SDK 1.x) compared
with a stable file (schema/v1/schema.json of SDK 2.x) is compared on the
stable surface only; compare the two unstable files for the rest.

Severity is the default gate of each check: error fails (removed methods,
members, enum values, variants; added required members; type changes),
warning warns (added enum values and union variants, which break only
exhaustive readers; stricter receivers), info notes (additions).

Output formats (-f): text, json (one change per line), sarif, github,
junit. Exit codes: 0 no change at or above --fail-on; 1 changes at or
above --fail-on; 2 usage or I/O error.

Examples:
	acplint schema diff old/schema/schema.json node_modules/@agentclientprotocol/sdk/schema/v1/schema.unstable.json
	acplint schema diff --surface stable --fail-on warning -f sarif OLD NEW > schema-diff.sarif
`

func runSchemaDiff(_ context.Context, args []string, e *env) int {
	fs := newFlagSet("schema diff", "acplint schema diff [flags] OLD NEW", schemaDiffDoc, e)
	format := fs.String("f", "text", "output `format`: text, json, sarif, github or junit")
	fs.StringVar(format, "format", "text", "same as -f")
	failOn := fs.String("fail-on", "error", "exit 1 when a change has at least this `severity`: error, warning, info or none")
	minSeverity := fs.String("severity", "warning", "report only changes with at least this `severity` (info shows every addition)")
	surface := fs.String("surface", "all", "report the `surface`: all, stable or unstable")
	meta := fs.String("meta", "", "upstream meta.json `file` listing the stable methods (default: the one acplint embeds, schema-v1.21.0)")
	crossVersion := fs.Bool("allow-cross-version", false, "diff files of different protocol major versions (v1 against v2) instead of refusing")
	config := addFileFlags(fs)
	if code, ok := parseFlags(fs, args, e); !ok {
		return code
	}
	if _, err := config.apply(fs, "schema-diff", map[string]string{"fail-on": "fail-on", "format": "f"}); err != nil {
		e.errorf("schema diff: %v", err)
		return exitUsage
	}
	if fs.NArg() != 2 {
		e.errorf("schema diff: want two schema files, OLD and NEW; got %d arguments", fs.NArg())
		return exitUsage
	}
	outFormat, err := findings.ParseFormat(*format)
	if err != nil {
		e.errorf("schema diff: %v", err)
		return exitUsage
	}
	threshold, gate, err := schemadiff.ParseFailOn(*failOn)
	if err != nil {
		e.errorf("schema diff: --fail-on: %v", err)
		return exitUsage
	}
	floor, err := findings.ParseSeverity(*minSeverity)
	if err != nil {
		e.errorf("schema diff: --severity: %v", err)
		return exitUsage
	}
	surfaces, err := schemadiff.ParseSurface(*surface)
	if err != nil {
		e.errorf("schema diff: --surface: %v", err)
		return exitUsage
	}
	opts, err := schemaOptions(*meta)
	if err != nil {
		e.errorf("schema diff: --meta: %v", err)
		return exitUsage
	}
	old, err := schemamodel.LoadFile(fs.Arg(0), opts)
	if err != nil {
		e.errorf("schema diff: %v", err)
		return exitUsage
	}
	new, err := schemamodel.LoadFile(fs.Arg(1), opts)
	if err != nil {
		e.errorf("schema diff: %v", err)
		return exitUsage
	}

	if err := schemadiff.CrossVersion(old, new); err != nil && !*crossVersion {
		e.errorf("schema diff: %v; --allow-cross-version diffs them anyway", err)
		return exitUsage
	}
	res := schemadiff.Diff(old, new)
	if err := schemadiff.CrossVersion(old, new); err != nil {
		res.Notes = append(res.Notes, "--allow-cross-version: "+err.Error())
	}
	all := res.Filter(findings.SeverityInfo, surfaces)
	shown := res.Filter(floor, surfaces)
	switch outFormat {
	case findings.FormatText:
		err = schemadiff.WriteText(e.stdout, res, shown, all, sections(surfaces))
	case findings.FormatJSON:
		err = schemadiff.WriteJSON(e.stdout, shown)
	default:
		for _, n := range res.Notes {
			fmt.Fprintf(e.stderr, "acplint: note: %s\n", n)
		}
		failOn := threshold
		if !gate {
			failOn = findings.NeverFail
		}
		err = findings.Write(e.stdout, outFormat, findings.Report{
			Tool: "acplint", Version: acplintVersion(), Files: []string{old.File, new.File},
			Findings: schemadiff.Findings(shown), Rules: schemadiff.Checks(), FailOn: &failOn,
		})
	}
	if err != nil {
		e.errorf("schema diff: writing the report: %v", err)
		return exitUsage
	}
	if gate {
		for _, c := range shown {
			if c.Severity >= threshold {
				return exitFindings
			}
		}
	}
	return exitClean
}

// sections lists the surfaces the text report prints, in order.
func sections(surfaces map[schemadiff.Surface]bool) []schemadiff.Surface {
	var out []schemadiff.Surface
	for _, s := range []schemadiff.Surface{schemadiff.Stable, schemadiff.Unstable} {
		if surfaces == nil || surfaces[s] {
			out = append(out, s)
		}
	}
	return out
}

// schemaOptions reads the stable method table of --meta, if given.
func schemaOptions(meta string) (schemamodel.Options, error) {
	if meta == "" {
		return schemamodel.Options{}, nil
	}
	b, err := os.ReadFile(meta)
	if err != nil {
		return schemamodel.Options{}, err
	}
	methods, err := schemamodel.ParseMeta(b)
	if err != nil {
		return schemamodel.Options{}, fmt.Errorf("%s: %w", meta, err)
	}
	return schemamodel.Options{StableMethods: methods}, nil
}
