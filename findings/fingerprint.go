package findings

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// FingerprintKey names the partialFingerprints entry acplint writes in SARIF.
// The "/v1" lets the recipe change later without old and new fingerprints
// being mistaken for each other.
const FingerprintKey = "acplint/v1"

// digitRuns matches what Fingerprint normalises away. Messages embed
// request ids, line numbers and counts that change when a transcript is
// re-recorded; replacing them keeps a finding recognisable across runs.
var digitRuns = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[0-9]+`) })

// Fingerprint identifies a finding independently of its line number: the
// hex SHA-256 of the rule ID, the file (forward slashes), the message with
// every run of digits replaced by "N", and the JSON pointer. SARIF
// (partialFingerprints) and baselines both use it, so a finding suppressed
// by a baseline is the same one GitHub code scanning tracks.
//
// Fields are joined with NUL, which cannot occur in any of them in
// practice, so that e.g. rule "A" + file "BC" differs from "AB" + "C".
func Fingerprint(f ValidationFinding) string {
	h := sha256.New()
	for i, part := range []string{
		f.RuleID,
		fingerprintFile(f.Location.File),
		digitRuns().ReplaceAllString(f.Message, "N"),
		f.Location.Pointer,
	} {
		if i > 0 {
			h.Write([]byte{0})
		}
		h.Write([]byte(part))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// fingerprintFile is the file as reporters show it: "-" for stdin or an
// unnamed input, forward slashes so a baseline written on Windows matches
// on Linux, and cleaned ("./a.ndjson" and "a.ndjson" are one file).
func fingerprintFile(file string) string {
	if file == "" {
		return "-"
	}
	return path.Clean(strings.ReplaceAll(filepath.ToSlash(file), `\`, "/"))
}
