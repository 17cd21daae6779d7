package model_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/download"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
)

// Broken downloads of each format: each refused with its cause and fix
// in one line, typed (download.Code), the format's own error kept as the
// cause.
func TestBrokenDownloads(t *testing.T) {
	root, err := testmodel.RepoRoot()
	require.NoError(t, err)
	cases, err := testmodel.WriteBroken(t.TempDir(), filepath.Join(root, "gguf", "testdata", "llama-2-tiny-random.gguf"))
	require.NoError(t, err)
	require.Len(t, cases, 13)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			m, err := model.Open(c.Path)
			if m != nil {
				m.Close()
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, c.Code)
			assert.ErrorIs(t, err, download.ErrBroken)
			assert.Contains(t, err.Error(), c.Phrase)
			assert.NotContains(t, err.Error(), "\n")
			if c.Code == download.CodeTruncated {
				assert.Contains(t, err.Error(), "re-download it")
			}
		})
	}
	// A typo'd path, in our words.
	_, err = model.Open(filepath.Join(root, "testdata", "tiny-qwen"))
	assert.ErrorIs(t, err, download.CodeNoSuchPath)
	assert.Equal(t, filepath.Join(root, "testdata", "tiny-qwen")+": nothing at this path (no such file or directory); did you mean "+filepath.Join(root, "testdata", "tiny-qwen3")+"?", err.Error())
	assert.False(t, strings.HasPrefix(err.Error(), "stat "))
	// A model that is fine is not diagnosed.
	m, err := model.Open(filepath.Join(root, "testdata", "tiny-qwen3"))
	require.NoError(t, err)
	m.Close()
	// Another format error stays the format's.
	assert.False(t, errors.Is(model.Diagnose(nil, errors.New("an I/O error")), download.ErrBroken))
}
