package spec_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/spec"
)

// TestConfigJSONStrictness refuses what Python's json.loads refuses or
// what transformers cannot use: trailing garbage after the object, and a
// size written as a float (128.0 or 1e3 is a float to Python).
func TestConfigJSONStrictness(t *testing.T) {
	const body = `"architectures":["Qwen3ForCausalLM"],"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,
		"num_key_value_heads":2,"head_dim":16,"intermediate_size":64`
	cases := []struct {
		name, raw string
		parseErr  string // ParseConfig's error, if any
		field     string // Expect's ConfigError field, if any
		msg       string
	}{
		{"valid", `{` + body + `,"vocab_size":128}`, "", "", ""},
		{"trailing whitespace", `{` + body + `,"vocab_size":128}` + " \n\t\r\n", "", "", ""},
		{"trailing garbage", `{` + body + `,"vocab_size":128} x`, "not a JSON object: invalid character 'x' after top-level value", "", ""},
		{"two objects", `{` + body + `,"vocab_size":128}{}`, "not a JSON object: invalid character '{' after top-level value", "", ""},
		{"trailing comma", `{` + body + `,"vocab_size":128,}`, "not a JSON object", "", ""},
		{"float size", `{` + body + `,"vocab_size":128.0}`, "", "vocab_size", "must be an integer, found 128.0, which Python's json reads as a float"},
		{"exponent size", `{` + body + `,"vocab_size":1.28e2}`, "", "vocab_size", "must be an integer, found 1.28e2, which Python's json reads as a float"},
		{"huge float size", `{` + body + `,"vocab_size":1e30}`, "", "vocab_size", "is 1e30, more than the 16777216 any real model uses"},
		{"fraction", `{` + body + `,"vocab_size":127.5}`, "", "vocab_size", "must be an integer, found 127.5"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := spec.ParseConfig("x/config.json", []byte(c.raw))
			if c.parseErr != "" {
				var ce *spec.ConfigError
				require.ErrorAs(t, err, &ce)
				assert.Contains(t, err.Error(), c.parseErr)
				assert.True(t, strings.HasPrefix(err.Error(), "x/config.json: "))
				return
			}
			require.NoError(t, err)
			_, err = spec.Expect(cfg)
			if c.field == "" {
				require.NoError(t, err)
				return
			}
			var ce *spec.ConfigError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, c.field, ce.Field)
			assert.Contains(t, err.Error(), c.msg)
		})
	}
}
