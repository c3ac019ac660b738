package protocol

import (
	"github.com/acplint/acplint/domain"
)

// A transcript may hold any number of sessions, one after another. What
// the machine keeps about a session once it is closed and its last turn
// has ended (Session.done) serves only to judge messages that still name
// it: an update after the close (ACP-SID-002), a reopening by session/load
// or resume, a reused id. Those come soon after, so the machine remembers
// the latest doneWindow/2 to doneWindow done sessions and forgets the
// older ones entirely; memory then follows the open sessions, not the
// length of the transcript. A message naming a session forgotten this way
// is still reported, as naming a session that does not exist.
const doneWindow = 512

// doneSessions lists done sessions in two generations:
// when the newer holds doneWindow/2, the sessions of the older are
// forgotten and the newer becomes the older.
type doneSessions struct {
	newer, older Map[domain.SessionID, struct{}]
}

// retire records that session id is done, and forgets the sessions that
// fell out of the window.
func (p *Phase) retire(id domain.SessionID) {
	// A plan is compared only with the plan before it in the same turn.
	p.upd.plans = p.upd.plans.Delete(id)
	d := p.done
	d.newer = d.newer.Set(id, struct{}{})
	if d.newer.Len() < doneWindow/2 {
		p.done = d
		return
	}
	dropped := d.older
	d.older, d.newer = d.newer, Map[domain.SessionID, struct{}]{}
	p.done = d
	if dropped.Len() == 0 {
		return
	}
	// This runs once per doneWindow/2 sessions done: its work must follow
	// those sessions, not every terminal the transcript keeps.
	forget := map[domain.SessionID]bool{}
	for sid := range dropped.m {
		// Skip sessions reopened since, or closed again recently. A
		// session with a terminal never released keeps its record: the
		// end of the transcript reports the leak with the line of the
		// close.
		if s, ok := p.Session(sid); ok && s.done() && !d.older.Has(sid) && !p.flow.term.unreleased.Has(sid) {
			forget[sid] = true
		}
	}
	// The terminals of the sessions forgotten are all released, so the
	// list of the latest releases holds them.
	for _, r := range p.flow.term.released {
		if t, ok := p.Terminals.Get(r.id); ok && forget[t.Session] {
			p.Terminals = p.Terminals.Delete(r.id)
			p.flow.term.exits = p.flow.term.exits.Delete(r.id)
		}
	}
	for sid := range forget {
		p.forgetSession(sid)
	}
}

// forgetSession drops everything the machine knows about session id.
func (p *Phase) forgetSession(id domain.SessionID) {
	p.dropSession(id)
	p.Issued = p.Issued.Delete(id)
	p.KnownCwd = p.KnownCwd.Delete(id)
	p.cleanKnownCwd = p.cleanKnownCwd.Delete(id)
	cxl := &p.flow.cxl
	cxl.cancelled = cxl.cancelled.Delete(id)
	cxl.turnEnd = cxl.turnEnd.Delete(id)
	cxl.lateReported = cxl.lateReported.Delete(id)
	cxl.answered = cxl.answered.Delete(id)
	p.flow.fs.extraRoots = p.flow.fs.extraRoots.Delete(id)
	p.upd.plans = p.upd.plans.Delete(id)
	ses := &p.life.ses
	ses.listed = ses.listed.Delete(id)
	ses.historyAt = ses.historyAt.Delete(id)
	ses.closing = ses.closing.Delete(id)
	p.life.seq.loaded = p.life.seq.loaded.Delete(id)
	p.life.sid.deleted = p.life.sid.deleted.Delete(id)
}
