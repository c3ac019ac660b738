package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acplint/acplint/conformance"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/internal/safefile"
)

// CheckInput is check_agent's arguments.
type CheckInput struct {
	Command []string `json:"command" jsonschema:"the agent's command line: the program (looked up in PATH when it has no slash; relative to the first root when it has one) and its arguments"`
	Runs    int      `json:"runs,omitempty" jsonschema:"generated sequences to run, each against a fresh agent process"`
	Steps   int      `json:"steps,omitempty" jsonschema:"most client actions (sessions, prompts, cancels, loads) per sequence"`
	Seed    uint64   `json:"seed,omitempty" jsonschema:"random seed of the sequences, to replay a check; 0 picks one (the result says which)"`
	Caps    string   `json:"caps,omitempty" jsonschema:"client capabilities each run may advertise (a drawn subset): all (the default), none, or a comma-separated list of fs.readTextFile, fs.writeTextFile, terminal"`
	// Timeout bounds the whole check, shrinking included.
	TimeoutSeconds int    `json:"timeout_seconds,omitempty" jsonschema:"wall-clock budget of the whole check, shrinking included; the verdict then covers the runs made so far"`
	OutDir         string `json:"out_dir,omitempty" jsonschema:"an existing directory under the server's roots for the shrunk transcripts; default: a new private temporary directory"`
	DryRun         *bool  `json:"dry_run,omitempty" jsonschema:"return the plan (what would be started, with which capabilities and budgets) without starting anything; true unless set to false"`
	Confirm        bool   `json:"confirm,omitempty" jsonschema:"must be true, with dry_run false, to start the agent"`
}

// CheckPlan is what check_agent starts, or would start.
type CheckPlan struct {
	Command      []string `json:"command"`
	Program      string   `json:"program" jsonschema:"the program that is started"`
	Dir          string   `json:"dir" jsonschema:"the agent's working directory (the server's first root)"`
	Runs         int      `json:"runs" jsonschema:"generated sequences, each a fresh agent process (plus one preflight run)"`
	Steps        int      `json:"steps"`
	Seed         uint64   `json:"seed,omitempty"`
	Capabilities []string `json:"capabilities" jsonschema:"client capabilities a run may advertise; each run draws a subset"`
	// Budgets, in seconds.
	TimeoutSeconds         float64 `json:"timeoutSeconds" jsonschema:"the whole check"`
	StartupTimeoutSeconds  float64 `json:"startupTimeoutSeconds" jsonschema:"until the agent answers initialize"`
	ResponseTimeoutSeconds float64 `json:"responseTimeoutSeconds" jsonschema:"silence allowed while a request is pending"`
	RunTimeoutSeconds      float64 `json:"runTimeoutSeconds" jsonschema:"one run"`
	ShrinkSeconds          float64 `json:"shrinkSeconds" jsonschema:"shrinking one failure"`
	MaxShrinks             int     `json:"maxShrinks" jsonschema:"distinct failures shrunk"`
	OutDir                 string  `json:"outDir,omitempty" jsonschema:"where the shrunk transcripts go; empty: a new private temporary directory"`
	Network                string  `json:"network" jsonschema:"what the check does with the network"`
}

// CheckOutput is check_agent's structured content.
type CheckOutput struct {
	Plan CheckPlan `json:"plan"`
	// Ran is false for a dry run.
	Ran        bool   `json:"ran" jsonschema:"false for a dry run: nothing was started"`
	Next       string `json:"next,omitempty" jsonschema:"how to run the plan"`
	Conformant bool   `json:"conformant"`
	Summary    string `json:"summary,omitempty" jsonschema:"the verdict in a line"`
	Seed       uint64 `json:"seed,omitempty" jsonschema:"the seed used: give it back to replay the check"`
	Runs       int    `json:"runs" jsonschema:"exploration runs made, the preflight included"`
	// Complete is false when the budget or the client stopped the check.
	Complete      bool           `json:"complete" jsonschema:"false when the time budget ran out or the call was cancelled: the verdict covers the runs made"`
	Failed        []string       `json:"failed,omitempty" jsonschema:"IDs of the rules and harness checks the agent failed"`
	Reproductions []Reproduction `json:"reproductions,omitempty"`
	OutDir        string         `json:"outDir,omitempty" jsonschema:"the directory holding the shrunk transcripts and verdict.json"`
	VerdictFile   string         `json:"verdictFile,omitempty" jsonschema:"the whole verdict, as acplint check -f json writes it"`
}

// Reproduction is one failure's minimal run, on disk.
type Reproduction struct {
	Key        string                      `json:"key" jsonschema:"the rule ID or harness check that failed"`
	File       string                      `json:"file" jsonschema:"the shrunk transcript (JSONL, owner-only); lint_transcript with clean_end reproduces the finding from it"`
	Notes      string                      `json:"notes" jsonschema:"the client's steps and the agent's stderr for that run"`
	Shrunk     bool                        `json:"shrunk"`
	Lines      int                         `json:"lines"`
	Reproduced bool                        `json:"reproduced" jsonschema:"lint of the file shows the failure"`
	Finding    *findings.ValidationFinding `json:"finding,omitempty"`
	Note       string                      `json:"note,omitempty"`
	Command    string                      `json:"command" jsonschema:"the acplint command that reproduces it"`
}

const (
	defaultCheckRuns    = 20
	defaultCheckTimeout = 2 * time.Minute
	checkMaxShrinks     = 3
)

func (s *server) checkTool() (*mcp.Tool, mcp.ToolHandlerFor[CheckInput, CheckOutput]) {
	in := schemaFor[CheckInput]()
	in.Properties["command"].MinItems = ptr(1)
	in.Properties["command"].Types, in.Properties["command"].Type = nil, "array"
	in.Properties["dry_run"].Default = []byte("true")
	in.Properties["dry_run"].Types, in.Properties["dry_run"].Type = nil, "boolean"
	in.Properties["runs"].Minimum, in.Properties["runs"].Maximum = ptr(0.0), ptr(float64(s.opts.MaxRuns))
	in.Properties["steps"].Minimum, in.Properties["steps"].Maximum = ptr(0.0), ptr(float64(s.opts.MaxSteps))
	in.Properties["timeout_seconds"].Minimum = ptr(0.0)
	in.Properties["timeout_seconds"].Maximum = ptr(s.opts.CheckTimeout.Seconds())
	return &mcp.Tool{
		Name:  "check_agent",
		Title: "Property-test an ACP agent",
		Description: fmt.Sprintf(`Start an ACP agent (a local program) and play the client against it over stdio through generated sequences: initialize with a drawn subset of client capabilities, sessions, prompts, cancels, loads; judge everything it says with lint's protocol machine, and shrink each distinct failure to a minimal transcript written to disk.
By default this is a dry run: it returns the plan (program, working directory, capabilities, budgets) and starts nothing. To run it, call again with dry_run false and confirm true. Bounded: at most %d runs of at most %d steps, %v in all (timeout_seconds), one check at a time; the agent gets no network from acplint (it inherits the server's environment).`,
			s.opts.MaxRuns, s.opts.MaxSteps, s.opts.CheckTimeout),
		InputSchema:  in,
		OutputSchema: schemaFor[CheckOutput](),
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: false, DestructiveHint: ptr(true), OpenWorldHint: ptr(false)},
	}, s.checkAgent
}

// plan validates the arguments and says what a check would do.
func (s *server) plan(in CheckInput) (CheckPlan, conformance.Options, error) {
	var opts conformance.Options
	if len(in.Command) == 0 || in.Command[0] == "" {
		return CheckPlan{}, opts, errors.New("command: give the agent's command line, program first")
	}
	runs, steps := in.Runs, in.Steps
	if runs == 0 {
		runs = min(defaultCheckRuns, s.opts.MaxRuns)
	}
	if steps == 0 {
		steps = min(conformance.DefaultSteps, s.opts.MaxSteps)
	}
	if runs < 0 || runs > s.opts.MaxRuns || steps < 0 || steps > s.opts.MaxSteps {
		return CheckPlan{}, opts, fmt.Errorf("runs must be 1 to %d and steps 1 to %d (acplint mcp --max-runs, --max-steps)", s.opts.MaxRuns, s.opts.MaxSteps)
	}
	timeout := min(defaultCheckTimeout, s.opts.CheckTimeout)
	if in.TimeoutSeconds != 0 {
		timeout = time.Duration(in.TimeoutSeconds) * time.Second
	}
	if timeout <= 0 || timeout > s.opts.CheckTimeout {
		return CheckPlan{}, opts, fmt.Errorf("timeout_seconds must be 1 to %d (acplint mcp --check-timeout)", int(s.opts.CheckTimeout.Seconds()))
	}
	caps, err := conformance.ParseCapabilities(orDefault(in.Caps, "all"))
	if err != nil {
		return CheckPlan{}, opts, fmt.Errorf("caps: %w", err)
	}
	dir := s.roots.dirs[0]
	program, err := lookProgram(in.Command[0], dir)
	if err != nil {
		return CheckPlan{}, opts, err
	}
	outDir := ""
	if in.OutDir != "" {
		if outDir, err = s.roots.resolve(in.OutDir); err != nil {
			return CheckPlan{}, opts, fmt.Errorf("out_dir: %w", err)
		}
		if info, err := os.Stat(outDir); err != nil || !info.IsDir() {
			return CheckPlan{}, opts, fmt.Errorf("out_dir: %s is not a directory", in.OutDir)
		}
	}
	opts = conformance.Options{
		Agent:           conformance.AgentCommand{Path: program, Args: in.Command[1:], Dir: dir},
		Runs:            runs,
		Steps:           steps,
		Seed:            in.Seed,
		Caps:            caps,
		StartupTimeout:  min(conformance.DefaultStartupTimeout, timeout),
		ResponseTimeout: min(conformance.DefaultResponseTimeout, timeout),
		RunTimeout:      min(conformance.DefaultRunTimeout, timeout),
		// Shrinking shares the budget with the runs: a few seconds each.
		ShrinkTime: max(time.Second, min(conformance.DefaultShrinkTime, timeout/8)),
		MaxShrinks: checkMaxShrinks,
		OutDir:     outDir,
		FailOn:     findings.SeverityError,
		Version:    s.opts.Version,
	}
	p := CheckPlan{
		Command: in.Command, Program: program, Dir: dir, Runs: runs, Steps: steps, Seed: in.Seed,
		Capabilities:           []string{},
		TimeoutSeconds:         timeout.Seconds(),
		StartupTimeoutSeconds:  opts.StartupTimeout.Seconds(),
		ResponseTimeoutSeconds: opts.ResponseTimeout.Seconds(),
		RunTimeoutSeconds:      opts.RunTimeout.Seconds(),
		ShrinkSeconds:          opts.ShrinkTime.Seconds(),
		MaxShrinks:             opts.MaxShrinks,
		OutDir:                 outDir,
		Network:                "none: the client side is played over the agent's stdin and stdout; acplint opens no connection",
	}
	for _, c := range caps {
		p.Capabilities = append(p.Capabilities, string(c))
	}
	return p, opts, nil
}

// lookProgram finds the program a command line starts, as the agent's
// process will: in PATH for a bare name, from dir for a relative path.
func lookProgram(name, dir string) (string, error) {
	if !strings.ContainsRune(name, filepath.Separator) {
		p, err := exec.LookPath(name)
		if err != nil {
			return "", fmt.Errorf("command: %s is not in PATH", name)
		}
		return p, nil
	}
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	info, err := os.Stat(p)
	if err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
		return "", fmt.Errorf("command: %s is not an executable file", name)
	}
	return p, nil
}

func (s *server) checkAgent(ctx context.Context, _ *mcp.CallToolRequest, in CheckInput) (*mcp.CallToolResult, CheckOutput, error) {
	plan, opts, err := s.plan(in)
	if err != nil {
		return nil, CheckOutput{}, fmt.Errorf("check_agent: %w", err)
	}
	out := CheckOutput{Plan: plan}
	dryRun := in.DryRun == nil || *in.DryRun
	if dryRun {
		out.Next = "nothing was started; to run this plan, call check_agent again with the same arguments and dry_run: false, confirm: true"
		return textResult(planText(plan) + out.Next + "\n"), out, nil
	}
	if !in.Confirm {
		return nil, CheckOutput{}, fmt.Errorf("check_agent: refused: running starts %s; it needs confirm: true (with dry_run: false)", strings.Join(in.Command, " "))
	}
	select {
	case s.check <- struct{}{}:
		defer func() { <-s.check }()
	default:
		return nil, CheckOutput{}, errors.New("check_agent: another check is running; one runs at a time")
	}
	if opts.OutDir == "" {
		if opts.OutDir, err = os.MkdirTemp("", "acplint-mcp-check-"); err != nil {
			return nil, CheckOutput{}, fmt.Errorf("check_agent: %w", err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(plan.TimeoutSeconds*float64(time.Second)))
	defer cancel()
	v, err := conformance.Check(ctx, opts)
	if err != nil {
		if errors.Is(err, conformance.ErrInterrupted) {
			err = fmt.Errorf("the budget of %vs ran out (or the call was cancelled) before the agent answered initialize", plan.TimeoutSeconds)
		}
		return nil, CheckOutput{}, fmt.Errorf("check_agent: %w", err)
	}
	out.Ran, out.Complete = true, ctx.Err() == nil
	out.Conformant, out.Summary, out.Seed, out.Runs = v.Conformant, v.Summary, v.Seed, v.Runs
	out.Failed, out.OutDir = v.Failed(), opts.OutDir
	for _, r := range v.Reproductions {
		rep := Reproduction{Key: r.Key, File: r.File, Shrunk: r.Shrunk, Lines: r.Lines, Reproduced: r.Reproduced, Finding: r.Finding, Note: r.Note, Command: r.Command}
		if r.File != "" {
			rep.Notes = strings.TrimSuffix(r.File, ".jsonl") + ".txt"
		}
		out.Reproductions = append(out.Reproductions, rep)
	}
	out.VerdictFile = filepath.Join(opts.OutDir, "verdict.json")
	if err := safefile.Replace(out.VerdictFile, func(w io.Writer) error { return v.Write(w, conformance.FormatJSON) }); err != nil {
		return nil, CheckOutput{}, fmt.Errorf("check_agent: writing the verdict: %w", err)
	}
	return textResult(checkText(out)), out, nil
}

func planText(p CheckPlan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Plan: start %s (program %s) in %s, %d runs of up to %d steps each, a fresh process per run.\n", strings.Join(p.Command, " "), p.Program, p.Dir, p.Runs, p.Steps)
	fmt.Fprintf(&b, "Client capabilities drawn from: %s.\n", orDefault(strings.Join(p.Capabilities, ", "), "none"))
	fmt.Fprintf(&b, "Budgets: %gs in all; %gs to answer initialize, %gs of silence per request, %gs per run; up to %d failures shrunk, %gs each.\n",
		p.TimeoutSeconds, p.StartupTimeoutSeconds, p.ResponseTimeoutSeconds, p.RunTimeoutSeconds, p.MaxShrinks, p.ShrinkSeconds)
	fmt.Fprintf(&b, "Shrunk transcripts go to %s.\n", orDefault(p.OutDir, "a new private temporary directory"))
	return b.String()
}

func checkText(out CheckOutput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "verdict: %s (seed %d, %d runs)\n", out.Summary, out.Seed, out.Runs)
	if !out.Complete {
		b.WriteString("the check stopped early (time budget or cancelled): the verdict covers the runs made so far\n")
	}
	for _, r := range out.Reproductions {
		fmt.Fprintf(&b, "%s: minimal run of %d lines in %s", r.Key, r.Lines, r.File)
		if r.Reproduced {
			b.WriteString(" (lint reproduces it)")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "whole verdict: %s\n", out.VerdictFile)
	return b.String()
}
