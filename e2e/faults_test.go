package e2e

import (
	"bufio"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/fsmount/fsmount/internal/fusetest"
	"github.com/fsmount/fsmount/internal/mountinfo"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/safetensors"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
)

// TestTruncatedWhileMounted cuts the model file in half under a live
// mount: the file changed, so reads of its tensors fail with EIO — past
// the new end and before it, read before or not — the verdict says so on
// its first line, and the daemon survives.
func TestTruncatedWhileMounted(t *testing.T) {
	for _, mode := range [][]string{nil, {"--mmap"}} {
		t.Run(strings.Join(append([]string{"default"}, mode...), " "), func(t *testing.T) {
			model := testmodel.TinyDir(t, nil)
			file := filepath.Join(model, "model.safetensors")
			f, err := safetensors.Open(file)
			require.NoError(t, err)
			st, _ := os.Stat(file)
			half := st.Size() / 2
			var before, after *tensor.Tensor
			for _, tt := range f.Tensors() {
				switch {
				case tt.Offset+tt.Length < half && before == nil:
					before = tt
				case tt.Offset > half && after == nil:
					after = tt
				}
			}
			f.Close()

			mnt, pid := mountModel(t, model, mode...)
			v := readFile(t, filepath.Join(mnt, "verdict"))
			require.True(t, strings.HasPrefix(string(v), "  ✓"), string(v))
			_, err = os.ReadFile(filepath.Join(mnt, "by-name", before.Name, "data"))
			require.NoError(t, err, "read once, so the kernel holds its pages")
			require.NoError(t, os.Truncate(file, half))

			_, err = os.ReadFile(filepath.Join(mnt, "by-name", after.Name, "data"))
			assert.ErrorIs(t, err, syscall.EIO, "read past the new end")
			waitFor(t, "the cached tensor to fail too", func() bool {
				_, err := os.ReadFile(filepath.Join(mnt, "by-name", before.Name, "data"))
				return errors.Is(err, syscall.EIO)
			})
			waitFor(t, "the verdict to say the files changed", func() bool {
				v, err := os.ReadFile(filepath.Join(mnt, "verdict"))
				return err == nil && strings.HasPrefix(string(v), "✗ files changed since mounting: "+file+" changed size since it was opened")
			})
			v = readFile(t, filepath.Join(mnt, "report"))
			assert.True(t, strings.HasPrefix(string(v), "✗ files changed since mounting"), "the report says it too")
			assert.True(t, fusetest.Alive(pid), "the daemon survived")
		})
	}
}

// TestRewrittenInPlace overwrites the model file in place with another
// model of the same size and layout: no read returns bytes of the new
// file at the old offsets; tensors read before (in the kernel's cache)
// fail too once the change is seen, and the verdict says so.
func TestRewrittenInPlace(t *testing.T) {
	model := testmodel.TinyDir(t, nil)
	file := filepath.Join(model, "model.safetensors")
	mnt, pid := mountModel(t, model)
	cached := filepath.Join(mnt, "layers", "0", "self_attn", "q_proj", "data")
	readFile(t, cached)

	other := testmodel.TinyQwen3Tensors()
	for i := range other {
		other[i].Data = nil
	}
	require.NoError(t, testmodel.WriteFile(file+".new", other, map[string]string{"format": "pt"}, 99))
	raw := readFile(t, file+".new")
	old := readFile(t, file)
	require.Equal(t, len(old), len(raw), "same size")
	time.Sleep(10 * time.Millisecond) // a new mtime
	w, err := os.OpenFile(file, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = w.WriteAt(raw, 0)
	require.NoError(t, err)
	require.NoError(t, w.Close())

	_, err = os.ReadFile(filepath.Join(mnt, "layers", "1", "mlp", "down_proj", "data"))
	assert.ErrorIs(t, err, syscall.EIO, "a tensor never read before")
	waitFor(t, "the cached tensor to fail", func() bool {
		_, err := os.ReadFile(cached)
		return errors.Is(err, syscall.EIO)
	})
	v := readFile(t, filepath.Join(mnt, "verdict"))
	assert.True(t, strings.HasPrefix(string(v), "✗ files changed since mounting: "+file+" was modified since it was opened"), string(v))
	assert.True(t, fusetest.Alive(pid))
}

// TestReplacedByRename renames another file over the model: the mount
// keeps serving the file it opened.
func TestReplacedByRename(t *testing.T) {
	model := testmodel.TinyDir(t, nil)
	file := filepath.Join(model, "model.safetensors")
	old := readFile(t, file)
	mnt, _ := mountModel(t, model)

	other := testmodel.TinyQwen3Tensors()
	for i := range other {
		other[i].Data = nil // different bytes, same layout
	}
	require.NoError(t, testmodel.WriteFile(file+".new", other, nil, 99))
	require.NoError(t, os.Rename(file+".new", file))

	f, err := safetensors.NewFile(source.NewReaderFile("old", strings.NewReader(string(old)), int64(len(old))))
	require.NoError(t, err)
	for _, tt := range f.Tensors() {
		got := readFile(t, filepath.Join(mnt, "by-name", tt.Name, "data"))
		want := old[tt.Offset : tt.Offset+tt.Length]
		assert.Equal(t, want, got, tt.Name)
	}
}

// TestUnmountWhileOpen unmounts while a reader holds a data file open: the
// mount is detached at once, the reader finishes, and the daemon exits
// when the file is closed.
func TestUnmountWhileOpen(t *testing.T) {
	mnt, pid := mountModel(t, repoPath("testdata", "tiny-qwen3"))
	f, err := os.Open(filepath.Join(mnt, "embed_tokens", "data"))
	require.NoError(t, err)
	head := make([]byte, 100)
	_, err = f.ReadAt(head, 0)
	require.NoError(t, err)

	r := runCmd(t, "fsmount", "-u", mnt)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "is busy: detached")
	assert.False(t, mounted(t, mnt), "detached from the tree at once")

	rest := make([]byte, 8192-100)
	_, err = f.ReadAt(rest, 100)
	require.NoError(t, err, "the open file still reads")
	require.NoError(t, f.Close())
	waitFor(t, "the daemon to exit after the last close", func() bool { return !fusetest.Alive(pid) })
}

// TestSignalWhileOpen: SIGTERM to a daemon whose mount a process holds
// open (its root directory here) detaches the mount and serves on; a
// second SIGTERM ends the daemon at once (the first one's detach cannot
// be done again), and the held directory is then dead. Lookups of names
// never looked up ask the daemon: the kernel's caches cannot answer.
func TestSignalWhileOpen(t *testing.T) {
	mnt, pid := mountModel(t, repoPath("testdata", "tiny-qwen3"))
	d, err := os.Open(mnt)
	require.NoError(t, err)
	defer d.Close()
	lookup := func(name string) error {
		var st unix.Stat_t
		return unix.Fstatat(int(d.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW)
	}
	require.NoError(t, lookup("verdict"))

	require.NoError(t, syscall.Kill(pid, syscall.SIGTERM))
	waitFor(t, "the mount to be detached", func() bool { return !mounted(t, mnt) })
	require.NoError(t, lookup("config.json"), "the held directory is served on")
	require.ErrorIs(t, lookup("never-looked-up-1"), unix.ENOENT)
	require.True(t, fusetest.Alive(pid), "the daemon serves the held directory")

	require.NoError(t, syscall.Kill(pid, syscall.SIGTERM))
	waitFor(t, "the daemon to exit on a second SIGTERM", func() bool { return !fusetest.Alive(pid) })
	err = lookup("never-looked-up-2")
	assert.True(t, isDeadErr(err), "a lookup after the daemon's end: %v", err)
}

// isDeadErr reports whether err is what a FUSE mount whose connection has
// ended answers: ENOTCONN, or ECONNABORTED for a request the end caught.
func isDeadErr(err error) bool {
	return errors.Is(err, syscall.ENOTCONN) || errors.Is(err, syscall.ECONNABORTED)
}

// failingFile is a backing file that fails reads of one byte range with
// EIO, as a disk with a bad sector would.
type failingFile struct {
	fs.Inode
	data    []byte
	bad     [2]int64
	mu      sync.Mutex
	touched bool
}

var _ = (fs.NodeReader)((*failingFile)(nil))
var _ = (fs.NodeOpener)((*failingFile)(nil))
var _ = (fs.NodeGetattrer)((*failingFile)(nil))

func (f *failingFile) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	return nil, 0, 0
}

func (f *failingFile) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	out.Mode = syscall.S_IFREG | 0o444
	out.Size = uint64(len(f.data))
	return 0
}

func (f *failingFile) Read(ctx context.Context, fh fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	end := min(off+int64(len(dest)), int64(len(f.data)))
	if off < f.bad[1] && end > f.bad[0] {
		f.mu.Lock()
		f.touched = true
		f.mu.Unlock()
		return nil, syscall.EIO
	}
	if off >= end {
		return fuse.ReadResultData(nil), 0
	}
	return fuse.ReadResultData(f.data[off:end]), 0
}

// TestBackingIOError serves the model from a filesystem whose disk fails
// on one tensor's bytes: reading that tensor gives EIO, the daemon keeps
// serving the rest.
func TestBackingIOError(t *testing.T) {
	requireFUSE(t)
	model := testmodel.TinyDir(t, nil)
	raw := readFile(t, filepath.Join(model, "model.safetensors"))
	cfg := readFile(t, filepath.Join(model, "config.json"))
	f, err := safetensors.NewFile(source.NewReaderFile("m", strings.NewReader(string(raw)), int64(len(raw))))
	require.NoError(t, err)
	bad := f.Tensor("model.layers.1.mlp.down_proj.weight")
	good := f.Tensor("model.layers.0.mlp.down_proj.weight")

	// The backing filesystem, served by this process.
	backing := &failingFile{data: raw, bad: [2]int64{bad.Offset + 100, bad.Offset + 200}}
	dir := serveBacking(t, backing, cfg)

	mnt, pid := mountModel(t, dir)
	_, err = os.ReadFile(filepath.Join(mnt, "by-name", bad.Name, "data"))
	assert.ErrorIs(t, err, syscall.EIO)
	backing.mu.Lock()
	assert.True(t, backing.touched, "the failing range was read")
	backing.mu.Unlock()
	got := readFile(t, filepath.Join(mnt, "by-name", good.Name, "data"))
	assert.Equal(t, raw[good.Offset:good.Offset+good.Length], got)
	assert.True(t, fusetest.Alive(pid), "the daemon survived the I/O error")
}

// serveBacking serves, from this process, a directory holding backing as
// model.safetensors and cfg as config.json, and returns its path: a disk
// whose failures the test controls.
func serveBacking(t *testing.T, backing fs.InodeEmbedder, cfg []byte) string {
	t.Helper()
	root := &fs.Inode{}
	dir := t.TempDir()
	sec := time.Second
	server, err := fs.Mount(dir, root, &fs.Options{
		EntryTimeout: &sec, AttrTimeout: &sec,
		OnAdd: func(ctx context.Context) {
			root.AddChild("model.safetensors", root.NewPersistentInode(ctx, backing, fs.StableAttr{Mode: syscall.S_IFREG}), false)
			root.AddChild("config.json", root.NewPersistentInode(ctx, &fs.MemRegularFile{Data: cfg, Attr: fuse.Attr{Mode: 0o444}}, fs.StableAttr{Mode: syscall.S_IFREG}), false)
		},
	})
	require.NoError(t, err)
	t.Cleanup(func() { server.Unmount() })
	return dir
}

// TestListingNeverReads serves a model from a backing filesystem whose
// every data byte fails: mounting, ls -lR, find with stat, and du work —
// none of them reads a tensor byte — and only reading a view does.
func TestListingNeverReads(t *testing.T) {
	requireFUSE(t)
	model := testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor { return ts[:len(ts)-1] }) // no lm_head: nothing to compare at mount
	raw := readFile(t, filepath.Join(model, "model.safetensors"))
	cfg := readFile(t, filepath.Join(model, "config.json"))
	f, err := safetensors.NewFile(source.NewReaderFile("m", strings.NewReader(string(raw)), int64(len(raw))))
	require.NoError(t, err)
	// Direct I/O on the backing file, so the kernel reads exactly what
	// the daemon asks for, not a readahead window into the data.
	backing := &directFile{failingFile{data: raw, bad: [2]int64{f.DataStart(), int64(len(raw))}}}
	dir := serveBacking(t, backing, cfg)

	mnt, _ := mountModel(t, dir)
	for _, cmd := range []string{"ls -lR " + mnt, "find " + mnt + " -type f -exec stat -c '%s %n' {} +", "du -a " + mnt, "diff -r " + mnt + "/expected/layers/0 " + mnt + "/layers/0 " + shapeDiffExcludes} {
		out, code := sh(t, cmd)
		require.Contains(t, []int{0}, code, "%s: %.500s", cmd, out)
	}
	backing.mu.Lock()
	assert.False(t, backing.touched, "listing read tensor bytes")
	backing.mu.Unlock()
	_, err = os.ReadFile(filepath.Join(mnt, "norm", "stats"))
	assert.ErrorIs(t, err, syscall.EIO, "a view reads the failing bytes")
	backing.mu.Lock()
	assert.True(t, backing.touched)
	backing.mu.Unlock()
}

// TestViewsOfChangedFile: like data, the views of a tensor whose file
// changed under the mount fail with EIO.
func TestViewsOfChangedFile(t *testing.T) {
	model := testmodel.TinyDir(t, nil)
	mnt, _ := mountModel(t, model)
	require.NoError(t, os.Truncate(filepath.Join(model, "model.safetensors"), 100))
	for _, v := range []string{"values", "values.f32", "values.npy", "stats", "sha256", "hist"} {
		_, err := os.ReadFile(filepath.Join(mnt, "norm", v))
		assert.ErrorIs(t, err, syscall.EIO, v)
	}
}

// directFile is a failingFile opened with direct I/O.
type directFile struct{ failingFile }

func (f *directFile) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	return nil, fuse.FOPEN_DIRECT_IO, 0
}

// The daemon and fsmount -u under abuse: a closed stderr, kills at any
// moment of start-up, foreign mounts, racing mounts. Every wait is
// bounded, so that a hang fails the test rather than CI.

// TestDaemonSurvivesClosedStderr: fsmount -f -d with its log into head,
// which exits after two lines. The next log line meets a closed pipe; the
// daemon must keep serving, and unmount cleanly when asked.
func TestDaemonSurvivesClosedStderr(t *testing.T) {
	requireFUSE(t)
	model := repoPath("testdata", "tiny-qwen3")
	for i := range 4 {
		mnt := mountPoint(t)
		cmd := exec.Command("sh", "-c", "exec "+filepath.Join(binDir, "fsmount")+" -f -d "+model+" "+mnt+" 2>&1 | head -2 >/dev/null")
		require.NoError(t, cmd.Start())
		waitFor(t, "the mount", func() bool { return mounted(t, mnt) })
		// Each request logs: plenty of writes to the closed pipe. The
		// reads run in a child, so that a hung mount fails the test.
		out, code, ok := shTimeout(t, 10*time.Second, "for i in 1 2 3 4 5 6 7 8 9 10; do ls "+mnt+"/layers/$i "+mnt+"/nope$i 2>/dev/null; done; cat "+mnt+"/verdict")
		require.True(t, ok, "try %d: the mount hangs: the daemon died of its closed stderr", i)
		require.Equal(t, 0, code, "try %d: %s", i, out)
		assert.Contains(t, out, "✓")
		r := runTimeout(t, 30*time.Second, "fsmount", "-u", mnt)
		require.Equal(t, 0, r.code, "try %d: %s", i, r.stderr)
		code, ok = waitTimeout(cmd, 10*time.Second)
		require.True(t, ok, "try %d: the daemon did not exit after -u", i)
		assert.Equal(t, 0, code, "try %d", i)
		assert.False(t, mounted(t, mnt))
	}
}

// TestKilledAtRandomMoments kills fsmount -f with SIGKILL or SIGTERM at
// random moments of its first 20 ms, the window in which go-fuse opens a
// file on its own new mount. Whatever the moment, fsmount -u clears what
// is left (aborting the connection of a daemon stuck in the kernel), the
// killed process is reaped, and the mount point is usable again.
func TestKilledAtRandomMoments(t *testing.T) {
	requireFUSE(t)
	model := repoPath("testdata", "tiny-qwen3")
	mnt := mountPoint(t)
	for i := range 24 {
		sig := syscall.SIGKILL
		if i%2 == 1 {
			sig = syscall.SIGTERM
		}
		delay := time.Duration(rand.IntN(20_000)+200) * time.Microsecond
		cmd := exec.Command(filepath.Join(binDir, "fsmount"), "-f", "-q", model, mnt)
		require.NoError(t, cmd.Start())
		time.Sleep(delay)
		require.NoError(t, cmd.Process.Signal(sig))
		what := sig.String() + " after " + delay.String()
		time.Sleep(50 * time.Millisecond)
		if mounted(t, mnt) {
			r := runTimeout(t, 30*time.Second, "fsmount", "-u", mnt)
			// A daemon sent SIGTERM unmounts its mount itself, and may
			// do so while -u runs (a loaded machine delays either): -u
			// then says so, and exits 1 as any -u that lost a race does.
			if sig != syscall.SIGTERM || r.stderr != "fsmount: "+mnt+" is not a mount point (it was unmounted meanwhile)\n" {
				require.Equal(t, 0, r.code, "%s: fsmount -u: %s", what, r.stderr)
			}
			require.False(t, mounted(t, mnt), "%s: still mounted after -u", what)
		}
		code, ok := waitTimeout(cmd, 10*time.Second)
		require.True(t, ok, "%s: the killed fsmount was not reaped: stuck in the kernel", what)
		if sig == syscall.SIGTERM {
			assert.Contains(t, []int{0, -1}, code, "%s: exit status", what)
		}
		require.True(t, statTimeout(t, mnt, 5*time.Second), "%s: the mount point hangs", what)
		require.Equal(t, 0, runTimeout(t, time.Minute, "fsmount", "-q", model, mnt).code, "%s: remount", what)
		require.Equal(t, 0, runTimeout(t, 30*time.Second, "fsmount", "-u", mnt).code, "%s: unmount", what)
	}
}

// TestUnmountHungDaemon: a daemon that cannot answer (stopped here, as a
// killed one stuck in the kernel cannot either) has its connection
// aborted by fsmount -u, which says so and succeeds.
func TestUnmountHungDaemon(t *testing.T) {
	mnt, pid := mountModel(t, repoPath("testdata", "tiny-qwen3"))
	require.NoError(t, syscall.Kill(pid, syscall.SIGSTOP))
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL); syscall.Kill(pid, syscall.SIGCONT) })
	r := runTimeout(t, 30*time.Second, "fsmount", "-u", mnt)
	if shown, err := mountinfo.FusectlAt(mountinfo.Connections); os.Geteuid() != 0 && err == nil && !shown {
		// A user cannot mount fusectl (test.sh mounts it, as root, before
		// the unprivileged run): -u must then say so, truly.
		assert.NotEqual(t, 0, r.code)
		es, err := mountinfo.Read()
		require.NoError(t, err)
		if mountinfo.FusectlListed(es, mountinfo.Connections) {
			assert.Contains(t, r.stderr, "fusectl is mounted on "+mountinfo.Connections+", but another mount hides it there")
		} else {
			assert.Contains(t, r.stderr, "fusectl is not mounted on "+mountinfo.Connections)
		}
		t.Skip("SKIPPING the abort: fusectl does not show on " + mountinfo.Connections + ", and only root can mount it")
	}
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "the daemon did not answer within 2s: aborted its FUSE connection")
	assert.False(t, mounted(t, mnt))
	require.NoError(t, syscall.Kill(pid, syscall.SIGCONT))
	waitFor(t, "the daemon to exit", func() bool { return !fusetest.Alive(pid) })
}

// TestUnmountHungDaemonFusectlHidden: where the mount table lists fusectl
// but another mount hides it (here a tmpfs over it, in a mount namespace
// of the test's own), fsmount -u as root mounts fusectl over it and
// aborts the hung daemon's connection. It used to believe the table, and
// failed saying fusectl was mounted but listed no such connection.
func TestUnmountHungDaemonFusectlHidden(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("SKIPPING: hiding fusectl needs root (a mount namespace, a tmpfs); the root run covers it")
	}
	mnt, pid := mountModel(t, repoPath("testdata", "tiny-qwen3"))
	require.NoError(t, syscall.Kill(pid, syscall.SIGSTOP))
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL); syscall.Kill(pid, syscall.SIGCONT) })
	// In the namespace the mount is a copy: -u unmounts that copy, and
	// the abort ends the connection of both, which leaves ours dead.
	out, code := inNamespace(t, "mount -t tmpfs fsmount-hide "+mountinfo.Connections+"\n"+
		"exec "+filepath.Join(binDir, "fsmount")+" -u "+mnt)
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "the daemon did not answer within 2s: aborted its FUSE connection")
	assert.NotContains(t, out, "serves on", "a copy of an aborted connection keeps no daemon serving")
	r := runTimeout(t, 30*time.Second, "fsmount", "-u", mnt)
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stderr, "aborted", "the connection was aborted already: the mount here is dead")
	assert.False(t, mounted(t, mnt))
}

// hangingRoot is a mount root whose GETATTR waits while hang is set: a
// daemon that stopped answering once the shell had entered its mount.
type hangingRoot struct {
	fs.Inode
	hang    atomic.Bool
	release chan struct{}
}

var _ = (fs.NodeGetattrer)((*hangingRoot)(nil))

func (r *hangingRoot) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	if r.hang.Load() {
		select {
		case <-r.release:
		case <-ctx.Done():
		}
	}
	out.Mode = 0o755
	return 0
}

// TestUnmountFromInsideHungMount: fsmount -u . run in a shell sitting in
// a mount whose daemon no longer answers GETATTR, once the kernel's
// cached attributes have expired (at once here; after an hour for
// fsmount's own), unmounts it (detached: the shell is in it). It used
// to wait forever: os.Getwd, under filepath.Abs, stats "." first. The
// mount is served by this test process, as fsmount's type.
func TestUnmountFromInsideHungMount(t *testing.T) {
	requireFUSE(t)
	root := &hangingRoot{release: make(chan struct{})}
	mnt := t.TempDir()
	zero := time.Duration(0)
	server, err := fs.Mount(mnt, root, &fs.Options{AttrTimeout: &zero, EntryTimeout: &zero,
		MountOptions: fuse.MountOptions{Name: "fsmount", FsName: "hanging", DirectMount: os.Geteuid() == 0}})
	require.NoError(t, err)
	t.Cleanup(func() {
		close(root.release)
		if mounted(t, mnt) {
			fusetest.Unmount(server, mnt)
		} else {
			server.Wait()
		}
	})
	cmd := exec.Command("sh", "-c", "cd "+mnt+" && echo in && read x && exec "+filepath.Join(binDir, "fsmount")+" -u .")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr fusetest.SyncBuffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err, stderr.String())
	require.Equal(t, "in\n", line)
	root.hang.Store(true)
	_, err = stdin.Write([]byte("\n"))
	require.NoError(t, err)
	code, ok := waitTimeout(cmd, 30*time.Second)
	require.True(t, ok, "fsmount -u . in a hung mount hangs: %s", stderr.String())
	require.Equal(t, 0, code, stderr.String())
	assert.Contains(t, stderr.String(), "is busy: detached")
	assert.False(t, mounted(t, mnt))
}

// slowRoot is a mount root whose lookups of fsmount -u's probe names take
// delay: a daemon that runs but answers slowly, as on a loaded machine.
type slowRoot struct {
	fs.Inode
	delay time.Duration
}

var _ = (fs.NodeLookuper)((*slowRoot)(nil))

func (r *slowRoot) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if strings.HasPrefix(name, ".fsmount-probe") {
		select {
		case <-time.After(r.delay):
		case <-ctx.Done():
		}
	}
	return nil, syscall.ENOENT
}

// TestUnmountSlowDaemon: fsmount -u of a mount whose daemon runs but
// answers its probe only after 5 s (more than the 2 s a stopped one is
// given) waits for the answer and unmounts without aborting the
// connection, which would have ended the reads of open files. It used to
// abort any daemon slower than 2 s. The mount is served by this test
// process, as fsmount's type (what -u then says of the daemon's exit is
// about the test's processes, and not checked).
func TestUnmountSlowDaemon(t *testing.T) {
	requireFUSE(t)
	mnt := t.TempDir()
	server, err := fs.Mount(mnt, &slowRoot{delay: 5 * time.Second}, &fs.Options{
		MountOptions: fuse.MountOptions{Name: "fsmount", FsName: "slow", DirectMount: os.Geteuid() == 0}})
	require.NoError(t, err)
	t.Cleanup(func() {
		if mounted(t, mnt) {
			fusetest.Unmount(server, mnt)
		} else {
			server.Wait()
		}
	})
	r := runTimeout(t, time.Minute, "fsmount", "-u", mnt)
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stderr, "aborted")
	assert.False(t, mounted(t, mnt))
}

// TestUnmountRefusesForeignMounts: fsmount -u unmounts only fsmount
// mounts; anything else gets one line and a non-zero exit, and stays.
func TestUnmountRefusesForeignMounts(t *testing.T) {
	dir := t.TempDir()
	r := runCmd(t, "fsmount", "-u", dir)
	assert.Equal(t, 1, r.code)
	assert.Equal(t, "fsmount: "+dir+" is not a mount point\n", r.stderr)

	if os.Geteuid() != 0 {
		t.Skip("SKIPPING the tmpfs part: mounting one needs root")
	}
	tmpfs := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "fsmount-test", tmpfs).CombinedOutput()
	require.NoError(t, err, string(out))
	t.Cleanup(func() { exec.Command("umount", "-l", tmpfs).Run() })
	r = runCmd(t, "fsmount", "-u", tmpfs)
	assert.Equal(t, 1, r.code)
	assert.Equal(t, "fsmount: "+tmpfs+" is not an fsmount mount (it is tmpfs from fsmount-test): left alone\n", r.stderr)
	assert.True(t, mounted(t, tmpfs), "the tmpfs is still mounted")
}

// TestRacingMounts launches several fsmount calls for one mount point at
// once: exactly one mounts, the others exit 10 saying the point is busy,
// and nothing is stacked.
func TestRacingMounts(t *testing.T) {
	requireFUSE(t)
	model := repoPath("testdata", "tiny-qwen3")
	for round := range 3 {
		mnt := mountPoint(t)
		const n = 6
		results := make([]result, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { results[i] = runTimeout(t, time.Minute, "fsmount", "-q", model, mnt) })
		}
		wg.Wait()
		won := 0
		for _, r := range results {
			switch r.code {
			case 0:
				won++
			case 10:
				assert.Contains(t, r.stderr, "is busy", "round %d", round)
				assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "round %d: %q", round, r.stderr)
			default:
				t.Errorf("round %d: exit %d: %s", round, r.code, r.stderr)
			}
		}
		assert.Equal(t, 1, won, "round %d: exactly one wins: %+v", round, results)
		es, err := mountinfo.Read()
		require.NoError(t, err)
		stacked := 0
		for _, e := range es {
			if e.Point == mnt {
				stacked++
			}
		}
		assert.Equal(t, 1, stacked, "round %d: one mount, nothing stacked", round)
		require.Equal(t, 0, runTimeout(t, 30*time.Second, "fsmount", "-u", mnt).code)
		assert.False(t, mounted(t, mnt), "round %d", round)
	}
}
