package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/internal/jsonv"
	"github.com/acplint/acplint/internal/reference"
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
		case codec.ProbNotJSON:
			l.add(notMessage(loc, fr, p.Detail))
			l.noteMalformed(fr.Line.Num, fr.Dir, "line that is not JSON")
		case codec.ProbBatch:
			f := findings.New(findings.WIREBatch, loc, p.Detail+"; ACP v1 has no batches, and the TypeScript SDK answers the whole array with one -32600 error")
			l.add(blame(f, fr.Dir))
		case codec.ProbNotObject:
			if p.Pointer == "" {
				l.add(blame(findings.New(findings.RPCNoEnvelope, loc, p.Detail+"; receivers answer -32600 (Invalid request) or drop it"), fr.Dir))
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
	otlpKey     = regexp.MustCompile(`["']?\b(resourceSpans|resourceMetrics|resourceLogs|scopeSpans|scopeMetrics|scopeLogs|resource_spans|resource_metrics|resource_logs|scope_spans|scope_metrics)\b["']?\s*:`)
	traceIDKey  = regexp.MustCompile(`["']?\b(traceId|traceID|TraceID|trace_id)\b["']?\s*[:=]`)
	spanIDKey   = regexp.MustCompile(`["']?\b(spanId|spanID|SpanID|span_id|parentId|parentSpanId|parent_id)\b["']?\s*[:=]`)
	metricsDump = regexp.MustCompile(`\bdescriptor\b["']?\s*:[\s\S]*\bdataPoints?(Type)?\b["']?\s*:`)
)

// telemetryKind says what telemetry text holds, or "" when it does not look
// like telemetry. It is conservative: a stray "traceId" in a log line is
// not enough, a span id must come with it.
func telemetryKind(text []byte) string {
	if len(text) > 1<<20 {
		text = text[:1<<20]
	}
	switch {
	case otlpKey.Match(text):
		return "an OpenTelemetry (OTLP) export"
	case traceIDKey.Match(text) && spanIDKey.Match(text):
		return "a trace span dump"
	case metricsDump.Match(text):
		return "a metrics export"
	}
	return ""
}

// noteMalformed starts watching how the receiver reacts to a line it
// could not take as a message (ACP-RPC-012).
func (l *linter) noteMalformed(line int, sender domain.Direction, what string) {
	l.wire.malformed = append(l.wire.malformed, &malformedLine{line: line, sender: sender, what: what, receiver: sender.Opposite()})
}

// observe lets the open malformed-line records see message m, in
// transcript order, once its sender is known.
func (l *linter) observe(m *domain.Message, line int) {
	for _, r := range l.wire.malformed {
		if r.next > 0 || line <= r.line {
			continue
		}
		if r.receiver == domain.DirUnknown {
			// Who should have reacted is unknown: only a parse-error
			// reply soon after says something.
			if r.reply == 0 && r.waited < replyWindow && isParseReply(m) {
				r.reply, r.code = line, m.Error.Code
				break
			}
			r.waited++
			continue
		}
		if m.Dir != r.receiver {
			continue
		}
		if isParseReply(m) {
			if r.reply == 0 {
				r.reply, r.code = line, m.Error.Code
				break // one reply answers one malformed line
			}
			continue // further replies to further pieces of the same line
		}
		r.next = line
	}
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
		case codec.ProbCRLF, codec.ProbBlank, codec.ProbBOM, codec.ProbNotUTF8, codec.ProbNotJSON, codec.ProbBatch:
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

// lacksErrorMessage reports whether the codec found an error object
// without a message (ACP-RPC-007): the protocol machine's empty-message
// finding (ACP-RPC-008) would only repeat it, so add drops it.
func lacksErrorMessage(probs []codec.Problem) bool {
	for _, p := range probs {
		if p.Kind == codec.ProbErrorObject && strings.HasSuffix(p.Pointer, "/error/message") {
			return true
		}
	}
	return false
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

// problem turns one codec problem in message m into a finding, choosing the
// most specific rule the catalog has for it.
func (l *linter) problem(p codec.Problem, m *domain.Message, loc findings.Location, fr transcript.Entry) {
	if l.excused(p, m) {
		return
	}
	at := loc.At(p.Pointer)
	var f findings.ValidationFinding
	switch p.Kind {
	case codec.ProbJSONRPC:
		if fr.Synthetic {
			return
		}
		f = findings.New(findings.RPCVersion, at, p.Detail+"; peers that check it reject the message")
	case codec.ProbEnvelope, codec.ProbNotObject:
		f = findings.New(findings.RPCNoEnvelope, at, p.Detail+"; the receiver cannot route it and answers -32600 (Invalid request) or drops it")
	case codec.ProbIDNull, codec.ProbIDFraction:
		f = findings.New(findings.RPCIDShape, at, p.Detail+"; JSON-RPC says ids should be strings or integers")
	case codec.ProbErrorObject:
		f = findings.New(findings.RPCMalformedError, at, malformedError(p))
	case codec.ProbMeta:
		f = findings.New(findings.EXTNMetaNotObject, at, p.Detail+"; typed SDKs fail to decode it or drop it, losing the metadata")
	case codec.ProbNullResult:
		f = findings.New(findings.SCHNullResult, at, p.Detail+"; reference receivers accept null, but schema validators do not")
	case codec.ProbDuplicate:
		f = duplicateMember(p, at)
	case codec.ProbTooMany:
		f = findings.New(findings.LINTProblemsCapped, at, p.Detail)
	case codec.ProbUnknownMember:
		f = unknownMember(p, m, at)
	case codec.ProbOpenEnum:
		if p.Def == "SessionConfigOptionCategory" {
			return // ACP-CFG-005 judges categories, with the option named
		}
		f = findings.New(findings.SCHEnumValue, at, p.Detail)
		if strings.HasPrefix(p.Value, "_") {
			f.Severity = findings.SeverityInfo
			f.Message += " (an extension value, which receivers that do not know it treat as unknown)"
		} else {
			f.Severity = findings.SeverityWarning
			f.Message += "; values without a leading \"_\" are reserved for future ACP versions"
		}
	default:
		f = schemaProblem(p, m, at)
	}
	l.add(blame(f, m.Dir))
}

func malformedError(p codec.Problem) string {
	detail := p.Detail
	if !strings.HasPrefix(detail, `"error"`) {
		detail = "error object: " + detail
	}
	switch {
	case strings.HasSuffix(p.Pointer, "/error/code"):
		return detail + "; receivers branch on the integer code (auth required, not found, cancelled), so they cannot tell what failed"
	case strings.HasSuffix(p.Pointer, "/error/message"):
		return detail + "; clients have no text to show the user"
	}
	return detail + "; receivers cannot read the failure"
}

// excused reports codec problems that the context shows are none. The
// codec flags every successful response with "id": null, but when the
// request itself had a null id (ACP-RPC-005), echoing it is what JSON-RPC
// prescribes; the mistake is the request's alone.
func (l *linter) excused(p codec.Problem, m *domain.Message) bool {
	if p.Kind != codec.ProbEnvelope || m.Kind != domain.KindResult || m.ID.Kind() != domain.IDNull ||
		!strings.HasSuffix(p.Pointer, "/id") || m.Dir == domain.DirUnknown {
		return false
	}
	_, echoed := l.phase.Pending(m.Dir.Opposite(), m.ID)
	return echoed
}

// duplicateMember reports a member name that appears twice in one object.
// JSON says names SHOULD be unique, and decoders disagree on which copy
// wins (Go keeps the last, acplint the first), so the two peers may read
// different messages.
func duplicateMember(p codec.Problem, at findings.Location) findings.ValidationFinding {
	if p.Def == "" {
		return findings.New(findings.RPCNoEnvelope, at, p.Detail+"; receivers disagree on which copy wins, so the message is ambiguous")
	}
	f := findings.New(findings.SCHInvalid, at, p.Detail)
	f.Severity = findings.SeverityWarning
	return f
}

func unknownMember(p codec.Problem, m *domain.Message, at findings.Location) findings.ValidationFinding {
	switch {
	case p.Def == "SessionInfoUpdate" && (p.Member == "sessionId" || p.Member == "cwd" || p.Member == "additionalDirectories"):
		return findings.New(findings.SESInfoUpdateFields, at, fmt.Sprintf("session_info_update carries %q; the update names only title and updatedAt, the session is named by the notification", p.Member))
	case p.Def == "AuthMethodTerminal" && p.Member == "command":
		return findings.New(findings.AUTHNTerminalCommand, at, `terminal auth method carries "command"; the descriptor cannot provide one (the client runs its configured agent program with the method's args and env), so clients ignore it`)
	case p.Def == "McpServerStdio" && p.Member == "type":
		return findings.New(findings.SESStdioType, at, `stdio MCP server carries "type"; v1 stdio servers are untagged, and receivers accept it only by tolerance`)
	case p.Def == "CurrentModeUpdate" && p.Member == "modeId":
		return findings.New(findings.UPDModeIDField, at, `current_mode_update uses "modeId"; the schema names it "currentModeId" (an old docs example shows modeId)`)
	case strings.HasSuffix(p.Def, "Capabilities"):
		return findings.New(findings.CAPUnknownKey, at, fmt.Sprintf("capability key %q is not defined by ACP v1; custom capabilities belong under \"_meta\"", p.Member))
	case p.Def == "TextResourceContents" && p.Member == "blob", p.Def == "BlobResourceContents" && p.Member == "text":
		return findings.New(findings.CONTShape, at, "embedded resource carries both \"text\" and \"blob\"; it must have exactly one, and receivers read it as a text resource and ignore the blob")
	case p.Def == "JSON-RPC envelope":
		return findings.New(findings.RPCNoEnvelope, at, p.Detail+"; JSON-RPC messages have only jsonrpc, id, method, params, result and error")
	case p.Def == "CreateElicitationRequest" && (p.Member == "requestId" || p.Member == "sessionId"):
		return findings.New(findings.ELICRequestShape, at, "elicitation/create carries both \"sessionId\" and \"requestId\"; an elicitation is scoped to exactly one of them, so the client cannot tell where to show it")
	case p.Def == "CreateElicitationResponse" && p.Member == "content":
		return findings.New(findings.ELICContentMismatch, at, "elicitation answer carries \"content\" with an action other than accept; only an accepted form returns content, and agents ignore it otherwise")
	}
	return findings.New(findings.SCHUnknownMember, at, p.Detail+"; custom data belongs under \"_meta\", and a later ACP version may define this name differently")
}

// schemaProblem routes a missing member, a wrong type or an unknown
// variant to the rule that names it most precisely, falling back to the
// general schema rule.
func schemaProblem(p codec.Problem, m *domain.Message, at findings.Location) findings.ValidationFinding {
	f := specificSchemaProblem(p, m, at)
	lost, skipped, lenient := lenientScope(m, p.Pointer)
	if !lenient {
		return f
	}
	drop := fmt.Sprintf("reference receivers replace %s with its default without an error, so the value is lost silently", lost)
	if skipped {
		drop = fmt.Sprintf("reference receivers drop item %s without an error, so it is lost silently", lost)
	}
	switch f.RuleID {
	case findings.SCHInvalid.ID, findings.SCHEnumValue.ID:
		return findings.New(findings.SCHDroppedValue, at, fmt.Sprintf("%s: %s; %s", describeMessage(m), p.Detail, drop))
	case findings.CAPMarkerKind.ID:
		return f // its message already says the capability reads as unsupported
	}
	f.Message += "; " + drop
	return f
}

func specificSchemaProblem(p codec.Problem, m *domain.Message, at findings.Location) findings.ValidationFinding {
	where := describeMessage(m)
	switch {
	case p.Member == "protocolVersion" && (p.Def == "InitializeRequest" || p.Def == "InitializeResponse"):
		return findings.New(findings.VERNotInteger, at, fmt.Sprintf("%s: %s; protocolVersion is an integer from 0 to 65535, such as 1", where, p.Detail))
	case p.Kind == codec.ProbMissing && p.Member == "mcpServers" && (p.Def == "NewSessionRequest" || p.Def == "LoadSessionRequest"):
		return findings.New(findings.SESMissingMcpServers, at, fmt.Sprintf(`%s params lack required "mcpServers"; send [] when there are no MCP servers (SDK-based agents answer -32602 Invalid params)`, m.Method))
	case p.Def == "ListSessionsResponse" && p.Member == "sessions":
		return findings.New(findings.SESListMissingSessions, at, fmt.Sprintf("session/list result: %s; the result always carries a sessions array, empty when nothing matches", p.Detail))
	case strings.HasPrefix(p.Def, "McpServer"):
		return findings.New(findings.SESMcpServerShape, at, fmt.Sprintf("MCP server entry: %s", p.Detail))
	case p.Def == "StopReason":
		return findings.New(findings.TURNStopReason, at, fmt.Sprintf("stopReason %s", p.Detail))
	case p.Def == "SessionUpdate":
		return findings.New(findings.UPDUnknownVariant, at, fmt.Sprintf("session/update %s; v1 has no custom update kinds (use _meta or a \"_\" notification)", p.Detail))
	case p.Def == "CurrentModeUpdate" && p.Member == "currentModeId":
		return findings.New(findings.UPDModeIDField, at, p.Detail)
	case p.Def == "UsageUpdate" || p.Def == "Cost":
		return findings.New(findings.UPDUsageShape, at, fmt.Sprintf("usage_update: %s", p.Detail))
	case p.Def == "Notice" || p.Def == "NoticeSeverity":
		return findings.New(findings.UPDNoticeShape, at, fmt.Sprintf("notice: %s", p.Detail))
	case p.Def == "EmbeddedResourceResource" && p.Kind == codec.ProbUnknownVariant:
		return findings.New(findings.CONTShape, at, "embedded resource has neither \"text\" nor \"blob\"; it needs exactly one, so the receiver has no content to use")
	case isContentDef(p.Def):
		return findings.New(findings.CONTShape, at, fmt.Sprintf("content block: %s; the receiver cannot render it or pass it to a model", p.Detail))
	case p.Def == "ToolCall" && p.Member == "title", p.Def == "ToolKind", p.Def == "ToolCallStatus":
		return findings.New(findings.TOOLShape, at, fmt.Sprintf("tool call: %s", p.Detail))
	case p.Def == "RequestPermissionOutcome" || p.Def == "SelectedPermissionOutcome" || (p.Def == "RequestPermissionResponse" && p.Member == "outcome"):
		return findings.New(findings.PERMOutcomeShape, at, fmt.Sprintf("permission outcome: %s", p.Detail))
	case strings.HasPrefix(p.Def, "Elicitation") || p.Def == "CreateElicitationRequest":
		if m.Method == domain.MethodElicitationCreate && m.Kind == domain.KindRequest {
			return findings.New(findings.ELICRequestShape, at, fmt.Sprintf("elicitation/create: %s", p.Detail))
		}
	case strings.HasSuffix(p.Def, "Capabilities") && p.Kind == codec.ProbType:
		return findings.New(findings.CAPMarkerKind, at, fmt.Sprintf("%s; receivers that default invalid capabilities treat it as unsupported", p.Detail))
	case p.Kind == codec.ProbEnum:
		return findings.New(findings.SCHEnumValue, at, fmt.Sprintf("%s: %s; the value is not one the closed enum allows, so typed receivers reject the message", where, p.Detail))
	}
	return findings.New(findings.SCHInvalid, at, fmt.Sprintf("%s: %s; schema-checking receivers reject the message (SDK-based agents answer -32602)", where, p.Detail))
}

func isContentDef(def string) bool {
	switch def {
	case "ContentBlock", "TextContent", "ImageContent", "AudioContent", "ResourceLink", "EmbeddedResource",
		"EmbeddedResourceResource", "TextResourceContents", "BlobResourceContents":
		return true
	}
	return false
}

// describeMessage names a message for finding text: "session/new params",
// "session/prompt result".
func describeMessage(m *domain.Message) string {
	switch m.Kind {
	case domain.KindRequest, domain.KindNotification:
		return string(m.Method) + " params"
	case domain.KindResult:
		if m.Method != "" {
			return string(m.Method) + " result"
		}
		return "result"
	case domain.KindError:
		return "error response"
	}
	return "message"
}

// lenientMark is what the schema's x-deserialize annotations say about a
// member: reference receivers (the Rust schema crate) replace a malformed
// value with its default, or skip malformed array items.
type lenientMark struct{ defaultOnError, skipInvalidItems bool }

// lenientMembers maps definition name, then member name, to its marks. It
// is read from the upstream schema, so it follows schema upgrades.
var lenientMembers = func() map[string]map[string]lenientMark {
	var s struct {
		Defs map[string]struct {
			Properties map[string]struct {
				DefaultOnError bool `json:"x-deserialize-default-on-error"`
				SkipInvalid    bool `json:"x-deserialize-skip-invalid-items"`
			} `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(reference.StableSchema, &s); err != nil {
		panic("lint: the embedded reference schema does not parse: " + err.Error())
	}
	out := map[string]map[string]lenientMark{}
	for def, d := range s.Defs {
		for name, prop := range d.Properties {
			if name == "_meta" || !(prop.DefaultOnError || prop.SkipInvalid) {
				continue // a bad _meta is ACP-EXTN-004
			}
			if out[def] == nil {
				out[def] = map[string]lenientMark{}
			}
			out[def][name] = lenientMark{prop.DefaultOnError, prop.SkipInvalid}
		}
	}
	return out
}()

var optionalType = reflect.TypeFor[domain.Optional]()

// lenientScope finds the innermost member or array item around pointer
// (a problem's location in m) that reference receivers replace or skip
// when it is malformed. It walks m's typed params or result along the
// pointer, so union variants are the ones the codec chose.
func lenientScope(m *domain.Message, pointer string) (at string, skipped, ok bool) {
	segs := strings.Split(pointer, "/")
	// segs[0] is "" (the pointer starts with "/"); a batch adds an index.
	i := 1
	if i < len(segs) && isIndex(segs[i]) {
		i++
	}
	if i >= len(segs) {
		return "", false, false
	}
	var root any
	switch segs[i] {
	case "params":
		root = m.Params
	case "result":
		root = m.Result
	default:
		return "", false, false
	}
	path := strings.Join(segs[:i+1], "/")
	v := reflect.ValueOf(root)
	itemsSkip := false
	for _, seg := range segs[i+1:] {
		v = deref(v)
		if !v.IsValid() {
			break
		}
		switch v.Kind() {
		case reflect.Struct:
			path += "/" + seg
			mark := lenientMembers[v.Type().Name()][jsonv.UnescapeToken(seg)]
			if mark.defaultOnError {
				at, skipped, ok = path, false, true
			}
			itemsSkip = mark.skipInvalidItems
			v = fieldByJSON(v, jsonv.UnescapeToken(seg))
		case reflect.Slice:
			path += "/" + seg
			if itemsSkip {
				at, skipped, ok = path, true, true
			}
			itemsSkip = false
			n, err := strconv.Atoi(seg)
			if err != nil || n >= v.Len() {
				return at, skipped, ok
			}
			v = v.Index(n)
		default:
			return at, skipped, ok
		}
	}
	return at, skipped, ok
}

func isIndex(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

// deref follows pointers, interfaces and set Opt values.
func deref(v reflect.Value) reflect.Value {
	for v.IsValid() {
		switch {
		case v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface:
			if v.IsNil() {
				return reflect.Value{}
			}
			v = v.Elem()
		case v.Kind() == reflect.Struct && v.Type().Implements(optionalType):
			v = v.Field(0)
		default:
			return v
		}
	}
	return v
}

// fieldByJSON returns the field of struct v that member name decodes
// into, looking into inline members; invalid when there is none.
func fieldByJSON(v reflect.Value, name string) reflect.Value {
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		tag, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if tag == name {
			return v.Field(i)
		}
		if tag == "" && strings.Contains(opts, "inline") {
			if inner := deref(v.Field(i)); inner.IsValid() && inner.Kind() == reflect.Struct {
				if f := fieldByJSON(inner, name); f.IsValid() {
					return f
				}
			}
		}
	}
	return reflect.Value{}
}

// redundant reports whether p only restates another problem of the same
// message, so that one mistake gives one finding: a current_mode_update
// that spells the member "modeId" also lacks "currentModeId", and the
// modeId finding already says so.
func redundant(p codec.Problem, all []codec.Problem) bool {
	if p.Kind != codec.ProbMissing || p.Def != "CurrentModeUpdate" || p.Member != "currentModeId" {
		return false
	}
	for _, q := range all {
		if q.Kind == codec.ProbUnknownMember && q.Def == "CurrentModeUpdate" && q.Member == "modeId" {
			return true
		}
	}
	return false
}
