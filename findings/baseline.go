package findings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// BaselineVersion is the only baseline file format version acplint reads.
const BaselineVersion = 1

// Baseline is a set of accepted findings, read from the file given to
// --baseline. It lets a project adopt acplint (or a new rule) without first
// fixing every existing finding, while still failing on new ones.
//
// Entries are keyed by rule, file and Fingerprint, not by line, so that
// re-recording a transcript or inserting lines above a finding does not
// bring it back.
type Baseline struct {
	Version  int             `json:"version"`
	Findings []BaselineEntry `json:"findings"`
}

// BaselineEntry is one accepted finding. Message is for the people reading
// the file and for stale-entry reports; matching ignores it beyond what the
// fingerprint already covers.
type BaselineEntry struct {
	Rule        string `json:"rule"`
	File        string `json:"file"`
	Fingerprint string `json:"fingerprint"`
	Message     string `json:"message,omitempty"`
}

// ReadBaseline parses a baseline file. It rejects anything it does not
// fully understand (another version, entries without rule or fingerprint,
// trailing data), because a misread baseline would silently hide findings.
func ReadBaseline(r io.Reader) (*Baseline, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading baseline: %w", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("baseline is empty; write one with --write-baseline")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var b Baseline
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("baseline is not valid: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("baseline is not valid: data after the JSON object")
	}
	if b.Version != BaselineVersion {
		return nil, fmt.Errorf("baseline version %d is not supported (want %d)", b.Version, BaselineVersion)
	}
	for i, e := range b.Findings {
		switch {
		case e.Rule == "":
			return nil, fmt.Errorf("baseline entry %d has no rule", i+1)
		case e.Fingerprint == "":
			return nil, fmt.Errorf("baseline entry %d (%s) has no fingerprint", i+1, e.Rule)
		}
		b.Findings[i].File = fingerprintFile(e.File)
	}
	return &b, nil
}

// WriteBaseline writes a baseline accepting every finding in fs. Findings
// with the same rule, file and fingerprint share one entry; entries are
// sorted so regenerated baselines diff cleanly.
func WriteBaseline(w io.Writer, fs []ValidationFinding) error {
	b := Baseline{Version: BaselineVersion, Findings: []BaselineEntry{}}
	seen := map[BaselineEntry]bool{}
	// prepare sorts by Less, so the message kept for a shared entry is
	// that of the first occurrence in report order.
	for _, f := range prepare(fs) {
		e := baselineEntry(f)
		if e.Rule == "" {
			// ReadBaseline rejects such entries, so refuse to write a
			// file that could not be read back.
			return fmt.Errorf("%s: finding %q has no rule ID and cannot be baselined", fileLine(f.Location), f.Message)
		}
		key := e
		key.Message = ""
		if seen[key] {
			continue
		}
		seen[key] = true
		b.Findings = append(b.Findings, e)
	}
	slices.SortStableFunc(b.Findings, func(x, y BaselineEntry) int {
		if c := strings.Compare(x.File, y.File); c != 0 {
			return c
		}
		if c := strings.Compare(x.Rule, y.Rule); c != 0 {
			return c
		}
		if c := strings.Compare(x.Message, y.Message); c != 0 {
			return c
		}
		return strings.Compare(x.Fingerprint, y.Fingerprint)
	})
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(b)
}

func baselineEntry(f ValidationFinding) BaselineEntry {
	if f.RuleID == "" && f.Rule != nil {
		f.RuleID = f.Rule.ID
	}
	return BaselineEntry{
		Rule:        f.RuleID,
		File:        fingerprintFile(f.Location.File),
		Fingerprint: Fingerprint(f),
		Message:     f.Message,
	}
}

// Filter removes the findings the baseline accepts. kept holds the rest in
// their original order. Every entry suppresses all findings it matches, so
// a finding reported twice needs one entry. stale lists, in file order, the
// entries that matched nothing: the problem they accepted is gone, and the
// CLI fails the run so the baseline gets trimmed instead of silently
// accepting the problem should it come back.
//
// A nil Baseline accepts nothing.
func (b *Baseline) Filter(fs []ValidationFinding) (kept []ValidationFinding, stale []BaselineEntry) {
	if b == nil {
		return slices.Clone(fs), nil
	}
	type key struct{ rule, file, fingerprint string }
	accepted := make(map[key]bool, len(b.Findings))
	for _, e := range b.Findings {
		accepted[key{e.Rule, fingerprintFile(e.File), e.Fingerprint}] = true
	}
	used := make(map[key]bool, len(b.Findings))
	for _, f := range fs {
		e := baselineEntry(f)
		k := key{e.Rule, e.File, e.Fingerprint}
		if accepted[k] {
			used[k] = true
			continue
		}
		kept = append(kept, f)
	}
	for _, e := range b.Findings {
		if !used[key{e.Rule, fingerprintFile(e.File), e.Fingerprint}] {
			stale = append(stale, e)
		}
	}
	return kept, stale
}
