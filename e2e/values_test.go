package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/safetensors"
	"github.com/fsmount/fsmount/source"
)

// bf16 returns the BF16 code nearest to v (ties to even), for planting.
func bf16(v float32) uint16 {
	b := math.Float32bits(v)
	if v != v {
		return 0x7fc0
	}
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}

// valuesModel writes a model of several dtypes with planted specials: a
// NaN and an Inf in a BF16 matrix, an all-zero F16 vector, F32 and I32.
func valuesModel(t *testing.T) string {
	t.Helper()
	mat := make([]byte, 2*6*5)
	for i := range 30 {
		binary.LittleEndian.PutUint16(mat[2*i:], bf16(float32(i-12)/7))
	}
	binary.LittleEndian.PutUint16(mat[2*7:], 0x7fc0)  // NaN
	binary.LittleEndian.PutUint16(mat[2*11:], 0x7f80) // +Inf
	f32 := make([]byte, 4*9)
	for i := range 9 {
		binary.LittleEndian.PutUint32(f32[4*i:], math.Float32bits(float32(math.Sin(float64(i)))*1e3))
	}
	i32 := make([]byte, 4*4)
	for i, v := range []int32{-7, 0, 42, math.MaxInt32} {
		binary.LittleEndian.PutUint32(i32[4*i:], uint32(v))
	}
	ts := []testmodel.Tensor{
		{Name: "mat", DType: "BF16", Shape: []uint64{6, 5}, Data: mat},
		{Name: "zero", DType: "F16", Shape: []uint64{8}, Data: make([]byte, 16)},
		{Name: "f32", DType: "F32", Shape: []uint64{3, 3}, Data: f32},
		{Name: "ints", DType: "I32", Shape: []uint64{4}, Data: i32},
	}
	dir := t.TempDir()
	require.NoError(t, testmodel.WriteFile(filepath.Join(dir, "v.safetensors"), ts, nil, 0))
	return filepath.Join(dir, "v.safetensors")
}

// TestValuesViews reads every view through a real mount with the tools
// README shows — head, sed, sort -g, numpy.load, cat stats — and checks
// them against numpy decoding the raw data file itself.
func TestValuesViews(t *testing.T) {
	py := testmodel.Numpy(t)
	mnt, _ := mountModel(t, valuesModel(t))

	// head: the first two rows, each value round-tripping to its code.
	raw, err := os.ReadFile(filepath.Join(mnt, "mat", "data"))
	require.NoError(t, err)
	out, code := sh(t, "head -2 "+mnt+"/mat/values")
	require.Equal(t, 0, code, out)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	require.Len(t, lines, 2)
	for r, l := range lines {
		f := strings.Fields(l)
		require.Len(t, f, 5, "%q", l)
		for c, s := range f {
			v, err := strconv.ParseFloat(s, 64)
			require.NoError(t, err, s)
			want := binary.LittleEndian.Uint16(raw[2*(5*r+c):])
			if want == 0x7fc0 {
				assert.Equal(t, "nan", s)
				continue
			}
			assert.Equal(t, want, bf16(float32(v)), "row %d col %d: %s", r, c, s)
		}
	}
	out, _ = sh(t, "sed -n 3p "+mnt+"/mat/values | awk '{print $2}'")
	assert.Equal(t, "inf\n", out)
	out, _ = sh(t, "tr ' ' '\\n' < "+mnt+"/mat/values | grep -v '^$' | sort -g | tail -1")
	assert.Equal(t, "inf\n", out, "sort -g orders inf last")

	// numpy: values.npy against the data file decoded by numpy itself.
	script := `
import sys, numpy as np
m = sys.argv[1]
def raw(name, dt, shape):
    d = np.fromfile(m + "/" + name + "/data", dtype=dt).reshape(shape)
    if dt == "<u2":
        d = (d.astype(np.uint32) << 16).view(np.float32)
    return d
for name, dt, shape, want in [("mat", "<u2", (6, 5), "float32"), ("zero", "<f2", (8,), "float16"),
                              ("f32", "<f4", (3, 3), "float32"), ("ints", "<i4", (4,), "int32")]:
    a = np.load(m + "/" + name + "/values.npy", mmap_mode="r")
    assert a.shape == shape, (name, a.shape)
    assert a.dtype == np.dtype(want), (name, a.dtype)
    np.testing.assert_array_equal(a, raw(name, dt, shape))
    f = np.fromfile(m + "/" + name + "/values.f32", dtype="<f4").reshape(shape)
    np.testing.assert_array_equal(f, raw(name, dt, shape).astype(np.float32))
    # values parses back to the stored values, rounded to the dtype.
    v = np.loadtxt(m + "/" + name + "/values", dtype=np.float64, ndmin=2).reshape(shape)
    if dt == "<u2":
        b = v.astype(np.float32).view(np.uint32).astype(np.uint64)
        v = (((b + 0x7fff + ((b >> 16) & 1)) >> 16) << 16).astype(np.uint32).view(np.float32)
    elif dt == "<f2":
        v = v.astype(np.float16)
    np.testing.assert_array_equal(v.astype(raw(name, dt, shape).dtype), raw(name, dt, shape))
d = raw("mat", "<u2", (6, 5)).astype(np.float64).ravel()
fin = d[np.isfinite(d)]
print(len(d), int(np.isnan(d).sum()), repr(float(fin.mean())), repr(float(fin.std())), repr(float(fin.min())), repr(float(fin.max())))
`
	o, err := exec.Command(py, "-c", script, mnt).CombinedOutput()
	require.NoError(t, err, string(o))
	want := strings.Fields(string(o))

	stats := readStats(t, filepath.Join(mnt, "mat", "stats"))
	assert.Equal(t, want[0], stats["count"])
	assert.Equal(t, want[1], stats["nan"])
	assert.Equal(t, "1", stats["posinf"])
	for i, k := range []string{"mean", "std", "min", "max"} {
		w, _ := strconv.ParseFloat(want[2+i], 64)
		g, err := strconv.ParseFloat(stats[k], 64)
		require.NoError(t, err, k)
		assert.InDelta(t, w, g, 1e-12*math.Max(1, math.Abs(w)), "%s: numpy %v, stats %v", k, w, g)
	}
	assert.Equal(t, "8", readStats(t, filepath.Join(mnt, "zero", "stats"))["zeros"])

	data, err := os.ReadFile(filepath.Join(mnt, "f32", "data"))
	require.NoError(t, err)
	sum := sha256.Sum256(data)
	got, err := os.ReadFile(filepath.Join(mnt, "f32", "sha256"))
	require.NoError(t, err)
	assert.Equal(t, hex.EncodeToString(sum[:])+"\n", string(got))

	// The model's table: a header line, one line per tensor, a health column.
	out, code = sh(t, "cat "+mnt+"/stats")
	require.Equal(t, 0, code)
	rows := strings.Split(strings.TrimRight(out, "\n"), "\n")
	require.Len(t, rows, 5)
	header := strings.Split(rows[0], "\t")
	assert.Equal(t, "health", strings.TrimSpace(header[len(header)-1]))
	health := map[string]string{}
	for _, r := range rows[1:] {
		f := strings.Split(r, "\t")
		health[strings.TrimSpace(f[0])] = strings.TrimSpace(f[len(f)-1])
	}
	assert.Equal(t, map[string]string{"mat": "nan", "zero": "zero", "f32": "ok", "ints": "ok"}, health)
	out, _ = sh(t, "sort -t\"$(printf '\\t')\" -k3,3n "+mnt+"/stats | awk -F'\\t' 'NR==2{print $1}'")
	assert.NotEmpty(t, strings.TrimSpace(out), "sort and awk work on the table")
}

func readStats(t *testing.T, p string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	m := map[string]string{}
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		f := strings.Fields(l)
		require.Len(t, f, 2, "%q", l)
		m[f[0]] = f[1]
	}
	return m
}

// TestListingNeverReads serves a model from a backing filesystem whose
// every data byte fails: mounting, ls -lR, find with stat, and du work —
// none of them reads a tensor byte — and only reading a view does.
func TestListingNeverReads(t *testing.T) {
	requireFUSE(t)
	model := testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor { return ts[:len(ts)-1] }) // no lm_head: nothing to compare at mount
	raw, err := os.ReadFile(filepath.Join(model, "model.safetensors"))
	require.NoError(t, err)
	cfg, err := os.ReadFile(filepath.Join(model, "config.json"))
	require.NoError(t, err)
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
