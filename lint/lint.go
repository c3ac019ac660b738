// Package lint reads a recorded ACP transcript, decodes every line, runs
// the protocol machine over the messages and returns the findings.
package lint

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/internal/jsonv"
	"github.com/acplint/acplint/protocol"
	"github.com/acplint/acplint/transcript"
)

// Options configure a lint run.
type Options struct {
	// Format of the input; transcript.FormatAuto (or "") detects it.
	Format transcript.Format
	// File names the input in findings ("-" for stdin).
	File string
	// CleanEnd says the transcript ends with a clean shutdown (the client
	// closed the connection); unanswered requests are then errors rather
	// than a truncated recording.
	CleanEnd bool
	// Schema, when set, checks params and results against this schema
	// version instead of the compiled-in one (schema.go).
	Schema *Schema
	// OnFinding, when set, is called with each finding as soon as it is
	// found, in transcript order (tap's live output, lint's streamed
	// report). Findings known only at the end (unanswered requests, leaks,
	// counts of a line ending, the MaxPerRule summaries) arrive last.
	// Result.Findings then stays empty: nothing is kept, so memory does not
	// grow with the number of findings. Without OnFinding, Result.Findings
	// holds them, sorted with findings.Less.
	OnFinding func(findings.ValidationFinding)
	// OnEntry, when set, is called with each entry of the transcript once
	// it is linted, in order, with the messages it holds (none for a bad
	// wrapper, a gap or a line that is not JSON-RPC), their Dir and, for a
	// response, Method as lint settled them: for a report that shows the
	// traffic (package htmlreport). The findings of an entry are given to
	// OnFinding before it. Neither the entry's bytes nor the messages may
	// be kept after the call: their memory is reused.
	OnEntry func(transcript.Entry, []*domain.Message)
	// Filter, when set, drops the findings it returns false for before
	// they count towards MaxPerRule (the CLI's --disable, --severity and
	// --baseline), so that findings nobody sees never hide ones they would.
	Filter func(findings.ValidationFinding) bool
	// MaxPerRule caps the findings of one rule reported for the transcript:
	// later ones are only counted, and one summary finding at the end
	// ("… and N more like this") stands for them all. 0 means
	// DefaultMaxPerRule; a negative value means no cap.
	MaxPerRule int
	// MaxLine is the longest line (or Zed array element) read, in bytes; a
	// longer one is reported (ACP-LINT-004) and streamed past unchecked,
	// so memory stays bounded whatever the input. 0 means
	// transcript.DefaultMaxLine.
	MaxLine int
}

// DefaultMaxPerRule is Options.MaxPerRule's default: enough occurrences to
// see a pattern, few enough that a transcript repeating one mistake on
// every line yields a readable report.
const DefaultMaxPerRule = 100

// Result is what a lint run found.
type Result struct {
	// Findings, sorted with findings.Less; empty when Options.OnFinding
	// took them as they were found.
	Findings []findings.ValidationFinding
	Format   transcript.Format // the format read (after detection)
	Lines    int               // transcript lines (frames) read
	Messages int               // JSON-RPC messages decoded
}

// Transcript lints one transcript. The error is for I/O failures only:
// every problem with the content is a finding, and so is a bug of acplint
// that panics while linting it (ACP-LINT-003).
func Transcript(r io.Reader, opts Options) (*Result, error) {
	return Source(transcript.NewReader(r, opts.Format, opts.MaxLine), opts)
}

// Source is Transcript of what src reads: a reader the caller made, such
// as transcript.NewFrameReader of a live tap's frames. opts.Format and
// opts.MaxLine are src's business.
func Source(src *transcript.Reader, opts Options) (*Result, error) {
	l := &linter{file: opts.File, phase: protocol.ACP.Initial, res: &Result{Format: src.Format()}, schema: opts.Schema,
		onFinding: opts.OnFinding, filter: opts.Filter, maxPerRule: opts.MaxPerRule}
	if l.maxPerRule == 0 {
		l.maxPerRule = DefaultMaxPerRule
	}
	if opts.Schema != nil {
		l.methods = methodTable(opts.Schema.model)
	}
	ahead := startReadAhead(src, src.WholeLineBuffered, opts.Schema)
	defer ahead.stop()
	if err := l.run(ahead, opts); err != nil {
		return nil, fmt.Errorf("%s: %w", displayName(opts.File), err)
	}
	l.reportCapped()
	if l.onFinding == nil {
		sort.SliceStable(l.res.Findings, func(i, j int) bool { return findings.Less(l.res.Findings[i], l.res.Findings[j]) })
	}
	return l.res, nil
}

// run lints every frame and then the end of the transcript. A panic (a
// bug in a rule, the protocol machine or the decoder) is recovered and
// reported once as ACP-LINT-003; linting stops there, and the rest of the
// input is read and dropped so that a writer feeding it through a pipe is
// not blocked. The error is the source's.
func (l *linter) run(ahead *readAhead, opts Options) (err error) {
	defer func() {
		if v := recover(); v != nil {
			l.internalPanic(v)
			err = drain(ahead)
		}
	}()
	for b := ahead.next(); b != nil; b = ahead.next() {
		for i, df := range b.frames {
			if i == b.panicAt {
				// The decoder panicked on this frame in a read-ahead
				// worker: report it like any other panic.
				l.line = df.fr.Line.Num
				panic(b.panicValue)
			}
			l.pre = df.pre
			l.frame(df.fr, df.d)
			if opts.OnEntry != nil {
				var msgs []*domain.Message
				if df.d != nil {
					msgs = df.d.Msgs
				}
				opts.OnEntry(df.fr, msgs)
			}
		}
		err := b.err
		l.decoded, l.pre = nil, nil // the batch's memory goes back to the readers
		ahead.recycle(b)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
	}
	l.atEnd = true
	l.raw, l.decoded, l.col.parsed = nil, nil, false // the frames' memory is recycled
	l.step(protocol.Event{End: true, Truncated: !opts.CleanEnd, Loc: findings.Location{File: opts.File}})
	l.finishWire()
	return nil
}

// drain reads the batches left after a panic, up to the end of the input.
func drain(ahead *readAhead) error {
	ahead.abandon()
	for b := ahead.next(); b != nil; b = ahead.next() {
		err := b.err
		ahead.recycle(b)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// maxPanicText bounds the panic value quoted in ACP-LINT-003: it may quote
// the input.
const maxPanicText = 1 << 10

// internalPanic reports the panic v raised while linting l.line.
func (l *linter) internalPanic(v any) {
	text := fmt.Sprint(v)
	if len(text) > maxPanicText {
		text = text[:maxPanicText] + "…"
	}
	where := fmt.Sprintf("line %d", l.line)
	if l.atEnd {
		where = "the end of the transcript"
	}
	// The panic value is quoted (%q): it may hold any bytes.
	msg := fmt.Sprintf("internal error in acplint while linting %s: panic: %q; linting of this transcript stopped there (the rest was read but not checked); please report it with the transcript", where, text)
	// Not through add: the finding must not be filtered or capped away.
	l.emit(InternalError(l.loc(l.line), msg))
}

func displayName(f string) string {
	if f == "" {
		return "-"
	}
	return f
}

type linter struct {
	file   string
	phase  protocol.Phase
	res    *Result
	wire   wireState // byte-stream bookkeeping (problems.go)
	schema *Schema   // --schema (schema.go); nil for the compiled-in one
	// methods is the method table of schema (schemafacts.go); nil, the
	// compiled tables, without --schema.
	methods *domain.MethodTable
	// onFinding, filter and maxPerRule are from Options (maxPerRule with
	// its default applied).
	onFinding  func(findings.ValidationFinding)
	filter     func(findings.ValidationFinding) bool
	maxPerRule int
	// perRule counts the findings of each rule reported so far; capped
	// lists, in the order they reached the cap, the rules with findings
	// held back. Both are bounded by the size of the rule catalog.
	perRule map[string]*ruleCount
	capped  []*ruleCount
	// line is the line being linted and atEnd is set once every line is,
	// for the report of a panic.
	line  int
	atEnd bool
	// problems is the memory of protocol.Event.Problems, reused from
	// message to message.
	problems []codec.Problem
	// last is the finding added last (if added is set), to drop repeats.
	last  findings.ValidationFinding
	added bool
	// raw is the line being linted when it is the message as sent (raw
	// NDJSON, one physical line, at most maxColumnLine bytes), for the
	// column of a finding's pointer; nil otherwise.
	raw []byte
	// decoded is the current line as the decoder left it, whose parse
	// tree gives the columns when it parsed l.raw itself; nil otherwise.
	decoded *codec.Decoded
	// pre is the --schema check of the current frame's params, made by
	// the worker that decoded it (schema.go); nil when none was.
	pre []paramsCheck
	col columnTree // l.raw parsed, when a finding needed a column and decoded had no tree of it

	// stepper steps phase, keeping its working memory from step to step.
	stepper protocol.Stepper
}

// maxColumnLine is the longest line whose findings get a column: finding
// one parses the line again, which a huge line should not pay per finding.
const maxColumnLine = 1 << 20

// ruleCount is what the cap knows about one rule: how many findings were
// reported and, past the cap, the first one held back (the summary's
// location) and how many were.
type ruleCount struct {
	reported, held int
	first          findings.ValidationFinding
}

// testHookFrame, when set by a test, is called before each frame is
// linted (a nil check otherwise).
var testHookFrame func(line int)

// add reports f unless it repeats the finding added just before, the
// filter drops it, or the cap holds it back.
func (l *linter) add(f findings.ValidationFinding) {
	// A line can give the same finding many times over (a member repeated
	// a thousand times); reports print it once. Exact repeats are
	// adjacent, so comparing with the last one is enough to drop them
	// without keeping the findings.
	if l.added && sameFinding(f, l.last) {
		return
	}
	l.last, l.added = f, true
	if l.filter != nil && !l.filter(f) {
		return
	}
	// The column is found while the line is at hand, for a finding held
	// back by the cap too: its summary is placed at it.
	if l.raw != nil && f.Location.Pointer != "" && f.Location.Column == 0 && f.Location.Line == l.line {
		if at, ok := l.offset(f.Location.Pointer); ok {
			f.Location.Column = at + 1
		}
	}
	if l.maxPerRule > 0 {
		if l.perRule == nil {
			l.perRule = map[string]*ruleCount{}
		}
		c := l.perRule[f.RuleID]
		if c == nil {
			c = &ruleCount{}
			l.perRule[f.RuleID] = c
		}
		if c.reported >= l.maxPerRule {
			if c.held == 0 {
				c.first = f
				l.capped = append(l.capped, c)
			}
			// The summary is as severe as the worst finding it stands
			// for, so --fail-on judges the held ones too.
			c.first.Severity = max(c.first.Severity, f.Severity)
			c.held++
			return
		}
		c.reported++
	}
	l.emit(f)
}

// sameFinding reports whether a and b print the same in every format.
func sameFinding(a, b findings.ValidationFinding) bool {
	return a.RuleID == b.RuleID && a.Location == b.Location && a.Message == b.Message &&
		a.Severity == b.Severity && a.Blame == b.Blame && a.SpecURL == b.SpecURL &&
		slices.Equal(a.TCK, b.TCK) && slices.Equal(a.Related, b.Related)
}

// emit hands f to Options.OnFinding or keeps it in the Result.
func (l *linter) emit(f findings.ValidationFinding) {
	if l.onFinding != nil {
		l.onFinding(f)
		return
	}
	l.res.Findings = append(l.res.Findings, f)
}

// reportCapped reports, for each rule that reached the cap, one finding for
// the ones held back: the first of them, saying how many there were.
func (l *linter) reportCapped() {
	for _, c := range l.capped {
		f := c.first
		f.Message = fmt.Sprintf("… and %d more like this (the first %d findings of %s in this transcript are reported, the later ones only counted; --max-per-rule sets the cap); the first of them: %s",
			c.held, l.maxPerRule, f.RuleID, f.Message)
		l.emit(f)
	}
}

func (l *linter) loc(line int) findings.Location { return findings.Location{File: l.file, Line: line} }

// columnTree is the current line parsed for the columns of its findings:
// once per line, into memory reused from line to line, since a line that
// breaks rules often breaks several.
type columnTree struct {
	arena  jsonv.Arena
	tree   jsonv.Value
	err    error
	parsed bool
}

// offset is jsonv.Offset of pointer p in the current line (l.raw).
func (l *linter) offset(p string) (int, bool) {
	if l.decoded != nil {
		// The decoder parsed these very bytes: its tree has their offsets.
		if root, src, ok := l.decoded.Tree(); sameBytes(src, l.raw) {
			if !ok {
				return 0, false
			}
			return jsonv.OffsetIn(root, l.raw, p)
		}
	}
	c := &l.col
	if !c.parsed {
		c.arena.Reset()
		c.tree, c.err = c.arena.ParseNext(l.raw)
		c.parsed = true
	}
	if c.err != nil {
		return 0, false
	}
	return jsonv.OffsetIn(&c.tree, l.raw, p)
}

// sameBytes reports whether a and b are the same memory, not only equal.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// frame lints one frame; d is its decoded line, nil for a bad wrapper.
func (l *linter) frame(fr transcript.Entry, d *codec.Decoded) {
	l.line = fr.Line.Num
	l.raw, l.decoded, l.col.parsed = nil, d, false
	if l.res.Format == transcript.FormatNDJSON && fr.Splits == 0 && len(fr.Extra) == 0 && !fr.Synthetic && len(fr.Line.Bytes) <= maxColumnLine {
		l.raw = fr.Line.Bytes
	}
	if testHookFrame != nil {
		testHookFrame(fr.Line.Num)
	}
	l.res.Lines += 1 + len(fr.Extra)
	if fr.Bad != "" {
		l.add(BadWrapper(l.loc(fr.Line.Num), fr.Bad))
		return
	}
	if fr.Lost != "" {
		l.add(FramesLost(l.loc(fr.Line.Num), fr.Lost))
		return
	}
	// Line-level problems come first: they do not depend on the sender.
	l.lineProblems(d, fr)
	for i, m := range d.Msgs {
		l.res.Messages++
		l.message(d, i, m, fr)
	}
}

func (l *linter) message(d *codec.Decoded, i int, m *domain.Message, fr transcript.Entry) {
	loc := l.loc(fr.Line.Num)
	m.Dir = fr.Dir
	var probs []codec.Problem
	brokenEnvelope := m.Kind == domain.KindInvalid
	if brokenEnvelope {
		settleBrokenResponse(m)
	}
	switch m.Kind {
	case domain.KindRequest, domain.KindNotification:
		if m.Dir == domain.DirUnknown {
			m.Dir = l.senderOf(m)
		}
	case domain.KindResult, domain.KindError:
		ambiguous := false
		if m.Dir == domain.DirUnknown {
			m.Dir, ambiguous = l.responderOf(d, i, m)
		}
		if req, found := l.phase.Pending(m.Dir.Opposite(), m.ID); found && m.Dir != domain.DirUnknown {
			m.Method = req.Method
			if m.Kind == domain.KindResult {
				if mi, known := domain.LookupMethod(req.Method); known {
					probs = d.DecodeResult(i, mi)
				}
			}
		}
		if ambiguous {
			l.add(DirectionUnknown(loc, directionUnknownMessage(m)))
		}
	}
	if m.Dir == domain.DirUnknown && (m.Kind == domain.KindRequest || m.Kind == domain.KindNotification) {
		l.add(DirectionUnknown(loc, directionUnknownMessage(m)))
	}
	l.observe(m, loc.Line)
	msgProbs := messageProblems(d, i)
	if notRPC(m, msgProbs) {
		l.strayJSON(d, m, fr, loc)
		return
	}
	switch {
	case m.Kind == domain.KindInvalid:
		l.noteMalformed(loc.Line, m.Dir, "message that fits no JSON-RPC envelope")
	case brokenEnvelope:
		// A response with a broken envelope: nothing to react to.
	case fr.Splits > 0 && i == 0:
		l.noteMalformed(loc.Line, m.Dir, "message split over several lines")
	}
	msgProbs, probs = l.schemaProblems(d, i, m, msgProbs, probs)
	if otherVersion(&l.phase, m) {
		// The v1 schema does not describe a connection that negotiated
		// another version (ACP-VER-004, ACP-VER-005).
		msgProbs, probs = nil, nil
	}
	// The machine reports the problems (protocol.Event.Problems), but for
	// the ones about the input rather than the message: a jsonrpc member
	// of an envelope the reader rebuilt, and the count of problems past
	// the codec's cap (ACP-LINT-005), reported once the message's other
	// findings are.
	ev := protocol.Event{Msg: m, Loc: loc, MetaAbsent: !d.MetaSeen(i), Problems: l.problems[:0]}
	var capped []codec.Problem
	for j, list := range [][]codec.Problem{msgProbs, probs} {
		for _, p := range list {
			if j == 0 {
				ev.ParamsInvalid = ev.ParamsInvalid || breaksParams(p, i, len(d.Msgs) > 1)
			}
			switch {
			case p.Kind == codec.ProbTooMany:
				capped = append(capped, p)
			case p.Kind == codec.ProbJSONRPC && fr.Synthetic:
			default:
				ev.Problems = append(ev.Problems, p)
			}
		}
	}
	l.step(ev)
	clear(ev.Problems) // the machine keeps none of them, nor should the buffer
	l.problems = ev.Problems[:0]
	for _, p := range capped {
		l.add(problemsCapped(loc.At(p.Pointer), p.Detail))
	}
}

// otherVersion reports whether m belongs to a connection that negotiated a
// protocol version other than 1, including the initialize result that
// negotiates v2 or later.
func otherVersion(p *protocol.Phase, m *domain.Message) bool {
	if p.Conn == protocol.ConnOtherVersion {
		return true
	}
	res, ok := m.Result.(*domain.InitializeResponse)
	return ok && res != nil && m.Method == domain.MethodInitialize && res.ProtocolVersion >= 2
}

// senderOf infers who sent a request or notification from the method
// tables: the schema's under --schema, then, for a method the schema does
// not define (which ACP-EXTN-001 reports), the compiled ones, which may
// know it from another version: who sent a line is a fact of the
// transcript, and blame and the rules of the sender need it. Methods
// either side may send ($/cancel_request, extensions) are attributed only
// when the request ids prove it; otherwise DirUnknown.
func (l *linter) senderOf(m *domain.Message) domain.Direction {
	receiver, defined := receiverIn(l.methods, m.Method)
	if !defined && l.methods != nil {
		receiver, defined = receiverIn(nil, m.Method)
	}
	if defined && receiver != domain.SideEither {
		return receiver.Sender()
	}
	if n, ok := m.Params.(*domain.CancelRequestNotification); ok && n != nil {
		// A side cancels its own requests: the one side with that id
		// pending sent the notification.
		_, byClient := l.phase.Pending(domain.FromClient, n.RequestID)
		_, byAgent := l.phase.Pending(domain.FromAgent, n.RequestID)
		switch {
		case byClient && !byAgent:
			return domain.FromClient
		case byAgent && !byClient:
			return domain.FromAgent
		}
	}
	return domain.DirUnknown
}

// responderOf infers who sent response i of line d from the requests
// pending on each side. When both sides have a request with that id
// pending (both number their requests from 0), a result is attributed to
// the side whose request method it decodes as cleanly; ambiguous is set
// when nothing decides. A response whose id is pending on neither side
// stays DirUnknown without being ambiguous: it correlates with nothing,
// which the protocol machine reports.
func (l *linter) responderOf(d *codec.Decoded, i int, m *domain.Message) (dir domain.Direction, ambiguous bool) {
	byClient, c := l.phase.Pending(domain.FromClient, m.ID)
	byAgent, a := l.phase.Pending(domain.FromAgent, m.ID)
	switch {
	case c && !a:
		return domain.FromAgent, false
	case a && !c:
		return domain.FromClient, false
	case !a && !c:
		return domain.DirUnknown, false
	}
	if m.Kind != domain.KindResult {
		return domain.DirUnknown, true
	}
	fitsClientRequest := resultFits(d, i, byClient.Method)
	fitsAgentRequest := resultFits(d, i, byAgent.Method)
	switch {
	case fitsClientRequest && !fitsAgentRequest:
		return domain.FromAgent, false
	case fitsAgentRequest && !fitsClientRequest:
		return domain.FromClient, false
	}
	// Undecided: forget what the probes decoded.
	m.Method, m.Result = "", nil
	return domain.DirUnknown, true
}

// resultFits reports whether response i of d decodes as a result of method
// without a problem that breaks the schema. It leaves the decoded result
// in place; the caller decodes again for the method it settles on.
func resultFits(d *codec.Decoded, i int, method domain.Method) bool {
	mi, known := domain.LookupMethod(method)
	if !known {
		return false
	}
	for _, p := range d.DecodeResult(i, mi) {
		switch p.Kind {
		case codec.ProbMissing, codec.ProbType, codec.ProbRange, codec.ProbEnum, codec.ProbUnknownVariant:
			return false
		}
	}
	return true
}

func directionUnknownMessage(m *domain.Message) string {
	switch m.Kind {
	case domain.KindRequest, domain.KindNotification:
		return fmt.Sprintf("cannot tell which side sent %s %q: either side may send it; record with directions (--input jsonl) to check it", m.Kind, m.Method)
	}
	fits := ""
	if m.Kind == domain.KindResult {
		fits = " and the result fits either request"
	}
	return fmt.Sprintf("cannot tell which side sent the response with id %s: both sides have a request with that id pending%s; rules about this response are skipped, and one of the two requests may later be reported unanswered", m.ID, fits)
}

func (l *linter) step(ev protocol.Event) {
	ev.Methods = l.methods
	err := l.stepper.Step(&l.phase, ev)
	vs, other := protocol.Violations(err)
	for _, v := range vs {
		l.add(v.Finding)
	}
	for _, e := range other {
		// A non-violation error is a bug in the machine; say so loudly
		// rather than dropping it.
		l.add(InternalError(ev.Loc, "internal error in the protocol machine: "+e.Error()))
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
