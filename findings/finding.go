// Package findings holds what acplint reports: the ValidationFinding value,
// the rule catalog (data only, one file per rule area) and the reporters that
// render findings as text, JSON, SARIF, GitHub annotations or JUnit.
//
// The package is a leaf: it imports only the standard library, so every other
// layer can report and the catalog can be listed without any protocol logic.
package findings

import (
	"fmt"
	"strings"
)

// Severity orders findings. The zero value is SeverityInfo.
type Severity int

const (
	SeverityInfo Severity = iota
	SeverityWarning
	SeverityError
)

func (s Severity) String() string {
	switch s {
	case SeverityInfo:
		return "info"
	case SeverityWarning:
		return "warning"
	case SeverityError:
		return "error"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// ParseSeverity accepts the names String returns.
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(s) {
	case "info":
		return SeverityInfo, nil
	case "warning", "warn":
		return SeverityWarning, nil
	case "error":
		return SeverityError, nil
	}
	return 0, fmt.Errorf("unknown severity %q (want error, warning or info)", s)
}

// MarshalText renders the severity by name in JSON output.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses a severity name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Party is the side of the connection a finding blames.
type Party int

const (
	// PartyEither blames whoever sent the message ("*" in the catalog).
	PartyEither Party = iota
	PartyClient
	PartyAgent
	// PartyTool marks findings about the transcript or acplint's own limits.
	PartyTool
)

func (p Party) String() string {
	switch p {
	case PartyClient:
		return "client"
	case PartyAgent:
		return "agent"
	case PartyTool:
		return "tool"
	}
	return "either"
}

func (p Party) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

func (p *Party) UnmarshalText(b []byte) error {
	switch string(b) {
	case "client":
		*p = PartyClient
	case "agent":
		*p = PartyAgent
	case "tool":
		*p = PartyTool
	case "either", "":
		*p = PartyEither
	default:
		return fmt.Errorf("unknown party %q", b)
	}
	return nil
}

// Location names a place in a transcript.
type Location struct {
	File string `json:"file,omitempty"` // as given on the command line; "-" for stdin
	Line int    `json:"line"`           // 1-based transcript line; 0 = the transcript as a whole
	// Column is the 1-based byte offset in the line of what Pointer names
	// (the member's name), for editors to jump to; 0 when unknown (a
	// message wrapped in a jsonl record or a Zed log, a rebuilt message).
	Column  int    `json:"column,omitempty"`
	Pointer string `json:"pointer,omitempty"`
	// Subject says File names no file but what the finding is about as a
	// whole (check: the agent, by its command line), so that SARIF names
	// it as a logical location, not as an artifact no one can open.
	Subject bool `json:"-"`
}

func (l Location) String() string {
	f := l.File
	if f == "" {
		f = "-"
	}
	return fmt.Sprintf("%s:%d", f, l.Line)
}

// At returns the location narrowed to the RFC 6901 pointer ptr inside the message.
func (l Location) At(ptr string) Location {
	l.Pointer = ptr
	return l
}

// Related is another line that helps prove a finding.
type Related struct {
	Location Location `json:"location"`
	Message  string   `json:"message"`
}

// ValidationFinding is one reported breach of a rule.
type ValidationFinding struct {
	Rule     *Rule     `json:"-"`
	RuleID   string    `json:"rule"`
	Severity Severity  `json:"severity"`
	Blame    Party     `json:"blame"`
	Location Location  `json:"location"`
	Message  string    `json:"message"`
	Related  []Related `json:"related,omitempty"`
	SpecURL  string    `json:"spec,omitempty"`
	TCK      []string  `json:"tck,omitempty"`
}

// New builds a finding for rule r at loc with the rule's default severity and blame.
func New(r *Rule, loc Location, msg string, related ...Related) ValidationFinding {
	return ValidationFinding{
		Rule:     r,
		RuleID:   r.ID,
		Severity: r.Severity,
		Blame:    r.Blame,
		Location: loc,
		Message:  msg,
		Related:  related,
		SpecURL:  r.Spec,
		TCK:      r.TCK,
	}
}

// Less orders findings by file, line, rule ID and message, the order every
// reporter prints in so that output is stable across runs.
func Less(a, b ValidationFinding) bool {
	if a.Location.File != b.Location.File {
		return a.Location.File < b.Location.File
	}
	if a.Location.Line != b.Location.Line {
		return a.Location.Line < b.Location.Line
	}
	if a.RuleID != b.RuleID {
		return a.RuleID < b.RuleID
	}
	if a.Location.Pointer != b.Location.Pointer {
		return a.Location.Pointer < b.Location.Pointer
	}
	return a.Message < b.Message
}
