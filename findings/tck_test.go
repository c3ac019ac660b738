package findings

import "testing"

// TestTCKMapping: every requirement of the kit's v1 registry is judged by a
// rule (which names it in TCK) or a harness check, or says why not; and
// every TCK id a rule names is in the registry.
func TestTCKMapping(t *testing.T) {
	known := map[string]bool{}
	for _, req := range TCKV1() {
		if known[req.ID] {
			t.Errorf("%s is listed twice", req.ID)
		}
		known[req.ID] = true
		rules := RulesForTCK(req.ID)
		switch {
		case req.NotCovered != "" && (len(rules) > 0 || req.Harness != ""):
			t.Errorf("%s is said not to be covered, but %d rules and harness check %q cover it", req.ID, len(rules), req.Harness)
		case req.NotCovered == "" && len(rules) == 0 && req.Harness == "":
			t.Errorf("%s: no rule names it in TCK, and no reason says why it is not covered", req.ID)
		}
		switch req.Tier {
		case "MANDATORY", "CAPABILITY", "ADVISORY", "INFORMATIONAL":
		default:
			t.Errorf("%s: unknown tier %q", req.ID, req.Tier)
		}
	}
	for _, r := range All() {
		for _, id := range r.TCK {
			if !known[id] {
				t.Errorf("%s names %s, which is not in the kit's v1 registry", r.ID, id)
			}
		}
	}
}
