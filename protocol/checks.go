package protocol

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
)

// A Check is one unit of rule code: the rules it raises, the messages it
// runs for and the functions it runs, as go/analysis binds an Analyzer's
// metadata to its code. checkList holds every check of the machine, in the
// order they run; a maintainer adding a rule adds it to the catalog and to
// the Rules of the one check that raises it.
type Check struct {
	Name  string // short and unique, e.g. "session"
	Doc   string // one line: what the check judges
	Rules []*findings.Rule
	Hooks []Hook
}

// A Hook is one function of a check and what triggers it.
type Hook struct {
	On      TriggerKind
	Methods []domain.Method // the methods of OnRequestTo and OnResponseTo
	Problem ProblemKey      // the problems of OnProblem
	// Updates narrows an OnRequestTo hook of session/update to updates of
	// these kinds (their sessionUpdate tags, updateKinds): the hook does
	// nothing with other updates and is not called for them. Empty, it
	// runs for every update.
	Updates []string

	request  requestCheck
	response responseCheck
	end      endCheck
	problem  problemCheck
}

// TriggerKind says which events run a hook.
type TriggerKind uint8

const (
	// OnFraming is the machine's JSON-RPC framing itself (rpc.go): it
	// runs for every message and at the end of the transcript, around
	// the hooks of every other check.
	OnFraming TriggerKind = iota + 1
	// OnProblem runs for each codec problem of a message (Event.Problems)
	// that Hook.Problem matches best (problems.go), before any other hook
	// of the message.
	OnProblem
	// OnArrival runs for every request and notification as it arrives,
	// before the framing judges its kind and id and keeps it pending.
	OnArrival
	// OnEveryRequest runs for every request and notification the framing
	// accepts: a request from a known sender, a notification sent as one.
	OnEveryRequest
	// OnRequestTo runs for the accepted requests and notifications of
	// Hook.Methods, after the OnEveryRequest hooks.
	OnRequestTo
	// OnErrorAnswer runs for every error response to a known request,
	// before the framing judges its code and before the OnEveryResponse
	// hooks.
	OnErrorAnswer
	// OnEveryResponse runs for every response to a known request.
	OnEveryResponse
	// OnResponseTo runs for the responses to requests of Hook.Methods,
	// after the OnEveryResponse hooks.
	OnResponseTo
	// OnEnd runs at the end of the transcript.
	OnEnd
)

func (k TriggerKind) String() string {
	switch k {
	case OnFraming:
		return "framing"
	case OnProblem:
		return "problem"
	case OnArrival:
		return "arrival"
	case OnErrorAnswer:
		return "error answer"
	case OnEveryRequest:
		return "every request"
	case OnRequestTo:
		return "request"
	case OnEveryResponse:
		return "every response"
	case OnResponseTo:
		return "response"
	case OnEnd:
		return "end"
	}
	return fmt.Sprintf("trigger(%d)", int(k))
}

func (h Hook) String() string {
	if h.On == OnProblem {
		return h.On.String() + " " + h.Problem.String()
	}
	if len(h.Methods) == 0 {
		return h.On.String()
	}
	ms := make([]string, len(h.Methods))
	for i, m := range h.Methods {
		ms[i] = string(m)
	}
	s := h.On.String() + " " + strings.Join(ms, ", ")
	if len(h.Updates) > 0 {
		s += " (" + strings.Join(h.Updates, ", ") + ")"
	}
	return s
}

// A requestCheck judges a request or notification against the phase as it
// was before the message, and adds any bookkeeping of its own to it. A
// responseCheck does the same for the response to req. Hooks change the
// step's own copy of the phase (step in acp.go): a Phase is some 800
// bytes, and handing it from hook to hook by value cost more than the
// hooks themselves.
//
// Hooks run in the order of checkList, and in the order of its Hooks
// within a check. They must not depend on each other's bookkeeping for the
// same message; the core transition of the method (the "core" check, last)
// runs after all of them, so every hook sees the state the message arrived
// in.
type (
	requestCheck  func(p *Phase, c *ctx)
	responseCheck func(p *Phase, c *ctx, req Pending)
	endCheck      func(p *Phase, c *ctx)
)

func onRequestTo(f requestCheck, ms ...domain.Method) Hook {
	return Hook{On: OnRequestTo, Methods: ms, request: f}
}

// onUpdate runs f for the session/update notifications whose update is of
// one of kinds.
func onUpdate(f requestCheck, kinds ...string) Hook {
	return Hook{On: OnRequestTo, Methods: []domain.Method{domain.MethodSessionUpdate}, Updates: kinds, request: f}
}

// conversationKinds are the updates that carry the conversation
// (conversationUpdate).
var conversationKinds = []string{"user_message_chunk", "agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "plan"}

// withKinds returns kinds and more, in a list of their own.
func withKinds(kinds []string, more ...string) []string {
	return append(slices.Clip(kinds), more...)
}

func onResponseTo(f responseCheck, ms ...domain.Method) Hook {
	return Hook{On: OnResponseTo, Methods: ms, response: f}
}

func onArrival(f requestCheck) Hook        { return Hook{On: OnArrival, request: f} }
func onEveryRequest(f requestCheck) Hook   { return Hook{On: OnEveryRequest, request: f} }
func onErrorAnswer(f responseCheck) Hook   { return Hook{On: OnErrorAnswer, response: f} }
func onEveryResponse(f responseCheck) Hook { return Hook{On: OnEveryResponse, response: f} }
func onEnd(f endCheck) Hook                { return Hook{On: OnEnd, end: f} }
func onProblem(f problemCheck, k ProblemKey) Hook {
	return Hook{On: OnProblem, Problem: k, problem: f}
}

// sessionOpeners are the methods that create or reopen a session.
var sessionOpeners = []domain.Method{domain.MethodSessionNew, domain.MethodSessionLoad, domain.MethodSessionResume}

// Checks returns the machine's checks in the order they run. The values
// are the caller's own: changing them changes nothing in the machine.
func Checks() []Check {
	list := checkList()
	out := make([]Check, len(list))
	for i, ch := range list {
		out[i] = *ch
	}
	return out
}

// checkList builds the machine's checks afresh, in the order they run.
func checkList() []*Check {
	return []*Check{
		{
			Name: "rpc",
			Doc:  "JSON-RPC framing: message kinds, request ids, response correlation, error objects and codes, requests never answered",
			Rules: []*findings.Rule{
				findings.RPCNoEnvelope, findings.CXLCancelAsRequest, findings.UPDAsRequest, findings.RPCDuplicateID,
				findings.RPCUnknownResponseID, findings.RPCResponseToNotification, findings.RPCErrorMessage, findings.RPCReservedCode,
				findings.RPCMethodNotFoundCode, findings.RPCInvalidParamsCode, findings.CXLUnexpectedCancelledCode,
				findings.CXLCancelledUnanswered, findings.EXTNUnansweredExtension, findings.RPCUnanswered,
				findings.RPCVersion, findings.RPCIDShape, findings.RPCMalformedError, findings.CAPAdvertisedNotFound,
			},
			Hooks: []Hook{
				{On: OnFraming},
				onProblem(jsonrpcProblem, ProblemKey{Kinds: kinds(domain.ProbJSONRPC)}),
				onProblem(envelopeProblem, ProblemKey{Kinds: kinds(domain.ProbEnvelope, domain.ProbNotObject)}),
				onProblem(envelopeMemberProblem, ProblemKey{Kinds: kinds(domain.ProbUnknownMember), Defs: []string{"JSON-RPC envelope"}}),
				onProblem(envelopeDuplicateProblem, ProblemKey{Kinds: kinds(domain.ProbDuplicate), Defs: []string{""}}),
				onProblem(idProblem, ProblemKey{Kinds: kinds(domain.ProbIDNull, domain.ProbIDFraction)}),
				onProblem(errorObjectProblem, ProblemKey{Kinds: kinds(domain.ProbErrorObject)}),
			},
		},
		{
			Name: "auth",
			Doc:  "authentication: the methods an agent offers, authenticate calls, and requests refused until the client authenticates",
			Rules: []*findings.Rule{
				findings.AUTHNDuplicateMethodID, findings.AUTHNUnknownMethod, findings.AUTHNTerminalMethod,
				findings.AUTHNRetryWithoutAuth, findings.AUTHNRequiredWithoutMethods, findings.AUTHNUnauthenticatedSession,
				findings.AUTHNTerminalCommand,
			},
			Hooks: []Hook{
				onResponseTo(checkAuthMethodIDs, domain.MethodInitialize),
				onRequestTo(checkAuthenticateMethod, domain.MethodAuthenticate),
				onResponseTo(authenticateAnswered, domain.MethodAuthenticate),
				onEveryRequest(checkRetryWithoutAuth),
				onEveryResponse(checkAuthRequired),
				onProblem(terminalCommandProblem, ProblemKey{Kinds: kinds(domain.ProbUnknownMember), Defs: []string{"AuthMethodTerminal"}, Members: []string{"command"}}),
			},
		},
		{
			Name: "cancel",
			Doc:  "session/cancel: what it may cancel, and what the agent may still send and answer after it",
			Rules: []*findings.Rule{
				findings.CXLCancelWithoutTurn, findings.CXLNotCancelled, findings.CXLUpdateAfterCancel, findings.CXLPermissionAfterCancel,
			},
			Hooks: []Hook{
				onRequestTo(checkSessionCancel, domain.MethodSessionCancel),
				onResponseTo(checkCancelledTurnEnd, domain.MethodSessionPrompt),
				onUpdate(checkUpdateAfterCancel, conversationKinds...),
				onResponseTo(checkPermissionAfterCancel, domain.MethodSessionRequestPermission),
				onEveryResponse(noteClientAnswer),
			},
		},
		{
			Name: "cap",
			Doc:  "capability gating: each side uses an optional feature only when the other side advertised it",
			Rules: []*findings.Rule{
				findings.CAPReadWithoutCapability, findings.CAPWriteWithoutCapability, findings.CAPTerminalWithoutCapability,
				findings.CAPLoadWithoutCapability, findings.CAPResumeWithoutCapability, findings.CAPCloseWithoutCapability,
				findings.CAPListWithoutCapability, findings.CAPDeleteWithoutCapability, findings.CAPLogoutWithoutCapability,
				findings.CAPElicitationMode, findings.CAPTerminalAuthMethod, findings.CAPAuthenticateWithoutMethods,
				findings.CAPAdditionalDirectories, findings.CAPMcpTransport, findings.CAPPromptContent,
				findings.CAPNoticeWithoutCapability, findings.CAPCompactionWithoutCapability,
				findings.CAPUnknownKey, findings.CAPMarkerKind,
			},
			Hooks: []Hook{
				onRequestTo(checkMethodGate, gatedMethods()...),
				onRequestTo(checkElicitationModeGate, domain.MethodElicitationCreate),
				onResponseTo(checkTerminalAuthGate, domain.MethodInitialize),
				onRequestTo(checkAuthenticateOffered, domain.MethodAuthenticate),
				onRequestTo(checkSessionSetupGates, sessionOpeners...),
				onRequestTo(checkPromptContentGate, domain.MethodSessionPrompt),
				onUpdate(checkUpdateGates, "notice", "compaction_update", "compaction_summary_chunk"),
				onProblem(capabilityKeyProblem, ProblemKey{Kinds: kinds(domain.ProbUnknownMember), DefSuffix: "Capabilities"}),
				onProblem(capabilityKindProblem, ProblemKey{Kinds: kinds(domain.ProbType), DefSuffix: "Capabilities"}),
			},
		},
		{
			Name:  "content",
			Doc:   "content blocks: their shape, and the base64 of images, audio and blob resources",
			Rules: []*findings.Rule{findings.CONTBadBase64, findings.CONTShape},
			Hooks: []Hook{
				onEveryRequest(checkParamsBase64),
				onEveryResponse(checkResultBase64),
				onProblem(contentProblem, ProblemKey{Kinds: schemaKinds, Defs: contentDefs}),
				onProblem(resourceWithoutBodyProblem, ProblemKey{Kinds: kinds(domain.ProbUnknownVariant), Defs: []string{"EmbeddedResourceResource"}}),
				onProblem(resourceWithTwoBodiesProblem, ProblemKey{Kinds: kinds(domain.ProbUnknownMember), Defs: []string{"TextResourceContents"}, Members: []string{"blob"}}),
				onProblem(resourceWithTwoBodiesProblem, ProblemKey{Kinds: kinds(domain.ProbUnknownMember), Defs: []string{"BlobResourceContents"}, Members: []string{"text"}}),
			},
		},
		{
			Name: "elicitation",
			Doc:  "elicitation: the shape of requests, URL elicitation ids, secrets asked for in forms, and the answers",
			Rules: []*findings.Rule{
				findings.ELICRequestShape, findings.ELICDuplicateID, findings.ELICCredentialField, findings.ELICContentMismatch,
				findings.ELICUnadvertisedModeCode, findings.ELICUnknownComplete,
			},
			Hooks: []Hook{
				onRequestTo(checkElicitationRequest, domain.MethodElicitationCreate),
				onResponseTo(checkElicitationAnswer, domain.MethodElicitationCreate),
				onRequestTo(checkElicitationComplete, domain.MethodElicitationComplete),
				onProblem(elicitationRequestProblem, ProblemKey{Kinds: schemaKinds, Defs: []string{"CreateElicitationRequest"}, Request: domain.MethodElicitationCreate}),
				onProblem(elicitationRequestProblem, ProblemKey{Kinds: schemaKinds, DefPrefix: "Elicitation", Request: domain.MethodElicitationCreate}),
				onProblem(elicitationScopeProblem, ProblemKey{Kinds: kinds(domain.ProbUnknownMember), Defs: []string{"CreateElicitationRequest"}, Members: []string{"requestId", "sessionId"}}),
				onProblem(answerContentProblem, ProblemKey{Kinds: kinds(domain.ProbUnknownMember), Defs: []string{"CreateElicitationResponse"}, Members: []string{"content"}}),
			},
		},
		{
			Name: "extn",
			Doc:  "method names and extensibility: unknown and unstable methods, advertised extension methods, unknown $/ methods, trace context under _meta",
			Rules: []*findings.Rule{
				findings.EXTNUnknownMethod, findings.CAPUnstable,
				findings.EXTNCapabilityOutsideMeta, findings.EXTNUnknownDollarMethod, findings.EXTNTraceContext,
				findings.EXTNExtensionNotFoundCode, findings.EXTNMetaNotObject,
			},
			Hooks: []Hook{
				onArrival(checkMethodName),
				onEveryRequest(checkExtensionMethod),
				onEveryRequest(checkParamsTraceContext),
				onEveryResponse(checkResultTraceContext),
				onErrorAnswer(checkExtensionErrorCode),
				onResponseTo(checkProbeResult, ProbeMethod),
				onProblem(metaProblem, ProblemKey{Kinds: kinds(domain.ProbMeta)}),
			},
		},
		{
			Name: "fs",
			Doc:  "file system methods: absolute paths inside the session's roots, 1-based lines, the not-found code",
			Rules: []*findings.Rule{
				findings.FSRelativePath, findings.FSZeroLine, findings.FSOutsideRoots, findings.FSNotFoundCode,
			},
			Hooks: []Hook{
				onRequestTo(checkFSRequest, domain.MethodFSReadTextFile, domain.MethodFSWriteTextFile),
				onResponseTo(checkReadFailure, domain.MethodFSReadTextFile),
				onResponseTo(noteNewSessionRoots, domain.MethodSessionNew),
				onRequestTo(noteReopenedSessionRoots, domain.MethodSessionLoad, domain.MethodSessionResume),
			},
		},
		{
			Name: "schema",
			Doc:  "the general schema rules, for the problems of params and results no more specific rule takes",
			Rules: []*findings.Rule{
				findings.SCHInvalid, findings.SCHDroppedValue, findings.SCHEnumValue, findings.SCHUnknownMember, findings.SCHNullResult,
			},
			Hooks: schemaHooks(),
		},
		{
			Name: "seq",
			Doc:  "ordering: initialize first and once, prompt order, and the history replay of session/load and session/resume",
			Rules: []*findings.Rule{
				findings.SEQInitializeTwice, findings.SEQNotInitialized, findings.SEQSessionBeforeInit, findings.SEQAgentBeforeInit,
				findings.SEQPromptBeforeSession, findings.SEQOverlappingPrompts,
				findings.SEQReplayAfterLoad, findings.SEQReplayOnResume, findings.SEQNoticeDuringReplay, findings.SEQNoReplay,
			},
			Hooks: []Hook{
				onArrival(checkOrdering),
				onEveryRequest(noteEarlyRequest),
				onEveryResponse(checkEarlyRequestAnswer),
				onRequestTo(checkPromptOrder, domain.MethodSessionPrompt),
				onUpdate(checkReplayOrder, withKinds(conversationKinds, "notice")...),
				onResponseTo(checkLoadReplay, domain.MethodSessionLoad),
			},
		},
		{
			Name: "session",
			Doc:  "session setup and lifecycle: paths and MCP servers of session/new, load and resume, session/list, session/close",
			Rules: []*findings.Rule{
				findings.SESRelativeCwd, findings.SESRelativeAdditionalDirectory, findings.SESRelativeMcpCommand,
				findings.SESMissingMcpServers, findings.SESCwdMismatch, findings.SESForeignCursor,
				findings.SESListMissingSessions, findings.SESListRelativePath, findings.SESCloseDoesNotCancel,
				findings.SESMcpServerShape, findings.SESStdioType, findings.SESInfoUpdateFields,
			},
			Hooks: []Hook{
				onRequestTo(checkSessionSetupParams, sessionOpeners...),
				onRequestTo(checkListRequest, domain.MethodSessionList),
				onResponseTo(checkListResult, domain.MethodSessionList),
				onRequestTo(notePromptHistory, domain.MethodSessionPrompt),
				onRequestTo(noteCloseDuringTurn, domain.MethodSessionClose),
				onResponseTo(closeAnswered, domain.MethodSessionClose),
				onResponseTo(checkTurnEndAfterClose, domain.MethodSessionPrompt),
				onProblem(missingMcpServersProblem, ProblemKey{Kinds: kinds(domain.ProbMissing), Defs: []string{"NewSessionRequest", "LoadSessionRequest"}, Members: []string{"mcpServers"}}),
				onProblem(listWithoutSessionsProblem, ProblemKey{Kinds: schemaKinds, Defs: []string{"ListSessionsResponse"}, Members: []string{"sessions"}}),
				onProblem(mcpServerProblem, ProblemKey{Kinds: schemaKinds, DefPrefix: "McpServer"}),
				onProblem(stdioTypeProblem, ProblemKey{Kinds: kinds(domain.ProbUnknownMember), Defs: []string{"McpServerStdio"}, Members: []string{"type"}}),
				onProblem(infoUpdateFieldProblem, ProblemKey{Kinds: kinds(domain.ProbUnknownMember), Defs: []string{"SessionInfoUpdate"}, Members: []string{"sessionId", "cwd", "additionalDirectories"}}),
			},
		},
		{
			Name: "sid",
			Doc:  "session identity: messages that name a session that is not active, reused ids, answers about unknown sessions",
			Rules: []*findings.Rule{
				findings.SIDUnknownSession, findings.SIDUnknownSessionFromAgent, findings.SIDWrongErrorCode,
				findings.SIDDuplicateSessionID, findings.SIDDeleteUnknownFails,
			},
			Hooks: []Hook{
				onEveryRequest(checkSessionNamed),
				onEveryResponse(checkUnknownSessionAnswer),
				onResponseTo(checkIssuedSessionID, domain.MethodSessionNew),
				onResponseTo(checkDeleteAnswer, domain.MethodSessionDelete),
			},
		},
		{
			Name: "terminal",
			Doc:  "terminals: their working directory, use after release, exit status and truncation, release before the end",
			Rules: []*findings.Rule{
				findings.TERMRelativeCwd, findings.TERMUnknownTerminal, findings.TERMUseAfterRelease,
				findings.TERMExitStatusMismatch, findings.TERMTruncationMismatch, findings.TERMNotReleased,
			},
			Hooks: []Hook{
				onRequestTo(checkTerminalCreate, domain.MethodTerminalCreate),
				onResponseTo(terminalCreated, domain.MethodTerminalCreate),
				onRequestTo(checkTerminalUse, domain.MethodTerminalOutput, domain.MethodTerminalWaitForExit, domain.MethodTerminalKill, domain.MethodTerminalRelease),
				onResponseTo(terminalExited, domain.MethodTerminalWaitForExit),
				onResponseTo(checkTerminalOutput, domain.MethodTerminalOutput),
				onEnd(finishTerminals),
			},
		},
		{
			Name: "tool",
			Doc:  "tool calls, in session/update and in permission requests, and the permission requests that ask about them",
			Rules: []*findings.Rule{
				findings.PERMNoOptions, findings.PERMDuplicateOption, findings.PERMOutsideTurn, findings.TOOLPermissionUnknownCall,
				findings.PERMUnofferedOption,
				findings.TOOLDuplicateID, findings.TOOLUpdateUnknown, findings.TOOLNameChanged, findings.TOOLStatusRegression,
				findings.TOOLRelativePath, findings.TOOLZeroLine, findings.TOOLUnknownTerminal,
				findings.TOOLShape, findings.PERMOutcomeShape,
			},
			Hooks: []Hook{
				onRequestTo(checkPermissionRequest, domain.MethodSessionRequestPermission),
				onResponseTo(checkPermissionAnswer, domain.MethodSessionRequestPermission),
				onUpdate(checkToolUpdate, "tool_call", "tool_call_update"),
				onProblem(toolCallProblem, ProblemKey{Kinds: schemaKinds, Defs: []string{"ToolCall"}, Members: []string{"title"}}),
				onProblem(toolCallProblem, ProblemKey{Kinds: schemaKinds, Defs: []string{"ToolKind", "ToolCallStatus"}}),
				onProblem(outcomeProblem, ProblemKey{Kinds: schemaKinds, Defs: []string{"RequestPermissionOutcome", "SelectedPermissionOutcome"}}),
				onProblem(outcomeProblem, ProblemKey{Kinds: schemaKinds, Defs: []string{"RequestPermissionResponse"}, Members: []string{"outcome"}}),
			},
		},
		{
			Name: "turn",
			Doc:  "prompt turns: stop reasons against the turn, updates outside a turn, message ids, usage",
			Rules: []*findings.Rule{
				findings.TURNUnrequestedCancel, findings.TURNEndWithOpenToolCalls,
				findings.TURNOutOfTurnUpdate, findings.TURNInterleavedMessageID, findings.TURNUsageValues,
				findings.TURNStopReason,
			},
			Hooks: []Hook{
				onResponseTo(checkTurnEnd, domain.MethodSessionPrompt),
				onUpdate(checkTurnUpdate, withKinds(conversationKinds, "usage_update")...),
				onProblem(stopReasonProblem, ProblemKey{Kinds: schemaKinds, Defs: []string{"StopReason"}}),
			},
		},
		{
			Name: "config",
			Doc:  "session modes and config options: the ones a session starts with, setting them, and the updates that change them",
			Rules: []*findings.Rule{
				findings.UPDUnknownCurrentMode, findings.CFGModeOutOfSync, findings.CAPBooleanConfigOption,
				findings.CFGDuplicateID, findings.CFGInvalidCurrentValue, findings.CFGReservedCategory,
				findings.MODEUnknownMode, findings.CFGInvalidValue, findings.CFGIncompleteResult,
				findings.UPDPartialConfigOptions,
			},
			Hooks: []Hook{
				onResponseTo(checkSetupModesAndOptions, sessionOpeners...),
				onRequestTo(checkSetMode, domain.MethodSessionSetMode),
				onResponseTo(modeSet, domain.MethodSessionSetMode),
				onRequestTo(checkSetConfigOption, domain.MethodSessionSetConfigOption),
				onResponseTo(checkConfigOptionResult, domain.MethodSessionSetConfigOption),
				onUpdate(checkModeAndOptionUpdate, "current_mode_update", "config_option_update"),
				onProblem(categoryProblem, ProblemKey{Kinds: kinds(domain.ProbOpenEnum), Defs: []string{"SessionConfigOptionCategory"}}),
			},
		},
		{
			Name: "update",
			Doc:  "session/update payloads: their shapes, and the compactions, plans and notices that need the session's state",
			Rules: []*findings.Rule{
				findings.UPDDuplicateCommand,
				findings.UPDCompactionOrder, findings.UPDPlanShrinks, findings.UPDNoticeShape,
				findings.UPDUnknownVariant, findings.UPDModeIDField, findings.UPDUsageShape,
			},
			Hooks: []Hook{
				onUpdate(checkSessionUpdatePayload, "compaction_update", "compaction_summary_chunk", "plan", "available_commands_update", "notice"),
				onProblem(unknownUpdateProblem, ProblemKey{Kinds: schemaKinds, Defs: []string{"SessionUpdate"}}),
				onProblem(modeIDProblem, ProblemKey{Kinds: schemaKinds, Defs: []string{"CurrentModeUpdate"}, Members: []string{"currentModeId"}}),
				onProblem(modeIDMemberProblem, ProblemKey{Kinds: kinds(domain.ProbUnknownMember), Defs: []string{"CurrentModeUpdate"}, Members: []string{"modeId"}}),
				onProblem(usageProblem, ProblemKey{Kinds: schemaKinds, Defs: []string{"UsageUpdate", "Cost"}}),
				onProblem(noticeProblem, ProblemKey{Kinds: schemaKinds, Defs: []string{"Notice", "NoticeSeverity"}}),
			},
		},
		{
			Name: "ver",
			Doc:  "version negotiation and the implementation info both sides send",
			Rules: []*findings.Rule{findings.VEREchoUndefined,
				findings.VERMissingInfo, findings.VERHigherThanRequested, findings.VERErrorOnMismatch, findings.VERZero,
				findings.VERNotInteger,
			},
			Hooks: []Hook{
				onRequestTo(checkClientInfo, domain.MethodInitialize),
				onResponseTo(checkNegotiation, domain.MethodInitialize),
				onProblem(versionProblem, ProblemKey{Kinds: schemaKinds, Defs: []string{"InitializeRequest", "InitializeResponse"}, Members: []string{"protocolVersion"}}),
			},
		},
		{
			Name:  "kept",
			Doc:   "lists longer than the machine keeps (MaxKeptEntries), running turns' items beyond it, and the pending requests, open sessions, terminals and URL elicitations it drops at the cap, whose membership it no longer judges",
			Rules: []*findings.Rule{findings.LINTListCut},
			Hooks: []Hook{
				onResponseTo(noteCutAuthMethods, domain.MethodInitialize),
				onRequestTo(noteCutReopenedDirectories, domain.MethodSessionLoad, domain.MethodSessionResume),
				onResponseTo(noteCutSetup, sessionOpeners...),
				onResponseTo(noteCutOptionResult, domain.MethodSessionSetConfigOption),
				onResponseTo(noteCutListed, domain.MethodSessionList),
				onResponseTo(noteCutCursors, domain.MethodSessionList),
				onRequestTo(noteCutElicitations, domain.MethodElicitationCreate),
				onUpdate(noteCutOptionUpdate, "config_option_update"),
				onUpdate(noteCutTurnItems, withKinds(conversationKinds, "compaction_update", "compaction_summary_chunk")...),
				onRequestTo(noteCutTurnItems, domain.MethodSessionRequestPermission),
				onEveryRequest(noteCutPending),
				onResponseTo(noteCutTerminals, domain.MethodTerminalCreate),
				onResponseTo(noteCutNewSession, domain.MethodSessionNew),
				onRequestTo(noteCutReopenedSession, domain.MethodSessionLoad, domain.MethodSessionResume),
			},
		},
		{
			// The state transitions proper: what a message does to the
			// connection, independent of any rule. They run after every
			// other hook of the message.
			Name:  "core",
			Doc:   "the connection's state transitions: initialize, sessions opened, prompted, cancelled and closed, requests cancelled",
			Rules: []*findings.Rule{findings.VERUnsupported, findings.CXLUnknownCancelTarget},
			Hooks: []Hook{
				onRequestTo(coreInitialize, domain.MethodInitialize),
				onRequestTo(coreSessionReopen(SessionLoading), domain.MethodSessionLoad),
				onRequestTo(coreSessionReopen(SessionResuming), domain.MethodSessionResume),
				onRequestTo(corePrompt, domain.MethodSessionPrompt),
				onRequestTo(coreCancel, domain.MethodSessionCancel),
				onRequestTo(coreClose, domain.MethodSessionClose),
				onRequestTo(coreCancelRequest, domain.MethodCancelRequest),
				onResponseTo(coreInitialized, domain.MethodInitialize),
				onResponseTo(coreSessionCreated, domain.MethodSessionNew),
				onResponseTo(coreSessionReopened, domain.MethodSessionLoad, domain.MethodSessionResume),
				onResponseTo(corePromptEnded, domain.MethodSessionPrompt),
				onResponseTo(coreClosed, domain.MethodSessionClose),
			},
		},
	}
}

func kinds(ks ...domain.ProblemKind) []domain.ProblemKind { return ks }

// gatedMethods are the methods capabilityFor gates, in a fixed order.
func gatedMethods() []domain.Method {
	ms := make([]domain.Method, 0, len(methodGateRules))
	for m := range methodGateRules {
		ms = append(ms, m)
	}
	slices.Sort(ms)
	return ms
}

// dispatch is checkList turned into the tables the machine runs: which
// hooks each event runs, in order.
type dispatch struct {
	checks        []*Check // checkList; hooks name their check by index
	framing       checkID
	problems      []problemHook // by precedence (problemPrecedes)
	arrival       []requestHook
	everyRequest  []requestHook
	everyResponse []responseHook
	errorAnswer   []responseHook
	methods       methodTable // the OnRequestTo and OnResponseTo hooks
	end           []endHook
}

// methodHooks are the hooks of one method, in order.
type methodHooks struct {
	method    domain.Method
	requests  []requestHook
	responses []responseHook
	// byUpdate holds, when hooks of the method are narrowed to kinds of
	// update (Hook.Updates), the requests that run for each kind, by
	// updateKindIndex; nil otherwise.
	byUpdate [][]requestHook
	narrowed [][]string // Hook.Updates of each of requests, while newDispatch builds byUpdate
}

// requestHooks returns the hooks of m's method that run for m.
func (h *methodHooks) requestHooks(m *domain.Message) []requestHook {
	if h.byUpdate != nil {
		return h.byUpdate[updateKindIndex(m.Params)]
	}
	return h.requests
}

// updateKinds are the kinds of session/update, by their sessionUpdate
// tags, in the order of updateKindIndex.
var updateKinds = []string{
	"user_message_chunk", "agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "plan",
	"available_commands_update", "current_mode_update", "config_option_update", "session_info_update",
	"usage_update", "notice", "compaction_update", "compaction_summary_chunk",
}

// updateKindIndex returns 1 + the index in updateKinds of the kind of the
// update params carry, or 0 for params that are no session/update, did
// not decode, or carry an update of no known kind: every hook of
// session/update runs for them.
func updateKindIndex(params any) int {
	n, ok := params.(*domain.SessionNotification)
	if !ok || n == nil {
		return 0
	}
	switch n.Update.(type) {
	case domain.UserMessageChunk:
		return 1
	case domain.AgentMessageChunk:
		return 2
	case domain.AgentThoughtChunk:
		return 3
	case domain.ToolCall:
		return 4
	case domain.ToolCallUpdate:
		return 5
	case domain.Plan:
		return 6
	case domain.AvailableCommandsUpdate:
		return 7
	case domain.CurrentModeUpdate:
		return 8
	case domain.ConfigOptionUpdate:
		return 9
	case domain.SessionInfoUpdate:
		return 10
	case domain.UsageUpdate:
		return 11
	case domain.Notice:
		return 12
	case domain.CompactionUpdate:
		return 13
	case domain.CompactionSummaryChunk:
		return 14
	}
	return 0
}

// narrowByUpdate builds h.byUpdate from h.narrowed.
func (h *methodHooks) narrowByUpdate() {
	narrowed := h.narrowed
	h.narrowed = nil
	if !slices.ContainsFunc(narrowed, func(kinds []string) bool { return len(kinds) > 0 }) {
		return
	}
	if h.method != domain.MethodSessionUpdate {
		panic(fmt.Sprintf("protocol: a hook of %s is narrowed to kinds of update", h.method))
	}
	for _, kinds := range narrowed {
		for _, k := range kinds {
			if !slices.Contains(updateKinds, k) {
				panic(fmt.Sprintf("protocol: a hook of %s is narrowed to %q, which is no kind of update", h.method, k))
			}
		}
	}
	h.byUpdate = make([][]requestHook, 1+len(updateKinds))
	h.byUpdate[0] = h.requests
	for i, kind := range updateKinds {
		for j, rh := range h.requests {
			if len(narrowed[j]) == 0 || slices.Contains(narrowed[j], kind) {
				h.byUpdate[1+i] = append(h.byUpdate[1+i], rh)
			}
		}
	}
}

// methodTable finds the hooks of a method without hashing its name, as a
// map does, on every message: it is indexed by the name's length and last
// bytes, which tell the methods apart, and open-addressed for the names
// that share them.
type methodTable struct {
	slots [hookSlotCount]*methodHooks
	n     int
}

const (
	hookSlotBits  = 7
	hookSlotCount = 1 << hookSlotBits
)

func hookSlot(m domain.Method) uint {
	n := len(m)
	key := uint64(n)
	if n >= 3 {
		key = key<<24 | uint64(m[n-1])<<16 | uint64(m[n-2])<<8 | uint64(m[n-3])
	}
	return uint((key * 0x9e3779b97f4a7c15) >> (64 - hookSlotBits))
}

// get returns the hooks of method m, nil when it has none.
func (t *methodTable) get(m domain.Method) *methodHooks {
	for i := hookSlot(m); ; i = (i + 1) % hookSlotCount {
		if h := t.slots[i]; h == nil || h.method == m {
			return h
		}
	}
}

// add returns the hooks of method m, adding an empty entry when it has none.
func (t *methodTable) add(m domain.Method) *methodHooks {
	i := hookSlot(m)
	for ; t.slots[i] != nil; i = (i + 1) % hookSlotCount {
		if t.slots[i].method == m {
			return t.slots[i]
		}
	}
	if t.n++; t.n > hookSlotCount/2 {
		panic("protocol: more methods have hooks than the hook table holds; raise hookSlotBits")
	}
	t.slots[i] = &methodHooks{method: m}
	return t.slots[i]
}

// checkID is a check's index in dispatch.checks. The context of a step
// holds the running check as one: storing a pointer for every hook run
// would cost a write barrier each time.
type checkID uint16

type (
	requestHook struct {
		run   requestCheck
		check checkID
	}
	responseHook struct {
		run   responseCheck
		check checkID
	}
	endHook struct {
		run   endCheck
		check checkID
	}
	problemHook struct {
		run   problemCheck
		key   ProblemKey
		check checkID
	}
)

// dispatchTables is built on the first step, not at start-up: a command
// that lints nothing pays nothing for it.
var dispatchTables = sync.OnceValue(func() *dispatch { return newDispatch(checkList()) })

func newDispatch(list []*Check) *dispatch {
	d := &dispatch{checks: list}
	framing := -1
	for i, ch := range list {
		id := checkID(i)
		for _, h := range ch.Hooks {
			switch h.On {
			case OnFraming:
				if framing >= 0 {
					panic(fmt.Sprintf("protocol: checks %q and %q both claim the framing", list[framing].Name, ch.Name))
				}
				framing = i
			case OnArrival:
				d.arrival = append(d.arrival, requestHook{h.request, id})
			case OnEveryRequest:
				d.everyRequest = append(d.everyRequest, requestHook{h.request, id})
			case OnRequestTo:
				for _, m := range h.Methods {
					mh := d.methods.add(m)
					mh.requests = append(mh.requests, requestHook{h.request, id})
					mh.narrowed = append(mh.narrowed, h.Updates)
				}
			case OnErrorAnswer:
				d.errorAnswer = append(d.errorAnswer, responseHook{h.response, id})
			case OnEveryResponse:
				d.everyResponse = append(d.everyResponse, responseHook{h.response, id})
			case OnResponseTo:
				for _, m := range h.Methods {
					mh := d.methods.add(m)
					mh.responses = append(mh.responses, responseHook{h.response, id})
				}
			case OnEnd:
				d.end = append(d.end, endHook{h.end, id})
			case OnProblem:
				d.problems = append(d.problems, problemHook{h.problem, h.Problem, id})
			default:
				panic(fmt.Sprintf("protocol: check %q has a hook with trigger %v", ch.Name, h.On))
			}
		}
	}
	if framing < 0 {
		panic("protocol: no check claims the framing")
	}
	d.framing = checkID(framing)
	for _, mh := range d.methods.slots {
		if mh != nil {
			mh.narrowByUpdate()
		}
	}
	slices.SortStableFunc(d.problems, func(a, b problemHook) int { return problemPrecedence(a.key, b.key) })
	return d
}

// runRequestHooks runs hooks for the current request or notification,
// each as its check.
func (c *ctx) runRequestHooks(p *Phase, hooks []requestHook) {
	for _, h := range hooks {
		c.check = h.check
		h.run(p, c)
	}
	c.check = c.d.framing
}

// runResponseHooks runs hooks for the current response to req.
func (c *ctx) runResponseHooks(p *Phase, hooks []responseHook, req Pending) {
	for _, h := range hooks {
		c.check = h.check
		h.run(p, c, req)
	}
	c.check = c.d.framing
}
