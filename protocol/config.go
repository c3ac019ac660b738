package protocol

import (
	"fmt"
	"strings"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
)

// Session modes and config options (ACP-MODE-001, ACP-CFG-*), plus the
// checks of every place a mode state or an option list appears: the
// results of session/new, session/load and session/resume
// (ACP-UPD-004, ACP-CFG-006), set_config_option results and
// config_option_update (ACP-CAP-006, ACP-CFG-003…005).
//
// Session.Modes and Session.ConfigOptions hold what the client currently
// knows: core.go sets them from the setup result, and the checks here and
// in update.go replace them when a change is confirmed.

// setupLists returns the session, modes and config options that the
// result of a session/new, session/load or session/resume reports; a
// session/new's result names its session, the others answer for the
// request's, requested. ok is false for any other result, a null one, or
// one without a session id.
func setupLists(result any, requested domain.SessionID) (id domain.SessionID, modes domain.Opt[domain.SessionModeState], opts domain.Opt[[]domain.SessionConfigOption], ok bool) {
	id = requested
	switch res := result.(type) {
	case *domain.NewSessionResponse:
		if res == nil {
			return "", modes, opts, false
		}
		id, modes, opts = res.SessionID, res.Modes, res.ConfigOptions
	case *domain.LoadSessionResponse:
		if res == nil {
			return "", modes, opts, false
		}
		modes, opts = res.Modes, res.ConfigOptions
	case *domain.ResumeSessionResponse:
		if res == nil {
			return "", modes, opts, false
		}
		modes, opts = res.Modes, res.ConfigOptions
	default:
		return "", modes, opts, false
	}
	return id, modes, opts, id != ""
}

// checkSetupModesAndOptions checks the modes and config options a session
// starts with.
func checkSetupModesAndOptions(p *Phase, c *ctx, req Pending) {
	if !c.succeeded() || c.m.Dir != domain.FromAgent {
		return
	}
	id, modes, opts, ok := setupLists(c.m.Result, req.Session)
	if !ok {
		return
	}
	m, hasModes := modes.Get()
	if hasModes && !hasMode(&m, m.CurrentModeID) {
		c.add(findings.UPDUnknownCurrentMode, "/result/modes/currentModeId",
			"the session starts in mode %q, which is not among its availableModes (%s); the client cannot show which mode is active", m.CurrentModeID, modeList(&m))
	}
	list, _ := opts.Get()
	checkConfigOptionList(p, c, id, "/result/configOptions", list)
	checkModesInSync(c, modes, list)
}

// checkModesInSync reports a session whose modes and mode config option
// disagree (ACP-CFG-006). Agents that offer config options but no modes
// are fine when no option is a mode; agents that offer only modes (the
// older API) are not judged, since they have no option to keep in sync.
func checkModesInSync(c *ctx, modes domain.Opt[domain.SessionModeState], opts []domain.SessionConfigOption) {
	m, hasModes := modes.Get()
	modeOpt, at := -1, ""
	for i, o := range opts {
		if cat, _ := o.Category.Get(); cat == domain.CategoryMode {
			modeOpt, at = i, fmt.Sprintf("/result/configOptions/%d", i)
			break
		}
	}
	switch {
	case modeOpt < 0 && hasModes && len(opts) > 0:
		c.add(findings.CFGModeOutOfSync, "/result/configOptions",
			"the session reports modes and config options, but no config option has category \"mode\"; clients that switch modes through config options cannot offer the modes")
	case modeOpt >= 0 && !hasModes:
		c.add(findings.CFGModeOutOfSync, at+"/category",
			"config option %q has category \"mode\", but the session reports no modes; clients that still read the modes API show no modes", opts[modeOpt].ID)
	case modeOpt >= 0:
		sel, ok := opts[modeOpt].Kind.(domain.SessionConfigSelect)
		if ok && string(sel.CurrentValue) != string(m.CurrentModeID) {
			c.add(findings.CFGModeOutOfSync, at+"/currentValue",
				"mode config option %q says the current mode is %q while modes.currentModeId says %q; clients that read different fields show different modes", opts[modeOpt].ID, sel.CurrentValue, m.CurrentModeID)
		}
	}
}

// checkConfigOptionList applies the rules about one complete list of
// config options of session id, at pointer at: boolean options need the
// client's capability (ACP-CAP-006), current values must be valid
// (ACP-CFG-003), ids and values unique (ACP-CFG-004), and categories
// either spec-defined or "_"-prefixed (ACP-CFG-005). Agents repeat the
// whole list on every change, so each mistake is reported once per
// session.
func checkConfigOptionList(p *Phase, c *ctx, id domain.SessionID, at string, opts []domain.SessionConfigOption) {
	boolAllowed := true
	if p.ClientCaps != nil {
		sc, _ := p.ClientCaps.Session.Get()
		co, _ := sc.ConfigOptions.Get()
		boolAllowed = co.Boolean.IsSet()
	}
	seen := map[domain.SessionConfigID]int{}
	for i, o := range opts {
		ptr := fmt.Sprintf("%s/%d", at, i)
		if first, dup := seen[o.ID]; dup {
			var ok bool
			if ok = p.firstReport(findings.CFGDuplicateID, id, "id\x00"+string(o.ID)); ok {
				c.add(findings.CFGDuplicateID, ptr+"/id",
					"config options %d and %d share the id %q; set_config_option and updates name options by id alone, so the client cannot tell which one is meant", first, i, o.ID)
			}
		} else {
			seen[o.ID] = i
		}
		if cat, ok := o.Category.Get(); ok && !reservedCategory(cat) && !strings.HasPrefix(string(cat), "_") {
			var first bool
			if first = p.firstReport(findings.CFGReservedCategory, id, string(o.ID)+"\x00"+string(cat)); first {
				c.add(findings.CFGReservedCategory, ptr+"/category",
					"config option %q has category %q, which is neither a spec category (mode, model, model_config, thought_level) nor \"_\"-prefixed; names without \"_\" are reserved for the spec, and a later version may give this one another meaning", o.ID, cat)
			}
		}
		switch k := o.Kind.(type) {
		case domain.SessionConfigBoolean:
			if !boolAllowed {
				var first bool
				if first = p.firstReport(findings.CAPBooleanConfigOption, id, string(o.ID)); first {
					f := c.add(findings.CAPBooleanConfigOption, ptr+"/type",
						"config option %q is a boolean option, but the client did not advertise session.configOptions.boolean; older clients reject or drop the whole option list", o.ID)
					c.related(f, p.InitLine, "the initialize request")
				}
			}
		case domain.SessionConfigSelect:
			checkSelectOption(p, c, id, ptr, o.ID, k)
		}
	}
}

func reservedCategory(cat domain.SessionConfigOptionCategory) bool {
	values, _ := cat.EnumValues()
	for _, v := range values {
		if string(cat) == v {
			return true
		}
	}
	return false
}

// checkSelectOption reports a select option whose current value is not
// one of its values (ACP-CFG-003) or whose values repeat (ACP-CFG-004).
func checkSelectOption(p *Phase, c *ctx, id domain.SessionID, ptr string, optID domain.SessionConfigID, sel domain.SessionConfigSelect) {
	values, known := selectValues(sel)
	if !known {
		return // undecodable options are a schema matter
	}
	counted := map[domain.SessionConfigValueID]int{}
	for _, v := range values {
		counted[v]++
	}
	for _, v := range values {
		if counted[v] < 2 {
			continue
		}
		counted[v] = 0 // once per value
		var first bool
		if first = p.firstReport(findings.CFGDuplicateID, id, "value\x00"+string(optID)+"\x00"+string(v)); first {
			c.add(findings.CFGDuplicateID, ptr+"/options",
				"select option %q lists the value %q more than once; set_config_option names the value alone, so the client cannot tell the entries apart", optID, v)
		}
	}
	if _, ok := counted[sel.CurrentValue]; ok || sel.CurrentValue == "" {
		return // a missing currentValue is a schema finding
	}
	var first bool
	if first = p.firstReport(findings.CFGInvalidCurrentValue, id, string(optID)+"\x00"+string(sel.CurrentValue)); first {
		c.add(findings.CFGInvalidCurrentValue, ptr+"/currentValue",
			"select option %q has currentValue %q, which is not one of its values (%s); the client cannot show which choice is active", optID, sel.CurrentValue, valueList(values))
	}
}

// selectValues returns every value of a select, flat or grouped; known is
// false when the options did not decode.
func selectValues(sel domain.SessionConfigSelect) (values []domain.SessionConfigValueID, known bool) {
	switch o := sel.Options.(type) {
	case domain.SessionConfigSelectOptionsUngrouped:
		for _, v := range o {
			values = append(values, v.Value)
		}
		return values, true
	case domain.SessionConfigSelectOptionsGrouped:
		for _, g := range o {
			for _, v := range g.Options {
				values = append(values, v.Value)
			}
		}
		return values, true
	}
	return nil, false
}

// maxListedValues is how many values of a select option a finding lists.
const maxListedValues = 8

func valueList(values []domain.SessionConfigValueID) string {
	if len(values) == 0 {
		return "it has none"
	}
	q := make([]string, 0, min(len(values), maxListedValues+1))
	for i, v := range values {
		if i == maxListedValues {
			q = append(q, "…")
			break
		}
		q = append(q, clipListed(string(v)))
	}
	return strings.Join(q, ", ")
}

// checkSetMode reports a mode the session does not offer (ACP-MODE-001).
func checkSetMode(p *Phase, c *ctx) {
	req, ok := paramsOf[domain.SetSessionModeRequest](c.m)
	if !ok || c.m.Dir != domain.FromClient {
		return
	}
	s, ok := p.ActiveSession(req.SessionID)
	if !ok || s.State == SessionLoading || s.State == SessionResuming {
		return // the modes are not known before the setup response
	}
	switch {
	case s.Modes == nil:
		f := c.add(findings.MODEUnknownMode, "/params/modeId",
			"session/set_mode asks for mode %q, but the session never reported modes; there is nothing to switch to, and the agent should answer -32602", req.ModeID)
		c.related(f, s.Line, "the session's setup, without modes")
	case !s.hasMode(req.ModeID):
		f := c.add(findings.MODEUnknownMode, "/params/modeId",
			"session/set_mode asks for mode %q, which is not among the session's availableModes (%s); the agent should answer -32602", req.ModeID, modeList(s.Modes))
		c.related(f, s.Line, "the availableModes of the session")
	}
}

// modeSet records the mode a successful session/set_mode switched to.
func modeSet(p *Phase, c *ctx, req Pending) {
	params, ok := requestParams[domain.SetSessionModeRequest](req)
	if !ok || !c.succeeded() {
		return
	}
	p.withSession(params.SessionID, func(s *Session) {
		if s.hasMode(params.ModeID) {
			s.Modes = withCurrentMode(s.Modes, params.ModeID)
		}
	})
}

// checkSetConfigOption reports a value that the named option does not
// accept (ACP-CFG-002). An option the session does not have is left to
// the agent's -32602 (ACP-RPC-011).
func checkSetConfigOption(p *Phase, c *ctx) {
	req, ok := paramsOf[domain.SetSessionConfigOptionRequest](c.m)
	if !ok || c.m.Dir != domain.FromClient || c.ev.ParamsInvalid {
		return // a value of the wrong JSON type is already a schema finding
	}
	s, ok := p.ActiveSession(req.SessionID)
	if !ok {
		return
	}
	opt, ok := s.configOption(req.ConfigID)
	if !ok {
		return
	}
	switch kind := opt.Kind.(type) {
	case domain.SessionConfigSelect:
		switch v := req.Value.(type) {
		case domain.SessionConfigOptionValueBoolean:
			c.add(findings.CFGInvalidValue, "/params/type",
				"session/set_config_option sends a boolean for %q, which is a select option; the value must be one of its values (%s)", req.ConfigID, s.configValueList(req.ConfigID))
		case domain.SessionConfigOptionValueID:
			if selectKnown(kind) && !s.hasConfigValue(req.ConfigID, v.Value) {
				c.add(findings.CFGInvalidValue, "/params/value",
					"session/set_config_option sets %q to %q, which is not one of the option's values (%s); the agent never offered that setting and should answer -32602", req.ConfigID, v.Value, s.configValueList(req.ConfigID))
			}
		}
	case domain.SessionConfigBoolean:
		if v, ok := req.Value.(domain.SessionConfigOptionValueID); ok {
			c.add(findings.CFGInvalidValue, "/params",
				"session/set_config_option sets boolean option %q to %q without \"type\": \"boolean\"; a boolean option takes {\"type\": \"boolean\", \"value\": true|false}, and agents read this request as a select value they do not have", req.ConfigID, v.Value)
		}
	}
}

// selectKnown reports whether sel's options decoded, as selectValues's
// known does.
func selectKnown(sel domain.SessionConfigSelect) bool {
	switch sel.Options.(type) {
	case domain.SessionConfigSelectOptionsUngrouped, domain.SessionConfigSelectOptionsGrouped:
		return true
	}
	return false
}

// checkConfigOptionResult reports a set_config_option result that is not
// the complete option list (ACP-CFG-001), checks the list, and makes it
// the session's current one.
func checkConfigOptionResult(p *Phase, c *ctx, req Pending) {
	res, ok := resultOf[domain.SetSessionConfigOptionResponse](c.m)
	if !ok || !c.succeeded() || c.m.Dir != domain.FromAgent {
		return
	}
	params, ok := requestParams[domain.SetSessionConfigOptionRequest](req)
	if !ok {
		return
	}
	s, ok := p.ActiveSession(params.SessionID)
	if !ok {
		return
	}
	changedKept := false
	for _, o := range res.ConfigOptions {
		if o.ID == params.ConfigID {
			changedKept = true
		}
	}
	missing := missingOptions(s.ConfigOptions, res.ConfigOptions)
	switch {
	case !changedKept:
		f := c.add(findings.CFGIncompleteResult, "/result/configOptions",
			"the set_config_option result does not contain option %q, the one just changed; the result must be the complete option list, so the client loses the option it just set", clipListed(string(params.ConfigID)))
		c.related(f, req.Line, "the set_config_option request")
	case len(missing) > 0:
		f := c.add(findings.CFGIncompleteResult, "/result/configOptions",
			"the set_config_option result leaves out %s; the result must be the complete option list and the client replaces its list with it, so unless the change removed them, they vanish from the UI", optionIDs(missing))
		f.Severity = findings.SeverityWarning
		c.related(f, req.Line, "the set_config_option request")
	}
	checkConfigOptionList(p, c, s.ID, "/result/configOptions", res.ConfigOptions)
	p.withSession(s.ID, func(s *Session) { s.setConfigOptions(res.ConfigOptions) })
}

// categoryProblem takes an unknown config option category, a codec
// problem, and reports nothing: ACP-CFG-005 (checkConfigOptionList) judges
// categories with the option named.
func categoryProblem(p *Phase, c *ctx, pr problem) {}
