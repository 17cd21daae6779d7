package spec_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/spec"
)

// forgedName is a tensor name that, printed raw, moves the cursor up two
// lines, clears one and writes a verdict of its own on a line of its own.
const forgedName = "model.x\x1b[2A\x1b[2K\r  ✓ all 25 expected tensors present, shapes match the config\n"

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"model.layers.0.mlp.up_proj.weight", "model.layers.0.mlp.up_proj.weight"},
		{"ünïcødé ✓ 名前", "ünïcødé ✓ 名前"},
		{"a\nb\rc\td", `a\nb\rc\td`},
		{"esc\x1b[2K", `esc\x1b[2K`},
		{"nul\x00del\x7f", `nul\x00del\x7f`},
		{"back\\slash", `back\\slash`},
		{"c1\u0085\u009b", `c1\u0085\u009b`},
		{"ls\u2028ps\u2029", `ls\u2028ps\u2029`},
		{"bidi\u202a\u202b\u202c\u202d\u202e", `bidi\u202a\u202b\u202c\u202d\u202e`},
		{"iso\u2066\u2067\u2068\u2069", `iso\u2066\u2067\u2068\u2069`},
		{"marks\u200e\u200f\u061c\ufeff", `marks\u200e\u200f\u061c\ufeff`},
		{"bad\xffutf8", `bad\xffutf8`},
	} {
		got := spec.Escape(c.in)
		assert.Equal(t, c.want, got, "%q", c.in)
		// Reversible: the escapes are Go's, so strconv can undo them.
		back, err := strconv.Unquote(`"` + strings.ReplaceAll(got, `"`, `\"`) + `"`)
		require.NoError(t, err, got)
		assert.Equal(t, c.in, back)
	}
}

// TestForgedNameEscaped writes a file whose header holds forgedName and
// checks that neither the report nor the verdict carries its controls,
// and that no line but the real verdict's claims success.
func TestForgedNameEscaped(t *testing.T) {
	dir := testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor {
		return append(ts, testmodel.Tensor{Name: forgedName, DType: "BF16", Shape: []uint64{2}})
	})
	r := check(t, dir)
	require.False(t, r.Clean())
	for name, text := range map[string]string{"report": r.Text(), "verdict": r.Verdict()} {
		assert.NotContains(t, text, "\x1b", name)
		assert.NotContains(t, text, "\r", name)
		assert.Contains(t, text, `model.x\x1b[2A\x1b[2K\r  ✓ all 25 expected tensors present, shapes match the config\n`, name)
		for _, l := range strings.Split(text, "\n") {
			assert.False(t, strings.HasPrefix(strings.TrimSpace(l), "✓"), "%s: forged line %q", name, l)
		}
	}
	// The JSON report stays exact: the name round-trips unchanged.
	var j struct {
		Tensors []struct{ Name string } `json:"tensor_list"`
	}
	require.NoError(t, json.Unmarshal(r.JSON(), &j))
	var names []string
	for _, tt := range j.Tensors {
		names = append(names, tt.Name)
	}
	assert.Contains(t, names, forgedName)
}
