package model_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/source/remote"
)

func TestSentenceModules(t *testing.T) {
	m, err := model.Open("../testdata/tiny-sentence")
	require.NoError(t, err)
	defer m.Close()
	require.Len(t, m.Modules, 4)
	kinds := []string{}
	for _, mod := range m.Modules {
		kinds = append(kinds, mod.Kind())
	}
	assert.Equal(t, []string{model.ModuleTransformer, model.ModulePooling, model.ModuleDense, model.ModuleNormalize}, kinds)
	assert.NotNil(t, m.Modules[1].Config)
	assert.Empty(t, m.Modules[1].Tensors)
	dense := m.Modules[2]
	require.Len(t, dense.Tensors, 2)
	assert.Equal(t, "linear.bias", dense.Tensors[0].Name)
	assert.Equal(t, []uint64{16, 32}, dense.Tensors[1].Shape)
	assert.Nil(t, m.Modules[3].Config)
	assert.NotNil(t, m.Tensor("model.embed_tokens.weight"), "the transformer is the model")
}

// transformerSubdir copies testdata/tiny-sentence with its transformer
// moved into its module directory, 0_Transformer/, and returns the copy.
func transformerSubdir(t *testing.T) string {
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS("../testdata/tiny-sentence")))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "0_Transformer"), 0o755))
	for _, f := range []string{"config.json", "model.safetensors"} {
		require.NoError(t, os.Rename(filepath.Join(dir, f), filepath.Join(dir, "0_Transformer", f)))
	}
	mods := filepath.Join(dir, "modules.json")
	require.NoError(t, os.WriteFile(mods, []byte(`[
 {"idx": 0, "name": "0", "path": "0_Transformer", "type": "sentence_transformers.models.Transformer"},
 {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
 {"idx": 2, "name": "2", "path": "2_Dense", "type": "sentence_transformers.models.Dense"}
]`), 0o644))
	return dir
}

// The transformer in its module directory (0_Transformer/), as older
// sentence-transformers saved it, is the model.
func TestSentenceTransformerSubdir(t *testing.T) {
	dir := transformerSubdir(t)
	m, err := model.Open(dir)
	require.NoError(t, err)
	defer m.Close()
	assert.NotNil(t, m.Config)
	assert.Equal(t, filepath.Join(dir, "0_Transformer", "config.json"), m.ConfigName)
	assert.NotNil(t, m.Tensor("model.norm.weight"))
	require.Len(t, m.Modules, 3)
	assert.Len(t, m.Modules[2].Tensors, 2)
}

func TestSentenceBadModules(t *testing.T) {
	for _, tc := range []struct{ name, modules, want string }{
		{"not JSON", "{", "modules.json: not a JSON list of modules"},
		{"path outside", `[{"idx": 1, "name": "1", "path": "../x", "type": "sentence_transformers.models.Dense"}]`, `path "../x" is not a relative path`},
		{"absolute path", `[{"idx": 1, "name": "1", "path": "/etc", "type": "sentence_transformers.models.Dense"}]`, "is not a relative path"},
		{"no type", `[{"idx": 1, "name": "1", "path": "1_Pooling"}]`, "module 0 has no type"},
		{"two transformers", `[{"type": "sentence_transformers.models.Transformer"}, {"path": "x", "type": "sentence_transformers.models.Transformer"}]`, "2 Transformer modules"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.CopyFS(dir, os.DirFS("../testdata/tiny-sentence")))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "modules.json"), []byte(tc.modules), 0o644))
			_, err := model.Open(dir)
			var me *model.ModuleError
			require.True(t, errors.As(err, &me), "%v", err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), filepath.Join(dir, "modules.json"))
		})
	}
}

// Over HTTP, the modules and a transformer in 0_Transformer/ are read
// from their directories of the repository's URL.
func TestSentenceRemote(t *testing.T) {
	dir := transformerSubdir(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	m, err := model.OpenWith(srv.URL+"/", &remote.Options{CacheSize: -1})
	require.NoError(t, err)
	defer m.Close()
	assert.Equal(t, srv.URL+"/0_Transformer/config.json", m.ConfigName)
	assert.NotNil(t, m.Tensor("model.norm.weight"))
	require.Len(t, m.Modules, 3)
	assert.NotNil(t, m.Modules[1].Config)
	require.Len(t, m.Modules[2].Tensors, 2)
	assert.Equal(t, []uint64{16, 32}, m.Modules[2].Tensors[1].Shape)
}
