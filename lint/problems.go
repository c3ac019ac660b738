package lint

import (
	"fmt"
	"strings"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
)

// lineProblems reports what is wrong with the line as a whole: framing,
// encoding and JSON syntax. These do not depend on the decoded message.
func (l *linter) lineProblems(d *codec.Decoded, fr Frame) {
	loc := l.loc(fr.Line.Num)
	for _, p := range d.Problems {
		switch p.Kind {
		case codec.ProbCRLF, codec.ProbBlank:
			l.add(findings.New(findings.WIREWhitespace, loc, p.Detail+"; readers tolerate it, but it is not the one-message-per-line framing"))
		case codec.ProbBOM, codec.ProbNotUTF8:
			l.add(findings.New(findings.WIREEncoding, loc, p.Detail+"; ACP messages must be UTF-8 without a byte order mark"))
		case codec.ProbNotJSON:
			l.add(notJSON(loc, fr.Dir, p))
		case codec.ProbBatch:
			f := findings.New(findings.WIREBatch, loc, p.Detail+"; ACP v1 has no batches and the TypeScript SDK answers -32600")
			l.add(blame(f, fr.Dir))
		case codec.ProbNotObject:
			if p.Pointer == "" {
				l.add(blame(findings.New(findings.RPCNoEnvelope, loc, p.Detail), fr.Dir))
			}
		}
	}
}

func notJSON(loc findings.Location, dir domain.Direction, p codec.Problem) findings.ValidationFinding {
	switch dir {
	case domain.FromClient:
		return findings.New(findings.WIREClientNotJSON, loc, fmt.Sprintf("client wrote a line that is not a JSON-RPC message (%s)", p.Detail))
	case domain.FromAgent:
		return findings.New(findings.WIREAgentNotJSON, loc, fmt.Sprintf("agent wrote a line that is not a JSON-RPC message (%s)", p.Detail))
	}
	f := findings.New(findings.WIREAgentNotJSON, loc, fmt.Sprintf("line is not a JSON-RPC message (%s); the sender is unknown in a raw transcript", p.Detail))
	f.Blame = findings.PartyEither
	return f
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
	var out []codec.Problem
	batch := len(d.Msgs) > 1 || isBatchLine(d)
	prefix := fmt.Sprintf("/%d", i)
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

// problem turns one codec problem in message m into a finding, choosing the
// most specific rule the catalog has for it.
func (l *linter) problem(p codec.Problem, m *domain.Message, loc findings.Location, fr Frame) {
	at := loc.At(p.Pointer)
	var f findings.ValidationFinding
	switch p.Kind {
	case codec.ProbJSONRPC:
		if fr.Synthetic {
			return
		}
		f = findings.New(findings.RPCVersion, at, p.Detail)
	case codec.ProbEnvelope, codec.ProbNotObject:
		f = findings.New(findings.RPCNoEnvelope, at, p.Detail)
	case codec.ProbIDNull, codec.ProbIDFraction:
		f = findings.New(findings.RPCIDShape, at, p.Detail+"; JSON-RPC says ids should be strings or integers")
	case codec.ProbErrorObject:
		f = findings.New(findings.RPCMalformedError, at, p.Detail)
	case codec.ProbMeta:
		f = findings.New(findings.EXTNMetaNotObject, at, p.Detail)
	case codec.ProbNullResult:
		f = findings.New(findings.SCHNullResult, at, p.Detail+"; reference receivers accept null, but schema validators do not")
	case codec.ProbDuplicate:
		f = findings.New(findings.SCHUnknownMember, at, p.Detail)
	case codec.ProbUnknownMember:
		f = unknownMember(p, m, at)
	case codec.ProbOpenEnum:
		f = findings.New(findings.SCHEnumValue, at, p.Detail)
		if strings.HasPrefix(p.Value, "_") {
			f.Severity = findings.SeverityInfo
			f.Message += " (an extension value)"
		} else {
			f.Severity = findings.SeverityWarning
			f.Message += "; values without a leading \"_\" are reserved for future ACP versions"
		}
	default:
		f = schemaProblem(p, m, at)
	}
	l.add(blame(f, m.Dir))
}

func unknownMember(p codec.Problem, m *domain.Message, at findings.Location) findings.ValidationFinding {
	switch {
	case p.Def == "SessionInfoUpdate" && (p.Member == "sessionId" || p.Member == "cwd" || p.Member == "additionalDirectories"):
		return findings.New(findings.SESInfoUpdateFields, at, fmt.Sprintf("session_info_update carries %q; the update names only title and updatedAt, the session is named by the notification", p.Member))
	case p.Def == "McpServerStdio" && p.Member == "type":
		return findings.New(findings.SESStdioType, at, `stdio MCP server carries "type"; v1 stdio servers are untagged, and receivers accept it only by tolerance`)
	case p.Def == "CurrentModeUpdate" && p.Member == "modeId":
		return findings.New(findings.UPDModeIDField, at, `current_mode_update uses "modeId"; the schema names it "currentModeId" (an old docs example shows modeId)`)
	case strings.HasSuffix(p.Def, "Capabilities"):
		return findings.New(findings.CAPUnknownKey, at, fmt.Sprintf("capability key %q is not defined by ACP v1; custom capabilities belong under \"_meta\"", p.Member))
	case p.Def == "JSON-RPC envelope":
		return findings.New(findings.RPCNoEnvelope, at, p.Detail)
	}
	return findings.New(findings.SCHUnknownMember, at, p.Detail+"; custom data belongs under \"_meta\"")
}

// schemaProblem routes a missing member, a wrong type or an unknown
// variant to the rule that names it most precisely, falling back to the
// general schema rule.
func schemaProblem(p codec.Problem, m *domain.Message, at findings.Location) findings.ValidationFinding {
	where := describeMessage(m)
	switch {
	case p.Member == "protocolVersion" && (p.Def == "InitializeRequest" || p.Def == "InitializeResponse"):
		return findings.New(findings.VERNotInteger, at, fmt.Sprintf("%s: %s; protocolVersion is an integer from 0 to 65535, such as 1", where, p.Detail))
	case p.Kind == codec.ProbMissing && p.Member == "mcpServers" && (p.Def == "NewSessionRequest" || p.Def == "LoadSessionRequest"):
		return findings.New(findings.SESMissingMcpServers, at, fmt.Sprintf(`%s params lack required "mcpServers"; send [] when there are no MCP servers (SDK-based agents answer -32602 Invalid params)`, m.Method))
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
	case isContentDef(p.Def):
		return findings.New(findings.CONTShape, at, fmt.Sprintf("content block: %s", p.Detail))
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
		return findings.New(findings.SCHEnumValue, at, fmt.Sprintf("%s: %s", where, p.Detail))
	}
	return findings.New(findings.SCHInvalid, at, fmt.Sprintf("%s: %s", where, p.Detail))
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
