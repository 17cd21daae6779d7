// Package version holds the version string both commands print.
package version

import "runtime/debug"

// Version is set at link time with -ldflags "-X .../internal/version.Version=v1.2.3";
// otherwise it comes from the module's build information.
var Version = ""

// String returns the version, "devel" when nothing better is known.
func String() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			return v
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				return "devel-" + s.Value[:12]
			}
		}
	}
	return "devel"
}
