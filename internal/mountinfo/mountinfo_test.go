package mountinfo

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseLine(t *testing.T) {
	e, ok := ParseLine(`42 27 0:39 / /tmp/a\040b ro,nosuid,nodev,relatime shared:5 - fuse.fsmount models/m\134x ro,user_id=1000,group_id=1000,default_permissions`)
	require.True(t, ok)
	assert.Equal(t, Entry{ID: 42, Minor: 39, Point: "/tmp/a b", FSType: "fuse.fsmount", Source: `models/m\x`, UserID: 1000,
		SuperOptions: "ro,user_id=1000,group_id=1000,default_permissions"}, e)
	e, ok = ParseLine("25 1 0:22 / /proc rw,nosuid - proc proc rw")
	require.True(t, ok)
	assert.Equal(t, -1, e.UserID)
	assert.Equal(t, "proc", e.FSType)
	e, ok = ParseLine("30 1 259:2 / / rw,relatime - ext4 /dev/nvme0n1p2 rw")
	require.True(t, ok)
	assert.Equal(t, [2]int{259, 2}, [2]int{e.Major, e.Minor})
	_, ok = ParseLine("garbage")
	assert.False(t, ok)
	assert.Equal(t, `a\0`, unescape(`a\0`), "a short escape is kept")
}

// TestRead: this process's own table holds its root; no other
// namespace holds a FUSE connection that does not exist.
func TestRead(t *testing.T) {
	es, err := Read()
	require.NoError(t, err)
	assert.NotNil(t, Top(es, "/"))
	assert.Empty(t, Elsewhere(1<<19), "a connection number no mount has")
}

// TestFusectlAt: fusectl shows where it is mounted and visible, and
// nowhere else; the table's listing alone does not make it show.
func TestFusectlAt(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{dir, filepath.Join(dir, "absent"), filepath.Join(dir, "absent", "deeper")} {
		shown, err := FusectlAt(p)
		require.NoError(t, err, p)
		assert.False(t, shown, p)
	}
	es, err := Read()
	require.NoError(t, err)
	assert.False(t, FusectlListed(es, dir))
	if !FusectlListed(es, Connections) {
		t.Skip("SKIPPING the live half: fusectl is not mounted on " + Connections)
	}
	// Listed, and no mount after it on its path or a parent: it shows.
	at := -1
	for i, e := range es {
		if e.Point == Connections && e.FSType == "fusectl" {
			at = i
		}
	}
	for _, e := range es[at+1:] {
		if e.Point == Connections || strings.HasPrefix(Connections, strings.TrimSuffix(e.Point, "/")+"/") {
			t.Skipf("SKIPPING the live half: %s is mounted after fusectl, over it", e.Point)
		}
	}
	shown, err := FusectlAt(Connections)
	require.NoError(t, err)
	assert.True(t, shown)
}
