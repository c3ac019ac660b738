package conformance

import (
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/protocol"
)

// Rules returns the catalog rules whose home is conformance: those no
// recorded transcript can decide (findings.Rule.Undecidable) and that
// neither lint nor the protocol machine raises, so that no package judges
// them from a transcript by mistake. Only driving a peer can decide them,
// if anything can; acplint check does not judge any of them yet (their
// Undecidable line says why), and the codec's own tests prove the ones
// that are codec semantics.
func Rules() []*findings.Rule {
	return []*findings.Rule{
		findings.CONTEmbeddedInOutput, findings.EXTNRoundTrip, findings.SEQIgnoredVersionMismatch,
		findings.TERMNullArgs, findings.TOOLNullMeansUnchanged, findings.WIREStderr,
	}
}

// RuleHomes maps every rule ID to the one place in acplint that raises it:
// a check of the protocol machine ("protocol/session"), lint itself
// ("lint"), or conformance for the rules no transcript decides. Commands
// and the MCP server show it with a rule, so a reader knows where to look.
func RuleHomes() map[string]string {
	homes := map[string]string{}
	for _, ch := range protocol.Checks() {
		for _, r := range ch.Rules {
			homes[r.ID] = "protocol/" + ch.Name
		}
	}
	for _, r := range lint.Rules() {
		homes[r.ID] = "lint"
	}
	for _, r := range Rules() {
		homes[r.ID] = "conformance"
	}
	return homes
}
