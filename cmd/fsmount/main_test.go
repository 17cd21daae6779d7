package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/cli"
	"github.com/fsmount/fsmount/internal/mountinfo"
)

func TestNoDevFuse(t *testing.T) {
	saved := devFuse
	devFuse = filepath.Join(t.TempDir(), "fuse")
	defer func() { devFuse = saved }()
	var out, errb bytes.Buffer
	code := run([]string{"../../testdata/tiny-qwen3", t.TempDir()}, &out, &errb)
	assert.Equal(t, cli.ExitMountPoint, code)
	assert.Equal(t, 1, strings.Count(errb.String(), "\n"), errb.String())
	assert.Contains(t, errb.String(), "fsmount: "+devFuse+" is missing: FUSE is not available here")
}

func TestParseArgs(t *testing.T) {
	for _, c := range []struct {
		args []string
		want config
	}{
		{[]string{"m", "d"}, config{args: []string{"m", "d"}}},
		{[]string{"m", "d", "-f"}, config{foreground: true, args: []string{"m", "d"}}},
		{[]string{"-o", "allow_other,ro", "m", "d"}, config{allowOther: true, args: []string{"m", "d"}}},
		{[]string{"m", "--allow-other", "d", "--mmap"}, config{allowOther: true, mmap: true, args: []string{"m", "d"}}},
		{[]string{"--passthrough", "m", "d"}, config{passthrough: true, args: []string{"m", "d"}}},
		{[]string{"-d", "m", "d"}, config{debug: true, foreground: true, args: []string{"m", "d"}}},
		{[]string{"-u", "d"}, config{unmount: true, args: []string{"d"}}},
		{[]string{"d", "--unmount"}, config{unmount: true, args: []string{"d"}}},
		{[]string{"--timeout", "30s", "m", "d"}, config{timeout: cli.Timeout(30 * time.Second), args: []string{"m", "d"}}},
	} {
		got, err := parseArgs(c.args)
		require.NoError(t, err, c.args)
		assert.Equal(t, c.want, *got, c.args)
	}
	for _, bad := range [][]string{{}, {"m"}, {"m", "d", "e"}, {"-u"}, {"-u", "a", "b"}, {"-o", "rw", "m", "d"}, {"--nope", "m", "d"}, {"--timeout", "0", "m", "d"}, {"--timeout", "-1s", "m", "d"}} {
		_, err := parseArgs(bad)
		var ue *usageError
		assert.ErrorAs(t, err, &ue, "%v", bad)
	}
}

func TestCheckMountpoint(t *testing.T) {
	dir := t.TempDir()
	assert.NoError(t, checkMountpoint(dir))
	assert.ErrorContains(t, checkMountpoint(filepath.Join(dir, "nope")), "does not exist")
}

func TestShortCount(t *testing.T) {
	for n, want := range map[uint64]string{0: "0", 311: "311", 999: "999", 1000: "1K", 28_896: "28.9K", 596_049_920: "596M", 751_632_384: "752M", 999_600: "1M", 1_500_000_000: "1.5B", 30_532_122_624: "30.5B"} {
		assert.Equal(t, want, shortCount(n), n)
	}
}

// TestListEscapes: --list (which shows root every user's mounts) prints a
// mount point and a model named with terminal escapes, a tab or a newline
// escaped, never raw: another user's names cannot drive root's terminal
// or break the table.
func TestListEscapes(t *testing.T) {
	dir := t.TempDir()
	point := filepath.Join(dir, "m\x1b[31mred")
	require.NoError(t, os.Mkdir(point, 0o755))
	info := filepath.Join(dir, "mountinfo")
	line := "42 27 0:99999 / " + strings.ReplaceAll(point, " ", `\040`) +
		" ro,nosuid - fuse.fsmount e\x1b]0;PWNED\x07x\\011y\\012z.gguf ro,user_id=0,group_id=0\n"
	require.NoError(t, os.WriteFile(info, []byte(line), 0o600))
	old := mountinfoPath
	mountinfoPath = info
	t.Cleanup(func() { mountinfoPath = old })
	var out, errb bytes.Buffer
	require.Equal(t, cli.ExitOK, list(&out, &errb), errb.String())
	assert.NotContains(t, out.String(), "\x1b")
	assert.NotContains(t, out.String(), "\x07")
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.Len(t, lines, 2, out.String())
	assert.Equal(t, []string{filepath.Join(dir, `m\x1b[31mred`), `e\x1b]0;PWNED\x07x\ty\nz.gguf`}, strings.Fields(lines[1])[:2], out.String())
}

func TestUnmountRefusals(t *testing.T) {
	dir := t.TempDir()
	assert.EqualError(t, unmount(dir, nil), dir+" is not a mount point")
	assert.EqualError(t, unmount(filepath.Join(dir, "nope"), nil), filepath.Join(dir, "nope")+" does not exist")
	assert.ErrorContains(t, unmount("/proc", nil), "/proc is not an fsmount mount (it is proc from proc): left alone")
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "512": 512, "64K": 64 << 10, "512M": 512 << 20, "10g": 10 << 30, "2T": 2 << 40} {
		got, err := parseSize(in)
		if err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "G", "-1", "1.5G", "x", "99999999999T"} {
		if bad == "" {
			continue // the flag's empty default means "not given"
		}
		if _, err := parseSize(bad); err == nil {
			t.Errorf("parseSize(%q) accepted", bad)
		}
	}
	if _, err := parseArgs([]string{"--cache-size", "lots", "m", "d"}); err == nil {
		t.Error("a bad --cache-size is a usage error")
	}
}

// TestDaemonEnded: a daemon that ends before its mount is ready passes on
// the status it reported; one that dies without a word after exiting
// non-zero crashed (Go exits 2 on a panic off the main goroutine), which
// must read as an internal error, not as an invalid model.
func TestDaemonEnded(t *testing.T) {
	var stderr bytes.Buffer
	assert.Equal(t, cli.ExitInvalid, daemonEnded("exit 2\n", nil, "/mnt", &stderr))
	assert.Empty(t, stderr.String())

	crash := exec.Command("sh", "-c", "exit 2").Run()
	require.Error(t, crash)
	assert.Equal(t, cli.ExitInternal, daemonEnded("", crash, "/mnt", &stderr))
	assert.Contains(t, stderr.String(), "fsmount: internal error, please report: the daemon crashed (exit status 2)")

	stderr.Reset()
	killed := exec.Command("sh", "-c", "kill -9 $$").Run()
	assert.Equal(t, cli.ExitFailed, daemonEnded("", killed, "/mnt", &stderr))
	assert.Contains(t, stderr.String(), "the daemon ended before the mount was ready (signal: killed)")
}

// TestMountGoneIDReused: the kernel gives a new mount the lowest free
// mount ID, so right after an unmount another mount can hold the old
// one's ID; that is not the old mount still there (it failed fsmount -u
// once in CI, with the e2e runs mounting beside it).
func TestMountGoneIDReused(t *testing.T) {
	dir := t.TempDir()
	info := filepath.Join(dir, "mountinfo")
	old := mountinfoPath
	mountinfoPath = info
	t.Cleanup(func() { mountinfoPath = old })
	gone := &mountinfo.Entry{ID: 42, Minor: 99, Point: filepath.Join(dir, "a")}
	for _, c := range []struct {
		table string
		want  bool
	}{
		{"42 27 0:99 / " + gone.Point + " ro - fuse.fsmount m ro,user_id=0\n", false},
		{"42 27 0:100 / " + filepath.Join(dir, "b") + " ro - fuse.fsmount m ro,user_id=0\n", true},
		{"42 27 0:99 / " + filepath.Join(dir, "b") + " ro - fuse.fsmount m ro,user_id=0\n", true},
		{"43 27 0:100 / " + gone.Point + " ro - fuse.fsmount m ro,user_id=0\n", true},
		{"", true},
	} {
		require.NoError(t, os.WriteFile(info, []byte(c.table), 0o600))
		got, err := mountGone(gone)
		require.NoError(t, err)
		assert.Equal(t, c.want, got, c.table)
	}
}
