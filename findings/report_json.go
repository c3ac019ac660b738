package findings

import (
	"bufio"
	"encoding/json"
	"io"
)

// JSONVersion is the version of acplint's JSON output: every record lint,
// corpus and schema diff write with -f json carries it, and
// docs/json-output.schema.json describes it. A change that removes or
// retypes a key bumps it; new keys may appear within a version.
const JSONVersion = 1

// JSONFinding is one finding as the JSON output writes it: the finding's
// own keys (rule, severity, blame, location, message, related, spec, tck)
// between the format version and the fingerprint that SARIF and baselines
// use. Commands add keys of their own beside these (corpus "change",
// schema diff "diff"), never in place of them.
type JSONFinding struct {
	Version int `json:"version"`
	ValidationFinding
	Fingerprint string `json:"fingerprint"`
}

// NewJSONFinding returns f as the JSON output writes it.
func NewJSONFinding(f ValidationFinding) JSONFinding {
	f = normalize(f)
	return JSONFinding{Version: JSONVersion, ValidationFinding: f, Fingerprint: Fingerprint(f)}
}

// writeJSON prints NDJSON: one JSONFinding per line. A stream rather than
// one array lets consumers process findings with line-oriented tools
// (jq -c, grep) and concatenate runs.
func writeJSON(w io.Writer, r Report) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	// Messages quote JSON and method names; "<" and "&" escaped as \u003c
	// would only make them harder to read.
	enc.SetEscapeHTML(false)
	for _, f := range r.Findings {
		if err := enc.Encode(NewJSONFinding(f)); err != nil {
			return err
		}
	}
	return bw.Flush()
}
