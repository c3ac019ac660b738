package schemadiff

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/schemamodel"
)

// Filter returns the changes at or above severity floor, on the given
// surfaces (nil means both).
func (r *Result) Filter(floor findings.Severity, surfaces map[Surface]bool) []Change {
	var out []Change
	for _, c := range r.Changes {
		if c.Severity >= floor && (surfaces == nil || surfaces[c.Surface]) {
			out = append(out, c)
		}
	}
	return out
}

// WriteText prints the changes grouped by surface, each as a
// compiler-style line (FILE:LINE: SEVERITY: …) that editors can jump to,
// followed by tab-indented detail. all are every change of the surfaces
// shown, so the headings can count what the severity floor hid; surfaces
// are the sections to print.
func WriteText(w io.Writer, r *Result, shown, all []Change, surfaces []Surface) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "old: %s (%s, %d methods)\n", findings.Escape(r.Old.File), r.Old.FileKind(), len(r.Old.Methods()))
	fmt.Fprintf(bw, "new: %s (%s, %d methods)\n", findings.Escape(r.New.File), r.New.FileKind(), len(r.New.Methods()))
	for _, n := range r.Notes {
		fmt.Fprintf(bw, "note: %s\n", findings.Escape(n))
	}
	for _, surface := range surfaces {
		counts := map[Category]int{}
		total := 0
		for _, c := range all {
			if c.Surface == surface {
				counts[c.Category]++
				total++
			}
		}
		var list []Change
		for _, c := range shown {
			if c.Surface == surface {
				list = append(list, c)
			}
		}
		fmt.Fprintf(bw, "\n== %s surface: %d breaking, %d unclassified, %d non-breaking", surface,
			counts[Breaking], counts[Unclassified], counts[NonBreaking])
		if hidden := total - len(list); hidden > 0 {
			fmt.Fprintf(bw, " (%d below the --severity floor not shown)", hidden)
		}
		bw.WriteString("\n")
		for _, c := range list {
			writeChange(bw, &c)
		}
	}
	return bw.Flush()
}

func writeChange(bw *bufio.Writer, c *Change) {
	at := primary(c)
	// Names and pointers come from the schema files, which a pull request
	// may bring: escaped, as in every text report (findings.Escape).
	fmt.Fprintf(bw, "%s: %s: %s: %s (%s, %s)\n", fileLine(at), c.Severity, findings.Escape(where(c)), findings.Escape(c.Message), c.CheckID, verdict(c))
	fmt.Fprintf(bw, "\told: %s\n", locText(c.Old))
	fmt.Fprintf(bw, "\tnew: %s\n", locText(c.New))
	for i, o := range c.Also {
		if i == maxPlacesShown {
			fmt.Fprintf(bw, "\t… and %d more places (-f json lists every one)\n", len(c.Also)-maxPlacesShown)
			break
		}
		fmt.Fprintf(bw, "\talso: %s (%s)\n", findings.Escape(placeText(o)), fileLine(primaryOf(o.Old, o.New)))
	}
}

// maxPlacesShown bounds the further places a text report lists per change.
const maxPlacesShown = 10

// placeText names the message and wire path of one place of a change.
func placeText(o Occurrence) string {
	return strings.TrimSpace(o.Method + " " + string(o.Kind) + " " + o.Path)
}

// where names the message and wire path of a change.
func where(c *Change) string {
	return strings.TrimSpace(c.Method + " " + string(c.Kind) + " " + c.Path)
}

// verdict says the category and, for breaking changes, who breaks.
func verdict(c *Change) string {
	if c.Category != Breaking {
		return string(c.Category)
	}
	switch c.Breaks {
	case BreaksReaders:
		return fmt.Sprintf("breaking for old readers: %s", plural(c.Reader))
	case BreaksWriters:
		return fmt.Sprintf("breaking for old writers: %s", plural(c.Writer))
	}
	return "breaking for both sides"
}

// primary is the location a change is reported at: in the new schema,
// unless the change is a removal with nothing to point at there.
func primary(c *Change) Location { return primaryOf(c.Old, c.New) }

func primaryOf(old, new Location) Location {
	if new.Pointer == "" && old.Pointer != "" {
		return old
	}
	return new
}

func fileLine(l Location) string {
	if l.Line > 0 {
		return fmt.Sprintf("%s:%d", findings.Escape(l.File), l.Line)
	}
	return findings.Escape(l.File)
}

func locText(l Location) string {
	if l.Pointer == "" {
		return fileLine(l) + " (not present)"
	}
	return fileLine(l) + " #" + findings.Escape(l.Pointer)
}

// WriteJSON prints one change per line (NDJSON): the keys of every acplint
// JSON record (findings.JSONFinding, from Findings) and the change with
// every field under "diff".
func WriteJSON(w io.Writer, changes []Change) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i, f := range Findings(changes) {
		// The keys every acplint JSON record has, and the change itself
		// with every field under "diff".
		rec := struct {
			findings.JSONFinding
			Diff *Change `json:"diff"`
		}{findings.NewJSONFinding(f), &changes[i]}
		if err := enc.Encode(rec); err != nil {
			return err
		}
	}
	return nil
}

// Findings maps changes onto findings, so that the findings reporters
// (SARIF, GitHub annotations, JUnit) render them: the location is the
// change in the new schema (the old one for removals), the old location
// is a related location, and the party is the side the change breaks.
func Findings(changes []Change) []findings.ValidationFinding {
	out := make([]findings.ValidationFinding, 0, len(changes))
	for i := range changes {
		c := &changes[i]
		at := primary(c)
		other, otherWhat := c.Old, "in the old schema"
		if at == c.Old {
			other, otherWhat = c.New, "where it was, in the new schema"
		}
		places := ""
		if len(c.Also) > 0 {
			places = fmt.Sprintf("; also at %d more places, e.g. %s", len(c.Also), placeText(c.Also[0]))
		}
		f := findings.New(c.Check, findings.Location{File: at.File, Line: at.Line, Pointer: at.Pointer},
			fmt.Sprintf("[%s surface] %s: %s (%s%s)", c.Surface, where(c), c.Message, verdict(c), places))
		f.Severity = c.Severity
		f.Blame = party(c.Broken())
		if other.Pointer != "" || other.Line > 0 {
			f.Related = []findings.Related{{Location: findings.Location{File: other.File, Line: other.Line, Pointer: other.Pointer}, Message: otherWhat}}
		}
		for i, o := range c.Also {
			if i == maxPlacesShown {
				break
			}
			l := primaryOf(o.Old, o.New)
			f.Related = append(f.Related, findings.Related{Location: findings.Location{File: l.File, Line: l.Line, Pointer: l.Pointer}, Message: "the same change at " + placeText(o)})
		}
		out = append(out, f)
	}
	return out
}

func party(s schemamodel.Side) findings.Party {
	switch s {
	case schemamodel.SideClient:
		return findings.PartyClient
	case schemamodel.SideAgent:
		return findings.PartyAgent
	}
	return findings.PartyEither
}
