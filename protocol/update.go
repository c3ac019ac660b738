package protocol

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
)

// updState is the bookkeeping of the CAP, MODE, CFG, UPD and TURN checks
// that Session does not hold.
type updState struct {
	// reported holds the keys of findings already made (the latest
	// reportedWindow). Config option lists, usage updates and compaction
	// streams repeat the same data many times; the agent's mistake is
	// reported where it first shows, not in every later copy.
	reported recentKeys
	// plans is the latest plan of each session, for ACP-UPD-009.
	plans Map[domain.SessionID, planSnapshot]
}

// planSnapshot is what the next plan update of the turn is compared with:
// the content and status of each entry, with the turn the plan belongs to.
type planSnapshot struct {
	Entries []plannedEntry
	Line    int
	Turn    int
	Opened  int // the line that created, loaded or resumed the session
}

type plannedEntry struct {
	Content string
	Status  domain.PlanEntryStatus
}

// samePlanned reports whether kept and e have the same content.
func samePlanned(kept plannedEntry, e domain.PlanEntry) bool { return kept.Content == e.Content }

// snapshotEntries returns what planUpdated compares of each entry.
func snapshotEntries(entries []domain.PlanEntry) []plannedEntry {
	out := make([]plannedEntry, len(entries))
	for i, e := range entries {
		out[i] = plannedEntry{Content: e.Content, Status: e.Status}
	}
	return out
}

// firstReport records that rule was reported for key in session s and
// reports whether this is the first time.
func (p *Phase) firstReport(rule *findings.Rule, s domain.SessionID, key string) bool {
	k := rule.ID + "\x00" + string(s) + "\x00" + key
	if p.upd.reported.Has(k) {
		return false
	}
	p.upd.reported.Add(k)
	return true
}

// activeUpdate returns the session of an agent's session/update when the
// update's values mean something: its session is active and its payload
// decoded without a schema finding. The hooks call it only for the update
// kinds they judge: most updates are message chunks, and the session
// lookup is the costly part.
func activeUpdate(p *Phase, c *ctx, n *domain.SessionNotification) (*Session, bool) {
	if c.m.Dir != domain.FromAgent || c.ev.ParamsInvalid {
		return nil, false // a broken payload is a schema finding; its values mean nothing
	}
	return p.ActiveSession(n.SessionID) // an unknown session is ACP-SID's
}

// checkModeAndOptionUpdate judges current_mode_update and
// config_option_update against the session's modes and config options
// (the config check), and keeps them current.
func checkModeAndOptionUpdate(p *Phase, c *ctx) {
	n, ok := paramsOf[domain.SessionNotification](c.m)
	if !ok {
		return
	}
	switch u := n.Update.(type) {
	case domain.CurrentModeUpdate:
		if s, ok := activeUpdate(p, c, n); ok {
			currentModeUpdated(p, c, s, u)
		}
	case domain.ConfigOptionUpdate:
		if s, ok := activeUpdate(p, c, n); ok {
			configOptionsUpdated(p, c, s, u)
		}
	}
}

// checkSessionUpdatePayload applies the other UPD rules that need the
// session's state, and keeps the compaction and plan state current. The
// payload shapes (ACP-UPD-002, -003, -006, -007) are codec problems (the
// OnProblem hooks at the end of this file), except the empty notice title;
// ACP-UPD-001 is in rpc.go.
func checkSessionUpdatePayload(p *Phase, c *ctx) {
	n, ok := paramsOf[domain.SessionNotification](c.m)
	if !ok {
		return
	}
	// Each case looks the session up itself, so that the lookup is paid
	// only by the kinds judged here (message chunks, most updates, are
	// not), and a new kind cannot be left out of a separate filter.
	switch u := n.Update.(type) {
	case domain.CompactionUpdate:
		if s, ok := activeUpdate(p, c, n); ok {
			compactionUpdated(p, c, s, u)
		}
	case domain.CompactionSummaryChunk:
		if s, ok := activeUpdate(p, c, n); ok {
			compactionChunk(p, c, s, u)
		}
	case domain.Plan:
		if s, ok := activeUpdate(p, c, n); ok {
			planUpdated(p, c, s, u)
		}
	case domain.AvailableCommandsUpdate:
		if _, ok := activeUpdate(p, c, n); ok {
			duplicateCommands(c, u)
		}
	case domain.Notice:
		// A missing title is a codec problem; an empty one passes the
		// decoder, which does not check minLength.
		if _, ok := activeUpdate(p, c, n); ok && u.Title == "" {
			c.add(findings.UPDNoticeShape, "/params/update/title",
				"notice has an empty title; the title is required to be non-empty plain text that stands alone, and clients that show only the title display nothing")
		}
	}
}

// duplicateCommands reports a command name listed twice (ACP-UPD-010):
// the user invokes a command by typing its name, so the client cannot tell
// which of the two entries, with their own descriptions and input hints,
// the user meant.
func duplicateCommands(c *ctx, u domain.AvailableCommandsUpdate) {
	if len(u.AvailableCommands) < 2 {
		return
	}
	first := make(map[string]int, len(u.AvailableCommands))
	for i, cmd := range u.AvailableCommands {
		if j, dup := first[cmd.Name]; dup {
			c.add(findings.UPDDuplicateCommand, fmt.Sprintf("/params/update/availableCommands/%d/name", i),
				"available_commands_update lists command %q twice (entries %d and %d); the user runs a command by typing /%s, so the client cannot tell which entry, description and input hint is meant, and may show both or drop one", cmd.Name, j, i, cmd.Name)
			continue
		}
		first[cmd.Name] = i
	}
}

// currentModeUpdated reports a mode the session does not offer
// (ACP-UPD-004) and records a valid switch.
func currentModeUpdated(p *Phase, c *ctx, s *Session, u domain.CurrentModeUpdate) {
	if s.Modes == nil {
		if s.State == SessionLoading || s.State == SessionResuming {
			return // the modes come with the response, after the replay
		}
		f := c.add(findings.UPDUnknownCurrentMode, "/params/update/currentModeId",
			"current_mode_update switches to %q, but the session never reported modes; the client has no mode list to show it in and ignores the switch", u.CurrentModeID)
		c.related(f, s.Line, "the session's setup, without modes")
		return
	}
	if !s.hasMode(u.CurrentModeID) {
		f := c.add(findings.UPDUnknownCurrentMode, "/params/update/currentModeId",
			"current_mode_update switches to %q, which is not among the session's availableModes (%s); the client has no name or description to show for it", u.CurrentModeID, modeList(s.Modes))
		c.related(f, s.Line, "the availableModes of the session")
		return
	}
	p.withSession(s.ID, func(s *Session) { s.Modes = withCurrentMode(s.Modes, u.CurrentModeID) })
}

// hasMode reports whether m's availableModes include id; a session's
// modes are looked up with Session.hasMode instead.
func hasMode(m *domain.SessionModeState, id domain.SessionModeID) bool {
	for _, mode := range m.AvailableModes {
		if mode.ID == id {
			return true
		}
	}
	return false
}

// maxListedModes is how many mode ids a finding lists: listing them all
// would make every message that names an unknown mode cost as much as
// the message that reported the modes.
const maxListedModes = 5

// maxListedText is how many bytes of one text kept from an earlier
// message a finding shows: a text may be as long as a line, and a finding
// that repeated it whole on every message naming it would cost as much as
// that line each time. Paths and ids are far shorter (PATH_MAX is 4096).
const maxListedText = 4096

// clipListed returns s, or its first maxListedText bytes (ending on a
// whole character) and "…" when it is longer.
func clipListed(s string) string {
	if len(s) <= maxListedText {
		return s
	}
	end := maxListedText
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + "…"
}

// modeList lists the first maxListedModes ids of m's availableModes.
func modeList(m *domain.SessionModeState) string {
	if len(m.AvailableModes) == 0 {
		return "none"
	}
	ids := make([]string, 0, min(len(m.AvailableModes), maxListedModes+1))
	for i, mode := range m.AvailableModes {
		if i == maxListedModes {
			ids = append(ids, "…")
			break
		}
		ids = append(ids, clipListed(string(mode.ID)))
	}
	return strings.Join(ids, ", ")
}

// withCurrentMode returns a copy of m with another current mode.
func withCurrentMode(m *domain.SessionModeState, id domain.SessionModeID) *domain.SessionModeState {
	next := *m
	next.CurrentModeID = id
	return &next
}

// configOptionsUpdated reports options the update leaves out (ACP-UPD-005)
// and checks and stores the new list, which replaces the old one.
func configOptionsUpdated(p *Phase, c *ctx, s *Session, u domain.ConfigOptionUpdate) {
	if missing := missingOptions(s.ConfigOptions, u.ConfigOptions); len(missing) > 0 {
		f := c.add(findings.UPDPartialConfigOptions, "/params/update/configOptions",
			"config_option_update leaves out %s known to the client; the update is the complete state, not a delta, so the client removes the missing options from its UI", optionIDs(missing))
		c.related(f, s.Line, "the session's setup")
	}
	checkConfigOptionList(p, c, s.ID, "/params/update/configOptions", u.ConfigOptions)
	p.withSession(s.ID, func(s *Session) { s.setConfigOptions(u.ConfigOptions) })
}

// missingOptions returns the ids of known that next does not contain.
func missingOptions(known, next []domain.SessionConfigOption) []domain.SessionConfigID {
	present := map[domain.SessionConfigID]bool{}
	for _, o := range next {
		present[o.ID] = true
	}
	var missing []domain.SessionConfigID
	for _, o := range known {
		if !present[o.ID] {
			missing = append(missing, o.ID)
			present[o.ID] = true // report a duplicated id once
		}
	}
	return missing
}

// optionIDs lists ids for a finding: the first maxListedModes of them,
// each clipped (clipListed), since they are kept from an earlier message.
func optionIDs(ids []domain.SessionConfigID) string {
	q := make([]string, 0, min(len(ids), maxListedModes+1))
	for i, id := range ids {
		if i == maxListedModes {
			q = append(q, fmt.Sprintf("and %d more", len(ids)-i))
			break
		}
		q = append(q, fmt.Sprintf("%q", clipListed(string(id))))
	}
	what := "option "
	if len(ids) > 1 {
		what = "options "
	}
	return what + strings.Join(q, ", ")
}

// compactionUpdated checks the status sequence of a compaction
// (ACP-UPD-008): at most one terminal update per compactionId.
func compactionUpdated(p *Phase, c *ctx, s *Session, u domain.CompactionUpdate) {
	comp, seen := s.Compactions.Get(u.CompactionID)
	if !seen {
		comp = Compaction{Line: c.line()}
	}
	switch u.Status {
	case domain.CompactionInProgress:
		comp.Started = true
	case domain.CompactionCompleted, domain.CompactionFailed, domain.CompactionCancelled:
		if comp.Terminal {
			f := c.add(findings.UPDCompactionOrder, "/params/update/status",
				"compaction %q gets a second terminal update (%s); it already ended, so clients cannot tell which outcome and summary are final", u.CompactionID, u.Status)
			c.related(f, comp.Line, "the compaction's first update")
		}
		comp.Terminal = true
	default:
		return // a status v1 does not define says nothing about the order
	}
	p.withSession(s.ID, func(s *Session) { store(p, &s.Compactions, u.CompactionID, comp) })
	if !seen {
		p.noteItem(s.ID, itemCompaction, string(u.CompactionID), comp.Line)
	}
}

// compactionChunk checks that a summary chunk falls between its
// compaction's in_progress update and its terminal update (ACP-UPD-008).
func compactionChunk(p *Phase, c *ctx, s *Session, u domain.CompactionSummaryChunk) {
	comp, seen := s.Compactions.Get(u.CompactionID)
	switch {
	case seen && comp.Terminal:
		if !comp.LateReported {
			f := c.add(findings.UPDCompactionOrder, "/params/update/compactionId",
				"compaction_summary_chunk for compaction %q arrives after its terminal update; clients already treat the summary as final and drop or misplace the chunk (later chunks of it are not reported)", u.CompactionID)
			c.related(f, comp.Line, "the compaction's first update")
			comp.LateReported = true
			p.withSession(s.ID, func(s *Session) { store(p, &s.Compactions, u.CompactionID, comp) })
		}
	case !seen && s.itemsCut&(1<<itemCompaction) != 0:
		// It may be a compaction of a running turn that the machine
		// dropped (forgetItems): not judged, but known from here on.
		comp = Compaction{Line: c.line(), Started: true}
		p.withSession(s.ID, func(s *Session) { store(p, &s.Compactions, u.CompactionID, comp) })
		p.noteItem(s.ID, itemCompaction, string(u.CompactionID), comp.Line)
	case !seen || !comp.Started:
		c.add(findings.UPDCompactionOrder, "/params/update/compactionId",
			"compaction_summary_chunk for compaction %q arrives before any in_progress compaction_update for it; summary chunks belong between in_progress and the terminal update, so the client has no compaction to attach the text to", u.CompactionID)
		// Clients create an in-progress compaction for a chunk with an
		// unknown id; so does acplint, to report the mistake once.
		if !seen {
			comp = Compaction{Line: c.line()}
		}
		comp.Started = true
		p.withSession(s.ID, func(s *Session) { store(p, &s.Compactions, u.CompactionID, comp) })
		if !seen {
			p.noteItem(s.ID, itemCompaction, string(u.CompactionID), comp.Line)
		}
	}
}

// planUpdated reports a plan that silently drops unfinished entries of
// the turn's previous plan (ACP-UPD-009), a sign that the agent sent only
// the changed part of a plan that must always be complete.
func planUpdated(p *Phase, c *ctx, s *Session, u domain.Plan) {
	prev, ok := p.upd.plans.Get(s.ID)
	next := planSnapshot{Line: c.line(), Turn: s.Turn, Opened: s.Line}
	if ok && len(prev.Entries) == len(u.Entries) && slices.EqualFunc(prev.Entries, u.Entries, samePlanned) {
		// Most plan updates change statuses only: the kept entries take
		// them where they are, with the copies of their contents (the
		// map's own; Clone copies them for a phase kept elsewhere).
		for i, e := range u.Entries {
			prev.Entries[i].Status = e.Status
		}
		next.Entries = prev.Entries
	} else {
		next.Entries = snapshotEntries(u.Entries)
	}
	p.upd.plans = p.upd.plans.Set(s.ID, next)
	if !ok || prev.Turn != s.Turn || prev.Opened != s.Line || len(u.Entries) >= len(prev.Entries) {
		return // a new turn may start a new plan
	}
	if s.State == SessionLoading {
		return // a replay holds the plans of many past turns, with no turn boundaries
	}
	left := map[string]int{}
	for _, e := range u.Entries {
		left[e.Content]++
	}
	var dropped []string
	for _, e := range prev.Entries {
		if left[e.Content] > 0 {
			left[e.Content]--
			continue
		}
		if e.Status != domain.PlanCompleted {
			dropped = append(dropped, fmt.Sprintf("%q (%s)", e.Content, e.Status))
		}
	}
	if len(dropped) == 0 {
		return
	}
	f := c.add(findings.UPDPlanShrinks, "/params/update/entries",
		"this plan has %s where the previous plan of the turn had %d, and it drops unfinished entries: %s; every plan update replaces the whole plan, so if only the changed entries were sent, the client has now lost the rest",
		entryCount(len(u.Entries)), len(prev.Entries), strings.Join(dropped, ", "))
	c.related(f, prev.Line, "the previous plan")
}

func entryCount(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return fmt.Sprintf("%d entries", n)
}

// The payload shapes of session/update (codec problems): unknown update
// kinds (ACP-UPD-002), the mode id member of current_mode_update
// (ACP-UPD-003), usage_update (ACP-UPD-006) and notices (ACP-UPD-007).

func unknownUpdateProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.UPDUnknownVariant, pr.Pointer, "%s", pr.withDrop(fmt.Sprintf("session/update %s; v1 has no custom update kinds (use _meta or a \"_\" notification)", pr.Detail)))
}

// modeIDProblem reports a current_mode_update whose currentModeId is
// missing or malformed. One that spells the member "modeId" also lacks
// "currentModeId"; the modeId finding (modeIDMemberProblem) already says
// so, and one mistake gives one finding.
func modeIDProblem(p *Phase, c *ctx, pr problem) {
	if pr.Kind == domain.ProbMissing {
		for _, q := range c.ev.Problems {
			if q.Kind == domain.ProbUnknownMember && q.Def == "CurrentModeUpdate" && q.Member == "modeId" {
				return
			}
		}
	}
	c.add(findings.UPDModeIDField, pr.Pointer, "%s", pr.withDrop(pr.Detail))
}

func modeIDMemberProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.UPDModeIDField, pr.Pointer, `current_mode_update uses "modeId"; the schema names it "currentModeId" (an old docs example shows modeId)`)
}

func usageProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.UPDUsageShape, pr.Pointer, "%s", pr.withDrop("usage_update: "+pr.Detail))
}

func noticeProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.UPDNoticeShape, pr.Pointer, "%s", pr.withDrop("notice: "+pr.Detail))
}
