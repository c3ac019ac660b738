package findings

import (
	"bufio"
	"encoding/json"
	"io"
)

// writeJSON prints NDJSON: one ValidationFinding object per line, using its
// json tags. A stream rather than one array lets consumers process findings
// with line-oriented tools (jq -c, grep) and concatenate runs.
func writeJSON(w io.Writer, r Report) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	// Messages quote JSON and method names; "<" and "&" escaped as \u003c
	// would only make them harder to read.
	enc.SetEscapeHTML(false)
	for _, f := range r.Findings {
		if err := enc.Encode(f); err != nil {
			return err
		}
	}
	return bw.Flush()
}
