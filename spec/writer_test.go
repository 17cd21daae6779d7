package spec

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWrittenByV5: transformers_version decides; a config without it is
// 4.x's unless its model_type exists only in 5.x (a 5.x-only VLM tied by
// its top level must not be read by its text config's tie).
func TestWrittenByV5(t *testing.T) {
	for _, tt := range []struct {
		config string
		want   bool
	}{
		{`{"model_type": "llama", "transformers_version": "5.15.0"}`, true},
		{`{"model_type": "llama", "transformers_version": "4.57.6"}`, false},
		{`{"model_type": "llama"}`, false},
		{`{"model_type": "qwen3_5"}`, true},
		{`{"model_type": "muse_glimmer"}`, true},
		{`{"model_type": "qwen3_5", "transformers_version": "4.57.6"}`, false},
		{`{"model_type": "fancynet"}`, false},
	} {
		c, err := ParseConfig("config.json", []byte(tt.config))
		require.NoError(t, err)
		assert.Equal(t, tt.want, writtenByV5(c), tt.config)
	}
}
