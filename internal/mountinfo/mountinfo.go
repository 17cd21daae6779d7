// Package mountinfo reads the kernel's mount table, /proc/self/mountinfo:
// what fsmount --list, -u and the mount-point lock see, and what the tests
// check for mounts left behind. It is the one reader of the file, and
// of other namespaces' tables (where copies of a FUSE mount live), and it
// says whether fusectl, where a FUSE connection is aborted, shows.
package mountinfo

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Path is the calling process's mount table.
const Path = "/proc/self/mountinfo"

// Entry is one line of /proc/self/mountinfo.
type Entry struct {
	ID           int
	Major        int    // the device's; 0 for FUSE and other filesystems without one
	Minor        int    // for FUSE, the connection number in /sys/fs/fuse/connections
	Point        string // the mount point, unescaped
	FSType       string
	Source       string // for fsmount, the model as it was named
	UserID       int    // user_id= of a FUSE mount: who mounted it; -1 if absent
	SuperOptions string
}

// Read parses /proc/self/mountinfo.
func Read() ([]Entry, error) { return ReadFile(Path) }

// ReadFile parses a mount table in mountinfo's format.
func ReadFile(path string) ([]Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Entry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if e, ok := ParseLine(sc.Text()); ok {
			out = append(out, e)
		}
	}
	return out, sc.Err()
}

// ParseLine parses "36 35 0:39 / /mnt/q ro,nosuid - fuse.fsmount
// models/q ro,user_id=0,...": the optional fields before "-" vary.
func ParseLine(line string) (Entry, bool) {
	f := strings.Fields(line)
	sep := -1
	for i := 6; i < len(f); i++ {
		if f[i] == "-" {
			sep = i
			break
		}
	}
	if len(f) < 5 || sep < 0 || sep+3 > len(f) {
		return Entry{}, false
	}
	e := Entry{Point: unescape(f[4]), FSType: f[sep+1], Source: unescape(f[sep+2]), UserID: -1}
	e.ID, _ = strconv.Atoi(f[0])
	if major, minor, ok := strings.Cut(f[2], ":"); ok {
		e.Major, _ = strconv.Atoi(major)
		e.Minor, _ = strconv.Atoi(minor)
	}
	if sep+3 < len(f) {
		e.SuperOptions = f[sep+3]
		for _, o := range strings.Split(e.SuperOptions, ",") {
			if v, ok := strings.CutPrefix(o, "user_id="); ok {
				if n, err := strconv.Atoi(v); err == nil {
					e.UserID = n
				}
			}
		}
	}
	return e, true
}

// unescape undoes the kernel's octal escapes (\040 for a space,
// \011, \012, \134).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Top returns the mount that path resolves to when it is a mount
// point itself (the last, i.e. topmost, of stacked mounts), or nil.
func Top(entries []Entry, path string) *Entry {
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].Point == path {
			return &entries[i]
		}
	}
	return nil
}

// Elsewhere returns, for each mount namespace other than the caller's
// that holds a mount of FUSE connection conn, a process in it. A new
// namespace (unshare -m, a container, a service's private mounts)
// starts with a copy of every mount there is, and the kernel keeps a
// FUSE connection, and its daemon's requests coming, until the last copy
// is gone: unmounting the caller's own mount then does not end it.
// Namespaces whose processes cannot be read (not root) are not seen.
func Elsewhere(conn int) []int {
	own, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		return nil
	}
	seen := map[string]bool{own: true}
	var out []int
	procs, _ := filepath.Glob("/proc/[0-9]*/ns/mnt")
	for _, p := range procs {
		ns, err := os.Readlink(p)
		if err != nil || seen[ns] {
			continue
		}
		dir := filepath.Dir(filepath.Dir(p))
		es, err := ReadFile(filepath.Join(dir, "mountinfo"))
		if err != nil {
			continue // gone meanwhile: the next process of its namespace may say
		}
		seen[ns] = true
		for _, e := range es {
			if e.Major == 0 && e.Minor == conn && (e.FSType == "fuse" || strings.HasPrefix(e.FSType, "fuse.")) {
				pid, _ := strconv.Atoi(filepath.Base(dir))
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// Connections is where fusectl, the kernel's FUSE control filesystem,
// is mounted: a directory per FUSE connection, named by its number (a
// FUSE mount's Minor), whose abort file ends the connection.
const Connections = "/sys/fs/fuse/connections"

// fusectlMagic is fusectl's filesystem type in statfs(2)
// (FUSE_CTL_SUPER_MAGIC).
const fusectlMagic = 0x65735543

// FusectlAt reports whether path shows fusectl. It asks the path
// (statfs), not the mount table: the table also lists a fusectl mount
// hidden under a later mount (a tmpfs over it, a sysfs mounted again
// over /sys), where no connection can be found. A path that does not
// exist shows no fusectl; statfs never waits on a FUSE daemon here, as
// neither sysfs nor fusectl has one.
func FusectlAt(path string) (bool, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
			return false, nil
		}
		return false, &os.PathError{Op: "statfs", Path: path, Err: err}
	}
	return st.Type == fusectlMagic, nil
}

// FusectlListed reports whether the mount table lists fusectl mounted on path
// (visible there or not: see FusectlAt).
func FusectlListed(entries []Entry, path string) bool {
	for _, e := range entries {
		if e.Point == path && e.FSType == "fusectl" {
			return true
		}
	}
	return false
}
