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
//
// The pieces are written one by one, not joined first: a report of a
// finding per line spent a fifth of its time allocating joined strings.
func writeText(w io.Writer, r Report) error {
	bw := bufio.NewWriter(w)
	var num [20]byte
	for _, f := range r.Findings {
		writeFileLine(bw, f.Location, &num)
		if f.Location.Line > 0 && f.Location.Column > 0 {
			bw.WriteByte(':')
			bw.Write(strconv.AppendInt(num[:0], int64(f.Location.Column), 10))
		}
		bw.WriteString(": ")
		bw.WriteString(f.Severity.String())
		bw.WriteString(": [")
		bw.WriteString(f.Blame.String())
		bw.WriteString("] ")
		bw.WriteString(Escape(f.Message))
		if f.RuleID != "" {
			bw.WriteString(" (")
			bw.WriteString(Escape(f.RuleID))
			bw.WriteByte(')')
		}
		bw.WriteByte('\n')
		if f.Location.Pointer != "" {
			bw.WriteString("\tat ")
			bw.WriteString(Escape(f.Location.Pointer))
			bw.WriteByte('\n')
		}
		for _, rel := range f.Related {
			bw.WriteByte('\t')
			writeFileLine(bw, rel.Location, &num)
			bw.WriteString(": ")
			bw.WriteString(Escape(rel.Message))
			bw.WriteByte('\n')
		}
		if f.SpecURL != "" || len(f.TCK) > 0 {
			bw.WriteByte('\t')
			bw.WriteString(Escape(specLine(f)))
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}

// writeFileLine writes fileLine(l) to bw, with num as scratch space.
func writeFileLine(bw *bufio.Writer, l Location, num *[20]byte) {
	file := Escape(l.File)
	if file == "" {
		file = "-"
	}
	bw.WriteString(file)
	if l.Line > 0 {
		bw.WriteByte(':')
		bw.Write(strconv.AppendInt(num[:0], int64(l.Line), 10))
	}
}
