package fusefs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/layout"
)

// A sentence-transformers repository is one tree: the transformer at the
// root as any model, its other modules under modules/, each with its
// config.json and its tensors' directories.
func TestMountSentenceModules(t *testing.T) {
	mnt, r := mountDir(t, "../testdata/tiny-sentence")
	require.Empty(t, r.Problems)
	ls := func(p string) []string {
		t.Helper()
		es, err := os.ReadDir(filepath.Join(mnt, p))
		require.NoError(t, err)
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		return names
	}
	assert.Contains(t, ls(""), layout.Modules)
	// Normalize has no config and no weights: an empty directory, so
	// that modules/ lists every module after the transformer.
	assert.Equal(t, []string{"1_Pooling", "2_Dense", "3_Normalize"}, ls("modules"))
	assert.Equal(t, []string{"config.json"}, ls("modules/1_Pooling"))
	assert.Equal(t, []string{"config.json", "linear"}, ls("modules/2_Dense"))
	assert.Equal(t, []string{"bias", "data", "dtype", "shape"}, ls("modules/2_Dense/linear"))

	read := func(p string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(mnt, p))
		require.NoError(t, err)
		return string(b)
	}
	want, err := os.ReadFile("../testdata/tiny-sentence/1_Pooling/config.json")
	require.NoError(t, err)
	assert.Equal(t, string(want), read("modules/1_Pooling/config.json"))
	assert.Equal(t, "[16, 32]\n", read("modules/2_Dense/linear/shape"))
	assert.Equal(t, "F32\n", read("modules/2_Dense/linear/dtype"))
	assert.Equal(t, "[16]\n", read("modules/2_Dense/linear/bias/shape"))

	// data is the tensor's bytes in 2_Dense/model.safetensors.
	m := r.Model.Modules[2]
	w := m.Tensors[1]
	require.Equal(t, "linear.weight", w.Name)
	file, err := os.ReadFile("../testdata/tiny-sentence/2_Dense/model.safetensors")
	require.NoError(t, err)
	assert.Equal(t, file[w.Offset:w.Offset+w.Length], []byte(read("modules/2_Dense/linear/data")))
	assert.Contains(t, read("report"), "module 2: 2_Dense (Dense)")
}
