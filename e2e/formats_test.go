package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/fsmount/fsmount/internal/fusetest"
	"github.com/fsmount/fsmount/internal/nginxtest"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/safetensors"
)

// TestNonRegularFiles plants a FIFO, a symlink to /dev/zero and a
// directory where the model's files should be: fsinspect and fsmount
// refuse each at once, with one line naming the file, exit 2, and leave
// nothing mounted or running. A FIFO used to hang them; /dev/zero used to
// eat the memory of the machine.
func TestNonRegularFiles(t *testing.T) {
	plant := map[string]func(p string) error{
		"FIFO":              func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"link to /dev/zero": func(p string) error { return os.Symlink("/dev/zero", p) },
		"directory":         func(p string) error { return os.Mkdir(p, 0o755) },
	}
	kind := map[string]string{"FIFO": "a FIFO", "link to /dev/zero": "a character device", "directory": "a directory"}
	for _, name := range []string{"config.json", "model.safetensors", "model.safetensors.index.json", "model-00002-of-00002.safetensors"} {
		for what, mk := range plant {
			t.Run(name+" as "+what, func(t *testing.T) {
				dir := testmodel.TinyDir(t, nil)
				if strings.HasPrefix(name, "model-") || strings.HasSuffix(name, "index.json") {
					shardTiny(t, dir)
				}
				p := filepath.Join(dir, name)
				os.Remove(p)
				require.NoError(t, mk(p))
				for _, cmd := range []string{"fsinspect", "fsmount"} {
					args := []string{dir}
					var mnt string
					if cmd == "fsmount" {
						requireFUSE(t)
						mnt = t.TempDir()
						args = append(args, mnt)
					}
					start := time.Now()
					r := runCmd(t, cmd, args...)
					assert.Less(t, time.Since(start), 10*time.Second, "%s took too long", cmd)
					assert.Equal(t, 2, r.code, "%s: %s", cmd, r.stderr)
					assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
					assert.Contains(t, r.stderr, p+": not a regular file ("+kind[what]+")")
					if mnt != "" {
						assert.False(t, mounted(t, mnt))
						assert.Zero(t, fusetest.DaemonPid(mnt, "fsmount"))
					}
				}
			})
		}
	}
}

// shardTiny turns the tiny model's model.safetensors into two shards and
// an index.
func shardTiny(t *testing.T, dir string) {
	t.Helper()
	ts := testmodel.TinyQwen3Tensors()
	half := len(ts) / 2
	shards := map[string][]testmodel.Tensor{"model-00001-of-00002.safetensors": ts[:half], "model-00002-of-00002.safetensors": ts[half:]}
	var wm []string
	for shard, part := range shards {
		require.NoError(t, testmodel.WriteFile(filepath.Join(dir, shard), part, map[string]string{"format": "pt"}, 0))
		for _, tt := range part {
			wm = append(wm, fmt.Sprintf("%q:%q", tt.Name, shard))
		}
	}
	require.NoError(t, os.Remove(filepath.Join(dir, "model.safetensors")))
	idx := `{"weight_map":{` + strings.Join(wm, ",") + `}}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "model.safetensors.index.json"), []byte(idx), 0o644))
	r := runCmd(t, "fsinspect", dir)
	require.Equal(t, 0, r.code, "the sharded tiny model checks clean: %s", r.stderr)
}

// TestOversizedConfig: config.json and the index are read whole, so they
// have caps (4 MiB and 256 MiB); a 5 MiB config is refused in one line.
func TestOversizedConfig(t *testing.T) {
	dir := testmodel.TinyDir(t, nil)
	cfg := filepath.Join(dir, "config.json")
	f, err := os.OpenFile(cfg, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.Write([]byte(strings.Repeat(" ", 5<<20)))
	require.NoError(t, err)
	require.NoError(t, f.Close())
	st, err := os.Stat(cfg)
	require.NoError(t, err)
	r := runCmd(t, "fsinspect", dir)
	assert.Equal(t, 2, r.code)
	assert.Equal(t, fmt.Sprintf("fsinspect: %s: 5,%03d,%03d bytes, more than the 4,194,304 allowed for this file\n", cfg, st.Size()/1000%1000, st.Size()%1000), r.stderr)
}

// TestShrinkingWhileParsing truncates a model with a 21 MB header while
// fsinspect parses it, again and again: each run ends in a clean result or
// a one-line error, never a crash (the header used to be parsed from a
// mapping, and a shrinking file raised SIGBUS).
func TestShrinkingWhileParsing(t *testing.T) {
	var ts []testmodel.Tensor
	for i := range 200_000 {
		ts = append(ts, testmodel.Tensor{Name: fmt.Sprintf("model.layers.%d.some_long_module_name.weight", i), DType: "U8", Shape: []uint64{1}})
	}
	raw := testmodel.Encode(ts, nil, 1)
	require.Greater(t, len(raw), 10<<20)
	path := filepath.Join(t.TempDir(), "big.safetensors")
	for i := range 6 {
		require.NoError(t, os.WriteFile(path, raw, 0o644))
		done := make(chan result, 1)
		go func() { done <- runCmd(t, "fsinspect", path) }()
		time.Sleep(time.Duration(5+10*i) * time.Millisecond)
		require.NoError(t, os.Truncate(path, int64(len(raw)/3)))
		r := <-done
		assert.NotContains(t, r.stderr, "SIGBUS")
		assert.NotContains(t, r.stderr, "fatal error")
		assert.NotContains(t, r.stderr, "goroutine")
		if r.code != 0 && r.code != 3 {
			assert.Equal(t, 2, r.code, r.stderr)
			assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %.300q", r.stderr)
		}
	}
}

// TestNotSafetensors: a text file or a GGUF file named model.safetensors
// is said to be what it most likely is, before the rule and its numbers.
func TestNotSafetensors(t *testing.T) {
	dir := testmodel.TinyDir(t, nil)
	p := filepath.Join(dir, "model.safetensors")
	require.NoError(t, os.WriteFile(p, []byte("# README\n\nThis is not a model.\n"), 0o644))
	r := runCmd(t, "fsinspect", dir)
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "fsinspect: "+p+`: not a safetensors file (its first 8 bytes are text: "# README"): header_too_large (safetensors: HeaderTooLarge): length prefix says the header is 4,993,722,608,950,321,187 bytes, the limit is 100,000,000`+"\n", r.stderr)

	g := readFile(t, realGGUF())
	require.NoError(t, os.WriteFile(p, g, 0o644))
	r = runCmd(t, "fsinspect", dir)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, p+": not a safetensors file (it starts with GGUF's magic: a GGUF file, name it .gguf): ")
}

// forgedName, printed raw, moves the cursor up, clears the line and
// writes a verdict of its own.
const forgedName = "model.x\x1b[2A\x1b[2K\r  ✓ all 25 expected tensors present, shapes match the config\n"

const forgedEscaped = `model.x\x1b[2A\x1b[2K\r  ✓ all 25 expected tensors present, shapes match the config\n`

func forgedDir(t *testing.T) string {
	return testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor {
		return append(ts, testmodel.Tensor{Name: forgedName, DType: "BF16", Shape: []uint64{2}})
	})
}

// noForgery checks that text carries no terminal control and no line that
// claims success.
func noForgery(t *testing.T, what, text string) {
	t.Helper()
	assert.NotContains(t, text, "\x1b", what)
	assert.NotContains(t, text, "\r", what)
	for _, l := range strings.Split(text, "\n") {
		assert.False(t, strings.HasPrefix(strings.TrimSpace(l), "✓"), "%s: forged line %q", what, l)
	}
}

func TestSpecHardeningInspectEscapesNames(t *testing.T) {
	r := runCmd(t, "fsinspect", forgedDir(t))
	assert.Equal(t, 1, r.code, r.stderr)
	noForgery(t, "fsinspect", r.stdout)
	assert.Contains(t, r.stdout, "✗ unexpected: "+forgedEscaped+" BF16 [2] is not part of Qwen3")

	r = runCmd(t, "fsinspect", "--json", forgedDir(t))
	assert.Contains(t, r.stdout, `"model.x\u001b[2A\u001b[2K\r  ✓ all 25 expected tensors present, shapes match the config\n"`, "JSON escapes the name itself, exactly")
}

func TestSpecHardeningMountEscapesNames(t *testing.T) {
	mnt, _ := mountModel(t, forgedDir(t))
	for _, f := range []string{"report", "verdict", "shapes"} {
		b, err := os.ReadFile(filepath.Join(mnt, f))
		require.NoError(t, err, f)
		noForgery(t, f, string(b))
		assert.Contains(t, string(b), forgedEscaped, f)
	}
	b := readFile(t, filepath.Join(mnt, "shapes"))
	assert.Contains(t, string(b), forgedEscaped+"\t[2]\n")
	assert.Equal(t, 26, strings.Count(string(b), "\n"), "one line per tensor")
}

// TestMountRealSharded rebuilds each real sharded index as sparse shards
// and mounts it: one tree, shard boundaries invisible, clean verdict.
func TestMountRealSharded(t *testing.T) {
	for _, c := range []struct {
		dir     string
		tensors int
		probe   string // a tensor dir and its shape
		shape   string
	}{
		{"Devstral-Small-2507", 363, "layers/39/self_attn/q_proj", "[4096, 5120]"},
		{"cogito-v1-preview-qwen-14B", 579, "layers/47/self_attn/k_proj/bias", "[1024]"},
		{"Qwen3-Coder-30B-A3B-Instruct", 18_867, "layers/47/mlp/experts/127/down_proj", "[2048, 768]"},
		{"Qwen3-Coder-30B-A3B-Instruct-FP8", 37_491, "layers/0/mlp/experts/5/up_proj/weight_scale_inv", "[6, 16]"},
		{"Llama-3.1-8B-Instruct-bnb8bit-finetune", 739, "layers/31/mlp/down_proj/SCB", "[4096]"},
	} {
		t.Run(c.dir, func(t *testing.T) {
			model := t.TempDir()
			_, err := testmodel.WriteRealSharded(model, repoPath("testdata", "realworld", c.dir))
			require.NoError(t, err)

			start := time.Now()
			r := runCmd(t, "fsinspect", model)
			t.Logf("%s: fsinspect %v", c.dir, time.Since(start))
			require.Equal(t, 0, r.code, r.stderr)

			start = time.Now()
			mnt, _ := mountModel(t, model)
			t.Logf("%s: mount-ready %v", c.dir, time.Since(start))

			v := readFile(t, filepath.Join(mnt, "verdict"))
			assert.Contains(t, string(v), "✓ all ")
			s := readFile(t, filepath.Join(mnt, c.probe, "shape"))
			assert.Equal(t, c.shape+"\n", string(s))
			shapes := readFile(t, filepath.Join(mnt, "shapes"))
			assert.Equal(t, c.tensors, strings.Count(string(shapes), "\n"))
			out, code := sh(t, "diff "+mnt+"/expected/shapes "+mnt+"/shapes")
			assert.Equal(t, 0, code, out)
			entries, err := os.ReadDir(filepath.Join(mnt, "by-name"))
			require.NoError(t, err)
			assert.Len(t, entries, c.tensors)
		})
	}
}

// TestMountSafeTensorsJLSharded mounts the SafeTensors.jl sharded fixture
// (six real shards, no config) as one tree.
func TestMountSafeTensorsJLSharded(t *testing.T) {
	model := repoPath("testdata", "realworld", "SafeTensors.jl-sharded")
	mnt, _ := mountModel(t, model)
	top, err := os.ReadDir(mnt)
	require.NoError(t, err)
	var names []string
	for _, e := range top {
		names = append(names, e.Name())
	}
	assert.Contains(t, names, "float32_357", "tensors from shard 2 sit next to those of shard 1")
	assert.Contains(t, names, "int8_357")
	assert.NotContains(t, strings.Join(names, " "), "model-0000", "no shard shows")
	b := readFile(t, filepath.Join(mnt, "float32_357", "shape"))
	assert.Equal(t, "[3, 5, 7]\n", string(b))
	checkDataSharded(t, mnt, model)
}

// checkDataSharded compares every data file with its shard's bytes.
func checkDataSharded(t *testing.T, mnt, model string) {
	t.Helper()
	shards, _ := filepath.Glob(filepath.Join(model, "*.safetensors"))
	require.NotEmpty(t, shards)
	for _, s := range shards {
		checkData(t, mnt, s)
	}
}

func TestMountMissingShards(t *testing.T) {
	requireFUSE(t)
	mnt := t.TempDir()
	r := runCmd(t, "fsmount", repoPath("testdata", "realworld", "Llama-3.2-3B-per-tensor-shards"), mnt)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "missing_shard: 243 of the 254 shards it names are missing")
	assert.False(t, mounted(t, mnt))
}

func TestMountUnknownArchitecture(t *testing.T) {
	model := t.TempDir()
	cfg := strings.Replace(testmodel.TinyQwen3Config, "Qwen3ForCausalLM", "FancyNetForCausalLM", 1)
	cfg = strings.Replace(cfg, `"qwen3"`, `"fancynet"`, 1)
	require.NoError(t, testmodel.WriteModelDir(model, cfg, testmodel.TinyQwen3Tensors()))
	r := runCmd(t, "fsinspect", model)
	assert.Equal(t, 3, r.code, "not fully checked has its own exit code")
	assert.Contains(t, r.stdout, "no spec for architecture FancyNetForCausalLM")
	mnt, _ := mountModel(t, model)
	v := readFile(t, filepath.Join(mnt, "verdict"))
	assert.Contains(t, string(v), "– structural check only: no spec for architecture FancyNetForCausalLM; its tensors are consistent: layers 0..1 (num_hidden_layers)")
	s := readFile(t, filepath.Join(mnt, "layers", "1", "mlp", "up_proj", "shape"))
	assert.Equal(t, "[64, 32]\n", string(s))
}

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
	// opened runs use on path opened for reading, then closes it.
	opened := func(path string, use func(*os.File) error) error {
		fd, err := os.Open(path)
		if err != nil {
			return err
		}
		defer fd.Close()
		return use(fd)
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
			return opened(dir, func(d *os.File) error {
				first, _ := d.Readdirnames(2)
				if _, err := d.Seek(0, io.SeekStart); err != nil {
					return err
				}
				all, err := d.Readdirnames(-1)
				if err != nil || len(all) != 6 || all[0] != first[0] {
					return fmt.Errorf("%v then %v (%v)", first, all, err)
				}
				return nil
			})
		}},
		{"lseek SET/CUR/END and read at EOF", func() error {
			return opened(data, func(fd *os.File) error {
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
			})
		}},
		{"pread at a negative offset is EINVAL", func() error {
			return opened(data, func(fd *os.File) error {
				_, err := unix.Pread(int(fd.Fd()), make([]byte, 4), -1)
				return errIs(err, syscall.EINVAL)
			})
		}},
		{"mmap shared read-only sees the tensor's bytes", func() error {
			return opened(data, func(fd *os.File) error {
				m, err := unix.Mmap(int(fd.Fd()), 0, int(q.Length), unix.PROT_READ, unix.MAP_SHARED)
				if err != nil {
					return err
				}
				defer unix.Munmap(m)
				if string(m) != string(testmodel.Bytes(q)) {
					return errors.New("mapped bytes differ")
				}
				return nil
			})
		}},
		{"mmap shared writable is refused (EACCES)", func() error {
			return opened(data, func(fd *os.File) error {
				_, err := unix.Mmap(int(fd.Fd()), 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
				return errIs(err, syscall.EACCES)
			})
		}},
		{"mmap private writable copies on write, the file is unchanged", func() error {
			return opened(data, func(fd *os.File) error {
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
			})
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
			return opened(dir, func(fd *os.File) error {
				_, err := unix.Read(int(fd.Fd()), make([]byte, 10))
				return errIs(err, syscall.EISDIR)
			})
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

// torchPy runs pytorch/testdata/torchfiles.py with Debian's python3 and
// torch; it skips without them unless FSMOUNT_REQUIRE_TORCH=1.
func torchPy(t *testing.T, args ...string) string {
	t.Helper()
	return strings.TrimSpace(testmodel.RunTorch(t, append([]string{repoPath("pytorch", "testdata", "torchfiles.py")}, args...)...))
}

// TestPyTorchMount writes the tiny model with torch.save (BF16, F16, F32
// with a tied head, a transposed weight, two shards and their index, the
// legacy format), checks each with fsinspect, mounts it, and has torch
// and numpy compare every tensor: by-name/NAME/data against torch.load,
// and the virtual files/model.safetensors (or its shards), read with
// numpy, against the same.
func TestPyTorchMount(t *testing.T) {
	models := t.TempDir()
	torchPy(t, "write", models, repoPath("testdata", "tiny-qwen3"))
	for _, d := range []string{"bf16", "f16", "f32", "transposed", "sharded", "legacy"} {
		t.Run(d, func(t *testing.T) {
			dir := filepath.Join(models, d)
			r := runCmd(t, "fsinspect", dir)
			require.Equal(t, 0, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stdout, "✓ all 25 expected tensors present")
			mnt, _ := mountModel(t, dir)
			assert.Equal(t, "ok 25", torchPy(t, "verify", dir, mnt))
			switch d {
			case "sharded":
				for _, f := range []string{"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors", "model.safetensors.index.json"} {
					assert.FileExists(t, filepath.Join(mnt, "files", f))
				}
				// The mount's own files/ is a model fsinspect checks.
				r := runCmd(t, "fsinspect", filepath.Join(mnt, "files"))
				assert.Equal(t, 0, r.code, r.stdout+r.stderr)
			case "transposed":
				loc, err := os.ReadFile(filepath.Join(mnt, "layers/0/self_attn/q_proj/location"))
				require.NoError(t, err)
				assert.Contains(t, string(loc), "strides [1, 64]")
			default:
				r := runCmd(t, "fsinspect", filepath.Join(mnt, "files", "model.safetensors"))
				assert.Equal(t, 3, r.code, r.stdout+r.stderr) // no config: listed, not checked
			}
			if d == "bf16" {
				// The safetensors original and its torch.save copy are identical.
				r := runCmd(t, "fsinspect", "--compare", repoPath("testdata", "tiny-qwen3"), dir)
				assert.Equal(t, 0, r.code, r.stderr)
				assert.Contains(t, r.stdout, "total: 25 identical")
			}
		})
	}
}

// TestPyTorchRefused: files that are not checkpoints of weights, or
// would run code, are refused by both commands in one line, exit 2, no
// mount left, nothing run.
func TestPyTorchRefused(t *testing.T) {
	hostile := t.TempDir()
	marker := filepath.Join(hostile, "MARKER")
	torchPy(t, "hostile", hostile, marker)
	real := repoPath("pytorch", "testdata", "realworld")
	for _, c := range []struct{ path, say string }{
		{filepath.Join(hostile, "reduce.pt"), "posix.system"},
		{filepath.Join(hostile, "global.pt"), "_io.BytesIO"},
		{filepath.Join(real, "CodyRichter+Compsci-528-DeFault-Data-Classification/model.pt"), "TorchScript archive (torch.jit.save)"},
		{filepath.Join(real, "CodyRichter+Compsci-528-DeFault-Data-Classification/model.ptl"), "lite interpreter"},
		{filepath.Join(real, "phuongsky+lora-gpt2-pipeline/outputs/checkpoint-3/rng_state.pth"), "numpy._core.multiarray._reconstruct"},
		{filepath.Join(real, "phuongsky+lora-gpt2-pipeline/outputs/checkpoint-3/training_args.bin"), "transformers.training_args.TrainingArguments"},
		{filepath.Join(real, "phuongsky+lora-gpt2-pipeline/outputs/checkpoint-3/scheduler.pt"), "holds no tensor"},
	} {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			r := runCmd(t, "fsinspect", c.path)
			assert.Equal(t, 2, r.code)
			assert.Contains(t, r.stderr, c.say)
			assert.Equal(t, 1, strings.Count(r.stderr, "\n"), r.stderr)
			requireFUSE(t)
			mnt := t.TempDir()
			r = runCmd(t, "fsmount", c.path, mnt)
			assert.Equal(t, 2, r.code)
			assert.Contains(t, r.stderr, c.say)
			assert.False(t, mounted(t, mnt), "half-mounted")
		})
	}
	assert.NoFileExists(t, marker, "a pickle ran its command")
}

// TestPyTorchRemote: a .bin model over HTTP (nginx) and hf://, checked
// and mounted by range requests, its values through the mount equal to
// torch's; the .bin files are never fetched whole.
func TestPyTorchRemote(t *testing.T) {
	root := t.TempDir()
	torchPy(t, "write", root, repoPath("testdata", "tiny-qwen3"))
	require.NoError(t, os.Chmod(root, 0o755))
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	srv := nginxtest.Start(t, root)
	for _, d := range []string{"bf16", "sharded"} {
		r := runCmd(t, "fsinspect", srv.URL+"/"+d+"/")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, "✓ all 25 expected tensors present")
	}
	hub := nginxtest.Start(t, filepath.Join(root, "bf16"))
	t.Setenv("HF_ENDPOINT", hub.URL)
	r := runCmd(t, "fsinspect", "hf://org/tiny-bin")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "✓ all 25 expected tensors present")

	mnt, _ := mountModel(t, srv.URL+"/sharded/")
	assert.Equal(t, "ok 25", torchPy(t, "verify", filepath.Join(root, "sharded"), mnt))
	for _, q := range srv.Requests(t) {
		if strings.HasSuffix(q.Path, ".bin") && q.Method == "GET" {
			assert.NotEmpty(t, q.Range, "%s fetched without a Range", q.Path)
		}
	}
}

// fsinspect on adapters, as a user runs it: the exit codes (0 clean, 1
// problems, 2 invalid, 3 partial) and the merge proof's.
func TestInspectAdapter(t *testing.T) {
	dir := t.TempDir()
	ad := filepath.Join(dir, "lora")
	require.NoError(t, testmodel.WriteAdapter(ad, testmodel.TinyAdapterConfig, testmodel.TinyAdapterTensors()))
	tiny := filepath.Join("..", "testdata", "tiny-qwen3")

	r := runCmd(t, "fsinspect", ad)
	assert.Equal(t, 3, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "– partial check: the base it names is testdata/tiny-qwen3, not a local directory; check against it with --base hf://testdata/tiny-qwen3 (or a local copy)")

	r = runCmd(t, "fsinspect", "--base", tiny, ad)
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "✓ all 8 expected tensors present, shapes match the config and the base")

	r = runCmd(t, "fsinspect", "--json", "--base", tiny, ad)
	require.Equal(t, 0, r.code, r.stderr)
	var j struct {
		Type    string `json:"type"`
		Clean   bool   `json:"clean"`
		Modules []struct {
			Module string   `json:"module"`
			Shape  []uint64 `json:"delta_shape"`
		} `json:"modules"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &j))
	assert.Equal(t, "LoRA", j.Type)
	assert.True(t, j.Clean)
	require.Len(t, j.Modules, 4)
	assert.Equal(t, []uint64{64, 32}, j.Modules[0].Shape)

	// Another base: exit 1.
	gpt2 := filepath.Join(dir, "gpt2")
	require.NoError(t, testmodel.WriteHeaderOnly(gpt2, testmodel.GPT2Config(2), testmodel.GPT2Tensors(2)))
	r = runCmd(t, "fsinspect", "--base", gpt2, ad)
	assert.Equal(t, 1, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "✗ 8 problems: 8 unexpected")

	// An invalid adapter: exit 2, one line naming the file.
	bad := filepath.Join(dir, "bad")
	require.NoError(t, os.MkdirAll(bad, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bad, "adapter_config.json"), []byte(`{"peft_type": "LORA", "r": "eight"}`), 0o644))
	r = runCmd(t, "fsinspect", bad)
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "fsinspect: "+filepath.Join(bad, "adapter_config.json")+": r must be an integer\n", r.stderr)

	// --base on a model: a usage error.
	r = runCmd(t, "fsinspect", "--base", tiny, tiny)
	assert.Equal(t, 64, r.code)
}

func TestInspectAdapterMergeProof(t *testing.T) {
	py := testmodel.Numpy(t)
	dir := t.TempDir()
	ad := filepath.Join(dir, "lora")
	require.NoError(t, testmodel.WriteAdapter(ad, testmodel.TinyAdapterConfig, testmodel.TinyAdapterTensors()))
	tiny := filepath.Join("..", "testdata", "tiny-qwen3")
	merge := func(out string, args ...string) {
		cmd := append([]string{filepath.Join("..", "adapter", "testdata", "lora.py"), "merge", tiny, ad, out}, args...)
		b, err := exec.Command(py, cmd...).CombinedOutput()
		require.NoError(t, err, string(b))
	}
	good, off := filepath.Join(dir, "merged"), filepath.Join(dir, "off")
	merge(good)
	merge(off, "--off", "model.layers.0.self_attn.q_proj.weight")

	r := runCmd(t, "fsinspect", "--base", tiny, "--compare", good, ad)
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "✓ the merged model is the base plus the adapter")

	r = runCmd(t, "fsinspect", "--base", tiny, "--compare", off, ad)
	assert.Equal(t, 1, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "✗ model.layers.0.self_attn.q_proj.weight (adapted): 1 of 2,048 elements off, first at [0, 0]")

	// The base is not the merged model.
	r = runCmd(t, "fsinspect", "--base", tiny, "--compare", tiny, ad)
	assert.Equal(t, 1, r.code)

	// No base: nothing to prove against.
	r = runCmd(t, "fsinspect", "--compare", good, ad)
	assert.Equal(t, 64, r.code)
	assert.Contains(t, r.stderr, "--compare with an adapter needs its base")
}

// fsmount --base BASE ADAPTER MNT, as a user runs it: the daemon serves
// the base with lora/ in each adapted module, and -u ends it.
func TestMountAdapter(t *testing.T) {
	dir := t.TempDir()
	ad := filepath.Join(dir, "lora")
	require.NoError(t, testmodel.WriteAdapter(ad, testmodel.TinyAdapterConfig, testmodel.TinyAdapterTensors()))
	mnt, pid := mountModel(t, ad, "--base", filepath.Join("..", "testdata", "tiny-qwen3"))
	out, _ := sh(t, "cat "+mnt+"/verdict")
	assert.Equal(t, "  ✓ all 8 expected tensors present, shapes match the config and the base\n", out)
	out, _ = sh(t, "cat "+mnt+"/layers/1/self_attn/v_proj/lora/delta/shape "+mnt+"/layers/1/self_attn/v_proj/shape")
	assert.Equal(t, "[32, 32]\n[32, 32]\n", out)
	out, _ = sh(t, "wc -c < "+mnt+"/layers/1/self_attn/v_proj/lora/delta/values.f32")
	assert.Equal(t, "4096", strings.TrimSpace(out))
	out, _ = sh(t, "wc -l < "+mnt+"/stats")
	assert.Equal(t, "5", strings.TrimSpace(out))
	report := readFile(t, filepath.Join(mnt, "report"))
	assert.Equal(t, runCmd(t, "fsinspect", "--base", filepath.Join("..", "testdata", "tiny-qwen3"), ad).stdout, string(report))
	// --list names the adapter mounted, not its base.
	list := runCmd(t, "fsmount", "--list").stdout
	assert.Regexp(t, "(?m)^"+regexp.QuoteMeta(mnt)+" +"+regexp.QuoteMeta(ad)+" ", list)
	runCmd(t, "fsmount", "-u", mnt)
	assert.False(t, mounted(t, mnt))
	waitFor(t, "the daemon to exit", func() bool { return !fusetest.Alive(pid) })

	// Without a base, --strict: mounted, exit 3 (a partial check).
	mnt2 := t.TempDir()
	r := runCmd(t, "fsmount", "--strict", ad, mnt2)
	assert.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, r.stdout, "– partial check (no base), LoRA adapter, 4 modules")
	if mounted(t, mnt2) {
		runCmd(t, "fsmount", "-u", mnt2)
	}
}
