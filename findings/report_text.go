package findings

import (
	"bufio"
	"io"
	"strconv"
)

// writeText prints one compiler-style line per finding, so editors and
// terminals (and Vim's errorformat %f:%l:%c:) can jump to FILE:LINE:COL,
// followed by tab-indented detail lines:
//
//	FILE:LINE:COL: SEVERITY: [BLAME] MESSAGE (RULE-ID)
//		at POINTER
//		FILE:LINE: RELATED-MESSAGE
//		spec: URL (TCK: ID, …)
//
// COL is left out when unknown, LINE too for a finding about the whole
// transcript. BLAME is the party at fault: client, agent, either or tool.
// Detail lines start with a tab so that tools matching "FILE:LINE:" at the
// start of a line see only the findings. Every string goes through Escape,
// so a finding and each of its details stay one line whatever a peer put in
// the names they quote. No summary is printed: counts go to stderr from the
// CLI, keeping stdout a pure list.
func writeText(w io.Writer, r Report) error {
	bw := bufio.NewWriter(w)
	for _, f := range r.Findings {
		bw.WriteString(fileLine(f.Location))
		if f.Location.Line > 0 && f.Location.Column > 0 {
			bw.WriteString(":" + strconv.Itoa(f.Location.Column))
		}
		bw.WriteString(": ")
		bw.WriteString(f.Severity.String())
		bw.WriteString(": [" + f.Blame.String() + "] ")
		bw.WriteString(Escape(f.Message))
		if f.RuleID != "" {
			bw.WriteString(" (" + Escape(f.RuleID) + ")")
		}
		bw.WriteString("\n")
		if f.Location.Pointer != "" {
			bw.WriteString("\tat " + Escape(f.Location.Pointer) + "\n")
		}
		for _, rel := range f.Related {
			bw.WriteString("\t" + fileLine(rel.Location) + ": " + Escape(rel.Message) + "\n")
		}
		if s := specLine(f); s != "" {
			bw.WriteString("\t" + Escape(s) + "\n")
		}
	}
	return bw.Flush()
}
