package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/tap"
	"github.com/acplint/acplint/transcript"
)

const tapDoc = `
Tap lints the live traffic between an editor and an ACP agent. Configure it
as the agent command in the editor: it starts AGENT_CMD, forwards the
editor's stdin to the agent and the agent's stdout to the editor byte for
byte, passes the agent's stderr through, and lints every line as it
crosses. Findings never go to stdout (that is the editor's channel): they
go to --lint-out, or to stderr.

When the editor closes the connection the agent's stdin is closed; an agent
that stays silent for --grace after that gets SIGTERM, then SIGKILL. The tap
exits with the agent's exit code (128+N when signal N killed it).

--record writes the traffic in acplint's transcript format (a versioned
header, then one frame per line with direction, time and the verbatim
bytes); 'acplint lint' reads it. --redact replaces secrets in the recording
only (MCP env values, HTTP header values, credential-named members) and
says so in the header; forwarding is never altered.

Zed (settings.json):
	"agent_servers": {
	  "My Agent (linted)": {
	    "command": "acplint",
	    "args": ["tap", "--record", "/tmp/acp.jsonl", "--lint-out", "/tmp/acp.lint",
	             "--", "my-agent", "--acp"]
	  }
	}
`

func runTap(ctx context.Context, args []string, e *env) int {
	fs := newFlagSet("tap", "acplint tap [flags] -- AGENT_CMD [ARGS…]", tapDoc, e)
	record := fs.String("record", "", "write the transcript to this `file`")
	lintOut := fs.String("lint-out", "", "write findings to this `file` instead of stderr")
	redact := fs.Bool("redact", false, "replace secret values in the recording (never in the forwarded traffic)")
	noLint := fs.Bool("no-lint", false, "only forward and record")
	grace := fs.Duration("grace", 5*time.Second, "how long the agent may stay silent after the editor closed the connection before it is terminated")
	if code, ok := parseFlags(fs, args, e); !ok {
		return code
	}
	command := fs.Args()
	if len(command) == 0 {
		e.errorf("tap: no agent command; usage: acplint tap [flags] -- AGENT_CMD [ARGS…]")
		return exitUsage
	}

	var rec *transcript.Writer
	header := transcript.Header{Producer: "acplint " + version, Started: time.Now().UTC(), Redacted: *redact, Command: command}
	if *record != "" {
		f, err := os.Create(*record)
		if err != nil {
			e.errorf("tap: %v", err)
			return exitUsage
		}
		defer f.Close()
		if rec, err = transcript.NewWriter(f, header); err != nil {
			e.errorf("tap: %v", err)
			return exitUsage
		}
	}

	findingsOut := e.stderr
	if *lintOut != "" {
		f, err := os.Create(*lintOut)
		if err != nil {
			e.errorf("tap: %v", err)
			return exitUsage
		}
		defer f.Close()
		findingsOut = f
	}
	// Live findings name the recording, so their lines can be opened there.
	liveName := "tap"
	if *record != "" {
		liveName = *record
	}
	live := newLiveLinter(findingsOut, liveName, !*noLint)

	observe := func(fr transcript.Frame) {
		live.frame(fr)
		if rec != nil {
			if *redact {
				fr.Data = tap.Redact(fr.Data)
			}
			rec.Write(fr) // errors stick; reported after the run
		}
	}
	res, err := tap.Run(ctx, tap.Options{Command: command, Stderr: e.stderr, Observe: observe, Grace: *grace}, e.stdin, e.stdout)
	if err != nil {
		e.errorf("%v", err)
		return exitUsage
	}
	live.close()
	if rec != nil {
		if err := rec.Flush(); err != nil {
			e.errorf("tap: writing %s: %v", *record, err)
		}
	}
	return res.ExitCode
}

// liveLinter feeds frames to lint.Transcript through a pipe, in the
// canonical format, so live linting is exactly `acplint lint` of the
// recording; findings are printed as soon as they are found.
type liveLinter struct {
	pw   *io.PipeWriter
	w    *transcript.Writer
	done sync.WaitGroup
}

func newLiveLinter(out io.Writer, file string, enabled bool) *liveLinter {
	if !enabled {
		return &liveLinter{}
	}
	pr, pw := io.Pipe()
	l := &liveLinter{pw: pw}
	l.done.Add(1)
	go func() {
		defer l.done.Done()
		print := func(f findings.ValidationFinding) {
			fmt.Fprintf(out, "%s: %s: %s (%s)\n", f.Location, f.Severity, f.Message, f.RuleID)
		}
		_, err := lint.Transcript(pr, lint.Options{Format: lint.FormatTranscript, File: file, OnFinding: print})
		if err != nil {
			fmt.Fprintf(out, "acplint tap: live lint stopped: %v\n", err)
		}
		io.Copy(io.Discard, pr) // never block the tap
	}()
	// The header goes through the pipe too, so the reader must be running.
	l.w, _ = transcript.NewWriter(pw, transcript.Header{Producer: "acplint tap"})
	return l
}

func (l *liveLinter) frame(fr transcript.Frame) {
	if l.w == nil {
		return
	}
	l.w.Write(fr)
	l.w.Flush()
}

func (l *liveLinter) close() {
	if l.pw == nil {
		return
	}
	l.pw.Close()
	l.done.Wait()
}
