package findings

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// writeGitHub prints GitHub Actions workflow commands, which the runner turns
// into annotations on the pull request:
//
//	::error file=F,line=L,title=RULE-ID::message
//
// Info findings become ::notice. line is left out for line 0 (the whole
// transcript), which GitHub then shows as a file-level annotation.
func writeGitHub(w io.Writer, r Report) error {
	bw := bufio.NewWriter(w)
	for _, f := range r.Findings {
		cmd := "notice"
		switch f.Severity {
		case SeverityError:
			cmd = "error"
		case SeverityWarning:
			cmd = "warning"
		}
		props := []string{"file=" + escapeProperty(f.Location.File)}
		if f.Location.Line > 0 {
			props = append(props, "line="+strconv.Itoa(f.Location.Line))
		}
		if f.RuleID != "" {
			props = append(props, "title="+escapeProperty(f.RuleID))
		}
		bw.WriteString("::" + cmd + " " + strings.Join(props, ",") + "::" + escapeData(f.Message) + "\n")
	}
	return bw.Flush()
}

// escapeData escapes a workflow command's message. Escape first shows
// control characters (CR and LF included, which would end the command early
// or inject a second one) as escapes, as the text format does; then "%" is
// escaped the way the Actions toolkit's escapeData does, because the runner
// unescapes %25, %0D and %0A. strings.Replacer works in a single pass, so the
// % it introduces is never escaped again.
func escapeData(s string) string {
	return dataEscaper.Replace(Escape(s))
}

// escapeProperty additionally escapes ":" and ",", which separate the
// command from its message and properties from each other.
func escapeProperty(s string) string {
	return propertyEscaper.Replace(Escape(s))
}

var (
	dataEscaper     = strings.NewReplacer("%", "%25")
	propertyEscaper = strings.NewReplacer("%", "%25", ":", "%3A", ",", "%2C")
)
