package domain

// Unions lists every union of the stable v1 schema.
var Unions = concatUnions(
	contentUnions,
	initializeUnions,
	sessionUnions,
	updateUnions,
	toolCallUnions,
	permissionUnions,
	elicitationUnions,
)

func concatUnions(groups ...[]*Union) []*Union {
	var out []*Union
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}
