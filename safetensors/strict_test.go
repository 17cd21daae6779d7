package safetensors_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/safetensors"
)

// nested returns n arrays, one inside the other, or with obj set objects
// {"k": …}, around 1.
func nested(n int, obj bool) string {
	if obj {
		return strings.Repeat(`{"k":`, n) + "1" + strings.Repeat("}", n)
	}
	return strings.Repeat("[", n) + strings.Repeat("]", n)
}

// TestStrictness matches the reference reader where encoding/json-style
// leniency would differ from it: serde_json's recursion limit (at most
// 127 containers open, the header object and the entry included, so 125
// inside an unknown field) and its handling of duplicate keys.
func TestStrictness(t *testing.T) {
	entry := func(x string) string {
		return `{"t":{"dtype":"F32","x":` + x + `,"shape":[2],"data_offsets":[0,8]}}`
	}
	cases := []struct {
		name   string
		raw    []byte
		err    error
		detail string
		meta   map[string]string
	}{
		{"125-arrays-in-unknown-field", header(entry(nested(125, false)), 8), nil, "", nil},
		{"126-arrays-in-unknown-field", header(entry(nested(126, false)), 8), safetensors.CodeInvalidJSON, "recursion limit exceeded: more than 127 nested arrays and objects", nil},
		{"125-objects-in-unknown-field", header(entry(nested(125, true)), 8), nil, "", nil},
		{"126-objects-in-unknown-field", header(entry(nested(126, true)), 8), safetensors.CodeInvalidJSON, "recursion limit exceeded", nil},
		{"empty-containers-count", header(entry(strings.Repeat("[", 125)+"[]"+strings.Repeat("]", 125)), 8), safetensors.CodeInvalidJSON, "recursion limit exceeded", nil},
		{"metadata-duplicate-key-keeps-last", header(`{"__metadata__":{"format":"np","format":"pt"}}`, 0), nil, "", map[string]string{"format": "pt"}},
		{"metadata-twice-still-refused", header(`{"__metadata__":{},"__metadata__":{}}`, 0), safetensors.CodeInvalidJSON, `duplicate key "__metadata__"`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c.name+".safetensors")
			require.NoError(t, os.WriteFile(path, c.raw, 0o644))
			f, err := safetensors.Open(path)
			if c.err == nil {
				require.NoError(t, err)
				defer f.Close()
				if c.meta != nil {
					assert.Equal(t, c.meta, f.Metadata())
				}
				return
			}
			require.ErrorIs(t, err, c.err)
			assert.True(t, errors.Is(err, safetensors.ErrFormat))
			assert.Contains(t, err.Error(), c.detail)
			assert.NotContains(t, err.Error(), "\n", "one line")
		})
	}
}
