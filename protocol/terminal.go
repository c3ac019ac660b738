package protocol

import "github.com/acplint/acplint/findings"

// finishTerminals reports terminals the agent created and never released
// (ACP-TERM-003): the client keeps the process and its output until
// terminal/release, so a forgotten terminal leaks on the client side.
func finishTerminals(p Phase, c *ctx) Phase {
	for id, t := range p.Terminals.All() {
		if t.ReleasedLine > 0 {
			continue
		}
		f := c.r.add(findings.TERMNotReleased, findings.Location{File: c.ev.Loc.File, Line: t.Line},
			"terminal %s is created here and never released with terminal/release; the client keeps its process and output until then", id)
		if c.ev.Truncated {
			f.Message += " (the transcript may be truncated)"
		}
	}
	return p
}
