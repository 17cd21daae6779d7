package version

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFormat(t *testing.T) {
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "63c10ca1b2c3d4e5f60718293a4b5c6d7e8f9012"}, {Key: "vcs.modified", Value: modified}}
	}
	for _, c := range []struct {
		linked string
		bi     *debug.BuildInfo
		want   string
	}{
		{"", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "v1.2.0"},
		{"", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260301120000-63c10ca1b2c3+dirty"}, Settings: vcs("true")},
			"v0.0.0-20260301120000-63c10ca1b2c3+dirty (revision 63c10ca1b2c3, modified)"},
		{"", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("false")}, "(devel) (revision 63c10ca1b2c3)"},
		{"v9", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("false")}, "v9 (revision 63c10ca1b2c3)"},
		{"", nil, "(devel)"},
	} {
		assert.Equal(t, c.want, format(c.linked, c.bi))
	}
}
