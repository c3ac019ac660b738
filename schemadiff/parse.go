package schemadiff

import (
	"fmt"
	"strings"

	"github.com/acplint/acplint/findings"
)

// ParseFailOn reads a gate: a severity (a change at or above it fails),
// or "none" (gate is false: nothing fails).
func ParseFailOn(s string) (threshold findings.Severity, gate bool, err error) {
	if strings.EqualFold(s, "none") {
		return 0, false, nil
	}
	sev, err := findings.ParseSeverity(s)
	if err != nil {
		return 0, false, fmt.Errorf("unknown severity %q (want error, warning, info or none)", s)
	}
	return sev, true, nil
}

// ParseSurface reads a surface name for Result.Filter: "all" (or "")
// gives nil, both surfaces.
func ParseSurface(s string) (map[Surface]bool, error) {
	switch strings.ToLower(s) {
	case "all", "":
		return nil, nil
	case "stable":
		return map[Surface]bool{Stable: true}, nil
	case "unstable":
		return map[Surface]bool{Unstable: true}, nil
	}
	return nil, fmt.Errorf("unknown surface %q (want all, stable or unstable)", s)
}
