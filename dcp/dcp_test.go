package dcp_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/dcp"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
)

// realCases are the checkpoints torch 2.6 wrote (testdata/realworld,
// from ../shared/realworld/dcp: README.md there says how).
var realCases = []string{"single", "sharded-2", "sharded-2-tp", "sharded-4-2d", "optim", "optim-sharded-2", "threads-2", "file-per-item"}

type caseJSON struct {
	Expected map[string]struct {
		Shape  []uint64 `json:"shape"`
		DType  string   `json:"dtype"`
		SHA256 string   `json:"sha256"`
	} `json:"expected_tensors"`
	Objects map[string]struct {
		Type string `json:"python_type"`
	} `json:"expected_objects"`
}

func readCase(t *testing.T, dir string) caseJSON {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "case.json"))
	require.NoError(t, err)
	var c caseJSON
	require.NoError(t, json.Unmarshal(b, &c))
	return c
}

// torchDTypes are case.json's dtype names.
var torchDTypes = map[string]tensor.DType{"bfloat16": tensor.BF16, "float32": tensor.F32, "uint8": tensor.U8, "int64": tensor.I64}

// sha reads all of a tensor's bytes through ReadAt, in reads of odd
// sizes that straddle chunks and elements.
func sha(t *testing.T, v *tensor.Tensor) string {
	t.Helper()
	h := sha256.New()
	buf := make([]byte, 777)
	for off := int64(0); off < v.Length; {
		n := min(int64(len(buf)), v.Length-off)
		k, err := v.File.ReadAt(buf[:n], v.Offset+off)
		require.NoError(t, err)
		require.EqualValues(t, n, k)
		h.Write(buf[:k])
		off += n
	}
	return hex.EncodeToString(h.Sum(nil))
}

// piecesSHA reads a tensor through Pieces where its file has them: the
// runs a server would splice.
func piecesSHA(t *testing.T, v *tensor.Tensor) string {
	t.Helper()
	a, ok := v.File.(*dcp.Assembled)
	if !ok {
		return sha(t, v)
	}
	h := sha256.New()
	var end int64
	for off := int64(0); off < v.Length; off += 4093 {
		a.Pieces(off, min(4093, v.Length-off), func(f source.File, at int64, b []byte, k int64) bool {
			require.Nil(t, b)
			buf := make([]byte, k)
			n, err := f.ReadAt(buf, at)
			require.NoError(t, err)
			require.EqualValues(t, k, n)
			h.Write(buf)
			end += k
			return true
		})
	}
	require.Equal(t, v.Length, end)
	return hex.EncodeToString(h.Sum(nil))
}

// TestRealworld: every tensor of every case torch wrote reassembles to
// the SHA-256 in its case.json, through ReadAt and through Pieces; every
// object is listed.
func TestRealworld(t *testing.T) {
	for _, name := range realCases {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("testdata/realworld", name)
			want := readCase(t, dir)
			c, err := dcp.Open(source.Dir(filepath.Join(dir, "checkpoint")), dcp.Options{})
			require.NoError(t, err)
			defer c.Close()
			require.Len(t, c.Tensors, len(want.Expected))
			for _, tt := range c.Tensors {
				e, ok := want.Expected[tt.Key]
				require.True(t, ok, tt.Key)
				assert.Equal(t, e.Shape, tt.View.Shape, tt.Key)
				assert.Equal(t, torchDTypes[e.DType], tt.View.DType, tt.Key)
				assert.Equal(t, e.SHA256, sha(t, tt.View), tt.Key)
				assert.Equal(t, e.SHA256, piecesSHA(t, tt.View), tt.Key)
			}
			require.Len(t, c.Objects, len(want.Objects))
			for _, o := range c.Objects {
				_, ok := want.Objects[o.Key]
				assert.True(t, ok, o.Key)
				assert.NotNil(t, o.File)
			}
		})
	}
}

// TestHostile: every hostile checkpoint is refused with its code in one
// line naming the file; the control is read.
func TestHostile(t *testing.T) {
	for _, tc := range []struct {
		name string
		code dcp.Code
		says string
	}{
		{"chunk-out-of-bounds", dcp.CodeChunkBounds, "w: chunk [3:5, 0:6] reaches past the tensor's size [4, 6]"},
		{"length-past-eof", dcp.CodeOutOfFile, "past the file's end"},
		{"length-truncated", dcp.CodeInvalidItem, "not the torch.save archive of a tensor"},
		{"missing-chunk", dcp.CodeMissingChunk, "no chunk holds elements [2:4, 0:6] (12 of its 24 elements are in no chunk)"},
		{"missing-file", dcp.CodeMissingFile, "the metadata names __1_0.distcp, which is not in"},
		{"missing-storage-entry", dcp.CodeMissingStorage, "w: chunk [2:4, 0:6] has no entry in storage_data"},
		{"overlapping-chunks", dcp.CodeOverlap, "w: chunks [0:3, 0:6] and [2:4, 0:6] overlap on [2:3, 0:6]"},
		{"path-traversal", dcp.CodeBadPath, `"../outside.distcp"`},
		{"path-traversal-deep", dcp.CodeBadPath, `"sub/../../../../../../../../etc/hostname"`},
		{"payload-dtype-mismatch", dcp.CodePayload, "the stored tensor is BF16, the metadata says F32"},
		{"payload-shape-mismatch", dcp.CodePayload, "the stored tensor is [3, 6], the chunk [2, 6]"},
		{"pickle-rce-builtins", dcp.CodeForbidden, "builtins.eval"},
		{"pickle-rce-global", dcp.CodeForbidden, "posix.system"},
		{"pickle-rce-nested", dcp.CodeForbidden, "posix.system"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := dcp.Open(source.Dir(filepath.Join("testdata/realworld/hostile", tc.name, "checkpoint")), dcp.Options{})
			require.Error(t, err)
			assert.ErrorIs(t, err, dcp.ErrFormat)
			assert.ErrorIs(t, err, tc.code)
			var fe *dcp.FormatError
			require.True(t, errors.As(err, &fe))
			assert.Contains(t, err.Error(), tc.says)
			assert.NotContains(t, err.Error(), "\n")
			assert.Contains(t, err.Error(), "hostile/"+tc.name+"/checkpoint/")
			t.Log(err)
		})
	}
	c, err := dcp.Open(source.Dir("testdata/realworld/hostile/control-valid/checkpoint"), dcp.Options{})
	require.NoError(t, err)
	defer c.Close()
	require.Len(t, c.Tensors, 1)
	assert.Equal(t, "45a99655901702d55ab6284a18aed6a5e16677181d16c7a7517b68c2ae2c0c7a", sha(t, c.Tensors[0].View))
}

// TestKeepIncomplete: with KeepIncomplete, a tensor with a gap is left
// out and its error kept.
func TestKeepIncomplete(t *testing.T) {
	c, err := dcp.Open(source.Dir("testdata/realworld/hostile/missing-chunk/checkpoint"), dcp.Options{KeepIncomplete: true})
	require.NoError(t, err)
	defer c.Close()
	assert.Empty(t, c.Tensors)
	require.Len(t, c.Incomplete, 1)
	assert.Equal(t, "w", c.Incomplete[0].Tensor)
	assert.ErrorIs(t, c.Incomplete[0], dcp.CodeMissingChunk)
}
