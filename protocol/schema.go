package protocol

import (
	"strings"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
)

// The general schema rules (ACP-SCH-*): the codec problems of params and
// results that no check of a more specific rule takes. Their hooks have
// the least specific keys, so they run only for what is left.

// schemaProblem reports a value its schema rejects (ACP-SCH-001), or one
// reference receivers silently replace or skip (ACP-SCH-004).
func schemaProblem(p *Phase, c *ctx, pr problem) {
	if pr.drop != "" {
		droppedValue(c, pr)
		return
	}
	c.add(findings.SCHInvalid, pr.Pointer, "%s: %s; schema-checking receivers reject the message (SDK-based agents answer -32602)", describeMessage(c.m), pr.Detail)
}

// enumProblem reports a value a closed enum does not allow (ACP-SCH-005),
// or ACP-SCH-004 as schemaProblem does.
func enumProblem(p *Phase, c *ctx, pr problem) {
	if pr.drop != "" {
		droppedValue(c, pr)
		return
	}
	c.add(findings.SCHEnumValue, pr.Pointer, "%s: %s; the value is not one the closed enum allows, so typed receivers reject the message", describeMessage(c.m), pr.Detail)
}

func droppedValue(c *ctx, pr problem) {
	c.add(findings.SCHDroppedValue, pr.Pointer, "%s: %s; %s", describeMessage(c.m), pr.Detail, pr.drop)
}

// openEnumProblem reports a value an open enum does not list (ACP-SCH-005):
// receivers accept it, so it is a warning, or only information for an
// extension value.
func openEnumProblem(p *Phase, c *ctx, pr problem) {
	f := c.add(findings.SCHEnumValue, pr.Pointer, "%s", pr.Detail)
	if strings.HasPrefix(pr.Value, "_") {
		f.Severity = findings.SeverityInfo
		f.Message += " (an extension value, which receivers that do not know it treat as unknown)"
	} else {
		f.Severity = findings.SeverityWarning
		f.Message += "; values without a leading \"_\" are reserved for future ACP versions"
	}
}

// unknownMemberProblem reports a member the schema does not define
// (ACP-SCH-002).
func unknownMemberProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.SCHUnknownMember, pr.Pointer, "%s; custom data belongs under \"_meta\", and a later ACP version may define this name differently", pr.Detail)
}

// duplicateMemberProblem reports a member name that appears twice in one
// object of params or a result. JSON says names SHOULD be unique, and
// decoders disagree on which copy wins (Go keeps the last, acplint the
// first), so the two peers may read different messages.
func duplicateMemberProblem(p *Phase, c *ctx, pr problem) {
	f := c.add(findings.SCHInvalid, pr.Pointer, "%s", pr.Detail)
	f.Severity = findings.SeverityWarning
}

// nullResultProblem reports "result": null where the schema wants an
// object (ACP-SCH-003).
func nullResultProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.SCHNullResult, pr.Pointer, "%s; reference receivers accept null, but schema validators do not", pr.Detail)
}

// schemaHooks are the schema check's hooks. Besides the general routes,
// it takes the problems of Elicitation* definitions outside an
// elicitation/create request as plain schema problems: they are no
// request shape (ACP-ELIC-001), and the capability and enum rules never
// judged them.
func schemaHooks() []Hook {
	return []Hook{
		onProblem(schemaProblem, ProblemKey{Kinds: schemaKinds}),
		onProblem(schemaProblem, ProblemKey{Kinds: schemaKinds, DefPrefix: "Elicitation"}),
		onProblem(enumProblem, ProblemKey{Kinds: []domain.ProblemKind{domain.ProbEnum}}),
		onProblem(openEnumProblem, ProblemKey{Kinds: []domain.ProblemKind{domain.ProbOpenEnum}}),
		onProblem(unknownMemberProblem, ProblemKey{Kinds: []domain.ProblemKind{domain.ProbUnknownMember}}),
		onProblem(duplicateMemberProblem, ProblemKey{Kinds: []domain.ProblemKind{domain.ProbDuplicate}}),
		onProblem(nullResultProblem, ProblemKey{Kinds: []domain.ProblemKind{domain.ProbNullResult}}),
	}
}
