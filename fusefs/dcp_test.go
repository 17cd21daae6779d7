package fusefs

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/layout"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
)

// dcpCase copies a checkpoint torch 2.6 wrote (testmodel.DCPCaseDir)
// and returns its directory and case.json's SHA-256 of each full tensor,
// by key.
func dcpCase(t *testing.T, name string) (string, map[string]string) {
	dir, c := testmodel.DCPCaseDir(t, name)
	want := map[string]string{}
	for k, e := range c.Expected {
		want[k] = e.SHA256
	}
	return dir, want
}

func fileSHA(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestDCPMount mounts each checkpoint torch wrote: every full tensor's
// data (a tensor split over ranks is one file) and its bytes in
// files/model.safetensors have case.json's SHA-256; the optimizer's
// tensors are under optim/, the rest under extra/, the values listed in
// extra/objects.
func TestDCPMount(t *testing.T) {
	requireFUSE(t)
	for _, name := range testmodel.DCPCases {
		t.Run(name, func(t *testing.T) {
			dir, want := dcpCase(t, name)
			mnt, r := mountDir(t, dir)
			require.True(t, r.Clean(), r.Text())
			m := r.Model
			vb, err := os.ReadFile(filepath.Join(mnt, "files", model.SingleName))
			require.NoError(t, err)
			n := binary.LittleEndian.Uint64(vb)
			var hdr map[string]struct {
				Offsets [2]int64 `json:"data_offsets"`
			}
			require.NoError(t, json.Unmarshal(vb[8:8+n], &hdr))
			delete(hdr, "__metadata__")
			assert.Len(t, hdr, 25)
			prefixed := want["model.model.norm.weight"] != ""
			optim := 0
			for key, sum := range want {
				switch {
				case key == "rng_state":
					assert.Equal(t, sum, fileSHA(t, filepath.Join(mnt, layout.Extra, "rng_state", "data")))
				case strings.HasPrefix(key, "optim.state."):
					optim++
					rest := strings.TrimPrefix(key, "optim.state.")
					i := strings.LastIndexByte(rest, '.')
					param, state := rest[:i], rest[i+1:]
					comps := layout.Tensors([]string{param}, nil)[param]
					assert.Equal(t, sum, fileSHA(t, filepath.Join(append(append([]string{mnt, layout.Optim}, comps...), state, "data")...)), key)
				default:
					w := key
					if prefixed {
						w = strings.TrimPrefix(key, "model.")
					}
					assert.Equal(t, sum, fileSHA(t, filepath.Join(mnt, "by-name", strings.Join(layout.Escape(w), "/"), "data")), w)
					e, ok := hdr[w]
					require.True(t, ok, w)
					s := sha256.Sum256(vb[8+int64(n)+e.Offsets[0] : 8+int64(n)+e.Offsets[1]])
					assert.Equal(t, sum, hex.EncodeToString(s[:]), w)
				}
			}
			assert.Len(t, m.DCP.Optimizer, optim)
			if len(m.DCP.Objects) > 0 {
				b, err := os.ReadFile(filepath.Join(mnt, layout.Extra, layout.Objects))
				require.NoError(t, err)
				assert.Equal(t, len(m.DCP.Objects), strings.Count(string(b), "\n"))
				assert.Contains(t, string(b), "optim.param_groups.0.lr\t")
			}
		})
	}
}

// TestDCPDataSpliced: a tensor split over ranks by rows is served from
// its chunks in place, spliced from the .distcp files (never copied in
// the daemon), also across the chunks' boundary; so is its range of the
// virtual model.safetensors.
func TestDCPDataSpliced(t *testing.T) {
	dir, want := dcpCase(t, "sharded-2")
	m, err := model.Open(dir)
	require.NoError(t, err)
	defer m.Close()
	tt := m.Tensor("model.embed_tokens.weight") // rows 0..125 in __0_0, 126..250 in __1_0
	require.NotNil(t, tt)
	tr := &tree{splice: true, logger: log.New(io.Discard, "", 0)}
	c := tensorBytes(tt)
	all := make([]byte, 0, tt.Length)
	dest := make([]byte, 8192)
	for off := int64(0); off < tt.Length; off += 8192 {
		k := min(8192, tt.Length-off)
		r, errno := c.read(tr, dest[:k], off)
		require.Zero(t, errno)
		require.True(t, isSpliced(r), "read %d at %d: %T", k, off, r)
		b, st := r.Bytes(make([]byte, k))
		require.Equal(t, fuse.OK, st)
		r.Done()
		all = append(all, b...)
	}
	s := sha256.Sum256(all)
	assert.Equal(t, want["model.embed_tokens.weight"], hex.EncodeToString(s[:]))
	// A read across the boundary between the ranks' rows (126 rows of
	// 128 bytes) is two pieces, spliced into one reply.
	r, errno := c.read(tr, dest[:4096], 126*128-1000)
	require.Zero(t, errno)
	assert.True(t, isSpliced(r), "%T", r)
	b, _ := r.Bytes(make([]byte, 4096))
	r.Done()
	assert.Equal(t, all[126*128-1000:126*128-1000+4096], b)
}

// isSpliced reports a reply spliced from a file: one range of an fd, or
// pieces spliced into a pipe.
func isSpliced(r fuse.ReadResult) bool {
	_, pipe := r.(interface{ Stateful() (uintptr, int) })
	return pipe || fmt.Sprintf("%T", r) == "*fuse.readResultFd"
}
