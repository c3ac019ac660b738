// Package buildversion is the version acplint's commands report: the one a
// release build stamps in with -ldflags "-X main.version=…", else the one
// the Go toolchain recorded. acplint and acplint-mcp share it, so that the
// MCP server names the same version as the command that starts it.
package buildversion

import "runtime/debug"

// Unstamped is the value of a command's main.version when no release
// build set it.
const Unstamped = "devel"

// String returns stamped unless it is Unstamped, else the version in the
// build information. Reading the build information allocates for every
// module linked: call it when a version is printed, not in init.
func String(stamped string) string {
	if stamped == Unstamped {
		if bi, ok := debug.ReadBuildInfo(); ok {
			return fromBuildInfo(bi)
		}
	}
	return stamped
}

// fromBuildInfo is the version the Go toolchain recorded: the module
// version for 'go install …@vX.Y.Z', or for a build in a clone the
// pseudo-version or "devel", with the VCS revision and "+dirty" for
// uncommitted changes, so that a report says which code produced it.
func fromBuildInfo(bi *debug.BuildInfo) string {
	v := bi.Main.Version
	var rev string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if v != "" && v != "(devel)" {
		return v // a module version or a pseudo-version, "+dirty" included
	}
	if rev == "" {
		return Unstamped
	}
	v = "devel-" + rev[:min(12, len(rev))]
	if dirty {
		v += "+dirty"
	}
	return v
}
