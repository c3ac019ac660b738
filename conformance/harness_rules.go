package conformance

import (
	"slices"
	"strings"

	"github.com/acplint/acplint/findings"
)

// HarnessChecks returns the checks acplint check makes itself (CHECK-*),
// ordered by ID, so that every ID check prints can be listed and
// explained.
func HarnessChecks() []*findings.Rule {
	rules := make([]*findings.Rule, 0, len(harnessChecks))
	for _, r := range harnessChecks {
		rules = append(rules, r)
	}
	slices.SortFunc(rules, func(a, b *findings.Rule) int { return strings.Compare(a.ID, b.ID) })
	return rules
}
