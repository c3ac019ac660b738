// Package mcpserver is acplint as a Model Context Protocol (MCP) server: a
// coding assistant that reaches its tools through MCP can lint ACP
// transcripts, explain rules, diff schemas, convert transcripts and
// property-test an agent, through the same library code as the acplint
// commands, and gets the results as structured content.
//
// The server reads files only under its roots (Options.Roots), after
// resolving symbolic links; it reads no file larger than
// Options.MaxFileSize, gives every tool call Options.Timeout (check_agent
// its own budget), caps what it returns, and opens no network connection.
// check_agent, the one tool that acts (it starts a program), plans by
// default and runs only when asked with dry_run false and confirm true.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime/debug"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acplint/acplint/findings"
)

// Options configure the server. Zero values take the defaults below.
type Options struct {
	// Roots are the directories whose files the tools may read (and where
	// check_agent may write). None: the working directory. Relative paths
	// in tool arguments are taken from the first root.
	Roots []string
	// MaxFileSize is the largest file, or inline transcript, a tool reads.
	MaxFileSize int64
	// Timeout bounds each tool call but check_agent.
	Timeout time.Duration
	// MaxFindings is the most findings (or schema changes) one call
	// returns; the rest are counted.
	MaxFindings int
	// MaxOutput bounds the converted transcript convert_transcript returns,
	// in bytes.
	MaxOutput int
	// CheckTimeout is the longest check_agent may run; a call asks for at
	// most this much.
	CheckTimeout time.Duration
	// MaxRuns and MaxSteps bound check_agent's runs and steps per run.
	MaxRuns, MaxSteps int
	// Version is acplint's version, in the server's implementation info.
	Version string
}

// Defaults of Options.
const (
	DefaultMaxFileSize  = 64 << 20
	DefaultTimeout      = 60 * time.Second
	DefaultMaxFindings  = 200
	DefaultMaxOutput    = 1 << 20
	DefaultCheckTimeout = 5 * time.Minute
	DefaultMaxRuns      = 100
	DefaultMaxSteps     = 20
)

func (o *Options) defaults() {
	if o.MaxFileSize <= 0 {
		o.MaxFileSize = DefaultMaxFileSize
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxFindings <= 0 {
		o.MaxFindings = DefaultMaxFindings
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = DefaultMaxOutput
	}
	if o.CheckTimeout <= 0 {
		o.CheckTimeout = DefaultCheckTimeout
	}
	if o.MaxRuns <= 0 {
		o.MaxRuns = DefaultMaxRuns
	}
	if o.MaxSteps <= 0 {
		o.MaxSteps = DefaultMaxSteps
	}
	if o.Version == "" {
		o.Version = "devel"
	}
}

// server holds what the tool handlers share.
type server struct {
	opts  Options
	roots *roots
	// work admits the tool calls that read and compute, two at a time
	// (the machine's cores): a call that gave up at its deadline holds
	// its place until its work has really stopped. check serializes
	// check_agent: one agent under test at a time.
	work, check chan struct{}
}

// New returns the MCP server with acplint's tools and resources. It fails
// when a root is not a directory.
func New(opts Options) (*mcp.Server, error) {
	opts.defaults()
	r, err := newRoots(opts.Roots)
	if err != nil {
		return nil, err
	}
	s := &server{opts: opts, roots: r, work: make(chan struct{}, 2), check: make(chan struct{}, 1)}
	srv := mcp.NewServer(&mcp.Implementation{Name: "acplint", Title: "acplint: Agent Client Protocol linter", Version: opts.Version},
		&mcp.ServerOptions{Instructions: s.instructions()})
	s.addTools(srv)
	s.addResources(srv)
	return srv, nil
}

// Serve runs the server on in and out (newline-delimited JSON-RPC, the
// MCP stdio transport) until in ends or ctx is done.
func Serve(ctx context.Context, opts Options, in io.Reader, out io.Writer) error {
	srv, err := New(opts)
	if err != nil {
		return err
	}
	err = srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
	if errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil // the client closed the connection: a normal end
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func (s *server) instructions() string {
	return fmt.Sprintf(`acplint checks Agent Client Protocol (ACP) traffic: JSON-RPC 2.0 between code editors and coding agents.
Use lint_transcript on a recording (NDJSON, direction-tagged JSONL, Zed's log, acplint's format) to learn which message breaks which rule and which side is at fault; explain_rule and list_rules describe the rule catalog (also the resources acplint://rules/{id}); schema_diff classifies the changes between two ACP schema files; convert_transcript converts recordings; check_agent property-tests a live agent (dry run by default: it returns the plan, and runs only with dry_run false and confirm true).
Files are read only under %s; relative paths are taken from %s.`, strings.Join(s.roots.dirs, ", "), s.roots.dirs[0])
}

// bounded runs fn under the call's deadline and the work limit. When the
// deadline passes first it returns at once with an error saying so; fn
// keeps its place in the work limit until it returns (its context is
// cancelled, which stops reading). A panic in fn is an error, not the end
// of the server.
func (s *server) bounded(ctx context.Context, timeout time.Duration, fn func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	// Cancelled on return, not when fn returns: the select below must not
	// see the context done when fn has finished in time.
	defer cancel()
	select {
	case s.work <- struct{}{}:
	case <-ctx.Done():
		return late(ctx, timeout)
	}
	done := make(chan error, 1)
	go func() {
		defer func() { <-s.work }()
		defer func() {
			if v := recover(); v != nil {
				done <- fmt.Errorf("internal error (please report it): %v\n%s", v, debug.Stack())
			}
		}()
		done <- fn(ctx)
	}()
	select {
	case err := <-done:
		if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return late(ctx, timeout) // the work saw the deadline first
		}
		return err
	case <-ctx.Done():
		return late(ctx, timeout)
	}
}

// late says why a call ended before its work did. The caller names the
// tool.
func late(ctx context.Context, timeout time.Duration) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("did not finish within %v (acplint mcp --timeout)", timeout)
	}
	return ctx.Err()
}

// typeSchemas are the JSON Schemas of the types that marshal to something
// else than their Go kind suggests: severities and parties are names.
var typeSchemas = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[findings.Severity](): {Type: "string", Enum: names(findings.SeverityInfo, findings.SeverityWarning, findings.SeverityError)},
	reflect.TypeFor[findings.Party]():    {Type: "string", Enum: names(findings.PartyEither, findings.PartyClient, findings.PartyAgent, findings.PartyTool)},
}

func names[T fmt.Stringer](vs ...T) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v.String()
	}
	return out
}

// schemaFor infers T's JSON Schema. The types are fixed at compile time,
// so a failure is a bug that every test of the package shows.
func schemaFor[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: typeSchemas})
	if err != nil {
		panic("mcpserver: " + err.Error())
	}
	return s
}

// enum restricts property name of an object schema to values.
func enum(s *jsonschema.Schema, name string, values ...string) {
	p := s.Properties[name]
	if p == nil {
		panic("mcpserver: no property " + name)
	}
	p.Enum = nil
	for _, v := range values {
		p.Enum = append(p.Enum, v)
	}
}

// textResult is a tool result whose content is text: the short summary a
// person or a model reads first, beside the structured content.
func textResult(texts ...string) *mcp.CallToolResult {
	res := &mcp.CallToolResult{}
	for _, t := range texts {
		res.Content = append(res.Content, &mcp.TextContent{Text: t})
	}
	return res
}

func ptr[T any](v T) *T { return &v }

func (s *server) addTools(srv *mcp.Server) {
	addTool(srv, s.lintTool)
	addTool(srv, s.explainTool)
	addTool(srv, s.listTool)
	addTool(srv, s.diffTool)
	addTool(srv, s.checkTool)
	addTool(srv, s.convertTool)
}

func addTool[In, Out any](srv *mcp.Server, define func() (*mcp.Tool, mcp.ToolHandlerFor[In, Out])) {
	t, h := define()
	mcp.AddTool(srv, t, h)
}
