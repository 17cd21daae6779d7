package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/fusetest"
	"github.com/fsmount/fsmount/internal/testmodel"
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

	g, err := os.ReadFile(realGGUF())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, g, 0o644))
	r = runCmd(t, "fsinspect", dir)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, p+": not a safetensors file (it starts with GGUF's magic: a GGUF file, name it .gguf): ")
}
