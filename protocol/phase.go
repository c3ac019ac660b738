package protocol

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
)

// ConnState is the connection-level phase.
type ConnState uint8

const (
	ConnAwaitingInitialize ConnState = iota // nothing sent yet
	ConnInitializing                        // initialize sent, not answered
	ConnReady                               // initialize answered successfully
	// ConnOtherVersion: the agent negotiated a protocol version other than
	// 1; v1 rules no longer apply (ACP-VER-005).
	ConnOtherVersion
)

func (c ConnState) String() string {
	switch c {
	case ConnAwaitingInitialize:
		return "awaiting-initialize"
	case ConnInitializing:
		return "initializing"
	case ConnReady:
		return "ready"
	case ConnOtherVersion:
		return "other-version"
	}
	return "?"
}

// Event is one input of the ACP machine: a message at a transcript
// location, or the end of the transcript.
type Event struct {
	Msg *domain.Message
	Loc findings.Location
	// End marks the end of the transcript; Msg is nil. Truncated is set when
	// the transcript did not end with the client closing the connection
	// cleanly (acplint cannot tell, so the driver sets it unless told).
	End       bool
	Truncated bool
	// ParamsInvalid says the request's params broke the method's schema
	// (the codec reported it); the receiver should answer -32602.
	ParamsInvalid bool
	// MetaAbsent says the decoder typed the params or result and met no
	// "_meta" member in them, which spares the trace-context check
	// (ACP-EXTN-005) its search of the raw bytes. False means unknown.
	MetaAbsent bool
	// Dir is the sender of a line that holds no message (Msg nil, see
	// Problems), when known. (It sits with the flags: an Event is copied
	// on every step.)
	Dir domain.Direction
	// Problems are what the codec found wrong with the message, in the
	// order found; the checks of their rules report them (OnProblem)
	// before anything else of the message. An event may also carry the
	// problems of a line that holds no message (a JSON value that is not
	// an object): Msg is nil. The machine keeps none of them past the step.
	Problems []domain.Problem
	// Methods is the method table of the schema the driver lints by (lint
	// --schema): the method rules ask it which methods exist, which side
	// sends them and which are unstable. Nil means the compiled tables.
	Methods *domain.MethodTable
}

// Pending is a request that has not been answered yet.
type Pending struct {
	Method  domain.Method
	Line    int
	ID      domain.RequestID
	Session domain.SessionID // for session-scoped requests
	// Params holds copies of the members of the typed params that the
	// checks of the answer read (keptParams): nil for most methods.
	Params any
	// CancelLine is the line of a $/cancel_request naming this request.
	CancelLine int
	// ParamsInvalid: the params broke the method's schema.
	ParamsInvalid bool
}

// Phase is the whole state of one ACP connection. The machine changes it
// in place (StepInPlace); Clone copies it for a caller that keeps the
// phase it had, as Step does. Copying the struct itself shares its maps
// and sessions.
//
// A Phase shares no memory with the messages it was stepped with, so that
// a driver may reuse a message's memory once the step returns (lint does,
// see codec.BatchDecoder). That takes no care from a check: Map copies
// the keys and the text it stores, and the setters of the state that
// holds a message's structures (setClientCaps, setAgentCaps,
// setAuthMethods, newSession, Session.setModes, Session.setConfigOptions)
// copy them. Ids and enum values, which checks also store in fields of
// their own, are the decoder's copies.
type Phase struct {
	Conn     ConnState
	InitLine int // line of the initialize request
	// RequestedVersion and Version are the protocolVersion of the
	// initialize request and result; -1 until known.
	RequestedVersion, Version int

	// ClientCaps, AgentCaps and AuthMethods are set by their setters.
	ClientCaps  *domain.ClientCapabilities
	AgentCaps   *domain.AgentCapabilities
	AuthMethods []domain.AuthMethod

	// pending holds unanswered requests by the direction that sent them,
	// keyed by the exact id spelling.
	pending [3]pendingRequests
	// answered remembers ids already answered, per sender direction, to
	// tell a duplicate response from an unknown id and a reuse from a clash.
	answered [3]answeredIDs

	// Sessions holds the sessions of the connection that are not done
	// (Session.done); closed holds the done ones the machine still
	// remembers (forget.go). Splitting them keeps the map that changes on
	// almost every message small. Session looks in both.
	Sessions Map[domain.SessionID, *Session]
	closed   Map[domain.SessionID, *Session]
	// openCut is the line of the first message whose session made the
	// machine drop the oldest open ones (makeRoomForSession), 0 while it
	// dropped none.
	openCut int
	// Issued holds every session id an agent returned, with the line.
	Issued Map[domain.SessionID, int]
	// KnownCwd is the cwd of sessions seen in session/new or session/list.
	KnownCwd Map[domain.SessionID, string]
	// cleanKnownCwd holds those of KnownCwd that are absolute, cleaned by
	// cleanFilePath (setKnownCwd keeps both): a session/load or resume
	// compares its cwd with it without cleaning a text that may be as
	// long as a line each time.
	cleanKnownCwd Map[domain.SessionID, string]

	Terminals    Map[domain.TerminalID, *Terminal]
	Elicitations Map[domain.ElicitationID, int] // open URL elicitations -> line
	Completed    Map[domain.ElicitationID, int] // URL elicitations ever opened
	ListCursors  Map[string, int]               // nextCursor values returned
	// completedCut is the first URL elicitation whose id Completed, at
	// MaxKeptEntries, did not keep; 0 when none. openElicitationsCut is
	// the first whose arrival made Elicitations, at MaxKeptEntries, drop
	// the oldest open ones (dropOldestElicitations); 0 when none.
	completedCut, openElicitationsCut int

	// LastAgentLine is the line of the latest agent message, used to judge
	// cancel races.
	LastAgentLine int

	// rpc and extn are the bookkeeping of the RPC and EXTN checks (rpc.go, extn.go).
	rpc  rpcState
	extn extnState
	// flow is the bookkeeping of the cancellation, tool call, permission,
	// fs and terminal checks (cancel.go, tool.go, fs.go, terminal.go).
	flow flowState
	// upd is the bookkeeping of the CAP, MODE, CFG, UPD and TURN checks (update.go).
	upd updState
	// life is the bookkeeping of the SEQ, AUTHN, SES and SID checks
	// (seq.go, auth.go, session.go, sid.go).
	life lifecycleState
	// done lists the sessions closed lately, to forget older ones (forget.go).
	done doneSessions
	// items lists the tool calls, message ids and compactions sessions
	// stored, to forget those of turns long past (turnwindow.go).
	items turnItems

	// looked is the latest answer of Session while a step runs: the hooks
	// of one message ask for the same session again and again, and each
	// map lookup compares session ids.
	looked sessionLookup
}

// sessionLookup remembers one answer of Phase.Session. It is used only
// within StepInPlace, which sets on as it starts and clears the whole
// lookup as it ends; a Phase between steps (as Clone copies it, or as a
// caller changes Sessions) holds none. putSession and dropSession, the
// only code that binds or unbinds a session id, drop it.
type sessionLookup struct {
	on, valid bool
	ok        bool
	id        domain.SessionID
	s         *Session
}

// SessionState is where a session is in its lifecycle.
type SessionState uint8

const (
	SessionCreating   SessionState = iota // session/new sent (no id yet: not stored)
	SessionLoading                        // session/load sent, replay may stream
	SessionResuming                       // session/resume sent
	SessionIdle                           // active, no prompt turn
	SessionPrompting                      // a session/prompt is pending
	SessionCancelling                     // session/cancel sent during a turn
	SessionClosed                         // closed by session/close
)

func (s SessionState) String() string {
	return [...]string{"creating", "loading", "resuming", "idle", "prompting", "cancelling", "closed"}[s]
}

// Session is the state of one session. A check changes it through
// Phase.withSession; newSession and the setters copy the text they keep.
type Session struct {
	ID    domain.SessionID
	State SessionState
	Line  int // where it was created, loaded or resumed
	Cwd   string
	// cleanCwd is Cwd cleaned by cleanFilePath when it is absolute: a
	// file operation compares its path with it (ACP-FS-004) without
	// cleaning a cwd that may be as long as a line each time.
	cleanCwd string

	// PromptKey is the id key of the pending session/prompt; PromptLine its line.
	PromptKey  string
	PromptLine int
	Turn       int // number of prompts sent so far
	// CancelLine is the session/cancel (or session/close) of the current
	// turn, 0 when none.
	CancelLine int
	// CancelledEndLine is the response that ended a cancelled turn; until
	// the next prompt, content updates break ACP-CXL-002.
	CancelledEndLine int
	// ReplayUpdates counts history updates streamed during a load.
	ReplayUpdates int
	// HadHistory is set once the session carried conversation content.
	HadHistory bool
	// OutOfTurnReported: conversation content came since the latest turn
	// ended (or before the first), and that was reported (ACP-TURN-003,
	// once per stretch between turns).
	OutOfTurnReported bool

	ToolCalls Map[domain.ToolCallID, ToolCall]
	// OpenToolCalls are tool calls of the current turn not yet completed or failed.
	OpenToolCalls Map[domain.ToolCallID, int]

	// Modes and ConfigOptions are set by setModes and setConfigOptions.
	Modes         *domain.SessionModeState
	ConfigOptions []domain.SessionConfigOption
	// modeIDs maps the id of each of Modes.AvailableModes to its index:
	// a message that names a mode finds it without a scan of a list that
	// may be as long as a line (setModes keeps it).
	modeIDs Map[domain.SessionModeID, int]
	// configIDs maps the id of each of ConfigOptions to its index (the
	// first, when ids repeat), and configValues holds configValueKey of
	// every value of those select options: set_config_option and its
	// error answer find an option and a value without a scan of lists
	// that may be as long as a line (setConfigOptions keeps them).
	configIDs    Map[domain.SessionConfigID, int]
	configValues Map[string, struct{}]
	// modesCut and configCut say availableModes, or the config options or
	// their values, were longer than MaxKeptEntries: lookups that miss
	// are then not judged.
	modesCut, configCut bool
	// configValueLists holds, by index, the values a finding lists for
	// each select option of ConfigOptions (valueList): a select
	// may hold any number of groups to walk before them.
	configValueLists []string

	// Messages maps messageId to the chunk kind that used it and whether the
	// message is still the current one, for ACP-TURN-005.
	Messages       Map[domain.MessageID, MessageUse]
	CurrentMessage domain.MessageID
	// currentUse is Messages[CurrentMessage] when currentKept is set:
	// most updates of a turn are chunks of the current message, and a
	// lookup in Messages, which holds the ids of many turns, cost each
	// of them as much as their session's.
	currentUse  MessageUse
	currentKept bool

	Compactions Map[domain.CompactionID, Compaction]
	// itemsCut has bit 1<<kind set (turnItemKind) once the machine
	// dropped items of that kind of a running turn (forgetItems): a
	// lookup of one that misses is then not judged.
	itemsCut uint8
}

// MessageUse records how a messageId was used.
type MessageUse struct {
	Kind   string // the sessionUpdate of its chunks
	Line   int
	Closed bool // another messageId came after it
	// RoleReported: chunks of the other speaker used the id, and that was
	// reported (once per id: it lives and is forgotten with the id).
	RoleReported bool
}

// ToolCall is what acplint knows of one tool call.
type ToolCall struct {
	Line    int // the tool_call that created it
	Turn    int
	Status  domain.ToolCallStatus
	Name    string
	HasName bool
}

// Compaction tracks one compaction by id.
type Compaction struct {
	Line     int
	Started  bool
	Terminal bool
	// LateReported: a summary chunk came after the terminal update, and
	// that was reported (once per compaction).
	LateReported bool
}

// Terminal is a terminal created by terminal/create.
type Terminal struct {
	Session      domain.SessionID
	Line         int
	ReleasedLine int
	Exited       bool // wait_for_exit returned or output reported an exit status
	OutputLimit  uint64
	HasLimit     bool
	Embedded     bool
}

func newPhase() Phase {
	return Phase{RequestedVersion: -1, Version: -1}
}

// Clone returns a copy of p that shares no memory with it but text and
// pending requests' ids and params, which nothing changes: stepping
// either leaves the other as it was.
func (p *Phase) Clone() Phase {
	c := *p
	c.looked = sessionLookup{}
	c.ClientCaps, c.AgentCaps = detachPtr(c.ClientCaps), detachPtr(c.AgentCaps)
	c.AuthMethods = domain.Detach(c.AuthMethods)
	for i := range c.pending {
		c.pending[i] = c.pending[i].Clone()
		c.answered[i] = c.answered[i].clone()
	}
	c.Sessions, c.closed = c.Sessions.Clone(), c.closed.Clone()
	c.Issued, c.KnownCwd = c.Issued.Clone(), c.KnownCwd.Clone()
	c.cleanKnownCwd = c.cleanKnownCwd.Clone()
	c.Terminals = c.Terminals.Clone()
	c.Elicitations, c.Completed = c.Elicitations.Clone(), c.Completed.Clone()
	c.ListCursors = c.ListCursors.Clone()
	c.extn.reported = c.extn.reported.clone()
	flow := &c.flow
	flow.cxl.cancelled, flow.cxl.turnEnd = flow.cxl.cancelled.Clone(), flow.cxl.turnEnd.Clone()
	flow.cxl.lateReported = flow.cxl.lateReported.Clone()
	flow.cxl.answered = flow.cxl.answered.Clone()
	flow.tool.inline = flow.tool.inline.Clone()
	flow.fs.extraRoots = flow.fs.extraRoots.Clone()
	flow.term.exits = flow.term.exits.Clone()
	flow.term.released = slices.Clone(flow.term.released)
	flow.term.unreleased = flow.term.unreleased.Clone()
	c.upd.reported, c.upd.plans = c.upd.reported.clone(), c.upd.plans.Clone()
	life := &c.life
	life.seq.early, life.seq.loaded = life.seq.early.Clone(), life.seq.loaded.Clone()
	life.auth.refused, life.auth.methods = life.auth.refused.Clone(), life.auth.methods.Clone()
	life.ses.listed, life.ses.historyAt = life.ses.listed.Clone(), life.ses.historyAt.Clone()
	life.ses.closing = life.ses.closing.Clone()
	life.sid.unknown, life.sid.deleted = life.sid.unknown.Clone(), life.sid.deleted.Clone()
	c.done.newer, c.done.older = c.done.newer.Clone(), c.done.older.Clone()
	c.items = c.items.clone()
	return c
}

// clone returns a copy of s that shares no memory with it but text.
func (s *Session) clone() *Session {
	c := *s
	c.ToolCalls, c.OpenToolCalls = s.ToolCalls.Clone(), s.OpenToolCalls.Clone()
	c.Messages, c.Compactions = s.Messages.Clone(), s.Compactions.Clone()
	c.Modes, c.modeIDs = detachPtr(s.Modes), s.modeIDs.Clone()
	c.ConfigOptions = domain.Detach(s.ConfigOptions)
	c.configIDs, c.configValues = s.configIDs.Clone(), s.configValues.Clone()
	c.configValueLists = slices.Clone(s.configValueLists)
	return &c
}

// detachPtr is domain.Detach for a pointer that may be nil.
func detachPtr[T any](v *T) *T {
	if v == nil {
		return nil
	}
	return domain.Detach(v)
}

// newSession returns a session in state, created, loaded or resumed at
// line, with its own copy of cwd (and of it cleaned, when absolute).
func newSession(id domain.SessionID, state SessionState, line int, cwd string) *Session {
	s := &Session{ID: id, State: state, Line: line, Cwd: ownText(cwd, nil)}
	if isAbsoluteFilePath(s.Cwd) {
		s.cleanCwd = cleanFilePath(s.Cwd)
	}
	return s
}

// MaxKeptEntries is how many entries of one list a connection keeps: of
// a session's availableModes, of its config options, of the values of
// all its select options together, of its additional directories, and of
// the initialize response's authMethods. One line may list millions, and
// a session is kept as long as it is open: without the cap, what the
// machine keeps would grow with the input, not with its configuration.
// A list longer than the cap is kept up to it, and membership in it is
// no longer judged (an id beyond the cap may be one of the entries
// dropped); ListCut says which lists were cut.
const MaxKeptEntries = 4096

// setModes and setConfigOptions keep copies of the modes and config
// options a message reports, at most MaxKeptEntries of each list.
func (s *Session) setModes(m *domain.SessionModeState) {
	s.modeIDs, s.modesCut = Map[domain.SessionModeID, int]{}, false
	if m == nil {
		s.Modes = nil
		return
	}
	kept := *m
	if len(kept.AvailableModes) > MaxKeptEntries {
		kept.AvailableModes, s.modesCut = kept.AvailableModes[:MaxKeptEntries], true
	}
	s.Modes = detachPtr(&kept)
	for i, mode := range s.Modes.AvailableModes {
		if !s.modeIDs.Has(mode.ID) {
			s.modeIDs.Set(mode.ID, i)
		}
	}
}

// hasMode reports whether the session's availableModes include id, or
// may include it: beyond MaxKeptEntries modes, it is not judged.
func (s *Session) hasMode(id domain.SessionModeID) bool {
	return s.Modes != nil && (s.modesCut || s.modeIDs.Has(id))
}

// setConfigOptions keeps at most MaxKeptEntries options and as many
// values of their selects, all options together, and indexes what it
// keeps.
func (s *Session) setConfigOptions(o []domain.SessionConfigOption) {
	s.configIDs, s.configValues = Map[domain.SessionConfigID, int]{}, Map[string, struct{}]{}
	s.configCut = false
	if len(o) > MaxKeptEntries {
		o, s.configCut = o[:MaxKeptEntries], true
	}
	var kept []domain.SessionConfigOption
	if o != nil {
		kept = make([]domain.SessionConfigOption, len(o))
	}
	budget := MaxKeptEntries
	s.configValueLists = make([]string, len(o))
	for i, opt := range o {
		kept[i] = opt
		sel, isSelect := opt.Kind.(domain.SessionConfigSelect)
		if !isSelect {
			continue
		}
		// The list a finding shows is made from all the values, so that
		// it reads the same whether or not the cap cut them.
		all, _ := selectValues(sel)
		before := budget
		sel, budget = cutValues(sel, budget)
		kept[i].Kind = sel
		if before-budget < len(all) {
			s.configCut = true
		}
		if s.configIDs.Has(opt.ID) {
			continue // lookups find the first option of an id
		}
		s.configValueLists[i] = valueList(all)
	}
	s.ConfigOptions = domain.Detach(kept)
	for i, opt := range s.ConfigOptions {
		if s.configIDs.Has(opt.ID) {
			continue
		}
		s.configIDs.Set(opt.ID, i)
		if sel, ok := opt.Kind.(domain.SessionConfigSelect); ok {
			values, _ := selectValues(sel)
			for _, v := range values {
				s.configValues.Set(configValueKey(i, v), struct{}{})
			}
		}
	}
}

// cutValues returns sel with at most budget of its values (a shallow
// copy when it cuts: the caller detaches it), and what is left of the
// budget.
func cutValues(sel domain.SessionConfigSelect, budget int) (domain.SessionConfigSelect, int) {
	switch o := sel.Options.(type) {
	case domain.SessionConfigSelectOptionsUngrouped:
		n := min(len(o), budget)
		sel.Options = o[:n]
		return sel, budget - n
	case domain.SessionConfigSelectOptionsGrouped:
		groups := make(domain.SessionConfigSelectOptionsGrouped, 0, len(o))
		for _, g := range o {
			if budget == 0 {
				break
			}
			n := min(len(g.Options), budget)
			g.Options = g.Options[:n]
			groups = append(groups, g)
			budget -= n
		}
		sel.Options = groups
		return sel, budget
	}
	return sel, budget
}

// configOption returns the session's first config option called id.
func (s *Session) configOption(id domain.SessionConfigID) (*domain.SessionConfigOption, bool) {
	i, ok := s.configIDs.Get(id)
	if !ok {
		return nil, false
	}
	return &s.ConfigOptions[i], true
}

// configValueList lists the values of the session's select option called
// id for a finding, as valueList does.
func (s *Session) configValueList(id domain.SessionConfigID) string {
	i, _ := s.configIDs.Get(id)
	return s.configValueLists[i]
}

// hasConfigValue reports whether the select option called id offers
// value v.
// Beyond MaxKeptEntries values or options, it is not judged.
func (s *Session) hasConfigValue(id domain.SessionConfigID, v domain.SessionConfigValueID) bool {
	i, ok := s.configIDs.Get(id)
	return ok && (s.configCut || s.configValues.Has(configValueKey(i, v)))
}

// configValueKey names value v of the config option at index i; the index,
// unlike the option's id, cannot hold the separator.
func configValueKey(i int, v domain.SessionConfigValueID) string {
	return strconv.Itoa(i) + "\x00" + string(v)
}

// setClientCaps, setAgentCaps and setAuthMethods keep copies of what
// initialize reports.
func (p *Phase) setClientCaps(caps *domain.ClientCapabilities) { p.ClientCaps = detachPtr(caps) }

func (p *Phase) setAgentCaps(caps *domain.AgentCapabilities) { p.AgentCaps = detachPtr(caps) }

func (p *Phase) setAuthMethods(m []domain.AuthMethod) {
	auth := &p.life.auth
	auth.methods, auth.unreadable, auth.cut = Map[domain.AuthMethodID, int]{}, false, false
	if len(m) > MaxKeptEntries {
		// An authenticate naming a method beyond the cap may name one
		// dropped: it is not judged, as for a method acplint cannot read.
		m, auth.unreadable, auth.cut = m[:MaxKeptEntries], true, true
	}
	p.AuthMethods = domain.Detach(m)
	for i, method := range p.AuthMethods {
		if _, unknown := method.(domain.UnknownAuthMethod); unknown {
			auth.unreadable = true
		}
		if id, ok := authMethodID(method); ok && !auth.methods.Has(id) {
			auth.methods.Set(id, i)
		}
	}
}

// Pending returns the unanswered request that sender sent with id.
func (p *Phase) Pending(sender domain.Direction, id domain.RequestID) (Pending, bool) {
	return p.pending[sender].Get(id.Key())
}

// PendingCount is the number of unanswered requests sent by sender.
func (p *Phase) PendingCount(sender domain.Direction) int { return p.pending[sender].Len() }

// Session returns the session called id, open or done.
func (p *Phase) Session(id domain.SessionID) (*Session, bool) {
	if l := &p.looked; l.valid && l.id == id {
		if checkSessionLookups {
			p.checkLookup(id)
		}
		return l.s, l.ok
	}
	s, ok := p.Sessions.Get(id)
	if !ok {
		s, ok = p.closed.Get(id)
	}
	if p.looked.on {
		p.looked = sessionLookup{on: true, valid: true, ok: ok, id: id, s: s}
	}
	return s, ok
}

// checkSessionLookups makes Session compare every answer it remembered
// with the maps' (the tests set it).
var checkSessionLookups bool

// checkLookup panics when the remembered answer for id is not the maps'.
func (p *Phase) checkLookup(id domain.SessionID) {
	s, ok := p.Sessions.Get(id)
	if !ok {
		s, ok = p.closed.Get(id)
	}
	if s != p.looked.s || ok != p.looked.ok {
		panic(fmt.Sprintf("protocol: the remembered lookup of session %q is stale", id))
	}
}

// putSession stores s, a session value not yet shared, in the map its
// state belongs to.
func (p *Phase) putSession(s *Session) {
	p.looked.valid = false
	if s.done() {
		// Whatever made it done (a close, the end of the turn a close
		// cancelled), an open session that becomes done forgets its turns
		// and joins the window of done sessions (forget.go).
		s.forgetTurns()
		p.closed = p.closed.Set(s.ID, s)
		if p.Sessions.Has(s.ID) {
			p.Sessions = p.Sessions.Delete(s.ID)
			p.retire(s.ID)
		}
		return
	}
	p.makeRoomForSession(s.ID, s.Line)
	p.Sessions = p.Sessions.Set(s.ID, s)
	if p.closed.Has(s.ID) {
		p.closed = p.closed.Delete(s.ID)
	}
}

// makeRoomForSession drops the oldest quarter of the open sessions, by
// the line where each was opened, when session id, opened at line, would
// be one more than MaxKeptEntries: a client may open any number of
// sessions it never closes, and each keeps its state as long as it is
// open. A dropped session is forgotten entirely (forgetSession), as a
// done one out of its window is. Messages may still name it: from then
// on, a session the machine does not know is not reported as unknown
// (ACP-SID-001, ACP-SID-002), and a -32800 answer to a request of one is
// taken for the cascade of a cancel it may have had (ACP-CXL-008); the rules that read
// a session's state skip a session they do not find. noteCutSessions
// says so. The kept check calls this before core opens the session, so
// that the note comes with the message; putSession calls it again, a
// no-op then, so that nothing opens a session past the cap.
func (p *Phase) makeRoomForSession(id domain.SessionID, line int) {
	if p.Sessions.Len() < MaxKeptEntries || p.Sessions.Has(id) {
		return
	}
	for _, old := range oldestQuarter(p.Sessions, func(s *Session) int { return s.Line }) {
		p.forgetSession(old)
	}
	if p.openCut == 0 {
		p.openCut = line
	}
}

// sessionsCut reports whether the machine dropped open sessions
// (makeRoomForSession): a session it does not know may be one of them.
func (p *Phase) sessionsCut() bool { return p.openCut > 0 }

// dropSession forgets session id.
func (p *Phase) dropSession(id domain.SessionID) {
	p.looked.valid = false
	p.Sessions = p.Sessions.Delete(id)
	p.closed = p.closed.Delete(id)
}
