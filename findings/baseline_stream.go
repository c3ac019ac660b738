package findings

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Baselines for findings that are streamed: a BaselineMatcher filters them
// one at a time and a BaselineWriter collects them one at a time. Memory is
// proportional to the baseline file (its entries), not to the number of
// findings.

// baselineKey is what matches a finding to an entry.
type baselineKey struct{ rule, file, fingerprint string }

// BaselineMatcher tells which findings a baseline accepts, remembering
// which entries matched so that Stale can list the others.
type BaselineMatcher struct {
	b    *Baseline
	used map[baselineKey]bool // every key of b; true once matched
}

// Matcher returns a matcher for b. A nil Baseline accepts nothing.
func (b *Baseline) Matcher() *BaselineMatcher {
	m := &BaselineMatcher{b: b, used: map[baselineKey]bool{}}
	if b != nil {
		for _, e := range b.Findings {
			m.used[entryKey(e)] = false
		}
	}
	return m
}

func entryKey(e BaselineEntry) baselineKey {
	return baselineKey{e.Rule, fingerprintFile(e.File), e.Fingerprint}
}

// Accepts reports whether the baseline accepts f. Every entry accepts all
// findings it matches, so a finding reported twice needs one entry.
func (m *BaselineMatcher) Accepts(f ValidationFinding) bool {
	k := entryKey(baselineEntry(f))
	if _, ok := m.used[k]; !ok {
		return false
	}
	m.used[k] = true
	return true
}

// Stale lists, in file order, the entries that matched nothing so far: the
// problem they accepted is gone, and the CLI fails the run so the baseline
// gets trimmed instead of silently accepting the problem should it come
// back.
func (m *BaselineMatcher) Stale() []BaselineEntry {
	if m.b == nil {
		return nil
	}
	var stale []BaselineEntry
	for _, e := range m.b.Findings {
		if !m.used[entryKey(e)] {
			stale = append(stale, e)
		}
	}
	return stale
}

// StaleIn is Stale limited to the entries whose file judged accepts (the
// files a run linted, named as the baseline names them): an entry for a
// file the run did not read cannot be said to no longer fire.
func (m *BaselineMatcher) StaleIn(judged func(file string) bool) []BaselineEntry {
	var stale []BaselineEntry
	for _, e := range m.Stale() {
		if judged(e.File) {
			stale = append(stale, e)
		}
	}
	return stale
}

// BaselineWriter collects the entries of a baseline from findings added
// one at a time, and writes the file at the end.
type BaselineWriter struct {
	entries map[baselineKey]*heldEntry
}

// heldEntry is an entry and the line of the finding whose message it
// keeps: of the findings sharing an entry, the first in report order
// (Less) gives the message, whatever order they were added in.
type heldEntry struct {
	BaselineEntry
	line int
}

// NewBaselineWriter returns an empty BaselineWriter.
func NewBaselineWriter() *BaselineWriter {
	return &BaselineWriter{entries: map[baselineKey]*heldEntry{}}
}

// Add accepts f in the baseline. Findings with the same rule, file and
// fingerprint share one entry. A finding without a rule ID cannot be
// baselined: ReadBaseline rejects such entries, so Add refuses them rather
// than write a file that could not be read back.
func (w *BaselineWriter) Add(f ValidationFinding) error {
	f = normalize(f)
	e := baselineEntry(f)
	if e.Rule == "" {
		return fmt.Errorf("%s: finding %q has no rule ID and cannot be baselined", fileLine(f.Location), f.Message)
	}
	k := entryKey(e)
	held, ok := w.entries[k]
	if !ok {
		w.entries[k] = &heldEntry{e, f.Location.Line}
		return nil
	}
	// Same rule, file and pointer (in the fingerprint): Less orders by
	// line, then message.
	if f.Location.Line < held.line || f.Location.Line == held.line && e.Message < held.Message {
		held.Message, held.line = e.Message, f.Location.Line
	}
	return nil
}

// Write writes the baseline file. Entries are sorted so regenerated
// baselines diff cleanly.
func (w *BaselineWriter) Write(out io.Writer) error {
	b := Baseline{Version: BaselineVersion, Findings: make([]BaselineEntry, 0, len(w.entries))}
	for _, e := range w.entries {
		b.Findings = append(b.Findings, e.BaselineEntry)
	}
	slices.SortFunc(b.Findings, func(x, y BaselineEntry) int {
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
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(b)
}
