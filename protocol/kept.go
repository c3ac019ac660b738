package protocol

import (
	"cmp"
	"crypto/sha256"
	"fmt"
	"slices"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
)

// The machine keeps at most MaxKeptEntries entries of each list a
// connection reports (phase.go): one line may list millions, and what a
// session keeps lives as long as the session. A list it cuts is no longer
// judged for membership; the checks here say so, once per list of a
// session (ACP-LINT-006), so that a clean run is not mistaken for a
// judged one.

// noteCutAuthMethods reports an initialize response whose authMethods
// the machine cuts.
func noteCutAuthMethods(p *Phase, c *ctx, req Pending) {
	res, ok := resultOf[domain.InitializeResponse](c.m)
	if !ok || !c.succeeded() || c.m.Dir != domain.FromAgent || req.Line != p.InitLine {
		return
	}
	if methods, _ := res.AuthMethods.Get(); len(methods) > MaxKeptEntries {
		noteCut(p, c, "", "auth", "/result/authMethods", fmt.Sprintf("authMethods lists %d methods", len(methods)), "whether an authenticate names one of them (ACP-AUTHN-001)")
	}
}

// cutDirectories returns how many absolute additional directories open
// lists when the machine cuts them (it indexes the absolute ones:
// newRootSet), 0 when it keeps them all.
func cutDirectories(open openParams) int {
	dirs, _ := open.Dirs.Get()
	if len(dirs) <= MaxKeptEntries {
		return 0
	}
	absolute := 0
	for _, d := range dirs {
		if isAbsoluteFilePath(d) {
			absolute++
		}
	}
	if absolute <= MaxKeptEntries {
		return 0
	}
	return absolute
}

// noteCutReopenedDirectories reports a session/load or session/resume
// whose additional directories the machine cuts.
func noteCutReopenedDirectories(p *Phase, c *ctx) {
	open, ok := openParamsOf(c.m.Params)
	if !ok || open.ID == "" || c.m.Dir != domain.FromClient {
		return
	}
	if n := cutDirectories(open); n > 0 {
		noteCut(p, c, open.ID, "dirs", "/params/additionalDirectories", fmt.Sprintf("%s lists %d absolute additional directories", c.m.Method, n), cutDirsUnjudged)
	}
}

const cutDirsUnjudged = "whether a file operation of the session lies outside its root set (ACP-FS-004)"

// noteCutSetup reports the answer to session/new, load or resume when the
// machine cuts its modes or config options, or the directories of a
// session/new (kept from the request once the session has an id).
func noteCutSetup(p *Phase, c *ctx, req Pending) {
	if !c.succeeded() || c.m.Dir != domain.FromAgent {
		return
	}
	id, modes, opts, ok := setupLists(c.m.Result, req.Session)
	if !ok {
		return
	}
	if _, isNew := c.m.Result.(*domain.NewSessionResponse); isNew {
		// The session/new's directories are kept from its answer on,
		// where the session gets its id.
		if open, ok := openParamsOf(req.Params); ok {
			if n := cutDirectories(open); n > 0 {
				f := noteCut(p, c, id, "dirs", "/result/sessionId", fmt.Sprintf("session %q was opened with %d absolute additional directories", id, n), cutDirsUnjudged)
				if f != nil {
					c.related(f, req.Line, "the session/new")
				}
			}
		}
	}
	if m, ok := modes.Get(); ok && len(m.AvailableModes) > MaxKeptEntries {
		noteCut(p, c, id, "modes", "/result/modes/availableModes", fmt.Sprintf("the session reports %d modes", len(m.AvailableModes)), "whether a mode named later is among them (ACP-MODE-001, ACP-UPD-004)")
	}
	list, _ := opts.Get()
	noteCutOptions(p, c, id, "/result/configOptions", list)
}

// noteCutOptions reports a list of config options the machine cuts: more
// than MaxKeptEntries options, or values of their selects together.
func noteCutOptions(p *Phase, c *ctx, id domain.SessionID, at string, opts []domain.SessionConfigOption) {
	values := 0
	for _, o := range opts {
		if sel, ok := o.Kind.(domain.SessionConfigSelect); ok {
			values += countValues(sel)
		}
	}
	if len(opts) > MaxKeptEntries || values > MaxKeptEntries {
		noteCut(p, c, id, "config", at, fmt.Sprintf("the session's config options number %d, with %d select values", len(opts), values), "whether a set_config_option value is one of them (ACP-CFG-002)")
	}
}

// countValues is len(selectValues(sel)) without the list.
func countValues(sel domain.SessionConfigSelect) int {
	switch o := sel.Options.(type) {
	case domain.SessionConfigSelectOptionsUngrouped:
		return len(o)
	case domain.SessionConfigSelectOptionsGrouped:
		n := 0
		for _, g := range o {
			n += len(g.Options)
		}
		return n
	}
	return 0
}

func noteCutOptionResult(p *Phase, c *ctx, req Pending) {
	res, ok := resultOf[domain.SetSessionConfigOptionResponse](c.m)
	params, ok2 := requestParams[domain.SetSessionConfigOptionRequest](req)
	if ok && ok2 && c.succeeded() && c.m.Dir == domain.FromAgent {
		noteCutOptions(p, c, params.SessionID, "/result/configOptions", res.ConfigOptions)
	}
}

func noteCutOptionUpdate(p *Phase, c *ctx) {
	n, ok := paramsOf[domain.SessionNotification](c.m)
	if !ok || c.m.Dir != domain.FromAgent {
		return
	}
	if u, ok := n.Update.(domain.ConfigOptionUpdate); ok {
		noteCutOptions(p, c, n.SessionID, "/params/update/configOptions", u.ConfigOptions)
	}
}

// keepListed reports whether the machine keeps session id, entry i of a
// session/list result, with its cwd: at most MaxKeptEntries sessions of
// all the lists of the connection, since one result, or any number of
// pages, may list millions that are never opened. A session listed
// beyond the cap is not known to be listed, which only spares findings
// (ACP-SEQ-008, ACP-SES-008); noteCutListed says so.
func keepListed(p *Phase, c *ctx, id domain.SessionID, i int) bool {
	ses := &p.life.ses
	if ses.listed.Len() < MaxKeptEntries || ses.listed.Has(id) {
		return true
	}
	if ses.cutLine != c.line() {
		ses.cutLine, ses.cutEntry = c.line(), i
	}
	return false
}

// noteCutListed reports the first session/list result whose sessions the
// machine did not all keep (keepListed).
func noteCutListed(p *Phase, c *ctx, _ Pending) {
	ses := &p.life.ses
	if ses.cutLine != c.line() || c.m.Dir != domain.FromAgent {
		return
	}
	noteCut(p, c, "", "listed", fmt.Sprintf("/result/sessions/%d", ses.cutEntry),
		fmt.Sprintf("session/list has reported more than %d sessions on this connection", MaxKeptEntries),
		"whether a session/load of a listed session it did not keep replays its history (ACP-SEQ-008) or keeps its listed cwd (ACP-SES-008)")
}

// noteCutCursors reports the session/list result whose nextCursor is the
// first the machine does not keep (ListCursors).
func noteCutCursors(p *Phase, c *ctx, _ Pending) {
	if p.life.ses.cursorsCut != c.line() || c.m.Dir != domain.FromAgent {
		return
	}
	noteCut(p, c, "", "cursors", "/result/nextCursor",
		fmt.Sprintf("session/list has returned more than %d distinct cursors on this connection", MaxKeptEntries),
		"whether a session/list cursor was returned earlier (ACP-SES-010)")
}

// noteCutElicitations reports the URL elicitation whose id is the first
// the machine does not keep (Phase.Completed), and the one whose arrival
// made it drop the oldest open ones (Phase.Elicitations).
func noteCutElicitations(p *Phase, c *ctx) {
	if c.m.Dir == domain.FromClient {
		return
	}
	if p.completedCut == c.line() {
		noteCut(p, c, "", "elicitations", "/params/elicitationId",
			fmt.Sprintf("the agent has opened more than %d URL elicitations on this connection", MaxKeptEntries),
			"whether an elicitation/complete names one of them (ACP-ELIC-003)")
	}
	if p.openElicitationsCut == c.line() {
		noteDropped(p, c, "open-elicitations", "/params/elicitationId",
			fmt.Sprintf("the agent has more than %d URL elicitations open", MaxKeptEntries),
			"whether an elicitationId is reused while the elicitation that used it is outstanding, for the oldest it dropped (ACP-ELIC-002)")
	}
}

// noteCutTerminals reports the terminal/create answer whose terminal
// made the machine drop the oldest terminals not released
// (dropOldestTerminals).
func noteCutTerminals(p *Phase, c *ctx, _ Pending) {
	if p.flow.term.cutLine != c.line() {
		return
	}
	noteDropped(p, c, "terminals", "/result/terminalId",
		fmt.Sprintf("the agent has more than %d terminals it has not released", MaxKeptEntries),
		"whether a terminal/* request or terminal content names a terminal no terminal/create returned (ACP-TERM-001, ACP-TOOL-008), nor reports a terminal it dropped as never released (ACP-TERM-003)")
}

// noteCutSessions makes room for the session a session/new answer or a
// session/load or session/resume opens, before core opens it, and
// reports the message whose session made the machine drop the oldest
// open ones first (makeRoomForSession).
func noteCutSessions(p *Phase, c *ctx, id domain.SessionID, at string) {
	if id == "" {
		return
	}
	p.makeRoomForSession(id, c.line())
	if p.openCut != c.line() {
		return
	}
	noteDropped(p, c, "sessions", at,
		fmt.Sprintf("the connection has more than %d sessions open", MaxKeptEntries),
		"whether a message names a session that is not open (ACP-SID-001, ACP-SID-002) or a -32800 answer in a session it does not know was cancelled (ACP-CXL-008), and the rules that read a session's state skip the sessions it dropped")
}

func noteCutNewSession(p *Phase, c *ctx, _ Pending) {
	if res, ok := resultOf[domain.NewSessionResponse](c.m); ok && c.succeeded() && !p.Issued.Has(res.SessionID) {
		noteCutSessions(p, c, res.SessionID, "/result/sessionId")
	}
}

func noteCutReopenedSession(p *Phase, c *ctx) {
	noteCutSessions(p, c, c.sessionID(), "/params/sessionId")
}

// noteCut reports, once per list of session id (the connection's when
// id is ""), that the machine keeps only the first MaxKeptEntries of
// what lists; nil when it was reported before.
func noteCut(p *Phase, c *ctx, id domain.SessionID, list, at, lists, unjudged string) *findings.ValidationFinding {
	if !p.firstReport(findings.LINTListCut, id, list) {
		return nil
	}
	return c.add(findings.LINTListCut, at,
		"%s; acplint keeps the first %d entries of a list, so that one line cannot make it keep unbounded state, and from here on does not judge %s", lists, MaxKeptEntries, unjudged)
}

// noteDropped is noteCut for the state that keeps its latest entries and
// drops the oldest quarter at the cap (oldestQuarter): open sessions,
// terminals, open elicitations, pending requests.
func noteDropped(p *Phase, c *ctx, list, at, lists, unjudged string) {
	if !p.firstReport(findings.LINTListCut, "", list) {
		return
	}
	c.add(findings.LINTListCut, at,
		"%s; acplint keeps the latest %d, dropping the oldest quarter at a time, so that a peer cannot make it keep unbounded state, and from here on does not judge %s", lists, MaxKeptEntries, unjudged)
}

// reportedWindow is how many keys of findings already made (firstReport,
// the EXTN checks' methods) the machine remembers: each is named by
// ids and names a message chose, any number of them. A key older than
// the window is forgotten, and its finding may then be made once more;
// the findings lint holds are capped per rule, so a repeat costs output,
// never memory.
const reportedWindow = 2 * MaxKeptEntries

// maxReportedKey is the longest key a recentKeys keeps as it is; a longer
// one (an id may be as long as a line) is kept as its SHA-256 digest.
const maxReportedKey = 256

// recentKeys remembers the latest reportedWindow/2 to reportedWindow keys
// added, in two generations: when the newer holds reportedWindow/2, the
// older is forgotten and the newer becomes the older.
type recentKeys struct {
	newer, older Map[string, struct{}]
}

// keptKey is the form of k that recentKeys keeps.
func keptKey(k string) string {
	if len(k) <= maxReportedKey {
		return k
	}
	sum := sha256.Sum256([]byte(k))
	return "\x00sha256:" + string(sum[:])
}

// Has reports whether k was added and not forgotten yet.
func (r *recentKeys) Has(k string) bool {
	k = keptKey(k)
	return r.newer.Has(k) || r.older.Has(k)
}

// Add remembers k.
func (r *recentKeys) Add(k string) {
	k = keptKey(k)
	if r.newer.Has(k) {
		return
	}
	if r.newer.Len() >= reportedWindow/2 {
		r.older, r.newer = r.newer, Map[string, struct{}]{}
	}
	r.newer.Set(k, struct{}{})
}

// Len is the number of keys remembered.
func (r *recentKeys) Len() int { return r.newer.Len() + r.older.Len() }

func (r recentKeys) clone() recentKeys {
	return recentKeys{newer: r.newer.Clone(), older: r.older.Clone()}
}

// noteCutTurnItems reports, once per session, the message whose item
// made the machine drop tool calls, message ids or compactions of
// running turns (forgetItems).
func noteCutTurnItems(p *Phase, c *ctx) {
	t := &p.items
	if t.cutLine != c.line() || len(t.cut) == 0 {
		return
	}
	for _, id := range t.cut {
		if !p.firstReport(findings.LINTListCut, id, "turn") {
			continue
		}
		c.add(findings.LINTListCut, "/params",
			"the running turns of the connection hold more than %d tool calls, message ids and compactions, session %q's among them; acplint keeps the latest %d to %d, so that a turn that never ends cannot make it keep unbounded state, and from here on does not judge, for that session, whether a tool_call_update or compaction_summary_chunk names one it dropped (ACP-TOOL-002, ACP-UPD-008), whether a toolCallId or messageId it dropped is used again (ACP-TOOL-001, ACP-TURN-005), or lists every tool call left open at the turn's end (ACP-TURN-004)",
			2*MaxKeptEntries, clipListed(string(id)), MaxKeptEntries, 2*MaxKeptEntries)
	}
	t.cut = t.cut[:0]
}

// noteCutPending reports the request whose arrival makes the machine drop
// older requests of its sender still pending (pendingRequests.dropOldest).
func noteCutPending(p *Phase, c *ctx) {
	q := &p.pending[c.m.Dir]
	if c.m.Kind != domain.KindRequest || q.Len() < MaxKeptEntries || q.reqs.Has(c.m.ID.Key()) {
		return
	}
	noteDropped(p, c, "pending-"+c.m.Dir.String(), "/id",
		fmt.Sprintf("the %s has more than %d requests pending", c.m.Dir, MaxKeptEntries),
		"whether a response answers a request that is pending (ACP-RPC-003, ACP-RPC-006), nor reports a request it dropped as never answered (ACP-RPC-013, ACP-CXL-006, ACP-EXTN-002)")
}

// oldestQuarter returns the keys of the oldest quarter of the entries of
// m that line dates (line < 0 leaves an entry out), oldest first, by
// line and then by key: what a state kept up to MaxKeptEntries entries
// drops at once when one more would pass the cap. Sorting costs
// O(n log n) once per n/4 entries added, nothing below the cap, so the
// work per message stays amortised O(log n).
func oldestQuarter[K ~string, V any](m Map[K, V], line func(V) int) []K {
	type aged struct {
		line int
		key  K
	}
	all := make([]aged, 0, m.Len())
	for k, e := range m.m {
		if l := line(e.val); l >= 0 {
			all = append(all, aged{l, k})
		}
	}
	slices.SortFunc(all, func(a, b aged) int {
		if a.line != b.line {
			return a.line - b.line
		}
		return cmp.Compare(a.key, b.key)
	})
	keys := make([]K, len(all)/4)
	for i := range keys {
		keys[i] = all[i].key
	}
	return keys
}
