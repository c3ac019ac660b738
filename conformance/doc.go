// Package conformance holds acplint's golden transcript corpus and the
// harness behind `acplint check`, which plays the client against a live
// agent through generated sequences (pgregory.net/rapid, in the copy
// under internal/third_party/rapid), judges every message with the
// protocol machine and shrinks a failure to a transcript that `acplint
// lint` reproduces.
//
// Each file under testdata/ is a txtar archive: a comment with a
// "covers:" line naming the rules the case exercises, a transcript
// section, and a "want" section listing the findings the transcript must
// produce, one per line as LINE RULE-ID "regexp". A covered rule with no
// want line is a passing case for that rule. A rule a transcript cannot
// show yet is listed, with the reason, in its area's todo.txt.
package conformance
