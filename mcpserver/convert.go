package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/transcript"
)

// ConvertInput is convert_transcript's arguments.
type ConvertInput struct {
	Path   string `json:"path" jsonschema:"the transcript file to convert"`
	To     string `json:"to" jsonschema:"output format: acplint (acplint's recording format), jsonl ({dir,msg} lines) or ndjson (raw frames, directions dropped)"`
	Format string `json:"format,omitempty" jsonschema:"input format; auto (the default) detects it"`
}

// ConvertOutput is convert_transcript's structured content.
type ConvertOutput struct {
	To         string `json:"to"`
	Transcript string `json:"transcript" jsonschema:"the converted transcript"`
	Bytes      int    `json:"bytes" jsonschema:"bytes in transcript"`
	// Truncated says the conversion stopped at the output bound; the
	// transcript ends with the last whole line.
	Truncated bool `json:"truncated" jsonschema:"true when the converted transcript was longer than the server returns (acplint mcp --max-output) and ends early, at a line end"`
	// Problems are the lines skipped or written without a direction.
	Problems []findings.ValidationFinding `json:"problems" jsonschema:"lines skipped (ACP-LINT-002, ACP-LINT-004) or written with direction unknown (ACP-LINT-001), as acplint lint -f json prints findings"`
	Reported int                          `json:"reported" jsonschema:"problems found, including those not returned"`
}

func (s *server) convertTool() (*mcp.Tool, mcp.ToolHandlerFor[ConvertInput, ConvertOutput]) {
	in := schemaFor[ConvertInput]()
	enum(in, "to", lint.ConvertFormats...)
	var formats []string
	for _, f := range transcript.Formats {
		formats = append(formats, string(f))
	}
	enum(in, "format", formats...)
	return &mcp.Tool{
		Name:  "convert_transcript",
		Title: "Convert an ACP transcript",
		Description: `Convert a transcript file between the formats acplint reads, frame for frame and byte for byte; where the input does not record who sent a frame (raw NDJSON), the sender is inferred as lint infers it, and a frame nobody can tell is written with direction "unknown" and reported.
The converted transcript is returned (up to the server's --max-output bytes), not written to a file.`,
		InputSchema:  in,
		OutputSchema: schemaFor[ConvertOutput](),
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, s.convertTranscript
}

// errOutputFull stops a conversion at the output bound.
var errOutputFull = errors.New("output bound reached")

// cappedBuffer takes at most max bytes and fails the write that would
// pass it.
type cappedBuffer struct {
	bytes.Buffer
	max int
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if c.Len()+len(p) > c.max {
		n, _ := c.Buffer.Write(p[:c.max-c.Len()])
		return n, errOutputFull
	}
	return c.Buffer.Write(p)
}

func (s *server) convertTranscript(ctx context.Context, _ *mcp.CallToolRequest, in ConvertInput) (*mcp.CallToolResult, ConvertOutput, error) {
	format, err := transcript.ParseFormat(orDefault(in.Format, "auto"))
	if err != nil {
		return nil, ConvertOutput{}, fmt.Errorf("convert_transcript: format: %w", err)
	}
	out := ConvertOutput{To: in.To, Problems: []findings.ValidationFinding{}}
	err = s.bounded(ctx, s.opts.Timeout, func(ctx context.Context) error {
		r, done, err := s.roots.open(ctx, in.Path, s.opts.MaxFileSize)
		if err != nil {
			return err
		}
		defer done()
		buf := &cappedBuffer{max: s.opts.MaxOutput}
		out.Reported, err = lint.Convert(r, buf, lint.ConvertOptions{From: format, To: in.To, File: in.Path, Producer: "acplint mcp " + s.opts.Version,
			Report: func(f findings.ValidationFinding) {
				if len(out.Problems) < s.opts.MaxFindings {
					out.Problems = append(out.Problems, f)
				}
			}})
		text := buf.Bytes()
		if errors.Is(err, errOutputFull) {
			err, out.Truncated = nil, true
			text = text[:bytes.LastIndexByte(text, '\n')+1]
		}
		out.Transcript, out.Bytes = string(text), len(text)
		return err
	})
	if err != nil {
		return nil, ConvertOutput{}, fmt.Errorf("convert_transcript: %w", err)
	}
	summary := fmt.Sprintf("%s converted to %s: %d bytes", in.Path, in.To, out.Bytes)
	if out.Truncated {
		summary += fmt.Sprintf(" (cut at the server's bound of %d bytes: the rest is not shown; run acplint convert for the whole)", s.opts.MaxOutput)
	}
	summary += fmt.Sprintf(", %d lines reported", out.Reported)
	if len(out.Problems) > 0 {
		var b bytes.Buffer
		findings.Write(&b, findings.FormatText, findings.Report{Findings: out.Problems[:min(len(out.Problems), 10)]})
		summary += ":\n" + b.String()
	} else {
		summary += ".\n"
	}
	return textResult(summary, out.Transcript), out, nil
}
