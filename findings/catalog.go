package findings

import (
	"strings"
	"sync"
)

// Rule is one entry of the rule catalog: data only. Checks live in the codec
// and protocol packages and refer to these values.
type Rule struct {
	ID       string   // ACP-AREA-NNN, public and stable; never renumbered or reused
	Title    string   // lowercase, no final period, at most 60 characters
	Severity Severity // default severity
	Blame    Party    // who is at fault by default
	Spec     string   // URL of the spec page that states the rule
	TCK      []string // matching official TCK requirement ids, if any
	Doc      string   // rationale: what the rule checks and why it matters
	// Undecidable is empty for rules a recorded transcript can decide. When
	// set, it says in one line why a transcript alone cannot: such rules are
	// listed for completeness but never expected to fire from lint.
	Undecidable string
}

// Area is the middle part of the ID ("SES" for ACP-SES-002). Reporters use
// it as a tag so findings can be grouped by protocol area.
func (r *Rule) Area() string {
	rest, ok := strings.CutPrefix(r.ID, "ACP-")
	if !ok {
		return ""
	}
	area, _, ok := strings.Cut(rest, "-")
	if !ok {
		return ""
	}
	return area
}

// All returns the whole catalog sorted by ID. The slice is written out by
// hand rather than filled by init() registration so that the catalog is
// readable in one place and its order cannot depend on file initialisation
// order; catalog_test.go parses the package to prove no rule is missing.
// Callers get a fresh slice and may reorder it.
func All() []*Rule {
	return []*Rule{
		AUTHNUnknownMethod,
		AUTHNTerminalMethod,
		AUTHNDuplicateMethodID,
		AUTHNRequiredWithoutMethods,
		AUTHNRetryWithoutAuth,
		AUTHNTerminalCommand,
		AUTHNUnauthenticatedSession,
		CAPReadWithoutCapability,
		CAPWriteWithoutCapability,
		CAPTerminalWithoutCapability,
		CAPElicitationMode,
		CAPTerminalAuthMethod,
		CAPBooleanConfigOption,
		CAPNoticeWithoutCapability,
		CAPCompactionWithoutCapability,
		CAPPlanWithoutCapability,
		CAPLoadWithoutCapability,
		CAPResumeWithoutCapability,
		CAPCloseWithoutCapability,
		CAPListWithoutCapability,
		CAPDeleteWithoutCapability,
		CAPLogoutWithoutCapability,
		CAPAdditionalDirectories,
		CAPPromptContent,
		CAPMcpTransport,
		CAPAuthenticateWithoutMethods,
		CAPUnstable,
		CAPUnknownKey,
		CAPMarkerKind,
		CAPAdvertisedNotFound,
		CFGIncompleteResult,
		CFGInvalidValue,
		CFGInvalidCurrentValue,
		CFGDuplicateID,
		CFGReservedCategory,
		CFGModeOutOfSync,
		CONTShape,
		CONTBadBase64,
		CONTEmbeddedInOutput,
		CXLNotCancelled,
		CXLUpdateAfterCancel,
		CXLPermissionAfterCancel,
		CXLCancelAsRequest,
		CXLCancelWithoutTurn,
		CXLCancelledUnanswered,
		CXLUnknownCancelTarget,
		CXLUnexpectedCancelledCode,
		ELICRequestShape,
		ELICDuplicateID,
		ELICUnknownComplete,
		ELICUnadvertisedModeCode,
		ELICContentMismatch,
		ELICCredentialField,
		EXTNUnknownMethod,
		EXTNUnansweredExtension,
		EXTNExtensionNotFoundCode,
		EXTNMetaNotObject,
		EXTNTraceContext,
		EXTNCapabilityOutsideMeta,
		EXTNUnknownDollarMethod,
		EXTNRoundTrip,
		FSRelativePath,
		FSZeroLine,
		FSNotFoundCode,
		FSOutsideRoots,
		LINTDirectionUnknown,
		LINTBadWrapper,
		LINTInternal,
		LINTFramesLost,
		LINTProblemsCapped,
		LINTListCut,
		MODEUnknownMode,
		PERMUnofferedOption,
		PERMOutcomeShape,
		PERMNoOptions,
		PERMDuplicateOption,
		PERMOutsideTurn,
		RPCVersion,
		RPCNoEnvelope,
		RPCUnknownResponseID,
		RPCDuplicateID,
		RPCIDShape,
		RPCResponseToNotification,
		RPCMalformedError,
		RPCErrorMessage,
		RPCReservedCode,
		RPCMethodNotFoundCode,
		RPCInvalidParamsCode,
		RPCAfterMalformed,
		RPCUnanswered,
		SCHInvalid,
		SCHUnknownMember,
		SCHNullResult,
		SCHDroppedValue,
		SCHEnumValue,
		SEQNotInitialized,
		SEQAgentBeforeInit,
		SEQInitializeTwice,
		SEQSessionBeforeInit,
		SEQPromptBeforeSession,
		SEQOverlappingPrompts,
		SEQReplayAfterLoad,
		SEQNoReplay,
		SEQReplayOnResume,
		SEQNoticeDuringReplay,
		SEQIgnoredVersionMismatch,
		SESRelativeCwd,
		SESMissingMcpServers,
		SESRelativeAdditionalDirectory,
		SESListRelativePath,
		SESMcpServerShape,
		SESStdioType,
		SESRelativeMcpCommand,
		SESCwdMismatch,
		SESListMissingSessions,
		SESForeignCursor,
		SESCloseDoesNotCancel,
		SESInfoUpdateFields,
		SIDUnknownSession,
		SIDUnknownSessionFromAgent,
		SIDDuplicateSessionID,
		SIDWrongErrorCode,
		SIDDeleteUnknownFails,
		TERMUnknownTerminal,
		TERMUseAfterRelease,
		TERMNotReleased,
		TERMRelativeCwd,
		TERMExitStatusMismatch,
		TERMTruncationMismatch,
		TERMNullArgs,
		TOOLDuplicateID,
		TOOLUpdateUnknown,
		TOOLPermissionUnknownCall,
		TOOLShape,
		TOOLStatusRegression,
		TOOLRelativePath,
		TOOLZeroLine,
		TOOLUnknownTerminal,
		TOOLAppendedContent,
		TOOLNameChanged,
		TOOLNullMeansUnchanged,
		TURNStopReason,
		TURNUnrequestedCancel,
		TURNOutOfTurnUpdate,
		TURNEndWithOpenToolCalls,
		TURNInterleavedMessageID,
		TURNUsageValues,
		UPDAsRequest,
		UPDUnknownVariant,
		UPDModeIDField,
		UPDUnknownCurrentMode,
		UPDPartialConfigOptions,
		UPDUsageShape,
		UPDNoticeShape,
		UPDCompactionOrder,
		UPDPlanShrinks,
		UPDDuplicateCommand,
		VERNotInteger,
		VERHigherThanRequested,
		VERErrorOnMismatch,
		VERZero,
		VERUnsupported,
		VERMissingInfo,
		VEREchoUndefined,
		WIREAgentNotJSON,
		WIREClientNotJSON,
		WIREEmbeddedNewline,
		WIREEncoding,
		WIREBatch,
		WIREWhitespace,
		WIREStderr,
		WIRELargeMessage,
		WIRETelemetryOnStdout,
	}
}

// byID indexes the catalog on the first lookup, not at start-up; the
// catalog is immutable data, so the map is safe for concurrent reads.
var byID = sync.OnceValue(func() map[string]*Rule {
	m := make(map[string]*Rule)
	for _, r := range All() {
		m[r.ID] = r
	}
	return m
})

// ByID looks a rule up by its exact ID, e.g. "ACP-SES-002".
func ByID(id string) (*Rule, bool) {
	r, ok := byID()[id]
	return r, ok
}
