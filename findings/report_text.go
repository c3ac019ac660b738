package findings

import (
	"bufio"
	"io"
	"strings"
)

// writeText prints one compiler-style line per finding, so editors and
// terminals can jump to FILE:LINE, followed by tab-indented detail lines:
//
//	FILE:LINE: SEVERITY: MESSAGE (RULE-ID)
//		at POINTER
//		FILE:LINE: RELATED-MESSAGE
//		spec: URL (TCK: ID, …)
//
// Detail lines start with a tab so that tools matching "FILE:LINE:" at the
// start of a line see only the findings. No summary is printed: counts go to
// stderr from the CLI, keeping stdout a pure list.
func writeText(w io.Writer, r Report) error {
	bw := bufio.NewWriter(w)
	for _, f := range r.Findings {
		bw.WriteString(fileLine(f.Location))
		bw.WriteString(": ")
		bw.WriteString(f.Severity.String())
		bw.WriteString(": ")
		bw.WriteString(oneLine(f.Message))
		if f.RuleID != "" {
			bw.WriteString(" (" + f.RuleID + ")")
		}
		bw.WriteString("\n")
		if f.Location.Pointer != "" {
			bw.WriteString("\tat " + f.Location.Pointer + "\n")
		}
		for _, rel := range f.Related {
			bw.WriteString("\t" + fileLine(rel.Location) + ": " + oneLine(rel.Message) + "\n")
		}
		if s := specLine(f); s != "" {
			bw.WriteString("\t" + s + "\n")
		}
	}
	return bw.Flush()
}

// oneLine keeps a multi-line message inside its finding: continuation lines
// are indented like detail lines instead of starting a line that could be
// mistaken for another finding.
func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.ReplaceAll(s, "\n", "\n\t")
}
