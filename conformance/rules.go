package conformance

import "github.com/acplint/acplint/findings"

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
