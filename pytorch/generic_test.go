package pytorch_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/pytorch"
)

func allowPoint(module, name string) bool { return module == "geo" && name == "Point" }

// TestUnpickle: the generic reader builds plain values and records what
// REDUCE, NEWOBJ and BUILD did with an allowed global, and refuses any
// other global, malformed streams and values nested in themselves.
func TestUnpickle(t *testing.T) {
	// geo.Point.__new__(geo.Point) with BUILD {"x": 1, "y": [b"ab", None]},
	// then REDUCE(geo.Point, ("z",)), in a tuple, protocol 4.
	stream := []byte("\x80\x04" +
		"\x8c\x03geo\x8c\x05Point\x93\x94" + // STACK_GLOBAL, MEMOIZE 0
		")\x81" + // EMPTY_TUPLE NEWOBJ
		"}(\x8c\x01xK\x01\x8c\x01y]" + "(C\x02abNe" + "ub" + // state dict, BUILD
		"h\x00\x8c\x01z\x85R" + // BINGET 0, ("z",), REDUCE
		"\x86.")
	v, err := pytorch.Unpickle("s", stream, allowPoint)
	require.NoError(t, err)
	tup, ok := v.(pytorch.Tuple)
	require.True(t, ok)
	require.Len(t, tup, 2)
	o := tup[0].(*pytorch.Object)
	assert.Equal(t, "geo.Point", o.Class)
	assert.True(t, o.New)
	st := o.State.(*pytorch.Dict)
	assert.Equal(t, []any{"x", "y"}, st.Keys)
	assert.Equal(t, []any{int64(1), pytorch.List{[]byte("ab"), nil}}, st.Values)
	r := tup[1].(*pytorch.Object)
	assert.False(t, r.New)
	assert.Equal(t, []any{"z"}, r.Args)

	for _, tc := range []struct {
		name   string
		stream string
		code   pytorch.Code
	}{
		{"forbidden global", "\x80\x04\x8c\x05posix\x8c\x06system\x93.", pytorch.CodeForbidden},
		{"protocol 0 global", "cposix\nsystem\n(S'echo'\ntR.", pytorch.CodeForbidden},
		{"truncated", "\x80\x04\x8c\x03geo", pytorch.CodeInvalidPickle},
		{"BUILD on a list", "\x80\x04]}b.", pytorch.CodeInvalidPickle},
		{"a list in itself", "\x80\x04]\x94h\x00a.", pytorch.CodeLimit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := pytorch.Unpickle("s", []byte(tc.stream), allowPoint)
			assert.ErrorIs(t, err, tc.code)
			assert.ErrorIs(t, err, pytorch.ErrFormat)
		})
	}
}
