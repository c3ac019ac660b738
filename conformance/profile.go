package conformance

import (
	"sort"
	"sync"

	"github.com/acplint/acplint/findings"
)

// Tier groups rules the way a conformance kit reports them.
type Tier string

const (
	// TierMust: error rules every agent meets in any session (initialize,
	// sessions, prompt turns, cancellation, the wire). One that was never
	// exercised counts as not passed.
	TierMust Tier = "MUST"
	// TierGated: error rules that only apply when a capability or feature
	// came into play (client fs/terminal, load, close, tool calls). Not
	// exercised means not applicable.
	TierGated Tier = "capability-gated"
	// TierShould: warning rules.
	TierShould Tier = "SHOULD"
	// TierInfo: informational rules; never a failure.
	TierInfo Tier = "informational"
)

// Tiers lists the tiers in report order.
var Tiers = []Tier{TierMust, TierGated, TierShould, TierInfo}

// profileEntry says when the harness exercised a rule.
type profileEntry struct {
	// facts: the rule is exercised in a run that has any of these.
	facts []Fact
	// gated: an error rule whose situation depends on a capability or
	// feature the agent or client may not use.
	gated bool
}

func on(facts ...Fact) profileEntry    { return profileEntry{facts: facts} }
func gated(facts ...Fact) profileEntry { return profileEntry{facts: facts, gated: true} }

// profile lists the agent-side rules the harness can exercise. Rules that
// need traffic the harness never produces (session/list, resume,
// elicitation, authentication, deliberately broken client messages) are
// not in it: the verdict lists them as not covered. It is built when a
// verdict is first made, not when any acplint command starts.
var profile = sync.OnceValue(func() map[string]profileEntry {
	return map[string]profileEntry{
		"ACP-AUTHN-003": on(FactInitialize),
		"ACP-AUTHN-004": on(FactSessionNew),
		"ACP-AUTHN-006": on(FactInitialize),

		"ACP-CAP-001": gated(FactWithheldRead),
		"ACP-CAP-002": gated(FactWithheldWrite),
		"ACP-CAP-003": gated(FactWithheldTerminal),
		"ACP-CAP-004": gated(FactPrompt), // the client never advertises elicitation
		"ACP-CAP-005": gated(FactInitialize),
		"ACP-CAP-006": gated(FactSessionNew),
		"ACP-CAP-007": gated(FactPrompt),
		"ACP-CAP-008": gated(FactPrompt),
		"ACP-CAP-009": gated(FactPrompt),
		"ACP-CAP-020": on(FactAgentLine),
		"ACP-CAP-021": on(FactInitialize),
		"ACP-CAP-022": on(FactInitialize),
		"ACP-CAP-023": gated(FactAdvertisedCall),

		"ACP-CFG-001": gated(FactConfigSet),
		"ACP-CFG-003": on(FactSessionNew),
		"ACP-CFG-004": on(FactSessionNew),
		"ACP-CFG-005": on(FactSessionNew),
		"ACP-CFG-006": on(FactSessionNew),

		"ACP-CONT-001": on(FactUpdate),
		"ACP-CONT-002": on(FactUpdate),

		"ACP-CXL-001": on(FactCancelDecisive),
		"ACP-CXL-002": on(FactCancelDecisive),
		"ACP-CXL-007": on(FactAgentLine),
		"ACP-CXL-008": on(FactAgentResponse),

		"ACP-EXTN-001": on(FactAgentLine),
		"ACP-EXTN-003": on(FactProbe),
		"ACP-EXTN-004": on(FactAgentLine),
		"ACP-EXTN-005": on(FactAgentLine),
		"ACP-EXTN-006": on(FactInitialize),
		"ACP-EXTN-007": on(FactAgentLine),

		"ACP-FS-001": gated(FactFS),
		"ACP-FS-002": on(FactFS),
		"ACP-FS-004": on(FactFS),

		"ACP-PERM-003": on(FactPermission),
		"ACP-PERM-004": on(FactPermission),
		"ACP-PERM-005": on(FactPermission),

		"ACP-RPC-001": on(FactAgentLine),
		"ACP-RPC-002": on(FactAgentLine),
		"ACP-RPC-003": on(FactAgentResponse),
		"ACP-RPC-004": gated(FactAgentRequest),
		"ACP-RPC-005": on(FactAgentRequest),
		"ACP-RPC-006": gated(FactCancelSent),
		"ACP-RPC-007": on(FactAgentResponse),
		"ACP-RPC-008": on(FactAgentResponse),
		"ACP-RPC-009": on(FactAgentResponse),
		"ACP-RPC-013": on(FactClientRequest),

		"ACP-SCH-001": on(FactAgentLine),
		"ACP-SCH-002": on(FactAgentLine),
		"ACP-SCH-003": on(FactAgentResponse),
		"ACP-SCH-004": on(FactAgentLine),
		"ACP-SCH-005": on(FactAgentLine),

		"ACP-SEQ-002": on(FactInitialize),
		"ACP-SEQ-007": gated(FactLoadHistory),
		"ACP-SEQ-008": on(FactLoadHistory),
		"ACP-SEQ-009": gated(FactResume),
		"ACP-SEQ-010": on(FactLoad),

		"ACP-SES-011": gated(FactCloseDecisive),
		"ACP-SES-012": on(FactUpdate),

		"ACP-SID-002": on(FactUpdate),
		"ACP-SID-003": on(FactSessionNew),

		"ACP-TERM-001": gated(FactTerminal),
		"ACP-TERM-002": gated(FactTerminal),
		"ACP-TERM-003": on(FactTerminal),
		"ACP-TERM-004": gated(FactTerminal),

		"ACP-TOOL-001": gated(FactToolCall),
		"ACP-TOOL-002": gated(FactToolCall),
		"ACP-TOOL-003": on(FactPermission),
		"ACP-TOOL-004": gated(FactToolCall),
		"ACP-TOOL-005": on(FactToolCall),
		"ACP-TOOL-006": gated(FactToolCall),
		"ACP-TOOL-007": on(FactToolCall),
		"ACP-TOOL-008": gated(FactToolCall),
		"ACP-TOOL-009": on(FactToolCall),
		"ACP-TOOL-010": on(FactToolCall),

		"ACP-TURN-001": on(FactPrompt),
		"ACP-TURN-002": on(FactPrompt),
		"ACP-TURN-003": on(FactUpdate),
		"ACP-TURN-004": on(FactPrompt),
		"ACP-TURN-005": on(FactUpdate),
		"ACP-TURN-006": on(FactUpdate),

		"ACP-UPD-001": on(FactUpdate),
		"ACP-UPD-002": on(FactUpdate),
		"ACP-UPD-003": on(FactUpdate),
		"ACP-UPD-004": on(FactUpdate),
		"ACP-UPD-005": on(FactUpdate),
		"ACP-UPD-006": on(FactUpdate),
		"ACP-UPD-007": on(FactUpdate),
		"ACP-UPD-008": on(FactUpdate),
		"ACP-UPD-009": on(FactUpdate),

		"ACP-VER-001": on(FactInitialize),
		"ACP-VER-002": on(FactInitialize),
		"ACP-VER-003": on(FactInitialize),
		"ACP-VER-004": on(FactInitialize),
		"ACP-VER-006": on(FactInitialize),
		"ACP-VER-007": on(FactInitialize),

		"ACP-WIRE-001": on(FactAgentLine),
		"ACP-WIRE-003": on(FactAgentLine),
		"ACP-WIRE-004": on(FactAgentLine),
		"ACP-WIRE-005": on(FactAgentLine),
		"ACP-WIRE-006": on(FactAgentLine),
		"ACP-WIRE-008": on(FactAgentLine),
		"ACP-WIRE-009": on(FactAgentLine),
	}
})

// harnessChecks are the checks the harness makes itself, as rules so that
// the verdict lists them with the catalog's.
var harnessChecks = map[string]*findings.Rule{
	CheckStart: {ID: CheckStart, Title: "agent starts and answers initialize", Severity: findings.SeverityError, Blame: findings.PartyAgent,
		Doc: "The agent process starts and answers initialize within the startup timeout."},
	CheckTimeout: {ID: CheckTimeout, Title: "agent answers every request in time", Severity: findings.SeverityError, Blame: findings.PartyAgent,
		Doc: "Every request is answered before the agent falls silent for the response timeout, and every run ends within the run timeout."},
	CheckCrash: {ID: CheckCrash, Title: "agent stays up while the client needs it", Severity: findings.SeverityError, Blame: findings.PartyAgent,
		Doc: "The agent does not exit or close stdout while a request is pending or before the client closes the connection."},
	CheckClose: {ID: CheckClose, Title: "agent exits when its stdin closes", Severity: findings.SeverityWarning, Blame: findings.PartyAgent,
		Doc: "Closing stdin ends an ACP stdio connection; an agent that needs SIGTERM or SIGKILL leaks processes in editors that restart it."},
}

// harnessFacts: when each harness check was exercised.
var harnessFacts = map[string]Fact{
	CheckStart:   FactClientRequest,
	CheckTimeout: FactClientRequest,
	CheckCrash:   FactClientRequest,
	CheckClose:   FactClientRequest,
}

// ruleByID looks a rule up in the catalog or among the harness checks.
func ruleByID(id string) *findings.Rule {
	if r, ok := harnessChecks[id]; ok {
		return r
	}
	if r, ok := findings.ByID(id); ok {
		return r
	}
	return nil
}

// tierOf places a rule in its tier.
func tierOf(r *findings.Rule) Tier {
	switch r.Severity {
	case findings.SeverityInfo:
		return TierInfo
	case findings.SeverityWarning:
		return TierShould
	}
	if e, ok := profile()[r.ID]; ok && e.gated {
		return TierGated
	}
	return TierMust
}

// exercisedBy returns the facts that exercise rule id, or nil when the
// harness does not cover it.
func exercisedBy(id string) []Fact {
	if f, ok := harnessFacts[id]; ok {
		return []Fact{f}
	}
	return profile()[id].facts
}

// profileRules returns every rule the verdict reports on: the harness
// checks and the covered catalog rules, sorted by tier then id.
func profileRules() []*findings.Rule {
	var out []*findings.Rule
	for _, r := range harnessChecks {
		out = append(out, r)
	}
	for id := range profile() {
		if r, ok := findings.ByID(id); ok {
			out = append(out, r)
		}
	}
	sortRules(out)
	return out
}

func tierRank(t Tier) int {
	for i, x := range Tiers {
		if x == t {
			return i
		}
	}
	return len(Tiers)
}

func sortRules(rs []*findings.Rule) {
	sort.Slice(rs, func(i, j int) bool {
		ti, tj := tierRank(tierOf(rs[i])), tierRank(tierOf(rs[j]))
		if ti != tj {
			return ti < tj
		}
		return rs[i].ID < rs[j].ID
	})
}

// notCovered lists the catalog rules that judge agents but that the
// harness cannot exercise.
func notCovered() []string {
	var out []string
	for _, r := range findings.All() {
		if r.Blame == findings.PartyClient || r.Blame == findings.PartyTool || r.Undecidable != "" {
			continue
		}
		if _, ok := profile()[r.ID]; !ok {
			out = append(out, r.ID)
		}
	}
	sort.Strings(out)
	return out
}
