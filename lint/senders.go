package lint

import (
	"fmt"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/protocol"
	"github.com/acplint/acplint/transcript"
)

// InferSenders returns the senders function of transcript.ReadFrames (for
// `acplint convert`): the sender of each entry of one transcript, as lint
// infers it where the format does not record it, by running lint's
// protocol machine over the entries in order. When it cannot tell, it says
// why: the message of the ACP-LINT-001 finding lint gives the entry, or
// why there is no sender to infer (text, a response that answers nothing
// pending).
func InferSenders() func(transcript.Entry) (dir domain.Direction, unknown string) {
	var dirFinding string
	l := &linter{phase: protocol.ACP.Initial, res: &Result{}, onFinding: func(f findings.ValidationFinding) {
		if f.Rule == findings.LINTDirectionUnknown {
			dirFinding = f.Message
		}
	}}
	return func(fr transcript.Entry) (domain.Direction, string) {
		dirFinding = ""
		d := codec.DecodeLine(fr.Line)
		l.frame(fr, d)
		// Only the directions matter here: the findings, and the wire
		// bookkeeping that only makes findings (every malformed line
		// is watched to the end), would grow with the input.
		l.res.Findings = l.res.Findings[:0]
		l.wire = wireState{}
		dir := sender(d, fr.Dir)
		switch {
		case dir != domain.DirUnknown:
			return dir, ""
		case dirFinding != "":
			return dir, dirFinding
		}
		return dir, whyNoSender(d)
	}
}

// sender is the side that sent every message of d, as the linter settled
// it; recorded is the direction the format gave.
func sender(d *codec.Decoded, recorded domain.Direction) domain.Direction {
	if recorded != domain.DirUnknown || len(d.Msgs) == 0 {
		return recorded
	}
	dir := d.Msgs[0].Dir
	for _, m := range d.Msgs[1:] {
		if m.Dir != dir {
			return domain.DirUnknown
		}
	}
	return dir
}

// whyNoSender explains a sender lint could not infer without reporting
// ACP-LINT-001 for it.
func whyNoSender(d *codec.Decoded) string {
	if len(d.Msgs) == 0 {
		return "cannot tell which side sent this line: it holds no JSON-RPC message to infer the sender from"
	}
	m := d.Msgs[0]
	if len(d.Msgs) == 1 && (m.Kind == domain.KindResult || m.Kind == domain.KindError) {
		return fmt.Sprintf("cannot tell which side sent the response with id %s: no request with that id is pending on either side", m.ID)
	}
	return "cannot tell which side sent this line: its messages do not show one sender"
}
