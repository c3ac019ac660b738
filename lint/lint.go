// Package lint reads a recorded ACP transcript, decodes every line, runs
// the protocol machine over the messages and returns the findings.
package lint

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/protocol"
)

// Options configure a lint run.
type Options struct {
	// Format of the input; FormatAuto (or "") detects it.
	Format Format
	// File names the input in findings ("-" for stdin).
	File string
	// CleanEnd says the transcript ends with a clean shutdown (the client
	// closed the connection); unanswered requests are then errors rather
	// than a truncated recording.
	CleanEnd bool
}

// Result is what a lint run found.
type Result struct {
	Findings []findings.ValidationFinding
	Format   Format // the format read (after detection)
	Lines    int    // transcript lines (frames) read
	Messages int    // JSON-RPC messages decoded
}

// Transcript lints one transcript. The error is for I/O failures only:
// every problem with the content is a finding.
func Transcript(r io.Reader, opts Options) (*Result, error) {
	src, format, err := open(r, opts.Format)
	if err != nil {
		return nil, err
	}
	l := &linter{file: opts.File, phase: protocol.ACP.Initial, res: &Result{Format: format}}
	for {
		fr, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", displayName(opts.File), err)
		}
		l.frame(fr)
	}
	l.step(protocol.Event{End: true, Truncated: !opts.CleanEnd, Loc: findings.Location{File: opts.File}})
	sort.SliceStable(l.res.Findings, func(i, j int) bool { return findings.Less(l.res.Findings[i], l.res.Findings[j]) })
	return l.res, nil
}

func displayName(f string) string {
	if f == "" {
		return "-"
	}
	return f
}

type linter struct {
	file  string
	phase protocol.Phase
	res   *Result
}

func (l *linter) add(f findings.ValidationFinding) { l.res.Findings = append(l.res.Findings, f) }

func (l *linter) loc(line int) findings.Location { return findings.Location{File: l.file, Line: line} }

func (l *linter) frame(fr Frame) {
	l.res.Lines++
	if fr.Bad != "" {
		l.add(findings.New(findings.LINTBadWrapper, l.loc(fr.Line.Num), fr.Bad))
		return
	}
	d := codec.DecodeLine(fr.Line)
	// Line-level problems come first: they do not depend on the sender.
	l.lineProblems(d, fr)
	for i, m := range d.Msgs {
		l.res.Messages++
		l.message(d, i, m, fr)
	}
}

func (l *linter) message(d *codec.Decoded, i int, m *domain.Message, fr Frame) {
	loc := l.loc(fr.Line.Num)
	m.Dir = fr.Dir
	var probs []codec.Problem
	switch m.Kind {
	case domain.KindRequest, domain.KindNotification:
		if m.Dir == domain.DirUnknown {
			m.Dir = l.senderOf(m)
		}
	case domain.KindResult, domain.KindError:
		dir, req, ok := l.phase.ResponseDirection(m.ID)
		if m.Dir == domain.DirUnknown && ok {
			m.Dir = dir
		}
		if m.Dir != domain.DirUnknown {
			if r, found := l.phase.Pending(m.Dir.Opposite(), m.ID); found {
				req = r
				ok = true
			} else {
				ok = false
			}
		}
		if ok {
			m.Method = req.Method
			if m.Kind == domain.KindResult {
				if mi, known := domain.LookupMethod(req.Method); known {
					probs = d.DecodeResult(i, mi)
				}
			}
		}
	}
	if m.Dir == domain.DirUnknown {
		l.add(findings.New(findings.LINTDirectionUnknown, loc, directionUnknownMessage(m)))
	}
	ev := protocol.Event{Msg: m, Loc: loc}
	for _, p := range messageProblems(d, i) {
		l.problem(p, m, loc, fr)
		ev.ParamsInvalid = ev.ParamsInvalid || breaksParams(p, i, len(d.Msgs) > 1)
	}
	for _, p := range probs {
		l.problem(p, m, loc, fr)
	}
	l.step(ev)
}

// senderOf infers who sent a request or notification from the method
// tables. Methods either side may send ($/cancel_request, extensions) are
// attributed only when the request ids prove it; otherwise DirUnknown.
func (l *linter) senderOf(m *domain.Message) domain.Direction {
	if mi, ok := domain.LookupMethod(m.Method); ok && mi.Receiver != domain.SideEither {
		return mi.Receiver.Sender()
	}
	if side, ok := domain.UnstableMethods[m.Method]; ok && side != domain.SideEither {
		return side.Sender()
	}
	return domain.DirUnknown
}

func directionUnknownMessage(m *domain.Message) string {
	switch m.Kind {
	case domain.KindRequest, domain.KindNotification:
		return fmt.Sprintf("cannot tell which side sent %s %q: either side may send it; record with directions (-input jsonl) to check it", m.Kind, m.Method)
	}
	return fmt.Sprintf("cannot tell which side sent the response with id %s: no request with that id is pending on exactly one side", m.ID)
}

func (l *linter) step(ev protocol.Event) {
	next, err := protocol.ACP.Step(l.phase, ev)
	l.phase = next
	vs, other := protocol.Violations(err)
	for _, v := range vs {
		l.add(v.Finding)
	}
	for _, e := range other {
		// A non-violation error is a bug in the machine; say so loudly
		// rather than dropping it.
		l.add(findings.New(findings.LINTInternal, ev.Loc, "internal error in the protocol machine: "+e.Error()))
	}
}

// breaksParams reports whether p makes a request's params invalid under
// the method's schema: a receiver should refuse such a request with -32602.
// Unknown members and open-enum values do not count; receivers tolerate them.
func breaksParams(p codec.Problem, i int, batch bool) bool {
	switch p.Kind {
	case codec.ProbMissing, codec.ProbType, codec.ProbRange, codec.ProbEnum, codec.ProbUnknownVariant:
	default:
		return false
	}
	prefix := "/params"
	if batch {
		prefix = fmt.Sprintf("/%d/params", i)
	}
	return p.Pointer == prefix || strings.HasPrefix(p.Pointer, prefix+"/")
}
