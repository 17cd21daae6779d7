package fusefs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/fsmount/fsmount/adapter"
	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/internal/fusetest"
	"github.com/fsmount/fsmount/internal/layout"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
)

func requireFUSE(t *testing.T) { fusetest.RequireFUSE(t) }

// mountDir opens, checks and mounts the model at path in a temporary
// directory, unmounting and closing it when the test ends.
func mountDir(t *testing.T, path string) (string, *check.Report) {
	t.Helper()
	return mountDirOpts(t, path, &Options{})
}

func mountDirOpts(t *testing.T, path string, o *Options) (string, *check.Report) {
	t.Helper()
	requireFUSE(t)
	m, err := model.Open(path)
	require.NoError(t, err)
	r, err := check.Check(m)
	require.NoError(t, err)
	o.Debug = testing.Verbose() && os.Getenv("FUSE_DEBUG") != ""
	o.DirectMount = os.Geteuid() == 0 // as fsmount does
	// FSMOUNT_TEST_PASSTHROUGH=1 runs every mount test in open mode,
	// with files/ by passthrough where the kernel grants it.
	if os.Getenv("FSMOUNT_TEST_PASSTHROUGH") == "1" {
		o.Passthrough = true
	}
	return serveTree(t, r, o, m), r
}

// serveTree mounts r with o in a temporary directory; when the test ends
// it unmounts and closes closers.
func serveTree(t *testing.T, r *check.Report, o *Options, closers ...io.Closer) string {
	t.Helper()
	mnt := t.TempDir()
	server, tr, err := mount(mnt, r, o)
	if err == nil {
		mountedTrees.Store(mnt, tr)
	}
	require.NoError(t, err)
	t.Cleanup(func() {
		if err := fusetest.Unmount(server, mnt); err != nil {
			t.Errorf("unmount: %v", err)
		}
		for _, c := range closers {
			c.Close()
		}
	})
	return mnt
}

// readMnt returns the file at p below the mount point mnt.
func readMnt(t *testing.T, mnt, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(mnt, p))
	require.NoError(t, err, p)
	return string(b)
}

func TestTreeTiny(t *testing.T) {
	mnt, r := mountDir(t, filepath.Join("..", "testdata", "tiny-qwen3"))

	read := func(p string) string { return readMnt(t, mnt, p) }
	assert.Equal(t, r.Verdict(), read("verdict"))
	assert.Equal(t, r.Text(), read("report"))
	assert.Equal(t, string(r.Model.Config), read("config.json"))
	assert.Equal(t, "[64, 32]\n", read("layers/0/self_attn/q_proj/shape"))
	assert.Equal(t, "BF16\n", read("layers/0/self_attn/q_proj/dtype"))
	assert.Equal(t, "[32]\n", read("norm/shape"))
	assert.Equal(t, read("shapes"), read("expected/shapes"), "clean model: no diff")
	assert.Equal(t, 25, strings.Count(read("shapes"), "\n"))
	assert.Contains(t, read("shapes"), "model.layers.1.mlp.down_proj.weight\t[32, 64]\n")

	for _, tt := range r.Model.Tensors() {
		data := read(filepath.Join("by-name", tt.Name, "data"))
		assert.Equal(t, string(testmodel.Bytes(tt)), data, tt.Name)
	}
	link, err := os.Readlink(filepath.Join(mnt, "by-name", "model.layers.0.self_attn.q_proj.weight"))
	require.NoError(t, err)
	assert.Equal(t, "../layers/0/self_attn/q_proj", link)

	entries, err := os.ReadDir(filepath.Join(mnt, "layers"))
	require.NoError(t, err)
	assert.Len(t, entries, 2)
	top, err := os.ReadDir(mnt)
	require.NoError(t, err)
	var names []string
	for _, e := range top {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"by-name", "config.json", "embed_tokens", "expected", "files", "index.html", "layers", "lm_head", "norm", "overview.png", "report", "shapes", "stats", "verdict"}, names)

	// Modes, owner, size, mtime.
	st := stat(t, filepath.Join(mnt, "layers/0/mlp/up_proj/data"))
	assert.Equal(t, uint32(syscall.S_IFREG|0o444), st.Mode)
	assert.Equal(t, int64(64*32*2), st.Size)
	assert.Equal(t, uint32(os.Getuid()), st.Uid)
	src := stat(t, filepath.Join("..", "testdata", "tiny-qwen3", "model.safetensors"))
	assert.Equal(t, src.Mtim.Sec, st.Mtim.Sec)
	dir := stat(t, filepath.Join(mnt, "layers"))
	assert.Equal(t, uint32(syscall.S_IFDIR|0o555), dir.Mode)

	// location says where to find the bytes in the original file.
	q := r.Model.Tensor("model.layers.0.self_attn.q_proj.weight")
	assert.Equal(t, fmt.Sprintf("model.safetensors %d 4096\n", q.Offset), read("layers/0/self_attn/q_proj/location"))

	// The expected tree mirrors the tensor tree.
	assert.Equal(t, "[64, 32]\n", read("expected/layers/0/self_attn/q_proj/shape"))
	assert.Equal(t, "[128, 32]\n", read("expected/lm_head/shape"))
}

func stat(t *testing.T, p string) *syscall.Stat_t {
	t.Helper()
	var st syscall.Stat_t
	require.NoError(t, syscall.Stat(p, &st), p)
	return &st
}

func TestReadClamping(t *testing.T) {
	mnt, r := mountDir(t, filepath.Join("..", "testdata", "tiny-qwen3"))
	want := testmodel.Bytes(r.Model.Tensor("model.embed_tokens.weight"))
	f, err := os.Open(filepath.Join(mnt, "embed_tokens", "data"))
	require.NoError(t, err)
	defer f.Close()
	for _, c := range []struct{ off, n, want int }{
		{0, 10, 10}, {100, 1000, 1000}, {len(want) - 5, 100, 5}, {len(want), 10, 0}, {len(want) + 4096, 10, 0},
	} {
		buf := make([]byte, c.n)
		n, err := unix.Pread(int(f.Fd()), buf, int64(c.off))
		require.NoError(t, err)
		require.Equal(t, c.want, n, "pread(%d, %d)", c.off, c.n)
		from := min(c.off, len(want))
		assert.Equal(t, want[from:from+n], buf[:n])
	}
}

func TestReadOnly(t *testing.T) {
	mnt, _ := mountDir(t, filepath.Join("..", "testdata", "tiny-qwen3"))
	data := filepath.Join(mnt, "norm", "data")
	_, err := os.OpenFile(data, os.O_WRONLY, 0)
	assert.ErrorIs(t, err, syscall.EROFS)
	_, err = os.OpenFile(data, os.O_RDWR, 0)
	assert.ErrorIs(t, err, syscall.EROFS)
	assert.ErrorIs(t, os.Mkdir(filepath.Join(mnt, "new"), 0o755), syscall.EROFS)
	assert.ErrorIs(t, os.Chmod(data, 0o644), syscall.EROFS)
	assert.ErrorIs(t, os.Chown(data, 1, 1), syscall.EROFS)
	assert.ErrorIs(t, os.Truncate(data, 0), syscall.EROFS)
	assert.ErrorIs(t, os.Remove(data), syscall.EROFS)
	assert.ErrorIs(t, os.Rename(data, data+"2"), syscall.EROFS)
	assert.ErrorIs(t, os.Symlink("x", filepath.Join(mnt, "l")), syscall.EROFS)
	assert.ErrorIs(t, unix.Mknod(filepath.Join(mnt, "n"), unix.S_IFIFO|0o644, 0), syscall.EROFS)
	assert.ErrorIs(t, unix.Setxattr(data, "user.x", []byte("y"), 0), syscall.EROFS)
	_, err = os.Create(filepath.Join(mnt, "verdict"))
	assert.ErrorIs(t, err, syscall.EROFS)

	var sfs unix.Statfs_t
	require.NoError(t, unix.Statfs(mnt, &sfs))
	assert.NotZero(t, sfs.Flags&unix.ST_RDONLY, "mounted ro")
}

// countingWriter counts the lines of go-fuse's debug log that hold a
// string.
type countingWriter struct {
	mu   sync.Mutex
	what []string
	n    map[string]int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range w.what {
		if bytes.Contains(p, []byte(" rx ")) && bytes.Contains(p, []byte(s)) {
			w.n[s]++
		}
	}
	return len(p), nil
}

func (w *countingWriter) count(s string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n[s]
}

// TestNoXattrRequests: the mount has no extended attributes, and says so
// once: after the first GETXATTR and LISTXATTR (answered ENOSYS) the
// kernel answers every later call itself, so that `ls -l`, which asks for
// two or three attributes of every entry, costs no request for them.
func TestNoXattrRequests(t *testing.T) {
	w := &countingWriter{what: []string{"GETXATTR", "LISTXATTR"}, n: map[string]int{}}
	mnt, _ := mountDirOpts(t, filepath.Join("..", "testdata", "tiny-qwen3"), &Options{Logger: log.New(w, "", 0), Debug: true})
	for _, p := range []string{"verdict", "norm/data", "norm/shape", "layers/0/mlp/down_proj/stats", "."} {
		_, err := unix.Getxattr(filepath.Join(mnt, p), "security.selinux", make([]byte, 64))
		assert.ErrorIs(t, err, unix.EOPNOTSUPP, p)
		_, err = unix.Listxattr(filepath.Join(mnt, p), make([]byte, 64))
		assert.ErrorIs(t, err, unix.EOPNOTSUPP, p)
	}
	out, err := exec.Command("ls", "-lR", mnt).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.LessOrEqual(t, w.count("GETXATTR"), 1, "GETXATTR requests")
	assert.LessOrEqual(t, w.count("LISTXATTR"), 1, "LISTXATTR requests")
}

// hostileNames are tensor names that try to escape the tree, shadow its
// files or break path rules.
var hostileNames = []string{
	"..", "a..b", "x/y", "", strings.Repeat("p", 300) + ".weight", "layer.shape",
	"model.verdict.weight", "model.by-name", "shapes", "weight", "a", "a.weight",
	"lm_head.weight", "model.lm_head.weight", "%", "%25", "%+", ".", "..weight",
	"model.expected.weight", "n\x00ul", "data", "model." + strings.Repeat("q", 600),
	"x\x1b]0;title\x07y.weight", "line\nbreak", "del\x7f", "tab\tcr\r",
}

// noControl asserts that a path component holds no control byte.
func noControl(t *testing.T, c string) {
	t.Helper()
	assert.False(t, strings.ContainsFunc(c, func(r rune) bool { return r < 0x20 || r == 0x7f }), "component %q holds a control byte", c)
}

func TestHostileNames(t *testing.T) {
	var ts []testmodel.Tensor
	for i, n := range hostileNames {
		ts = append(ts, testmodel.Tensor{Name: n, DType: "U8", Shape: []uint64{uint64(i + 1)}})
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "hostile.safetensors")
	require.NoError(t, testmodel.WriteFile(path, ts, nil, 7))
	mnt, r := mountDir(t, path)

	// The tree's own files are the real ones.
	v, err := os.ReadFile(filepath.Join(mnt, "verdict"))
	require.NoError(t, err)
	assert.Equal(t, r.Verdict(), string(v))

	// Every tensor is reachable through by-name, and the link stays in
	// the mount.
	for _, tt := range r.Model.Tensors() {
		comps := layout.Escape(tt.Name)
		p := filepath.Join(append([]string{mnt, "by-name"}, comps...)...)
		got, err := os.ReadFile(filepath.Join(p, "data"))
		require.NoError(t, err, "%q", tt.Name)
		assert.Equal(t, testmodel.Bytes(tt), got, "%q", tt.Name)
		target, err := filepath.EvalSymlinks(p)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(target, mnt+"/"), "%q resolves to %s", tt.Name, target)
		back, err := layout.Unescape(comps)
		require.NoError(t, err)
		assert.Equal(t, tt.Name, back)
	}

	// Exactly one data file per tensor in the tensor tree, each holding
	// one tensor's bytes, and no component longer than NAME_MAX.
	seen := map[string]int{}
	require.NoError(t, filepath.WalkDir(mnt, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		assert.LessOrEqual(t, len(d.Name()), 255)
		noControl(t, d.Name())
		rel, _ := filepath.Rel(mnt, p)
		if strings.HasPrefix(rel, "by-name") || strings.HasPrefix(rel, "expected") {
			return nil
		}
		if d.Name() == "data" && d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			seen[string(b)]++
		}
		return nil
	}))
	require.Len(t, seen, len(hostileNames))
	for _, tt := range r.Model.Tensors() {
		assert.Equal(t, 1, seen[string(testmodel.Bytes(tt))], "%q", tt.Name)
	}
}

// TestBrokenModelDiff mounts a model with one mis-shaped tensor: the shape
// listings differ on exactly that tensor.
func TestBrokenModelDiff(t *testing.T) {
	ts := testmodel.TinyQwen3Tensors()
	for i := range ts {
		if ts[i].Name == "model.layers.1.mlp.gate_proj.weight" {
			ts[i].Shape, ts[i].Data = []uint64{63, 32}, nil
		}
	}
	dir := t.TempDir()
	require.NoError(t, testmodel.WriteModelDir(dir, testmodel.TinyQwen3Config, ts))
	mnt, _ := mountDir(t, dir)
	got, err := os.ReadFile(filepath.Join(mnt, "shapes"))
	require.NoError(t, err)
	want, err := os.ReadFile(filepath.Join(mnt, "expected", "shapes"))
	require.NoError(t, err)
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	require.Equal(t, len(wl), len(gl))
	var diff []string
	for i := range gl {
		if gl[i] != wl[i] {
			diff = append(diff, wl[i]+" → "+gl[i])
		}
	}
	assert.Equal(t, []string{"model.layers.1.mlp.gate_proj.weight\t[64, 32] → model.layers.1.mlp.gate_proj.weight\t[63, 32]"}, diff)
	v, err := os.ReadFile(filepath.Join(mnt, "verdict"))
	require.NoError(t, err)
	assert.Contains(t, string(v), "✗ mis-shaped: model.layers.1.mlp.gate_proj.weight")
	e, err := os.ReadFile(filepath.Join(mnt, "expected/layers/1/mlp/gate_proj/shape"))
	require.NoError(t, err)
	assert.Equal(t, "[64, 32]\n", string(e))
}

// TestMmapMode serves data from the mapping: same bytes, same clamping.
func TestMmapMode(t *testing.T) {
	mnt, r := mountDirOpts(t, filepath.Join("..", "testdata", "tiny-qwen3"), &Options{Mmap: true})
	for _, tt := range r.Model.Tensors() {
		got, err := os.ReadFile(filepath.Join(mnt, "by-name", tt.Name, "data"))
		require.NoError(t, err)
		assert.Equal(t, testmodel.Bytes(tt), got, tt.Name)
	}
	f, err := os.Open(filepath.Join(mnt, "embed_tokens", "data"))
	require.NoError(t, err)
	defer f.Close()
	buf := make([]byte, 100)
	n, err := unix.Pread(int(f.Fd()), buf, 8192-10)
	require.NoError(t, err)
	assert.Equal(t, 10, n)
}

// TestVeryLongNames: a tensor of 2,100 name parts has a tree path, and a
// by-name link target, far over the 4 KiB readlink returns; by-name
// then serves the tensor's files itself, so it still reaches the tensor.
// The path is longer than PATH_MAX, so the test walks it with openat.
func TestVeryLongNames(t *testing.T) {
	long := strings.TrimSuffix(strings.Repeat("p.", 2100), ".")
	ts := []testmodel.Tensor{
		{Name: long, DType: "U8", Shape: []uint64{5}},
		{Name: "short", DType: "U8", Shape: []uint64{3}},
	}
	path := filepath.Join(t.TempDir(), "long.safetensors")
	require.NoError(t, testmodel.WriteFile(path, ts, nil, 7))
	mnt, r := mountDir(t, path)
	for _, tt := range r.Model.Tensors() {
		comps := append([]string{"by-name"}, layout.Escape(tt.Name)...)
		got := readAt(t, mnt, append(comps, "data"))
		assert.Equal(t, testmodel.Bytes(tt), got, "%.20q", tt.Name)
		shape := readAt(t, mnt, append(comps, "shape"))
		assert.Equal(t, tensor.FormatShape(tt.Shape)+"\n", string(shape))
	}
	var sfs unix.Statfs_t
	require.NoError(t, unix.Statfs(mnt, &sfs))
	assert.Equal(t, int64(255), sfs.Namelen, "NAME_MAX")
	assert.Equal(t, int64(4096), sfs.Bsize)
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, uint64(st.Size()+4095)/4096, sfs.Blocks)
}

// readAt reads the file at comps below dir one component at a time with
// openat, following symlinks, so that no path is longer than PATH_MAX.
func readAt(t *testing.T, dir string, comps []string) []byte {
	t.Helper()
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY, 0)
	require.NoError(t, err)
	for i, c := range comps {
		flags := unix.O_PATH
		if i == len(comps)-1 {
			flags = unix.O_RDONLY
		}
		next, err := unix.Openat(fd, c, flags, 0)
		if errors.Is(err, unix.ELOOP) || err == nil && i < len(comps)-1 && isLink(fd, c) {
			if err == nil {
				unix.Close(next)
			}
			// A by-name link: resolve it relative to its directory.
			buf := make([]byte, 4096)
			n, err := unix.Readlinkat(fd, c, buf)
			require.NoError(t, err)
			next, err = unix.Openat(fd, string(buf[:n]), flags, 0)
			require.NoError(t, err)
		} else {
			require.NoError(t, err, "component %d", i)
		}
		unix.Close(fd)
		fd = next
	}
	f := os.NewFile(uintptr(fd), "x") // owns fd from here
	defer f.Close()
	b, err := io.ReadAll(f)
	require.NoError(t, err)
	return b
}

func isLink(dirfd int, name string) bool {
	var st unix.Stat_t
	return unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
}

// TestLiveFilesBounded: with a bound of 50 looked-up files, walking and
// reading every file of the tiny model (over 300) leaves at most 50 the
// daemon tracks once the watcher has run, the kernel forgets the rest,
// and every file still reads the same afterwards.
func TestLiveFilesBounded(t *testing.T) {
	mnt, r := mountDirOpts(t, filepath.Join("..", "testdata", "tiny-qwen3"), &Options{maxLiveFiles: 50})
	read := func() map[string]string {
		got := map[string]string{}
		require.NoError(t, filepath.WalkDir(filepath.Join(mnt, "layers"), func(p string, d fs.DirEntry, err error) error {
			require.NoError(t, err)
			if d.Type().IsRegular() && (d.Name() == "shape" || d.Name() == "data" || d.Name() == "stats") {
				b, err := os.ReadFile(p)
				require.NoError(t, err)
				got[p] = string(b)
			}
			return nil
		}))
		return got
	}
	first := read()
	require.Greater(t, len(first), 50)
	tr := liveTree(t, mnt)
	require.Greater(t, tr.live.len(), 50, "every file looked up is tracked")
	before := countInodes(&tr.rootNode.Load().Inode)
	tr.live.prune()
	assert.LessOrEqual(t, tr.live.len(), 50)
	// The kernel forgets the dropped files' inodes, and go-fuse with it.
	deadline := time.Now().Add(5 * time.Second)
	for countInodes(&tr.rootNode.Load().Inode) > before-(len(first)-50) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	assert.LessOrEqual(t, countInodes(&tr.rootNode.Load().Inode), before-(len(first)-50), "inodes go-fuse still holds")
	assert.Equal(t, first, read(), "pruned files are looked up again")
	_ = r
}

// countInodes counts the inodes below dir that go-fuse holds.
func countInodes(dir *gofs.Inode) int {
	n := 0
	for _, c := range dir.Children() {
		n += 1 + countInodes(c)
	}
	return n
}

// mountedTrees maps a test's mount point to its tree.
var mountedTrees sync.Map

func liveTree(t *testing.T, mnt string) *tree {
	t.Helper()
	v, ok := mountedTrees.Load(mnt)
	require.True(t, ok)
	return v.(*tree)
}

// TestListingMakesNoFileInodes: a listing (READDIRPLUS) of a large
// tree (here forced: unlinkedFiles) gives a directory's files without
// making their inodes, as find over a 500,000-tensor model needs (#25);
// its subdirectories are looked up as before, a stat of a file still
// works, and the listing is unchanged.
func TestListingMakesNoFileInodes(t *testing.T) {
	mnt, _ := mountDirOpts(t, filepath.Join("..", "testdata", "tiny-qwen3"), &Options{unlinkedFiles: true})
	tr := liveTree(t, mnt)
	dir := filepath.Join(mnt, "layers", "0", "mlp")
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	require.Equal(t, []string{"down_proj", "gate_proj", "up_proj"}, names)
	q := filepath.Join(dir, "down_proj")
	ents, err = os.ReadDir(q)
	require.NoError(t, err)
	require.Len(t, ents, len(tensorFiles))
	for _, e := range ents {
		require.True(t, e.Type().IsRegular(), e.Name())
	}
	// The inodes go-fuse holds below layers/0/mlp: the three directories
	// and none of their files.
	node := &tr.rootNode.Load().Inode
	for _, c := range []string{"layers", "0", "mlp"} {
		node = node.GetChild(c)
		require.NotNil(t, node, c)
	}
	require.Equal(t, 3, countInodes(node), "inodes below layers/0/mlp")
	st, err := os.Stat(filepath.Join(q, "shape"))
	require.NoError(t, err)
	require.True(t, st.Mode().IsRegular())
	require.Equal(t, 4, countInodes(node), "a stat looks the file up")
}

// checkFiles compares every entry of files/ with the model file beside
// model, by read(2) and by mmap(2).
func checkFiles(t *testing.T, mnt, model string) {
	t.Helper()
	names, err := os.ReadDir(filepath.Join(mnt, "files"))
	require.NoError(t, err)
	require.NotEmpty(t, names)
	for _, n := range names {
		want, err := os.ReadFile(filepath.Join(model, n.Name()))
		require.NoError(t, err)
		p := filepath.Join(mnt, "files", n.Name())
		got, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Equal(t, want, got, n.Name())

		f, err := os.Open(p)
		require.NoError(t, err)
		m, err := unix.Mmap(int(f.Fd()), 0, len(want), unix.PROT_READ, unix.MAP_SHARED)
		require.NoError(t, err, "mmap %s", n.Name())
		assert.Equal(t, want, append([]byte(nil), m...), "mmap of %s", n.Name())
		require.NoError(t, unix.Munmap(m))
		require.NoError(t, f.Close())
	}
}

// checkSmallFiles reads small files of every kind twice: the second read
// comes from the kernel's page cache, whichever way OPEN is answered.
func checkSmallFiles(t *testing.T, mnt string) {
	t.Helper()
	for i := 0; i < 2; i++ {
		for p, want := range map[string]string{
			"layers/0/self_attn/q_proj/shape": "[64, 32]\n",
			"layers/0/self_attn/q_proj/dtype": "BF16\n",
			"norm/shape":                      "[32]\n",
		} {
			b, err := os.ReadFile(filepath.Join(mnt, p))
			require.NoError(t, err)
			assert.Equal(t, want, string(b), p)
		}
		b, err := os.ReadFile(filepath.Join(mnt, "verdict"))
		require.NoError(t, err)
		assert.Contains(t, string(b), "✓ all 25 expected tensors present")
	}
}

// TestPassthrough mounts with Options.Passthrough as root: files/ is
// byte for byte the model's files and the daemon serves none of its
// READs (the kernel reads the model files itself), while every other
// file still reads right. Where the kernel refuses passthrough (not root,
// no CONFIG_FUSE_PASSTHROUGH: CI's machine may differ) it checks that
// files/ is served by splicing, right, and skips the rest, also under
// FSMOUNT_REQUIRE_FUSE.
func TestPassthrough(t *testing.T) {
	model := filepath.Join("..", "testdata", "tiny-qwen3")
	mnt, r := mountDirOpts(t, model, &Options{Passthrough: true})
	tr := liveTree(t, mnt)
	checkFiles(t, mnt, model)
	checkSmallFiles(t, mnt)
	for _, tt := range r.Model.Tensors() {
		got, err := os.ReadFile(filepath.Join(mnt, "by-name", tt.Name, "data"))
		require.NoError(t, err)
		assert.Equal(t, testmodel.Bytes(tt), got, tt.Name)
	}
	if err := tr.passthroughErr; err != nil {
		assert.NotZero(t, tr.wholeReads.Load(), "files/ is served by the daemon")
		assert.LessOrEqual(t, tr.opens.Load(), int64(1), "no-open mode: one OPEN, answered ENOSYS")
		t.Skipf("SKIPPING the passthrough checks: %v (files/ was served by splicing, and read right)", err)
	}
	assert.Zero(t, tr.wholeReads.Load(), "with passthrough the kernel reads files/ itself")
	assert.Greater(t, tr.opens.Load(), int64(10), "open mode: every open is an OPEN")
}

// TestPassthroughRefused: a kernel that refuses passthrough (here: not
// negotiated at INIT) leaves the mount exactly as without it: no-open
// mode, files/ spliced and right, and the reason logged.
func TestPassthroughRefused(t *testing.T) {
	model := filepath.Join("..", "testdata", "tiny-qwen3")
	var logged fusetest.SyncBuffer
	mnt, _ := mountDirOpts(t, model, &Options{Passthrough: true, refusePassthrough: true, Logger: log.New(&logged, "", 0)})
	tr := liveTree(t, mnt)
	require.Error(t, tr.passthroughErr)
	checkFiles(t, mnt, model)
	checkSmallFiles(t, mnt)
	assert.NotZero(t, tr.wholeReads.Load(), "files/ is served by the daemon")
	assert.LessOrEqual(t, tr.opens.Load(), int64(1), "no-open mode: one OPEN, answered ENOSYS")
	assert.Contains(t, logged.String(), "kernel passthrough unavailable")
	assert.Contains(t, logged.String(), "files/ is served by the daemon")
}

// TestPassthroughChangedFile: once a model file is rewritten in place,
// an open of it in files/ fails with EIO, as a read does without
// passthrough: the kernel would read bytes the tree does not describe.
func TestPassthroughChangedFile(t *testing.T) {
	model := testmodel.TinyDir(t, nil)
	mnt, _ := mountDirOpts(t, model, &Options{Passthrough: true})
	tr := liveTree(t, mnt)
	if tr.passthroughErr != nil {
		t.Skipf("SKIPPING: %v", tr.passthroughErr)
	}
	p := filepath.Join(mnt, "files", "model.safetensors")
	_, err := os.ReadFile(p)
	require.NoError(t, err)
	file := filepath.Join(model, "model.safetensors")
	later := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(file, later, later))
	_, err = os.Open(p)
	assert.ErrorIs(t, err, syscall.EIO)
	b, err := os.ReadFile(filepath.Join(mnt, "files", "config.json"))
	require.NoError(t, err, "the unchanged file still opens")
	want, err := os.ReadFile(filepath.Join(model, "config.json"))
	require.NoError(t, err)
	assert.Equal(t, want, b)
}

// fakeBacking is a kernel for probePassthrough.
type fakeBacking struct {
	flags      uint64
	refuse     syscall.Errno
	registered []int32
	released   []int32
}

func (f *fakeBacking) KernelSettings() *fuse.InitIn {
	return &fuse.InitIn{Flags: uint32(f.flags), Flags2: uint32(f.flags >> 32)}
}

func (f *fakeBacking) RegisterBackingFd(m *fuse.BackingMap) (int32, syscall.Errno) {
	if f.refuse != 0 {
		return 0, f.refuse
	}
	id := int32(len(f.registered) + 1)
	f.registered = append(f.registered, id)
	return id, 0
}

func (f *fakeBacking) UnregisterBackingFd(id int32) syscall.Errno {
	f.released = append(f.released, id)
	return 0
}

// TestProbePassthrough: passthrough is used only when the kernel offers
// it and takes every local model file, each given back at once.
func TestProbePassthrough(t *testing.T) {
	dir := testmodel.TinyDir(t, nil)
	var files []source.File
	for _, n := range []string{"config.json", "model.safetensors"} {
		f, err := source.OpenLocal(filepath.Join(dir, n))
		require.NoError(t, err)
		t.Cleanup(func() { f.Close() })
		files = append(files, f)
	}
	k := &fakeBacking{flags: fuse.CAP_PASSTHROUGH}
	require.NoError(t, probePassthrough(k, files))
	assert.Equal(t, []int32{1, 2}, k.registered)
	assert.Equal(t, k.registered, k.released)

	err := probePassthrough(&fakeBacking{}, files)
	assert.ErrorIs(t, err, errNoKernelPassthrough)

	err = probePassthrough(&fakeBacking{flags: fuse.CAP_PASSTHROUGH, refuse: syscall.EPERM}, files)
	assert.ErrorIs(t, err, syscall.EPERM)
	var pe *passthroughError
	require.True(t, errors.As(err, &pe))
	assert.Equal(t, files[0].Name(), pe.file)
	if os.Geteuid() != 0 {
		assert.Contains(t, err.Error(), "CAP_SYS_ADMIN")
	} else {
		assert.Contains(t, err.Error(), "did not enable it")
	}

	err = probePassthrough(&fakeBacking{flags: fuse.CAP_PASSTHROUGH, refuse: syscall.ELOOP}, files)
	assert.Contains(t, err.Error(), "overlayfs")

	err = probePassthrough(k, nil)
	assert.ErrorIs(t, err, errNoLocalFiles)
}

// mountAdapter checks the adapter at dir against the base at baseDir
// ("" for none) and mounts it as fsmount does.
func mountAdapter(t *testing.T, dir, baseDir string) (string, *adapter.Report) {
	t.Helper()
	requireFUSE(t)
	a, err := adapter.Open(dir, nil)
	require.NoError(t, err)
	var base, m *model.Model
	if baseDir != "" {
		base, err = model.Open(baseDir)
		require.NoError(t, err)
		m = base
	} else {
		m, err = model.OpenFS(dir, a.Source, adapter.WeightsName)
		require.NoError(t, err)
	}
	ar := adapter.Check(a, base, "no base given")
	r, err := check.Check(m)
	require.NoError(t, err)
	return serveTree(t, r, &Options{Adapter: ar, DirectMount: os.Geteuid() == 0}, m, a), ar
}

const qvConfig = `{"peft_type": "LORA", "task_type": "CAUSAL_LM", "base_model_name_or_path": "tiny-qwen3", "r": 4, "lora_alpha": 8, "target_modules": ["q_proj", "v_proj"]}`

// qvTensors are qvConfig's tensors: testmodel's tiny adapter's.
func qvTensors() []testmodel.Tensor { return testmodel.TinyAdapterTensors() }

func readNPY64(t *testing.T, path string) []float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "\x93NUMPY", string(b[:6]))
	hl := int(binary.LittleEndian.Uint16(b[8:10]))
	hdr := string(b[10 : 10+hl])
	require.Contains(t, hdr, "'<f8'")
	data := b[10+hl:]
	out := make([]float64, len(data)/8)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
	}
	return out
}

func readF32(t *testing.T, path string) []float32 {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// assertDeltaMatchesNumpy compares the mount's delta/values.f32 of
// module with numpy's scale·B@A in float64: each element within the
// float32 rounding of the product, (rank+2)·2⁻²⁴·Σ|terms|.
func assertDeltaMatchesNumpy(t *testing.T, mnt, dirPath, adapterDir, module string, rank int, conv1D bool) {
	t.Helper()
	ref := filepath.Join(t.TempDir(), "delta.npy")
	args := []string{filepath.Join("..", "adapter", "testdata", "lora.py"), "delta", adapterDir, module, ref}
	if conv1D {
		args = append(args, "--conv1d")
	}
	testmodel.RunNumpy(t, args...)
	want := readNPY64(t, ref)
	bound := readNPY64(t, strings.TrimSuffix(ref, ".npy")+".abs.npy")
	got := readF32(t, filepath.Join(mnt, dirPath, "lora", "delta", "values.f32"))
	require.Len(t, got, len(want))
	bad, worst := 0, 0.0
	for i, g := range got {
		tol := float64(rank+2)*0x1p-24*bound[i] + 0x1p-140
		d := math.Abs(float64(g) - want[i])
		worst = max(worst, d/tol)
		if d > tol {
			bad++
		}
	}
	assert.Zero(t, bad, "%s: %d elements beyond float32 rounding (worst %.2f of it)", module, bad, worst)
	// Not trivially zero.
	var nz int
	for _, x := range want {
		if x != 0 {
			nz++
		}
	}
	assert.Greater(t, nz, len(want)/2)
}

func TestAdapterTreeTiny(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, testmodel.WriteAdapter(dir, qvConfig, qvTensors()))
	mnt, ar := mountAdapter(t, dir, filepath.Join("..", "testdata", "tiny-qwen3"))
	require.True(t, ar.Clean(), ar.Text())
	read := func(p string) string { return readMnt(t, mnt, p) }
	assert.Equal(t, ar.Verdict(), read("verdict"))
	assert.Equal(t, ar.Text(), read("report"))
	assert.Equal(t, qvConfig, read("adapter_config.json"))
	// The base's tensors, and lora/ beside the weight's own files.
	assert.Equal(t, "[64, 32]\n", read("layers/0/self_attn/q_proj/shape"))
	assert.Equal(t, "BF16\n", read("layers/0/self_attn/q_proj/dtype"))
	q := "layers/0/self_attn/q_proj/lora/"
	assert.Equal(t, "[4, 32]\n", read(q+"A/shape"))
	assert.Equal(t, "[64, 4]\n", read(q+"B/shape"))
	assert.Equal(t, string(testmodel.Bytes(ar.Module("model.layers.0.self_attn.q_proj").A)), read(q+"A/data"))
	assert.Equal(t, "[64, 32]\n", read(q+"delta/shape"))
	assert.Equal(t, "F32\n", read(q+"delta/dtype"))
	entries, err := os.ReadDir(filepath.Join(mnt, q, "delta"))
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"dtype", "heatmap.png", "hist", "hist.png", "shape", "stats", "values", "values.f32", "values.npy"}, names)
	_, err = os.Stat(filepath.Join(mnt, "layers/0/self_attn/k_proj/lora"))
	assert.True(t, os.IsNotExist(err), "k_proj is not adapted")

	// values, values.npy and stats agree with values.f32.
	f32 := readF32(t, filepath.Join(mnt, q, "delta", "values.f32"))
	require.Len(t, f32, 64*32)
	lines := strings.Split(strings.TrimSuffix(read(q+"delta/values"), "\n"), "\n")
	require.Len(t, lines, 64)
	var x float32
	_, err = fmt.Sscan(strings.Fields(lines[3])[5], &x)
	require.NoError(t, err)
	assert.Equal(t, f32[3*32+5], x)
	npy := read(q + "delta/values.npy")
	assert.True(t, strings.HasPrefix(npy, "\x93NUMPY"))
	assert.Contains(t, npy, "'descr': '<f4'")
	assert.Contains(t, npy, "(64, 32)")
	assert.Contains(t, read(q+"delta/stats"), "count")
	assert.True(t, strings.HasPrefix(read(q+"delta/heatmap.png"), "\x89PNG"))
	assert.True(t, strings.HasPrefix(read(q+"delta/hist.png"), "\x89PNG"))

	// Root stats: a line per module, ‖delta‖ against ‖W‖.
	st := strings.Split(strings.TrimSuffix(read("stats"), "\n"), "\n")
	require.Len(t, st, 5)
	assert.Contains(t, st[0], "|delta|/|W|")
	f := strings.Fields(st[1])
	assert.Equal(t, []string{"model.layers.0.self_attn.q_proj", "Linear", "4"}, f[:3])
	var sum float64
	for _, v := range f32 {
		sum += float64(v) * float64(v)
	}
	var dn float64
	_, err = fmt.Sscan(f[4], &dn)
	require.NoError(t, err)
	assert.InEpsilon(t, math.Sqrt(sum), dn, 1e-5)

	assertDeltaMatchesNumpy(t, mnt, "layers/1/self_attn/v_proj", dir, "model.layers.1.self_attn.v_proj", 4, false)
}

// Without a base the adapter's modules are laid out where the base's
// weights would be, and only they.
func TestAdapterTreeAlone(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, testmodel.WriteAdapter(dir, qvConfig, qvTensors()))
	mnt, ar := mountAdapter(t, dir, "")
	assert.True(t, ar.Partial())
	b, err := os.ReadFile(filepath.Join(mnt, "verdict"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "– partial check: no base given")
	top, err := os.ReadDir(mnt)
	require.NoError(t, err)
	var names []string
	for _, e := range top {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"adapter_config.json", "by-name", "expected", "files", "index.html", "layers", "overview.png", "report", "shapes", "stats", "verdict"}, names)
	b, err = os.ReadFile(filepath.Join(mnt, "layers/1/self_attn/v_proj/lora/delta/shape"))
	require.NoError(t, err)
	assert.Equal(t, "[32, 32]\n", string(b))
}

// A real GPT-2 adapter (distilgpt2, Conv1D): its delta is [in, out] like
// the base weight, (scale·B·A)ᵀ, and matches numpy on the real factors.
func TestAdapterTreeRealConv1D(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "testdata", "adapters", "phuongsky"))
	require.NoError(t, err)
	mnt, _ := mountAdapter(t, dir, "")
	p := "transformer/h/3/attn/c_attn"
	b, err := os.ReadFile(filepath.Join(mnt, p, "lora", "delta", "shape"))
	require.NoError(t, err)
	assert.Equal(t, "[768, 2304]\n", string(b))
	assertDeltaMatchesNumpy(t, mnt, p, dir, "transformer.h.3.attn.c_attn", 8, true)
}

// Embedding LoRA: delta = (scale·B·A)ᵀ, [num_embeddings, embedding_dim].
func TestAdapterTreeEmbedding(t *testing.T) {
	dir := t.TempDir()
	cfg := `{"peft_type": "LORA", "r": 4, "lora_alpha": 6, "use_rslora": true, "target_modules": ["embed_tokens"]}`
	require.NoError(t, testmodel.WriteAdapter(dir, cfg, []testmodel.Tensor{
		{Name: "base_model.model.model.embed_tokens.lora_embedding_A", DType: "F32", Shape: []uint64{4, 128}},
		{Name: "base_model.model.model.embed_tokens.lora_embedding_B", DType: "F32", Shape: []uint64{32, 4}}}))
	mnt, ar := mountAdapter(t, dir, filepath.Join("..", "testdata", "tiny-qwen3"))
	require.True(t, ar.Clean(), ar.Text())
	b, err := os.ReadFile(filepath.Join(mnt, "embed_tokens", "lora", "delta", "shape"))
	require.NoError(t, err)
	assert.Equal(t, "[128, 32]\n", string(b))
	assertDeltaMatchesNumpy(t, mnt, "embed_tokens", dir, "model.embed_tokens", 4, false)
}
