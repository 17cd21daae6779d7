// Package version holds the version string both commands print.
package version

import "runtime/debug"

// Version is set at link time with -ldflags "-X .../internal/version.Version=v1.2.3";
// otherwise it comes from the module's build information.
var Version = ""

// String returns the module version and the VCS revision the binary was
// built from, e.g. "v0.0.0-20260301120000-63c10ca1b2c3+dirty (revision
// 63c10ca1b2c3, modified)" for a build in a checkout with uncommitted
// changes, or "v1.2.0" for go install …@v1.2.0 (no VCS information then).
func String() string {
	bi, _ := debug.ReadBuildInfo()
	return format(Version, bi)
}

func format(linked string, bi *debug.BuildInfo) string {
	v := linked
	if v == "" && bi != nil {
		v = bi.Main.Version
	}
	if v == "" {
		v = "(devel)"
	}
	if bi == nil {
		return v
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return v
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified == "true" {
		return v + " (revision " + rev + ", modified)"
	}
	return v + " (revision " + rev + ")"
}
