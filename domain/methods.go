package domain

// Method is a JSON-RPC method name.
type Method string

// Side is a party of an ACP connection, named for the side that implements
// (receives) a method.
type Side uint8

const (
	SideEither Side = iota // protocol-level methods, $/…
	SideAgent              // the agent implements it: the client sends it
	SideClient             // the client implements it: the agent sends it
)

func (s Side) String() string {
	switch s {
	case SideAgent:
		return "agent"
	case SideClient:
		return "client"
	}
	return "either"
}

// Sender is the direction a method's requests and notifications travel in;
// DirUnknown for methods either side may send.
func (s Side) Sender() Direction {
	switch s {
	case SideAgent:
		return FromClient
	case SideClient:
		return FromAgent
	}
	return DirUnknown
}

// Stable v1 methods, from the v1 meta.json method map.
const (
	MethodInitialize             Method = "initialize"
	MethodAuthenticate           Method = "authenticate"
	MethodLogout                 Method = "logout"
	MethodSessionNew             Method = "session/new"
	MethodSessionLoad            Method = "session/load"
	MethodSessionResume          Method = "session/resume"
	MethodSessionClose           Method = "session/close"
	MethodSessionList            Method = "session/list"
	MethodSessionDelete          Method = "session/delete"
	MethodSessionSetMode         Method = "session/set_mode"
	MethodSessionSetConfigOption Method = "session/set_config_option"
	MethodSessionPrompt          Method = "session/prompt"
	MethodSessionCancel          Method = "session/cancel"

	MethodSessionUpdate            Method = "session/update"
	MethodSessionRequestPermission Method = "session/request_permission"
	MethodFSReadTextFile           Method = "fs/read_text_file"
	MethodFSWriteTextFile          Method = "fs/write_text_file"
	MethodTerminalCreate           Method = "terminal/create"
	MethodTerminalOutput           Method = "terminal/output"
	MethodTerminalRelease          Method = "terminal/release"
	MethodTerminalWaitForExit      Method = "terminal/wait_for_exit"
	MethodTerminalKill             Method = "terminal/kill"
	MethodElicitationCreate        Method = "elicitation/create"
	MethodElicitationComplete      Method = "elicitation/complete"

	MethodCancelRequest Method = "$/cancel_request"
)

// MethodInfo says who implements a method, whether it is a notification and
// which types its params and result decode into.
type MethodInfo struct {
	Name         Method
	Receiver     Side
	Notification bool
	// ParamsDef and ResultDef are the upstream $defs names of the params and
	// result; ResultDef is empty for notifications.
	ParamsDef, ResultDef string
	// NewParams and NewResult return a pointer to a zero params / result
	// value; NewResult is nil for notifications.
	NewParams, NewResult func() any
	// EmptyResult is true for methods whose result has no required member,
	// where older peers send "result": null (ACP-SCH-003).
	EmptyResult bool
}

func newOf[T any]() func() any { return func() any { return new(T) } }

// Methods lists the stable v1 methods in the order of the v1 meta.json.
var Methods = []*MethodInfo{
	{Name: MethodInitialize, Receiver: SideAgent, ParamsDef: "InitializeRequest", ResultDef: "InitializeResponse", NewParams: newOf[InitializeRequest](), NewResult: newOf[InitializeResponse]()},
	{Name: MethodAuthenticate, Receiver: SideAgent, ParamsDef: "AuthenticateRequest", ResultDef: "AuthenticateResponse", NewParams: newOf[AuthenticateRequest](), NewResult: newOf[AuthenticateResponse](), EmptyResult: true},
	{Name: MethodSessionNew, Receiver: SideAgent, ParamsDef: "NewSessionRequest", ResultDef: "NewSessionResponse", NewParams: newOf[NewSessionRequest](), NewResult: newOf[NewSessionResponse]()},
	{Name: MethodSessionLoad, Receiver: SideAgent, ParamsDef: "LoadSessionRequest", ResultDef: "LoadSessionResponse", NewParams: newOf[LoadSessionRequest](), NewResult: newOf[LoadSessionResponse](), EmptyResult: true},
	{Name: MethodSessionSetMode, Receiver: SideAgent, ParamsDef: "SetSessionModeRequest", ResultDef: "SetSessionModeResponse", NewParams: newOf[SetSessionModeRequest](), NewResult: newOf[SetSessionModeResponse](), EmptyResult: true},
	{Name: MethodSessionSetConfigOption, Receiver: SideAgent, ParamsDef: "SetSessionConfigOptionRequest", ResultDef: "SetSessionConfigOptionResponse", NewParams: newOf[SetSessionConfigOptionRequest](), NewResult: newOf[SetSessionConfigOptionResponse]()},
	{Name: MethodSessionPrompt, Receiver: SideAgent, ParamsDef: "PromptRequest", ResultDef: "PromptResponse", NewParams: newOf[PromptRequest](), NewResult: newOf[PromptResponse]()},
	{Name: MethodSessionCancel, Receiver: SideAgent, Notification: true, ParamsDef: "CancelNotification", NewParams: newOf[CancelNotification]()},
	{Name: MethodSessionList, Receiver: SideAgent, ParamsDef: "ListSessionsRequest", ResultDef: "ListSessionsResponse", NewParams: newOf[ListSessionsRequest](), NewResult: newOf[ListSessionsResponse]()},
	{Name: MethodSessionDelete, Receiver: SideAgent, ParamsDef: "DeleteSessionRequest", ResultDef: "DeleteSessionResponse", NewParams: newOf[DeleteSessionRequest](), NewResult: newOf[DeleteSessionResponse](), EmptyResult: true},
	{Name: MethodSessionResume, Receiver: SideAgent, ParamsDef: "ResumeSessionRequest", ResultDef: "ResumeSessionResponse", NewParams: newOf[ResumeSessionRequest](), NewResult: newOf[ResumeSessionResponse](), EmptyResult: true},
	{Name: MethodSessionClose, Receiver: SideAgent, ParamsDef: "CloseSessionRequest", ResultDef: "CloseSessionResponse", NewParams: newOf[CloseSessionRequest](), NewResult: newOf[CloseSessionResponse](), EmptyResult: true},
	{Name: MethodLogout, Receiver: SideAgent, ParamsDef: "LogoutRequest", ResultDef: "LogoutResponse", NewParams: newOf[LogoutRequest](), NewResult: newOf[LogoutResponse](), EmptyResult: true},

	{Name: MethodSessionRequestPermission, Receiver: SideClient, ParamsDef: "RequestPermissionRequest", ResultDef: "RequestPermissionResponse", NewParams: newOf[RequestPermissionRequest](), NewResult: newOf[RequestPermissionResponse]()},
	{Name: MethodSessionUpdate, Receiver: SideClient, Notification: true, ParamsDef: "SessionNotification", NewParams: newOf[SessionNotification]()},
	{Name: MethodFSWriteTextFile, Receiver: SideClient, ParamsDef: "WriteTextFileRequest", ResultDef: "WriteTextFileResponse", NewParams: newOf[WriteTextFileRequest](), NewResult: newOf[WriteTextFileResponse](), EmptyResult: true},
	{Name: MethodFSReadTextFile, Receiver: SideClient, ParamsDef: "ReadTextFileRequest", ResultDef: "ReadTextFileResponse", NewParams: newOf[ReadTextFileRequest](), NewResult: newOf[ReadTextFileResponse]()},
	{Name: MethodTerminalCreate, Receiver: SideClient, ParamsDef: "CreateTerminalRequest", ResultDef: "CreateTerminalResponse", NewParams: newOf[CreateTerminalRequest](), NewResult: newOf[CreateTerminalResponse]()},
	{Name: MethodTerminalOutput, Receiver: SideClient, ParamsDef: "TerminalOutputRequest", ResultDef: "TerminalOutputResponse", NewParams: newOf[TerminalOutputRequest](), NewResult: newOf[TerminalOutputResponse]()},
	{Name: MethodTerminalRelease, Receiver: SideClient, ParamsDef: "ReleaseTerminalRequest", ResultDef: "ReleaseTerminalResponse", NewParams: newOf[ReleaseTerminalRequest](), NewResult: newOf[ReleaseTerminalResponse](), EmptyResult: true},
	{Name: MethodTerminalWaitForExit, Receiver: SideClient, ParamsDef: "WaitForTerminalExitRequest", ResultDef: "WaitForTerminalExitResponse", NewParams: newOf[WaitForTerminalExitRequest](), NewResult: newOf[WaitForTerminalExitResponse](), EmptyResult: true},
	{Name: MethodTerminalKill, Receiver: SideClient, ParamsDef: "KillTerminalRequest", ResultDef: "KillTerminalResponse", NewParams: newOf[KillTerminalRequest](), NewResult: newOf[KillTerminalResponse](), EmptyResult: true},
	{Name: MethodElicitationCreate, Receiver: SideClient, ParamsDef: "CreateElicitationRequest", ResultDef: "CreateElicitationResponse", NewParams: newOf[CreateElicitationRequest](), NewResult: newOf[CreateElicitationResponse]()},
	{Name: MethodElicitationComplete, Receiver: SideClient, Notification: true, ParamsDef: "CompleteElicitationNotification", NewParams: newOf[CompleteElicitationNotification]()},

	{Name: MethodCancelRequest, Receiver: SideEither, Notification: true, ParamsDef: "CancelRequestNotification", NewParams: newOf[CancelRequestNotification]()},
}

// methodSlots finds a method by its name in an open-addressed table keyed
// by the name's length and last three bytes: every message's method is
// looked up several times (decoding it, choosing its sender, checking it),
// and hashing the whole name for a map took about 3% of lint's CPU time.
var methodSlots = func() (slots [methodSlotCount]*MethodInfo) {
	for _, mi := range Methods {
		i := methodSlot(mi.Name)
		for slots[i] != nil {
			i = (i + 1) % methodSlotCount
		}
		slots[i] = mi
	}
	return slots
}()

// methodSlotCount is a power of two, more than twice the number of methods.
const (
	methodSlotBits  = 6
	methodSlotCount = 1 << methodSlotBits
)

// methodSlot is where the probe for name starts. The multiplier gives each
// of today's methods a slot of its own, so a lookup reads one slot; a
// method added later may share one and cost a probe more, never a wrong
// answer.
func methodSlot(name Method) uint {
	n := len(name)
	key := uint64(n)
	if n >= 3 {
		key = key<<24 | uint64(name[n-1])<<16 | uint64(name[n-2])<<8 | uint64(name[n-3])
	}
	return uint((key * 0x1f175c897a14c51) >> (64 - methodSlotBits))
}

// LookupMethod returns the stable v1 method called name.
func LookupMethod(name Method) (*MethodInfo, bool) {
	for i := methodSlot(name); ; i = (i + 1) % methodSlotCount {
		mi := methodSlots[i]
		if mi == nil {
			return nil, false
		}
		if mi.Name == name {
			return mi, true
		}
	}
}

// IsExtension reports whether name is reserved for extensions ("_" prefix).
func (m Method) IsExtension() bool { return len(m) > 0 && m[0] == '_' }

// IsProtocolLevel reports whether name is in the implementation-dependent
// "$/" namespace.
func (m Method) IsProtocolLevel() bool { return len(m) > 1 && m[0] == '$' && m[1] == '/' }

// UnstableMethods are the v1 methods only the unstable schema defines, with
// the side that implements them. acplint recognises them by name and keeps
// their params raw.
var UnstableMethods = map[Method]Side{
	"session/fork":         SideAgent,
	"session/archive":      SideAgent,
	"session/unarchive":    SideAgent,
	"session/status":       SideAgent,
	"session/set_title":    SideAgent,
	"providers/list":       SideAgent,
	"providers/set":        SideAgent,
	"providers/disable":    SideAgent,
	"auth/status":          SideAgent,
	"auth/status_update":   SideClient,
	"mcp/message":          SideEither,
	"proxy/initialize":     SideEither,
	"proxy/successor":      SideEither,
	"session/set_model":    SideAgent, // removed before stabilisation, still seen in old traffic
	"nes/start":            SideAgent,
	"document/did_open":    SideAgent,
	"document/did_change":  SideAgent,
	"document/did_close":   SideAgent,
	"document/did_save":    SideAgent,
	"document/did_focus":   SideAgent,
	"nes/suggest":          SideAgent,
	"nes/accept":           SideAgent,
	"nes/reject":           SideAgent,
	"nes/close":            SideAgent,
	"mcp/connect":          SideClient, // x-side "client" in every published schema that has it (SDK 0.22.0 to 1.3.0)
	"mcp/disconnect":       SideClient,
	"session/set_provider": SideAgent,
}
