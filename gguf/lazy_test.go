package gguf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oldText renders a writer's value as metadata/<key> did when every
// element was kept in memory (the renderer before the walk), written
// again here from the values themselves: the reference the walk's bytes
// must equal.
func oldText(typ ValueType, val any) string {
	var elem func(t ValueType, v any) string
	scalar := func(t ValueType, v any, quote bool) string {
		switch x := v.(type) {
		case string:
			if quote {
				return strconv.Quote(x)
			}
			return x
		case float32:
			return strconv.FormatFloat(float64(x), 'g', -1, 32)
		case float64:
			return strconv.FormatFloat(x, 'g', -1, 64)
		case bool:
			return strconv.FormatBool(x)
		case uint8:
			if t == TypeBool {
				return strconv.FormatBool(x != 0)
			}
		}
		return fmt.Sprint(v)
	}
	elem = func(t ValueType, v any) string {
		if t != TypeArray {
			return scalar(t, v, true)
		}
		a := v.(arr)
		parts := make([]string, len(a.items))
		for i, it := range a.items {
			parts[i] = elem(a.elem, it)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	if typ != TypeArray {
		return scalar(typ, val, false) + "\n"
	}
	var b strings.Builder
	a := val.(arr)
	for _, it := range a.items {
		b.WriteString(elem(a.elem, it))
		b.WriteByte('\n')
	}
	return b.String()
}

// randomString is a string of random bytes, often not UTF-8, with
// controls, quotes, backslashes and multi-byte characters.
func randomString(rng *rand.Rand, n int) string {
	pieces := []string{"a", "\"", "\\", "'", "\n", "\x1b", "\x7f", "\x00", "é", "€", "𝄞", "\u2028", "\xff", "\xe2\x82", "\xed\xa0\x80", "\ufffd", " "}
	var b strings.Builder
	for b.Len() < n {
		if rng.IntN(3) == 0 {
			b.WriteByte(byte(rng.IntN(256)))
		} else {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
	}
	return b.String()
}

// The streamed text equals the old renderer's, byte for byte, read
// whole and at every offset, for every type, with strings long enough
// to be marked inside.
func TestTextMatchesOldRenderer(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	many := func(n int, f func(i int) any) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	kvs := []wkv{
		kv("general.architecture", TypeString, "x"),
		kv("s.chat", TypeString, "{% for m in messages %}\n\x1b\"q\"\n"),
		kv("s.f32", TypeFloat32, float32(math.Pi)),
		kv("a.bool", TypeArray, arr{TypeBool, many(3000, func(i int) any { return uint8(rng.IntN(3)) })}),
		kv("a.u8", TypeArray, arr{TypeUint8, many(3000, func(i int) any { return uint8(rng.Uint32()) })}),
		kv("a.i8", TypeArray, arr{TypeInt8, many(3000, func(i int) any { return int8(rng.Uint32()) })}),
		kv("a.u16", TypeArray, arr{TypeUint16, many(3000, func(i int) any { return uint16(rng.Uint32()) })}),
		kv("a.i16", TypeArray, arr{TypeInt16, many(3000, func(i int) any { return int16(rng.Uint32()) })}),
		kv("a.u32", TypeArray, arr{TypeUint32, many(3000, func(i int) any { return rng.Uint32() })}),
		kv("a.i32", TypeArray, arr{TypeInt32, many(3000, func(i int) any { return int32(rng.Uint32()) })}),
		kv("a.u64", TypeArray, arr{TypeUint64, many(3000, func(i int) any { return rng.Uint64() })}),
		kv("a.i64", TypeArray, arr{TypeInt64, many(3000, func(i int) any { return int64(rng.Uint64()) })}),
		kv("a.f32", TypeArray, arr{TypeFloat32, many(3000, func(i int) any { return math.Float32frombits(rng.Uint32()) })}),
		kv("a.f64", TypeArray, arr{TypeFloat64, many(3000, func(i int) any { return math.Float64frombits(rng.Uint64()) })}),
		kv("a.str", TypeArray, arr{TypeString, many(2500, func(i int) any { return randomString(rng, rng.IntN(40)) })}),
		kv("a.long", TypeArray, arr{TypeString, many(3, func(i int) any { return randomString(rng, 300<<10) })}),
		kv("a.empty", TypeArray, arr{TypeString, nil}),
		kv("a.nested", TypeArray, arr{TypeArray, []any{
			arr{TypeString, []any{"x\ny", ""}}, arr{TypeInt16, []any{int16(-1), int16(2)}}, arr{TypeArray, []any{arr{TypeBool, []any{true}}}}, arr{TypeUint8, nil},
		}}),
	}
	f := mustParse(t, &gfile{kvs: kvs})
	for _, w := range kvs {
		v, ok := f.Lookup(w.key)
		require.True(t, ok, w.key)
		want := oldText(w.typ, w.val)
		require.Equal(t, int64(len(want)), v.TextSize(), w.key)
		require.Equal(t, want, textOf(t, v), w.key)
		// Reads of every size at many offsets.
		for _, n := range []int{1, 7, 4096, 70 << 10} {
			for off := 0; off < len(want); off += max(1, len(want)/97) + n/3 {
				p := make([]byte, n)
				k, err := v.ReadTextAt(p, int64(off))
				end := min(off+n, len(want))
				require.Equal(t, want[off:end], string(p[:k]), "%s: %d bytes at %d", w.key, n, off)
				if end == len(want) && k < n {
					require.ErrorIs(t, err, io.EOF)
				} else {
					require.NoError(t, err)
				}
			}
		}
	}
	long, _ := f.Lookup("a.long")
	assert.Greater(t, len(long.arr.marks), 3, "long strings are marked inside")
}

// appendQuoted quotes as strconv.Quote does, whatever the windows.
func TestAppendQuoted(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		s := randomString(rng, rng.IntN(64))
		want := strconv.Quote(s)
		var got []byte
		b := []byte(s)
		for len(b) > 0 {
			cut := min(len(b), 1+rng.IntN(8))
			var used int
			got, used, _ = appendQuoted(got, b[:cut], cut == len(b))
			b = b[used:]
		}
		require.Equal(t, want, `"`+string(got)+`"`)
	}
}

// writeBoolBomb writes a GGUF file holding one array of n BOOL elements,
// all false: the header, then a sparse file's zeros.
func writeBoolBomb(t testing.TB, dir string, n int64) string {
	var h bytes.Buffer
	le := binary.LittleEndian
	h.WriteString("GGUF")
	binary.Write(&h, le, uint32(3))
	binary.Write(&h, le, uint64(0)) // tensors
	binary.Write(&h, le, uint64(2)) // keys
	for _, s := range []string{"general.architecture"} {
		binary.Write(&h, le, uint64(len(s)))
		h.WriteString(s)
	}
	binary.Write(&h, le, uint32(TypeString))
	binary.Write(&h, le, uint64(4))
	h.WriteString("bomb")
	key := "bomb.bools"
	binary.Write(&h, le, uint64(len(key)))
	h.WriteString(key)
	binary.Write(&h, le, uint32(TypeArray))
	binary.Write(&h, le, uint32(TypeBool))
	binary.Write(&h, le, uint64(n))
	p := filepath.Join(dir, "bomb.gguf")
	fh, err := os.Create(p)
	require.NoError(t, err)
	_, err = fh.Write(h.Bytes())
	require.NoError(t, err)
	require.NoError(t, fh.Truncate(int64(h.Len())+n))
	require.NoError(t, fh.Close())
	return p
}

// A 100-million-element BOOL array costs a small constant per element
// to open (the marks), not the elements: before the walk, the parser
// kept its bytes (and the tree rendered every one as a Go string).
func TestBoolBombParsesInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a 100 MB sparse file")
	}
	const n = 100_000_000
	p := writeBoolBomb(t, t.TempDir(), n)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f, err := Open(p)
	require.NoError(t, err)
	defer f.Close()
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	runtime.GC()
	runtime.ReadMemStats(&after)
	kept := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("opening %d BOOLs allocated %d bytes (%.3f per element), kept %d", n, alloc, float64(alloc)/n, kept)
	// Marks are 32 bytes per 1,024 elements; the reader's windows 8 MiB.
	// Keeping the elements' bytes alone would be 1 per element.
	assert.Less(t, alloc, uint64(n/4), "bytes allocated to open a %d-element array", n)
	assert.Less(t, kept, int64(n/16), "bytes kept by a %d-element array", n)

	v, ok := f.Lookup("bomb.bools")
	require.True(t, ok)
	assert.Equal(t, int64(n*len("false\n")), v.TextSize())
	p1 := make([]byte, 12)
	k, err := v.ReadTextAt(p1, v.TextSize()-12)
	require.NoError(t, err)
	assert.Equal(t, "false\nfalse\n", string(p1[:k]))
	e, err := v.Index(n - 1)
	require.NoError(t, err)
	b, isBool := e.Bool()
	assert.True(t, isBool)
	assert.False(t, b)
}
