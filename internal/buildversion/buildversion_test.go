package buildversion

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	settings := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	for _, tc := range []struct {
		name    string
		version string
		set     []debug.BuildSetting
		want    string
	}{
		{"go install @version", "v1.2.3", nil, "v1.2.3"},
		{"clone with a pseudo-version", "v0.0.0-20250101120000-0123456789ab+dirty", settings("0123456789abcdef", "true"), "v0.0.0-20250101120000-0123456789ab+dirty"},
		{"clone, no version stamped", "(devel)", settings("0123456789abcdef", "false"), "devel-0123456789ab"},
		{"clone with changes", "(devel)", settings("0123456789abcdef", "true"), "devel-0123456789ab+dirty"},
		{"no VCS information", "(devel)", nil, "devel"},
	} {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/acplint/acplint", Version: tc.version}, Settings: tc.set}
		if got := fromBuildInfo(bi); got != tc.want {
			t.Errorf("%s: fromBuildInfo = %q, want %q", tc.name, got, tc.want)
		}
	}
}
