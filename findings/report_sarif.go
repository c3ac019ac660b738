package findings

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
)

// SARIF 2.1.0, written by hand with only the members acplint fills. GitHub
// code scanning is the main consumer, so the choices follow what it reads:
// rule metadata from tool.driver.rules, a partialFingerprints entry to track
// alerts across runs, and relative artifact URIs.

const (
	sarifSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion = "2.1.0"
	toolInfoURI  = "https://github.com/acplint/acplint"
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string          `json:"id"`
	Name                 string          `json:"name,omitempty"`
	ShortDescription     *sarifText      `json:"shortDescription,omitempty"`
	FullDescription      *sarifText      `json:"fullDescription,omitempty"`
	HelpURI              string          `json:"helpUri,omitempty"`
	DefaultConfiguration *sarifRuleConf  `json:"defaultConfiguration,omitempty"`
	Properties           *sarifRuleProps `json:"properties,omitempty"`
}

type sarifRuleConf struct {
	Level string `json:"level"`
}

type sarifRuleProps struct {
	Tags []string `json:"tags,omitempty"`
	TCK  []string `json:"tck,omitempty"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	RelatedLocations    []sarifLocation   `json:"relatedLocations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          *sarifResultProps `json:"properties,omitempty"`
}

type sarifResultProps struct {
	Blame string `json:"blame"`
}

type sarifLocation struct {
	ID               *int                   `json:"id,omitempty"`
	PhysicalLocation *sarifPhysical         `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogicalLocation `json:"logicalLocations,omitempty"`
	Message          *sarifText             `json:"message,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

type sarifLogicalLocation struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind,omitempty"`
}

func writeSARIF(w io.Writer, r Report) error {
	rules := r.Rules
	if rules == nil {
		rules = All()
	}
	driver := sarifDriver{
		Name:           r.Tool,
		Version:        r.Version,
		InformationURI: toolInfoURI,
		Rules:          make([]sarifRule, 0, len(rules)),
	}
	index := make(map[string]int, len(rules))
	addRule := func(sr sarifRule) int {
		if i, ok := index[sr.ID]; ok {
			return i
		}
		index[sr.ID] = len(driver.Rules)
		driver.Rules = append(driver.Rules, sr)
		return index[sr.ID]
	}
	for _, rule := range rules {
		if rule != nil {
			addRule(sarifRuleOf(rule))
		}
	}

	results := make([]sarifResult, 0, len(r.Findings))
	for _, f := range r.Findings {
		// ruleIndex must point into driver.rules. A finding whose rule
		// is not in the described catalog (a caller-supplied subset, or an
		// unknown ID read back from JSON) gets a descriptor of its own.
		var ri int
		if i, ok := index[f.RuleID]; ok {
			ri = i
		} else if f.Rule != nil {
			ri = addRule(sarifRuleOf(f.Rule))
		} else {
			ri = addRule(sarifRule{ID: f.RuleID})
		}
		res := sarifResult{
			RuleID:              f.RuleID,
			RuleIndex:           ri,
			Level:               sarifLevel(f.Severity),
			Message:             sarifText{Text: f.Message},
			Locations:           []sarifLocation{sarifLocationOf(f.Location, true)},
			PartialFingerprints: map[string]string{FingerprintKey: Fingerprint(f)},
			Properties:          &sarifResultProps{Blame: f.Blame.String()},
		}
		for i, rel := range f.Related {
			loc := sarifLocationOf(rel.Location, false)
			id := i + 1
			loc.ID = &id
			loc.Message = &sarifText{Text: rel.Message}
			res.RelatedLocations = append(res.RelatedLocations, loc)
		}
		results = append(results, res)
	}

	log := sarifLog{
		Schema:  sarifSchema,
		Version: sarifVersion,
		Runs:    []sarifRun{{Tool: sarifTool{Driver: driver}, Results: results}},
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

func sarifRuleOf(r *Rule) sarifRule {
	sr := sarifRule{
		ID:                   r.ID,
		Name:                 camelName(r.Title),
		HelpURI:              r.Spec,
		DefaultConfiguration: &sarifRuleConf{Level: sarifLevel(r.Severity)},
		Properties:           &sarifRuleProps{TCK: r.TCK},
	}
	if r.Title != "" {
		sr.ShortDescription = &sarifText{Text: r.Title}
	}
	if r.Doc != "" {
		sr.FullDescription = &sarifText{Text: r.Doc}
	}
	if area := r.Area(); area != "" {
		sr.Properties.Tags = append(sr.Properties.Tags, area)
	}
	sr.Properties.Tags = append(sr.Properties.Tags, r.Blame.String())
	return sr
}

func sarifLevel(s Severity) string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	}
	return "note"
}

// sarifLocationOf places a finding in its file. The region is left out for
// line 0 (the transcript as a whole): SARIF has no line 0, and a missing
// region means the whole artifact. The JSON pointer, when set, names the
// member inside the message as a logical location.
func sarifLocationOf(l Location, withPointer bool) sarifLocation {
	pl := &sarifPhysical{ArtifactLocation: sarifArtifact{URI: artifactURI(l.File)}}
	if l.Line > 0 {
		pl.Region = &sarifRegion{StartLine: l.Line}
	}
	loc := sarifLocation{PhysicalLocation: pl}
	if withPointer && l.Pointer != "" {
		loc.LogicalLocations = []sarifLogicalLocation{{FullyQualifiedName: l.Pointer, Kind: "member"}}
	}
	return loc
}

// windowsAbs matches a drive-letter path after slashes were normalised.
var windowsAbs = regexp.MustCompile(`^[A-Za-z]:/`)

// artifactURI turns a file name as given on the command line into a URI
// reference. Relative paths stay relative, which is what GitHub needs to
// map results onto the repository; absolute ones become file: URIs.
// Characters that are not allowed in a URI (spaces, %, #, ?) are escaped.
func artifactURI(file string) string {
	p := fingerprintFile(file)
	switch {
	case windowsAbs.MatchString(p):
		return (&url.URL{Scheme: "file", Path: "/" + p}).String()
	case filepath.IsAbs(p) || strings.HasPrefix(p, "/"):
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	// url.URL prefixes "./" when the first segment contains a colon, so a
	// relative name such as "a:b.ndjson" is not misread as a scheme.
	return (&url.URL{Path: p}).String()
}

// camelName derives SARIF's human-readable rule name from the title:
// "session/new lacks mcpServers" becomes "SessionNewLacksMcpServers".
// Words keep their inner capitals so identifiers like mcpServers stay
// recognisable.
func camelName(title string) string {
	var b strings.Builder
	for _, word := range strings.FieldsFunc(title, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		rs := []rune(word)
		rs[0] = unicode.ToUpper(rs[0])
		b.WriteString(string(rs))
	}
	return b.String()
}
