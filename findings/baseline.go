package findings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// WriteBaseline writes a baseline accepting every finding in fs
// (BaselineWriter, which streamed findings use).
func WriteBaseline(w io.Writer, fs []ValidationFinding) error {
	bw := NewBaselineWriter()
	for _, f := range fs {
		if err := bw.Add(f); err != nil {
			return err
		}
	}
	return bw.Write(w)
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

// Filter removes the findings the baseline accepts (see Matcher). kept
// holds the rest in their original order; stale lists, in file order, the
// entries that matched nothing.
//
// A nil Baseline accepts nothing.
func (b *Baseline) Filter(fs []ValidationFinding) (kept []ValidationFinding, stale []BaselineEntry) {
	m := b.Matcher()
	for _, f := range fs {
		if !m.Accepts(f) {
			kept = append(kept, f)
		}
	}
	return kept, m.Stale()
}
