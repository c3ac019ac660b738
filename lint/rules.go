package lint

import "github.com/acplint/acplint/findings"

// Rules returns the rules lint raises itself: those about the byte stream
// and the transcript rather than a message (the protocol machine raises
// every rule about messages, codec problems included, see
// protocol.Checks), and acplint's own ACP-LINT rules. Other packages that
// report an ACP-LINT finding build it with the constructors below.
func Rules() []*findings.Rule {
	return []*findings.Rule{
		findings.WIREAgentNotJSON, findings.WIREClientNotJSON, findings.WIRETelemetryOnStdout,
		findings.WIREEmbeddedNewline, findings.WIREEncoding, findings.WIREBatch, findings.WIREWhitespace,
		findings.WIRELargeMessage, findings.RPCAfterMalformed,
		findings.LINTDirectionUnknown, findings.LINTBadWrapper, findings.LINTInternal, findings.LINTFramesLost,
		findings.LINTProblemsCapped,
	}
}

// InternalError is the finding for a bug in acplint (ACP-LINT-003) at loc:
// a panic, an error of the protocol machine, or a failure of a command
// that lints (tap, check).
func InternalError(loc findings.Location, message string) findings.ValidationFinding {
	return findings.New(findings.LINTInternal, loc, message)
}

// BadWrapper is the finding for an input line that does not fit the
// transcript format (ACP-LINT-002); message says why.
func BadWrapper(loc findings.Location, message string) findings.ValidationFinding {
	return findings.New(findings.LINTBadWrapper, loc, message)
}

// FramesLost is the finding for a gap a recorder left in a transcript
// (ACP-LINT-004).
func FramesLost(loc findings.Location, message string) findings.ValidationFinding {
	return findings.New(findings.LINTFramesLost, loc, message)
}

// DirectionUnknown is the finding for a message whose sender cannot be
// inferred (ACP-LINT-001).
func DirectionUnknown(loc findings.Location, message string) findings.ValidationFinding {
	return findings.New(findings.LINTDirectionUnknown, loc, message)
}

// problemsCapped is the finding for the problems of a message past the
// codec's cap (ACP-LINT-005); message is the codec's count of them.
func problemsCapped(loc findings.Location, message string) findings.ValidationFinding {
	return findings.New(findings.LINTProblemsCapped, loc, message)
}
