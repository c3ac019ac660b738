// Package conformance holds acplint's golden transcript corpus and, later,
// the harness that property-tests live agents.
//
// Each file under testdata/ is a txtar archive: a comment with a
// "covers:" line naming the rules the case exercises, a transcript
// section, and a "want" section listing the findings the transcript must
// produce, one per line as LINE RULE-ID "regexp". A covered rule with no
// want line is a passing case for that rule.
package conformance
