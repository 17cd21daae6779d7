package e2e

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/safetensors"
)

// TestConformance checks the POSIX semantics a reader relies on, through
// the mount, as a table of named checks. pjdfstest is not packaged by
// Debian or the Go module proxy, so these are our own; each row says what
// it checks and the test prints the table.
func TestConformance(t *testing.T) {
	model := repoPath("testdata", "tiny-qwen3")
	mnt, _ := mountModel(t, model)
	f, err := safetensors.Open(filepath.Join(model, "model.safetensors"))
	require.NoError(t, err)
	defer f.Close()
	q := f.Tensor("model.layers.0.self_attn.q_proj.weight")
	data := filepath.Join(mnt, "layers/0/self_attn/q_proj/data")
	dir := filepath.Join(mnt, "layers/0/self_attn")
	link := filepath.Join(mnt, "by-name", q.Name)
	src, err := os.Stat(filepath.Join(model, "model.safetensors"))
	require.NoError(t, err)

	stat := func(p string) (*unix.Stat_t, error) {
		var st unix.Stat_t
		return &st, unix.Stat(p, &st)
	}
	errIs := func(err, want error) error {
		if !errors.Is(err, want) {
			return fmt.Errorf("got %v, want %v", err, want)
		}
		return nil
	}
	checks := []struct {
		name string
		run  func() error
	}{
		{"stat file: S_IFREG 0444, size = tensor bytes, nlink 1, blocks", func() error {
			st, err := stat(data)
			if err != nil {
				return err
			}
			if st.Mode != unix.S_IFREG|0o444 || st.Size != q.Length || st.Nlink != 1 || st.Blocks != (q.Length+511)/512 {
				return fmt.Errorf("mode %o size %d nlink %d blocks %d", st.Mode, st.Size, st.Nlink, st.Blocks)
			}
			return nil
		}},
		{"stat dir: S_IFDIR 0555, nlink 2", func() error {
			st, err := stat(dir)
			if err != nil {
				return err
			}
			if st.Mode != unix.S_IFDIR|0o555 || st.Nlink != 2 {
				return fmt.Errorf("mode %o nlink %d", st.Mode, st.Nlink)
			}
			return nil
		}},
		{"owner is the mounting user; mtime is the source's", func() error {
			st, err := stat(data)
			if err != nil {
				return err
			}
			if int(st.Uid) != os.Getuid() || int(st.Gid) != os.Getgid() || st.Mtim.Sec != src.ModTime().Unix() {
				return fmt.Errorf("uid %d gid %d mtime %d", st.Uid, st.Gid, st.Mtim.Sec)
			}
			return nil
		}},
		{"inode numbers unique and stable", func() error {
			a, err := stat(data)
			if err != nil {
				return err
			}
			b, _ := stat(data)
			c, _ := stat(filepath.Join(mnt, "layers/0/self_attn/q_proj/shape"))
			if a.Ino != b.Ino || a.Ino == c.Ino {
				return fmt.Errorf("ino %d %d %d", a.Ino, b.Ino, c.Ino)
			}
			return nil
		}},
		{"lstat symlink: S_IFLNK, size = target length; stat follows it", func() error {
			var st unix.Stat_t
			if err := unix.Lstat(link, &st); err != nil {
				return err
			}
			target, _ := os.Readlink(link)
			fst, err := stat(link)
			if err != nil {
				return err
			}
			if st.Mode&unix.S_IFMT != unix.S_IFLNK || st.Size != int64(len(target)) || fst.Mode&unix.S_IFMT != unix.S_IFDIR {
				return fmt.Errorf("lstat mode %o size %d, stat mode %o", st.Mode, st.Size, fst.Mode)
			}
			return nil
		}},
		{"readlink of a file is EINVAL", func() error { _, err := os.Readlink(data); return errIs(err, syscall.EINVAL) }},
		{"'..' leads back to the parent", func() error {
			a, _ := stat(filepath.Join(mnt, "layers", ".."))
			b, err := stat(mnt)
			if err != nil || a.Ino != b.Ino {
				return fmt.Errorf("ino %d vs %d (%v)", a.Ino, b.Ino, err)
			}
			return nil
		}},
		{"readdir: sorted, d_type right, same twice", func() error {
			a, err := os.ReadDir(dir)
			if err != nil {
				return err
			}
			b, _ := os.ReadDir(dir)
			var names []string
			for i, e := range a {
				names = append(names, e.Name())
				if e.Name() != b[i].Name() || !e.IsDir() {
					return fmt.Errorf("entry %q", e.Name())
				}
			}
			if !slices.IsSorted(names) || len(names) != 6 {
				return fmt.Errorf("%v", names)
			}
			files, _ := os.ReadDir(filepath.Dir(data))
			for _, e := range files {
				if !e.Type().IsRegular() {
					return fmt.Errorf("%s type %v", e.Name(), e.Type())
				}
			}
			return nil
		}},
		{"rewinddir: a second pass after seeking to 0 sees everything", func() error {
			d, err := os.Open(dir)
			if err != nil {
				return err
			}
			defer d.Close()
			first, _ := d.Readdirnames(2)
			if _, err := d.Seek(0, io.SeekStart); err != nil {
				return err
			}
			all, err := d.Readdirnames(-1)
			if err != nil || len(all) != 6 || all[0] != first[0] {
				return fmt.Errorf("%v then %v (%v)", first, all, err)
			}
			return nil
		}},
		{"lseek SET/CUR/END and read at EOF", func() error {
			fd, err := os.Open(data)
			if err != nil {
				return err
			}
			defer fd.Close()
			if off, _ := fd.Seek(0, io.SeekEnd); off != q.Length {
				return fmt.Errorf("SEEK_END %d", off)
			}
			if off, _ := fd.Seek(-10, io.SeekCurrent); off != q.Length-10 {
				return fmt.Errorf("SEEK_CUR %d", off)
			}
			b, _ := io.ReadAll(fd)
			if string(b) != string(testmodel.Bytes(q)[q.Length-10:]) {
				return errors.New("tail differs")
			}
			fd.Seek(q.Length+100, io.SeekStart)
			if n, err := fd.Read(make([]byte, 10)); n != 0 || err != io.EOF {
				return fmt.Errorf("read past EOF: %d %v", n, err)
			}
			return nil
		}},
		{"pread at a negative offset is EINVAL", func() error {
			fd, err := os.Open(data)
			if err != nil {
				return err
			}
			defer fd.Close()
			_, err = unix.Pread(int(fd.Fd()), make([]byte, 4), -1)
			return errIs(err, syscall.EINVAL)
		}},
		{"mmap shared read-only sees the tensor's bytes", func() error {
			fd, err := os.Open(data)
			if err != nil {
				return err
			}
			defer fd.Close()
			m, err := unix.Mmap(int(fd.Fd()), 0, int(q.Length), unix.PROT_READ, unix.MAP_SHARED)
			if err != nil {
				return err
			}
			defer unix.Munmap(m)
			if string(m) != string(testmodel.Bytes(q)) {
				return errors.New("mapped bytes differ")
			}
			return nil
		}},
		{"mmap shared writable is refused (EACCES)", func() error {
			fd, err := os.Open(data)
			if err != nil {
				return err
			}
			defer fd.Close()
			_, err = unix.Mmap(int(fd.Fd()), 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
			return errIs(err, syscall.EACCES)
		}},
		{"mmap private writable copies on write, the file is unchanged", func() error {
			fd, err := os.Open(data)
			if err != nil {
				return err
			}
			defer fd.Close()
			m, err := unix.Mmap(int(fd.Fd()), 0, int(q.Length), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE)
			if err != nil {
				return err
			}
			m[0] ^= 0xff
			unix.Munmap(m)
			b, _ := os.ReadFile(data)
			if b[0] != testmodel.Bytes(q)[0] {
				return errors.New("the file changed")
			}
			return nil
		}},
		{"open(O_DIRECTORY) of a file is ENOTDIR", func() error {
			_, err := unix.Open(data, unix.O_RDONLY|unix.O_DIRECTORY, 0)
			return errIs(err, syscall.ENOTDIR)
		}},
		{"open of a missing name is ENOENT", func() error {
			_, err := os.Open(filepath.Join(mnt, "no-such"))
			return errIs(err, syscall.ENOENT)
		}},
		{"read(2) of a directory is EISDIR", func() error {
			fd, err := os.Open(dir)
			if err != nil {
				return err
			}
			defer fd.Close()
			_, err = unix.Read(int(fd.Fd()), make([]byte, 10))
			return errIs(err, syscall.EISDIR)
		}},
		{"access: R_OK and X_OK granted, W_OK is EROFS", func() error {
			if err := unix.Access(data, unix.R_OK); err != nil {
				return err
			}
			if err := unix.Access(dir, unix.X_OK); err != nil {
				return err
			}
			return errIs(unix.Access(data, unix.W_OK), syscall.EROFS)
		}},
		{"statfs: FUSE, read-only", func() error {
			var s unix.Statfs_t
			if err := unix.Statfs(mnt, &s); err != nil {
				return err
			}
			if s.Type != 0x65735546 || s.Flags&unix.ST_RDONLY == 0 {
				return fmt.Errorf("type %#x flags %#x", s.Type, s.Flags)
			}
			return nil
		}},
		{"no xattrs: listxattr empty, getxattr fails", func() error {
			n, err := unix.Listxattr(data, make([]byte, 64))
			if err == nil && n != 0 {
				return fmt.Errorf("listxattr %d", n)
			}
			_, err = unix.Getxattr(data, "user.x", make([]byte, 64))
			if err == nil {
				return errors.New("getxattr succeeded")
			}
			return nil
		}},
		{"utimes, O_TRUNC, link and rmdir are EROFS", func() error {
			if err := errIs(os.Chtimes(data, src.ModTime(), src.ModTime()), syscall.EROFS); err != nil {
				return err
			}
			if _, err := os.OpenFile(data, os.O_RDONLY|os.O_TRUNC, 0); !errors.Is(err, syscall.EROFS) {
				return fmt.Errorf("O_TRUNC: %v", err)
			}
			if err := errIs(os.Link(data, filepath.Join(mnt, "l")), syscall.EROFS); err != nil {
				return err
			}
			return errIs(os.Remove(dir), syscall.EROFS)
		}},
	}
	var table strings.Builder
	table.WriteString("\n| check | result |\n|---|---|\n")
	failed := 0
	for _, c := range checks {
		res := "pass"
		if err := c.run(); err != nil {
			res = "FAIL: " + err.Error()
			failed++
		}
		fmt.Fprintf(&table, "| %s | %s |\n", c.name, res)
	}
	t.Log(table.String())
	if failed > 0 {
		t.Errorf("%d of %d conformance checks failed", failed, len(checks))
	}
}
