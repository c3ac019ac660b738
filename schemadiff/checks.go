package schemadiff

import "github.com/acplint/acplint/findings"

// The checks of a schema diff. Their IDs are public and stable, like the
// lint rule IDs: CI configurations and SARIF baselines refer to them. The
// Severity of each is its default gate (error fails with the default
// --fail-on, warning warns, info notes), following the recommended
// classification in acp-spec.md §f.4; a change may carry another severity
// when its context makes it harmless (an added enum value of an open enum)
// or worse (a member added to a closed object).
//
// They are findings.Rule values so that the findings reporters (SARIF,
// GitHub annotations, JUnit) describe them, but they are not part of the
// lint rule catalog: no transcript can break them.
var (
	DiffMethodRemoved = &findings.Rule{ID: "ACP-DIFF-001", Title: "method removed", Severity: findings.SeverityError,
		Doc: "A method (or one of its message kinds) of the old schema is gone from the new one. Old peers that send it get -32601 (method not found) from new peers, and new peers never send what old peers wait for."}
	DiffMethodAdded = &findings.Rule{ID: "ACP-DIFF-002", Title: "method added", Severity: findings.SeverityInfo,
		Doc: "The new schema defines a method the old one does not. Nothing old breaks: peers only send new methods after the other side advertised support."}
	DiffDirectionChanged = &findings.Rule{ID: "ACP-DIFF-003", Title: "method changed direction", Severity: findings.SeverityError,
		Doc: "The side that implements the method (x-side) changed, so a side that used to send it may no longer, or a side must now answer a method it never handled."}
	DiffStabilized = &findings.Rule{ID: "ACP-DIFF-004", Title: "moved from the unstable to the stable surface", Severity: findings.SeverityInfo,
		Doc: "A method, member or variant lost upstream's UNSTABLE marker (or joined the stable method table). Peers may now rely on it without opting in to unstable features."}
	DiffDestabilized = &findings.Rule{ID: "ACP-DIFF-005", Title: "moved from the stable to the unstable surface", Severity: findings.SeverityWarning,
		Doc: "A stable method, member or variant is now marked UNSTABLE: it may change or disappear in any later release."}
	DiffRequiredAdded = &findings.Rule{ID: "ACP-DIFF-010", Title: "required member added", Severity: findings.SeverityError,
		Doc: "An object gained a member that the new schema requires. Old writers do not send it, so readers on the new schema reject their messages (SDK-based peers answer -32602). A renamed required member shows up as this change plus ACP-DIFF-012."}
	DiffOptionalAdded = &findings.Rule{ID: "ACP-DIFF-011", Title: "optional member added", Severity: findings.SeverityInfo,
		Doc: "An object gained an optional member. Old readers ignore unknown members (the schema does not close objects), so nothing breaks; the change is listed so reviewers see the new surface."}
	DiffMemberRemoved = &findings.Rule{ID: "ACP-DIFF-012", Title: "member removed", Severity: findings.SeverityError,
		Doc: "An object lost a member. When it was required, new writers omit it and old readers reject their messages: breaking. When it was optional, both schemas still accept the old messages (the member becomes an unknown one), but new readers ignore what old writers send: unclassified, for a person to judge. Renames show up as this change plus an added member."}
	DiffNowRequired = &findings.Rule{ID: "ACP-DIFF-013", Title: "optional member became required", Severity: findings.SeverityError,
		Doc: "Old writers may leave the member out; readers on the new schema reject such messages."}
	DiffNowOptional = &findings.Rule{ID: "ACP-DIFF-014", Title: "required member became optional", Severity: findings.SeverityWarning,
		Doc: "New writers may leave the member out; old readers that require it reject such messages."}
	DiffEnumValueAdded = &findings.Rule{ID: "ACP-DIFF-020", Title: "enum value added", Severity: findings.SeverityWarning,
		Doc: "A closed enum admits a new value. New writers may send it and old readers with a closed enum reject it; readers that map unknown values to a fallback are fine. An open enum (one with a catch-all member) makes this a note."}
	DiffEnumValueRemoved = &findings.Rule{ID: "ACP-DIFF-021", Title: "enum value removed", Severity: findings.SeverityError,
		Doc: "A value old writers may send is no longer admitted, so readers on the new schema reject it."}
	DiffEnumOpened = &findings.Rule{ID: "ACP-DIFF-022", Title: "closed enum became open", Severity: findings.SeverityWarning,
		Doc: "The enum gained a catch-all member: new writers may send values old readers reject."}
	DiffEnumClosed = &findings.Rule{ID: "ACP-DIFF-023", Title: "open enum became closed", Severity: findings.SeverityError,
		Doc: "The enum lost its catch-all member: values old writers could send outside the listed ones are now rejected."}
	DiffVariantAdded = &findings.Rule{ID: "ACP-DIFF-030", Title: "union variant added", Severity: findings.SeverityWarning,
		Doc: "A union (such as the sessionUpdate kinds or the McpServer transports) gained a variant. New writers may send it and old readers with an exhaustive decoder reject the whole message; when the old union had a catch-all variant it is a note."}
	DiffVariantRemoved = &findings.Rule{ID: "ACP-DIFF-031", Title: "union variant removed", Severity: findings.SeverityError,
		Doc: "A variant old writers may send is gone, so readers on the new schema reject it (or, with a catch-all variant, no longer understand it)."}
	DiffNowNullable = &findings.Rule{ID: "ACP-DIFF-040", Title: "member became nullable", Severity: findings.SeverityError,
		Doc: "The new schema admits null where the old one did not: new writers may send null and old readers reject it."}
	DiffNoLongerNullable = &findings.Rule{ID: "ACP-DIFF-041", Title: "member no longer nullable", Severity: findings.SeverityError,
		Doc: "The old schema admitted null and the new one does not: old writers that send null are rejected by new readers."}
	DiffTypeWidened = &findings.Rule{ID: "ACP-DIFF-042", Title: "type widened", Severity: findings.SeverityError,
		Doc: "The new schema admits JSON types (or values outside an enum) the old one did not: new writers may send them and old readers reject them."}
	DiffTypeNarrowed = &findings.Rule{ID: "ACP-DIFF-043", Title: "type narrowed", Severity: findings.SeverityError,
		Doc: "The new schema rejects JSON types (or values) the old one admitted: old writers that send them are rejected by new readers."}
	DiffTypeChanged = &findings.Rule{ID: "ACP-DIFF-044", Title: "type changed", Severity: findings.SeverityError,
		Doc: "The old and the new schema admit different JSON types, neither a subset of the other: breaking in both directions."}
	DiffRangeNarrowed = &findings.Rule{ID: "ACP-DIFF-045", Title: "number range narrowed", Severity: findings.SeverityError,
		Doc: "A minimum, maximum or integer format (uint64, uint32, …) got tighter: old writers' values outside the new range are rejected."}
	DiffRangeWidened = &findings.Rule{ID: "ACP-DIFF-046", Title: "number range widened", Severity: findings.SeverityWarning,
		Doc: "A minimum, maximum or integer format got looser: new writers may send numbers old readers reject."}
	DiffLenientAdded = &findings.Rule{ID: "ACP-DIFF-050", Title: "receivers became more lenient", Severity: findings.SeverityInfo,
		Doc: "An x-deserialize-* hint was added: reference receivers now replace a malformed (or null) value with its default, or skip bad items, instead of rejecting the message. Behaviour only; what writers must send is unchanged."}
	DiffLenientRemoved = &findings.Rule{ID: "ACP-DIFF-051", Title: "receivers became stricter", Severity: findings.SeverityWarning,
		Doc: "An x-deserialize-* hint was dropped: reference receivers on the new schema reject malformed values that old ones silently replaced with a default. Conformant writers are unaffected; sloppy ones now get -32602. Behavioural, so unclassified."}
	DiffNotComparable = &findings.Rule{ID: "ACP-DIFF-060", Title: "change acplint cannot classify", Severity: findings.SeverityWarning,
		Doc: "The two schemas differ in a way the wire-shape comparison does not model (a recursive definition renamed, a union restructured beyond matching). A person has to judge it."}
)

// Checks returns every schema-diff check, ordered by ID.
func Checks() []*findings.Rule {
	return []*findings.Rule{
		DiffMethodRemoved, DiffMethodAdded, DiffDirectionChanged, DiffStabilized, DiffDestabilized,
		DiffRequiredAdded, DiffOptionalAdded, DiffMemberRemoved, DiffNowRequired, DiffNowOptional,
		DiffEnumValueAdded, DiffEnumValueRemoved, DiffEnumOpened, DiffEnumClosed,
		DiffVariantAdded, DiffVariantRemoved,
		DiffNowNullable, DiffNoLongerNullable, DiffTypeWidened, DiffTypeNarrowed, DiffTypeChanged,
		DiffRangeNarrowed, DiffRangeWidened,
		DiffLenientAdded, DiffLenientRemoved, DiffNotComparable,
	}
}
