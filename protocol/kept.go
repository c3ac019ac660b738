package protocol

import (
	"fmt"

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
