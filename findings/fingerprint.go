package findings

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"path/filepath"
	"strings"
)

// FingerprintKey names the partialFingerprints entry acplint writes in SARIF.
// The "/v1" lets the recipe change later without old and new fingerprints
// being mistaken for each other.
const FingerprintKey = "acplint/v1"

// Fingerprint identifies a finding independently of its line number: the
// hex SHA-256 of the rule ID, the file (forward slashes), the message with
// every run of ASCII digits replaced by "N", and the JSON pointer. SARIF
// (partialFingerprints) and baselines both use it, so a finding suppressed
// by a baseline is the same one GitHub code scanning tracks. Messages
// embed request ids, line numbers and counts that change when a transcript
// is re-recorded; replacing them keeps a finding recognisable across runs.
//
// Fields are joined with NUL, which cannot occur in any of them in
// practice, so that e.g. rule "A" + file "BC" differs from "AB" + "C".
//
// A SARIF or JSON report computes one per finding: the input is assembled
// in one buffer (on the stack for a usual finding) and hashed in one call.
func Fingerprint(f ValidationFinding) string {
	var stack [512]byte
	b := append(stack[:0], f.RuleID...)
	b = append(b, 0)
	b = append(b, fingerprintFile(f.Location.File)...)
	b = append(b, 0)
	b = appendDigitRunsAsN(b, f.Message)
	b = append(b, 0)
	b = append(b, f.Location.Pointer...)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// appendDigitRunsAsN appends s with every run of ASCII digits replaced by
// "N".
func appendDigitRunsAsN(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		if s[i] < '0' || s[i] > '9' {
			j := i + 1
			for j < len(s) && (s[j] < '0' || s[j] > '9') {
				j++
			}
			b = append(b, s[i:j]...)
			i = j
			continue
		}
		b = append(b, 'N')
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	return b
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
