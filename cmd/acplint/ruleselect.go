package main

import (
	"fmt"
	"path"
	"strings"

	"github.com/acplint/acplint/findings"
)

// Rule selection (--enable, --disable, a config file's enable, disable and
// severity), like staticcheck's -checks and buf's use/except. A pattern is,
// in any case:
//
//	ACP-SES-002    one rule
//	ses, ACP-SES   an area: every ACP-SES-* rule
//	ACP-SES-00*    a glob over IDs (path.Match: *, ?, [...])
//	all, *         every rule
//
// A pattern that matches no rule is an error: a typo must not silently
// select nothing.

// matchRules returns the IDs of the rules in universe that pattern selects.
func matchRules(pattern string, universe []*findings.Rule) ([]string, error) {
	p := strings.ToUpper(strings.TrimSpace(pattern))
	if p == "" {
		return nil, fmt.Errorf("empty rule pattern")
	}
	glob := strings.ContainsAny(p, "*?[")
	if glob {
		if _, err := path.Match(p, ""); err != nil {
			return nil, fmt.Errorf("rule pattern %q: %v", pattern, err)
		}
	}
	var ids []string
	for _, r := range universe {
		var hit bool
		switch {
		case p == "ALL":
			hit = true
		case glob:
			hit, _ = path.Match(p, r.ID)
		default:
			area := strings.TrimPrefix(p, "ACP-")
			hit = r.ID == p || strings.HasPrefix(r.ID, p+"-") || r.Area() == area && area != ""
		}
		if hit {
			ids = append(ids, r.ID)
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("rule pattern %q matches no rule; run 'acplint rules' for the IDs and areas", pattern)
	}
	return ids, nil
}

// splitList splits comma-separated flag values, dropping empty items.
func splitList(values ...string) []string {
	var out []string
	for _, v := range values {
		for _, item := range strings.Split(v, ",") {
			if item = strings.TrimSpace(item); item != "" {
				out = append(out, item)
			}
		}
	}
	return out
}

// ruleSelection is the rules a run reports and the severity each is
// reported with.
type ruleSelection struct {
	off      map[string]bool              // rule ID -> not reported
	severity map[string]findings.Severity // rule ID -> overridden severity
}

// selectRules builds the selection: the enabled rules (every rule when
// enable is empty) less the disabled ones, disable winning; then the
// severity overrides, each "PATTERN=SEVERITY", later ones winning.
func selectRules(enable, disable, severities []string, universe []*findings.Rule) (*ruleSelection, error) {
	sel := &ruleSelection{off: map[string]bool{}, severity: map[string]findings.Severity{}}
	if len(enable) > 0 {
		for _, r := range universe {
			sel.off[r.ID] = true
		}
		for _, p := range enable {
			ids, err := matchRules(p, universe)
			if err != nil {
				return nil, fmt.Errorf("enable: %w", err)
			}
			for _, id := range ids {
				delete(sel.off, id)
			}
		}
	}
	for _, p := range disable {
		ids, err := matchRules(p, universe)
		if err != nil {
			return nil, fmt.Errorf("disable: %w", err)
		}
		for _, id := range ids {
			sel.off[id] = true
		}
	}
	for _, s := range severities {
		p, name, ok := strings.Cut(s, "=")
		if !ok {
			return nil, fmt.Errorf("severity override %q: want PATTERN=SEVERITY, e.g. ACP-SES-*=warning", s)
		}
		sev, err := findings.ParseSeverity(strings.TrimSpace(name))
		if err != nil {
			return nil, fmt.Errorf("severity override %q: %v", s, err)
		}
		ids, err := matchRules(p, universe)
		if err != nil {
			return nil, fmt.Errorf("severity override: %w", err)
		}
		for _, id := range ids {
			sel.severity[id] = sev
		}
	}
	return sel, nil
}

// apply returns f as the selection reports it, and whether it reports it.
func (s *ruleSelection) apply(f findings.ValidationFinding) (findings.ValidationFinding, bool) {
	if s == nil {
		return f, true
	}
	if s.off[f.RuleID] {
		return f, false
	}
	if sev, ok := s.severity[f.RuleID]; ok {
		f.Severity = sev
	}
	return f, true
}
