package lint

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/protocol"
	"github.com/acplint/acplint/transcript"
)

// maxMessageBytes is the TypeScript SDK's default maxMessageBytes: larger
// messages make its reader throw MessageTooLargeError (ACP-WIRE-008).
const maxMessageBytes = 32 << 20

// wireState is what the driver remembers about the byte stream across
// lines: carriage returns are reported once per sender, and malformed
// lines wait for the peer's reaction (ACP-RPC-012).
type wireState struct {
	crlf      map[domain.Direction]*crlfRun
	malformed []*malformedLine
	// awaiting and open are the malformed lines whose outcome a later
	// message may still change, oldest first, so that a message visits
	// those alone: a transcript may hold any number of malformed lines,
	// and the work per message must not grow with it (DEVELOPERS.md:
	// every path is linear). awaiting holds those whose receiver is
	// unknown that may still take a reply; open[d] those whose receiver d
	// has sent nothing else since, the ones d answered (the first
	// answered[d]) first, as replies go to the oldest unanswered one.
	awaiting []*malformedLine
	open     [3][]*malformedLine
	answered [3]int
}

// crlfRun is the finding for a sender's first "\r\n" line, held until
// the end, when the count of such lines completes it.
type crlfRun struct {
	finding findings.ValidationFinding
	lines   int
}

// malformedLine is a line the receiver could not take as a message, and
// what happened next.
type malformedLine struct {
	line   int
	sender domain.Direction
	what   string
	// reply is the line of the error with "id": null that answered it, and
	// code its code; next is the first later message of the receiver that
	// is not that reply.
	reply, next int
	code        int64
	receiver    domain.Direction
	// waited counts the messages seen while the receiver is unknown: a
	// parse-error reply only counts when it comes soon after.
	waited int
	// seq is the line's place in wireState.malformed.
	seq int
}

// replyWindow is how many messages a parse-error reply may trail a
// malformed line whose receiver is unknown.
const replyWindow = 8

// lineProblems reports what is wrong with the line as a whole: framing,
// encoding, size and JSON syntax. These do not depend on the decoded message.
func (l *linter) lineProblems(d *codec.Decoded, fr transcript.Entry) {
	loc := l.loc(fr.Line.Num)
	if fr.Splits > 0 {
		l.add(blame(findings.New(findings.WIREEmbeddedNewline, loc, splitMessage(fr)), fr.Dir))
		// The peer's reaction (ACP-RPC-012) is watched from message(),
		// once the rebuilt message tells who sent it.
	}
	if n := len(fr.Line.Bytes); n > maxMessageBytes {
		l.add(blame(findings.New(findings.WIRELargeMessage, loc, fmt.Sprintf(
			"message is %.1f MiB; the TypeScript SDK refuses messages over 32 MiB by default (MessageTooLargeError), so peers built on it drop this one", float64(n)/(1<<20))), fr.Dir))
	}
	for _, p := range d.Problems {
		switch p.Kind {
		case codec.ProbCRLF:
			l.crlfLine(fr.Dir, loc)
		case codec.ProbBlank:
			l.add(blame(findings.New(findings.WIREWhitespace, loc, "empty line in the message stream; readers that skip blank lines tolerate it, but it is not the one-message-per-line framing"), fr.Dir))
		case codec.ProbBOM:
			l.add(blame(findings.New(findings.WIREEncoding, loc, p.Detail+"; strict JSON readers (Go's encoding/json among them) reject the line"), fr.Dir))
		case codec.ProbNotUTF8:
			l.add(blame(findings.New(findings.WIREEncoding, loc, p.Detail+"; ACP messages must be UTF-8, and receivers reject the line or turn the bytes into U+FFFD"), fr.Dir))
		case codec.ProbTooManyValues:
			// Like a line over --max-line: acplint would not hold its
			// parse tree, so nothing in it is checked.
			l.add(FramesLost(loc, p.Detail))
		case codec.ProbNotJSON:
			l.add(notMessage(loc, fr, p.Detail))
			l.noteMalformed(fr.Line.Num, fr.Dir, "line that is not JSON")
		case codec.ProbBatch:
			f := findings.New(findings.WIREBatch, loc, p.Detail+"; ACP v1 has no batches, and the TypeScript SDK answers the whole array with one -32600 error")
			l.add(blame(f, fr.Dir))
		case codec.ProbNotObject:
			if p.Pointer == "" {
				// A line that holds no message: its rule (ACP-RPC-001) is
				// the protocol machine's, as for a message.
				l.step(protocol.Event{Loc: loc, Dir: fr.Dir, Problems: []domain.Problem{p}})
				l.noteMalformed(fr.Line.Num, fr.Dir, "JSON value that is not a message object")
			}
		}
	}
	// The further lines of a multi-line frame were not decoded on their
	// own; their encoding is checked here.
	for _, x := range fr.Extra {
		xloc := l.loc(x.Num)
		if x.CRLF {
			l.crlfLine(fr.Dir, xloc)
		}
		switch {
		case bytes.HasPrefix(x.Bytes, []byte("\xef\xbb\xbf")):
			l.add(blame(findings.New(findings.WIREEncoding, xloc, "line starts with a UTF-8 byte order mark; ACP messages must be UTF-8 without a byte order mark"), fr.Dir))
		case !utf8.Valid(x.Bytes):
			l.add(blame(findings.New(findings.WIREEncoding, xloc, "line is not valid UTF-8; ACP messages must be UTF-8 encoded"), fr.Dir))
		}
	}
}

func splitMessage(fr transcript.Entry) string {
	span := fmt.Sprintf("lines %d-%d", fr.Line.Num, fr.Line.Num+len(fr.Extra))
	if len(fr.Extra) == 0 {
		span = "one recorded frame"
	}
	return fmt.Sprintf("one message spans %s: it contains %d raw newline(s); newline ends a message, so the receiver reads each piece as a separate, unparsable line (escape newlines in strings as \\n and do not pretty-print)", span, fr.Splits)
}

// crlfLine reports the first line a sender ends in "\r\n" and counts the
// rest into that finding: a CRLF stream would otherwise give a finding on
// every line.
func (l *linter) crlfLine(dir domain.Direction, loc findings.Location) {
	if l.wire.crlf == nil {
		l.wire.crlf = map[domain.Direction]*crlfRun{}
	}
	if run, ok := l.wire.crlf[dir]; ok {
		run.lines++
		return
	}
	f := blame(findings.New(findings.WIREWhitespace, loc, `line ends in "\r\n"; readers that trim a trailing "\r" tolerate it, but the framing is a bare "\n"`), dir)
	l.wire.crlf[dir] = &crlfRun{finding: f, lines: 1}
}

// notMessage reports a line (or run of lines) that is no JSON-RPC message:
// log text, a banner, a pretty-printed dump, telemetry.
func notMessage(loc findings.Location, fr transcript.Entry, detail string) findings.ValidationFinding {
	text := fr.Line.Bytes
	span := "a line"
	if len(fr.Extra) > 0 {
		span = fmt.Sprintf("lines %d-%d", fr.Line.Num, fr.Line.Num+len(fr.Extra))
		var b bytes.Buffer
		b.Write(text)
		for _, x := range fr.Extra {
			if b.Len() > 1<<20 {
				break
			}
			b.WriteByte('\n')
			b.Write(x.Bytes)
		}
		text = b.Bytes()
	}
	return nonMessage(loc, fr.Dir, span, text, detail)
}

// nonMessage builds the finding for traffic that is not a JSON-RPC
// message, choosing ACP-WIRE-009 when it looks like telemetry.
func nonMessage(loc findings.Location, dir domain.Direction, span string, text []byte, detail string) findings.ValidationFinding {
	if kind := telemetryKind(text); kind != "" && dir != domain.FromClient {
		f := findings.New(findings.WIRETelemetryOnStdout, loc, fmt.Sprintf("%s %s %s; telemetry must not go to stdout, which carries only ACP messages, so the client's reader fails on it (export it out of band or to stderr)", upper(span), verb(span, "holds", "hold"), kind))
		if dir == domain.DirUnknown {
			f.Message += "; the sender is unknown in a raw transcript"
			f.Blame = findings.PartyEither
		}
		return f
	}
	what := fmt.Sprintf("%s that %s not a JSON-RPC message (%s)", span, verb(span, "is", "are"), detail)
	switch dir {
	case domain.FromClient:
		return findings.New(findings.WIREClientNotJSON, loc, "client wrote "+what+"; the agent's stdin carries only ACP messages, and the agent may answer -32700, drop it or give up on the connection")
	case domain.FromAgent:
		return findings.New(findings.WIREAgentNotJSON, loc, "agent wrote "+what+"; stdout carries only ACP messages (logs belong on stderr), and the client's reader may fail on it")
	}
	f := findings.New(findings.WIREAgentNotJSON, loc, fmt.Sprintf("%s %s not a JSON-RPC message (%s); the sender is unknown in a raw transcript, and either side's reader may fail on it", upper(span), verb(span, "is", "are"), detail))
	f.Blame = findings.PartyEither
	return f
}

func verb(span, one, many string) string {
	if strings.HasPrefix(span, "lines") {
		return many
	}
	return one
}

// upper makes span start a sentence in the middle of a finding: "a line"
// becomes "the line".
func upper(span string) string {
	if span == "a line" {
		return "the line"
	}
	return span
}

// Telemetry markers: the container keys of OTLP/JSON exports (camelCase
// and the snake_case of the Python console exporters), and the trace and
// span id keys that span dumps of every console exporter carry.
var (
	otlpKey = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`["']?\b(resourceSpans|resourceMetrics|resourceLogs|scopeSpans|scopeMetrics|scopeLogs|resource_spans|resource_metrics|resource_logs|scope_spans|scope_metrics)\b["']?\s*:`)
	})
	traceIDKey = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`["']?\b(traceId|traceID|TraceID|trace_id)\b["']?\s*[:=]`)
	})
	spanIDKey = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`["']?\b(spanId|spanID|SpanID|span_id|parentId|parentSpanId|parent_id)\b["']?\s*[:=]`)
	})
	metricsDump = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\bdescriptor\b["']?\s*:[\s\S]*\bdataPoints?(Type)?\b["']?\s*:`)
	})
)

// telemetryKind says what telemetry text holds, or "" when it does not look
// like telemetry. It is conservative: a stray "traceId" in a log line is
// not enough, a span id must come with it.
func telemetryKind(text []byte) string {
	if len(text) > 1<<20 {
		text = text[:1<<20]
	}
	switch {
	case otlpKey().Match(text):
		return "an OpenTelemetry (OTLP) export"
	case traceIDKey().Match(text) && spanIDKey().Match(text):
		return "a trace span dump"
	case metricsDump().Match(text):
		return "a metrics export"
	}
	return ""
}

// noteMalformed starts watching how the receiver reacts to a line it
// could not take as a message (ACP-RPC-012).
func (l *linter) noteMalformed(line int, sender domain.Direction, what string) {
	w := &l.wire
	r := &malformedLine{line: line, sender: sender, what: what, receiver: sender.Opposite(), seq: len(w.malformed)}
	w.malformed = append(w.malformed, r)
	if r.receiver == domain.DirUnknown {
		w.awaiting = append(w.awaiting, r)
	} else {
		w.open[r.receiver] = append(w.open[r.receiver], r)
	}
}

// observe lets the open malformed-line records see message m, in
// transcript order, once its sender is known. Records of the line m is on
// do not see it. A parse-error reply answers the oldest record that takes
// one: of its receiver's, the oldest unanswered; of those whose receiver
// is unknown, one that has not waited more than replyWindow messages.
// Any other message of a receiver ends the watch of its records, and
// every message counts as waited for the records of unknown receiver that
// no reply went to before.
func (l *linter) observe(m *domain.Message, line int) {
	w := &l.wire
	if len(w.malformed) == 0 {
		return // most transcripts
	}
	d := m.Dir
	if isParseReply(m) {
		var mine, anyone *malformedLine
		if d != domain.DirUnknown && w.answered[d] < len(w.open[d]) && w.open[d][w.answered[d]].line < line {
			mine = w.open[d][w.answered[d]]
		}
		if len(w.awaiting) > 0 && w.awaiting[0].line < line {
			anyone = w.awaiting[0]
		}
		switch {
		case anyone != nil && (mine == nil || anyone.seq < mine.seq):
			anyone.reply, anyone.code = line, m.Error.Code
			w.awaiting = w.awaiting[1:]
			return
		case mine != nil:
			mine.reply, mine.code = line, m.Error.Code
			w.answered[d]++
			return
		}
	} else if d != domain.DirUnknown {
		ended := 0
		for _, r := range w.open[d] {
			if r.line >= line {
				break
			}
			r.next = line
			ended++
		}
		w.open[d] = w.open[d][ended:]
		w.answered[d] = max(0, w.answered[d]-ended)
	}
	// The older a record, the more messages it has waited: those that
	// waited too long are at the front.
	for _, r := range w.awaiting {
		if r.line >= line {
			break
		}
		r.waited++
	}
	late := 0
	for late < len(w.awaiting) && w.awaiting[late].waited >= replyWindow {
		late++
	}
	w.awaiting = w.awaiting[late:]
}

func isParseReply(m *domain.Message) bool {
	if m.Kind != domain.KindError || m.Error == nil || m.ID.Kind() != domain.IDNull {
		return false
	}
	c := domain.ErrorCode(m.Error.Code)
	return c == domain.CodeParseError || c == domain.CodeInvalidRequest
}

// finishWire completes the findings that need the whole transcript.
func (l *linter) finishWire() {
	// In a fixed order: findings are reported as they are added.
	for _, dir := range []domain.Direction{domain.DirUnknown, domain.FromClient, domain.FromAgent} {
		run, ok := l.wire.crlf[dir]
		if !ok {
			continue
		}
		if run.lines > 1 {
			run.finding.Message += fmt.Sprintf(" (%d lines of this sender do)", run.lines)
		}
		l.add(run.finding)
	}
	for _, r := range l.wire.malformed {
		who := r.receiver.String()
		var msg string
		switch {
		case r.receiver == domain.DirUnknown && r.reply > 0:
			msg = fmt.Sprintf("the %s was answered with %d and id null (line %d), the reference SDK behaviour", r.what, r.code, r.reply)
		case r.receiver == domain.DirUnknown:
			// Without a reply and without knowing who should have
			// reacted, there is nothing to record.
			continue
		case r.reply > 0 && r.next > 0:
			msg = fmt.Sprintf("the %s answered the %s with %d and id null (line %d), the reference SDK behaviour, and the connection stayed usable (it sent line %d)", who, r.what, r.code, r.reply, r.next)
		case r.reply > 0:
			msg = fmt.Sprintf("the %s answered the %s with %d and id null (line %d) and then sent nothing more; the connection may have stopped", who, r.what, r.code, r.reply)
		case r.next > 0:
			msg = fmt.Sprintf("the %s did not answer the %s (it dropped it silently, as the Python SDK does) and the connection stayed usable (it sent line %d)", who, r.what, r.next)
		default:
			msg = fmt.Sprintf("the %s sent nothing after the %s, so the transcript does not show whether the connection stayed usable", who, r.what)
		}
		f := findings.New(findings.RPCAfterMalformed, l.loc(r.line), msg)
		if r.reply > 0 {
			f.Related = append(f.Related, findings.Related{Location: l.loc(r.reply), Message: "the error reply"})
		}
		l.add(blame(f, r.receiver))
	}
}

// blame sets a finding's party to the sender when the rule blames "either".
func blame(f findings.ValidationFinding, dir domain.Direction) findings.ValidationFinding {
	if f.Blame != findings.PartyEither {
		return f
	}
	switch dir {
	case domain.FromClient:
		f.Blame = findings.PartyClient
	case domain.FromAgent:
		f.Blame = findings.PartyAgent
	}
	return f
}

// messageProblems returns the problems that belong to message i of a line.
func messageProblems(d *codec.Decoded, i int) []codec.Problem {
	if len(d.Problems) == 0 {
		return nil // most lines
	}
	var out []codec.Problem
	batch := len(d.Msgs) > 1 || isBatchLine(d)
	prefix := "/" + strconv.Itoa(i)
	for _, p := range d.Problems {
		switch p.Kind {
		case codec.ProbCRLF, codec.ProbBlank, codec.ProbBOM, codec.ProbNotUTF8, codec.ProbNotJSON, codec.ProbBatch, codec.ProbTooManyValues:
			continue
		case codec.ProbNotObject:
			if p.Pointer == "" {
				continue
			}
		}
		if batch && !(p.Pointer == prefix || strings.HasPrefix(p.Pointer, prefix+"/")) {
			continue
		}
		out = append(out, p)
	}
	return out
}

func isBatchLine(d *codec.Decoded) bool {
	for _, p := range d.Problems {
		if p.Kind == codec.ProbBatch {
			return true
		}
	}
	return false
}

// notRPC reports whether message m of a line is JSON that is not even
// trying to be JSON-RPC: an object with none of the envelope members. Such
// a line is stray output (a structured log line, a telemetry record), one
// ACP-WIRE finding, not a list of envelope problems.
func notRPC(m *domain.Message, probs []codec.Problem) bool {
	if m.Kind != domain.KindInvalid || m.JSONRPC != nil || len(m.ID.Raw) > 0 || m.Method != "" ||
		m.RawParams != nil || m.RawResult != nil || m.Error != nil {
		return false
	}
	for _, p := range probs {
		if p.Kind == codec.ProbEnvelope && strings.HasSuffix(p.Pointer, "/method") {
			return false // "method" is present but not a string
		}
	}
	return true
}

// settleBrokenResponse gives a response with a broken envelope (both
// result and error) the kind its members suggest, so that it still answers
// its request: the envelope is reported (ACP-RPC-002), and the request
// should not be reported unanswered as well. Without an id, or with a
// method, the message stays invalid.
func settleBrokenResponse(m *domain.Message) {
	if m.Method != "" || len(m.ID.Raw) == 0 || m.ID.Kind() == domain.IDNull {
		return
	}
	switch {
	case m.Error != nil:
		m.Kind = domain.KindError
	case m.RawResult != nil:
		m.Kind = domain.KindResult
	}
}

// strayJSON reports message m, a JSON object that is not JSON-RPC at all.
func (l *linter) strayJSON(d *codec.Decoded, m *domain.Message, fr transcript.Entry, loc findings.Location) {
	keys := make([]string, 0, len(m.Unknown))
	for _, u := range m.Unknown {
		if len(keys) == 4 {
			keys = append(keys, "…")
			break
		}
		keys = append(keys, strconv.Quote(u.Name))
	}
	detail := "an object with none of the JSON-RPC members"
	if len(keys) > 0 {
		detail = "an object with members " + strings.Join(keys, ", ")
	}
	text := d.Line.Bytes
	if len(d.Msgs) > 1 {
		text = codec.Encode(m) // one element of a batch
	}
	l.add(nonMessage(loc, fr.Dir, "a line", text, detail))
	l.noteMalformed(fr.Line.Num, fr.Dir, "JSON line that is not a JSON-RPC message")
}
