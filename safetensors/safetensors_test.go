package safetensors_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/fusetest"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/safetensors"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
)

func TestDTypes(t *testing.T) {
	want := map[string]uint64{
		"BOOL": 8, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6, "U8": 8, "I8": 8,
		"F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8, "F8_E4M3FNUZ": 8, "F8_E5M2FNUZ": 8,
		"I16": 16, "U16": 16, "F16": 16, "BF16": 16, "I32": 32, "U32": 32, "F32": 32,
		"C64": 64, "F64": 64, "I64": 64, "U64": 64,
	}
	n := 0
	for d := tensor.BOOL; d <= tensor.U64; d++ {
		bits, ok := want[d.String()]
		require.True(t, ok, "unexpected dtype %s", d)
		num, den := d.Bits()
		assert.Equal(t, bits, num/den, d.String())
		assert.Equal(t, uint64(0), num%den, d.String())
		back, ok := safetensors.ParseDType(d.String())
		assert.True(t, ok)
		assert.Equal(t, d, back)
		n++
	}
	require.Equal(t, 22, n)
	for _, bad := range []string{"bf16", "F128", "", "FLOAT", "Q4_K", "Q8_0"} {
		_, ok := safetensors.ParseDType(bad)
		assert.False(t, ok, bad)
	}
	num, _ := tensor.DType(0).Bits()
	assert.Equal(t, uint64(0), num)
	assert.Equal(t, "invalid", tensor.DType(200).String())
}

// TestOpenMapsRealBytes round-trips random bytes through a file, the live
// mmap syscall and Tensor.Bytes.
func TestOpenMapsRealBytes(t *testing.T) {
	tensors := []testmodel.Tensor{
		{Name: "a", DType: "F32", Shape: []uint64{3, 5}},
		{Name: "b", DType: "BF16", Shape: []uint64{7}},
		{Name: "c", DType: "U8", Shape: []uint64{}},
		{Name: "empty", DType: "F16", Shape: []uint64{4, 0}},
	}
	raw := testmodel.Encode(tensors, map[string]string{"format": "pt"}, 42)
	path := filepath.Join(t.TempDir(), "model.safetensors")
	require.NoError(t, os.WriteFile(path, raw, 0o644))

	f, err := safetensors.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })

	assert.Equal(t, map[string]string{"format": "pt"}, f.Metadata())
	assert.Equal(t, int64(len(raw)), f.Source().Size())
	require.Len(t, f.Tensors(), 4)
	entries, _ := testmodel.Layout(tensors)
	for _, e := range entries {
		tt := f.Tensor(e.Name)
		require.NotNil(t, tt, e.Name)
		assert.Equal(t, e.Shape, tt.Shape)
		assert.Equal(t, e.Offsets, offsets(f, tt))
		want := raw[f.DataStart()+int64(e.Offsets[0]) : f.DataStart()+int64(e.Offsets[1])]
		assert.Equal(t, want, mapped(t, tt), e.Name)
		got := make([]byte, tt.Length)
		n, _ := tt.Reader().ReadAt(got, 0)
		assert.Equal(t, want, got[:n])
	}
	assert.Nil(t, f.Tensor("missing"))
	assert.Equal(t, uint64(1), f.Tensor("c").NumElements())
	assert.Equal(t, "[]", tensor.FormatShape(f.Tensor("c").Shape))
	assert.Equal(t, "[3, 5]", tensor.FormatShape(f.Tensor("a").Shape))

	// The mapping really is the file: no copy was made at Open.
	b := mapped(t, f.Tensor("a"))
	assert.Equal(t, &b[0], &mapped(t, f.Tensor("a"))[0])
	require.NoError(t, f.Close())
	require.NoError(t, f.Close(), "Close twice is harmless")
}

// offsets returns a tensor's data_offsets, relative to the data section.
func offsets(f *safetensors.File, tt *tensor.Tensor) [2]uint64 {
	start := uint64(tt.Offset - f.DataStart())
	return [2]uint64{start, start + uint64(tt.Length)}
}

// mapped returns a tensor's bytes as a slice of its file's mapping.
func mapped(t *testing.T, tt *tensor.Tensor) []byte {
	t.Helper()
	m, ok := tt.File.(source.Mappable)
	require.True(t, ok, "%s cannot be mapped", tt.File.Name())
	data, err := m.Mapping()
	require.NoError(t, err)
	return data[tt.Offset : tt.Offset+tt.Length]
}

// readAll returns a tensor's bytes, read with ReadAt.
func readAll(t *testing.T, tt *tensor.Tensor) []byte {
	t.Helper()
	b, err := io.ReadAll(tt.Reader())
	require.NoError(t, err)
	return b
}

// referenceCases are the reference implementation's own test payloads,
// with the error each must give (testdata/reference/CASES.md); nil means
// accepted.
var referenceCases = []struct {
	file string
	err  error
	n    int // tensors, when accepted
}{
	{"test_header_too_small", safetensors.CodeHeaderTooSmall, 0},
	{"test_invalid_header_length", safetensors.CodeInvalidHeaderLength, 0},
	{"test_header_too_large", safetensors.CodeHeaderTooLarge, 0},
	{"test_invalid_header_non_utf8", safetensors.CodeInvalidUTF8, 0},
	{"test_invalid_header_not_json", safetensors.CodeInvalidJSON, 0},
	{"test_invalid_info", safetensors.CodeInvalidInfo, 0},
	{"test_validation_overflow_a", safetensors.CodeValidationOverflow, 0},
	{"test_validation_overflow_b", safetensors.CodeValidationOverflow, 0},
	{"test_json_attack", safetensors.CodeInvalidOffset, 0},
	{"test_metadata_incomplete_buffer_a", safetensors.CodeIncompleteBuffer, 0},
	{"test_metadata_incomplete_buffer_b", safetensors.CodeIncompleteBuffer, 0},
	{"pread_test_data_offset_overflow", safetensors.CodeIncompleteBuffer, 0},
	{"test_deserialization", nil, 1},
	{"test_empty_shapes_allowed", nil, 1},
	{"test_zero_sized_tensor", nil, 1},
	{"test_whitespace_padded_header", nil, 0},
	{"test_whitespace_leading_padded_header", nil, 0},
}

func TestReferencePayloads(t *testing.T) {
	for _, c := range referenceCases {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join("testdata", "reference", c.file+".safetensors")
			raw, err := os.ReadFile(path)
			require.NoError(t, err)
			// Both constructors must agree.
			for _, open := range []func() (*safetensors.File, error){
				func() (*safetensors.File, error) { return safetensors.Open(path) },
				func() (*safetensors.File, error) {
					return safetensors.NewFile(source.NewReaderFile(path, bytes.NewReader(raw), int64(len(raw))))
				},
			} {
				f, err := open()
				if c.err == nil {
					require.NoError(t, err)
					assert.Len(t, f.Tensors(), c.n)
					f.Close()
					continue
				}
				require.Error(t, err)
				assert.ErrorIs(t, err, c.err)
				assert.ErrorIs(t, err, safetensors.ErrFormat)
				var fe *safetensors.FormatError
				require.ErrorAs(t, err, &fe)
				assert.Equal(t, path, fe.File)
				assert.Contains(t, err.Error(), path+": ")
				assert.Contains(t, err.Error(), "(safetensors: "+fe.RefName()+")")
			}
		})
	}
}

func TestIncompleteBufferMessage(t *testing.T) {
	f, err := safetensors.Open(filepath.Join("testdata", "reference", "test_metadata_incomplete_buffer_b.safetensors"))
	require.Nil(t, f)
	require.ErrorIs(t, err, safetensors.CodeIncompleteBuffer)
	assert.Contains(t, err.Error(), "file is 2 bytes short")
	assert.Contains(t, err.Error(), "incomplete_buffer (safetensors: MetadataIncompleteBuffer)")

	_, err = safetensors.Open(filepath.Join("testdata", "reference", "test_metadata_incomplete_buffer_a.safetensors"))
	assert.Contains(t, err.Error(), "trailing bytes after the last tensor")
}

func TestAbuseAttempt(t *testing.T) {
	_, err := safetensors.Open(filepath.Join("testdata", "fixtures", "safetensors-cpp", "safetensors_abuse_attempt_1.safetensors"))
	assert.ErrorIs(t, err, safetensors.CodeInvalidHeaderLength)
}

// TestRealFixtures parses every safetensors file written by other
// implementations and checks each tensor against the header as
// encoding/json reads it, an independent decoder.
func TestRealFixtures(t *testing.T) {
	var paths []string
	require.NoError(t, filepath.WalkDir(filepath.Join("testdata", "fixtures"), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".safetensors") && !strings.Contains(p, "abuse") {
			paths = append(paths, p)
		}
		return err
	}))
	require.GreaterOrEqual(t, len(paths), 25)
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			raw, err := os.ReadFile(p)
			require.NoError(t, err)
			n := binary.LittleEndian.Uint64(raw)
			var hdr map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(raw[8:8+n], &hdr))

			f, err := safetensors.Open(p)
			require.NoError(t, err)
			defer f.Close()
			delete(hdr, "__metadata__")
			require.Len(t, f.Tensors(), len(hdr))
			for name, rawEntry := range hdr {
				var e struct {
					DType       string   `json:"dtype"`
					Shape       []uint64 `json:"shape"`
					DataOffsets []uint64 `json:"data_offsets"`
				}
				require.NoError(t, json.Unmarshal(rawEntry, &e))
				tt := f.Tensor(name)
				require.NotNil(t, tt, name)
				assert.Equal(t, e.DType, tt.DType.String(), name)
				assert.Equal(t, e.Shape, tt.Shape, name)
				o := offsets(f, tt)
				assert.Equal(t, e.DataOffsets, o[:], name)
				assert.Equal(t, raw[8+n+e.DataOffsets[0]:8+n+e.DataOffsets[1]], mapped(t, tt), name)
			}
		})
	}
}

// header builds a file from a literal header string and a data section.
func header(h string, data int) []byte {
	out := make([]byte, 8, 8+len(h)+data)
	binary.LittleEndian.PutUint64(out, uint64(len(h)))
	out = append(out, h...)
	return append(out, make([]byte, data)...)
}

// offsetsNear2to64 declares eight valid U8 tensors that end 8 bytes short
// of 2^64, so that adding the header length overflows.
func offsetsNear2to64() string {
	const a = uint64(1)<<61 - 1
	var parts []string
	for i := uint64(0); i < 8; i++ {
		parts = append(parts, fmt.Sprintf(`"t%d":{"dtype":"U8","shape":[%d],"data_offsets":[%d,%d]}`, i, a, i*a, (i+1)*a))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// TestMalformed covers each rule with a minimal hand-made file, named for
// its defect.
func TestMalformed(t *testing.T) {
	const ok = `{"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`
	hugePrefix := make([]byte, 16)
	binary.LittleEndian.PutUint64(hugePrefix, 1<<62)
	cases := []struct {
		name   string
		raw    []byte
		err    error
		detail string
	}{
		{"valid", header(ok, 8), nil, ""},
		{"seven-bytes", []byte("1234567"), safetensors.CodeHeaderTooSmall, ""},
		{"header-len-2^62", hugePrefix, safetensors.CodeHeaderTooLarge, "4,611,686,018,427,387,904 bytes, the limit is 100,000,000"},
		{"header-past-eof", header(ok, 0)[:20], safetensors.CodeInvalidHeaderLength, ""},
		{"not-utf8", header("{\"\xc3\x28\":1}", 0), safetensors.CodeInvalidUTF8, ""},
		{"utf8-bom", header("\xef\xbb\xbf{}", 0), safetensors.CodeInvalidJSON, ""},
		{"nul-padding", header("{}\x00\x00", 0), safetensors.CodeInvalidJSON, "trailing characters"},
		{"trailing-garbage", header("{} x", 0), safetensors.CodeInvalidJSON, "trailing characters"},
		{"two-objects", header("{}{}", 0), safetensors.CodeInvalidJSON, ""},
		{"array-root", header("[]", 0), safetensors.CodeInvalidJSON, "must be a JSON object"},
		{"empty-header", header("", 0), safetensors.CodeInvalidJSON, ""},
		{"entry-not-object", header(`{"t":[1]}`, 0), safetensors.CodeInvalidJSON, "must be an object"},
		{"missing-dtype", header(`{"t":{"shape":[2],"data_offsets":[0,8]}}`, 8), safetensors.CodeInvalidJSON, `missing field "dtype"`},
		{"missing-offsets", header(`{"t":{"dtype":"F32","shape":[2]}}`, 8), safetensors.CodeInvalidJSON, `missing field "data_offsets"`},
		{"unknown-dtype", header(`{"t":{"dtype":"F128","shape":[2],"data_offsets":[0,8]}}`, 8), safetensors.CodeInvalidJSON, `unknown dtype "F128"`},
		{"lowercase-dtype", header(`{"t":{"dtype":"f32","shape":[2],"data_offsets":[0,8]}}`, 8), safetensors.CodeInvalidJSON, "unknown dtype"},
		{"negative-dim", header(`{"t":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}}`, 8), safetensors.CodeInvalidJSON, "-2 is not an unsigned"},
		{"fractional-dim", header(`{"t":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}}`, 8), safetensors.CodeInvalidJSON, "2.0"},
		{"exponent-dim", header(`{"t":{"dtype":"F32","shape":[2e0],"data_offsets":[0,8]}}`, 8), safetensors.CodeInvalidJSON, "2e0"},
		{"nan-dim", header(`{"t":{"dtype":"F32","shape":[NaN],"data_offsets":[0,8]}}`, 8), safetensors.CodeInvalidJSON, ""},
		{"dim-2^64", header(`{"t":{"dtype":"F32","shape":[18446744073709551616],"data_offsets":[0,8]}}`, 8), safetensors.CodeInvalidJSON, "18446744073709551616"},
		{"string-dim", header(`{"t":{"dtype":"F32","shape":["2"],"data_offsets":[0,8]}}`, 8), safetensors.CodeInvalidJSON, ""},
		{"three-offsets", header(`{"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8,8]}}`, 8), safetensors.CodeInvalidJSON, "exactly 2"},
		{"one-offset", header(`{"t":{"dtype":"F32","shape":[2],"data_offsets":[8]}}`, 8), safetensors.CodeInvalidJSON, "exactly 2"},
		{"duplicate-field", header(`{"t":{"dtype":"F32","dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, 8), safetensors.CodeInvalidJSON, "duplicate field"},
		{"metadata-not-string", header(`{"__metadata__":{"a":1}}`, 0), safetensors.CodeInvalidJSON, "must be a string"},
		{"metadata-twice", header(`{"__metadata__":{},"__metadata__":{}}`, 0), safetensors.CodeInvalidJSON, "duplicate key"},
		{"metadata-null", header(`{"__metadata__":null}`, 0), nil, ""},
		{"unknown-field-ignored", header(`{"t":{"dtype":"F32","x":{"y":[[[1]]]},"shape":[2],"data_offsets":[0,8]}}`, 8), nil, ""},
		{"deeply-nested", header(`{"t":{"x":`+strings.Repeat("[", 100000)+strings.Repeat("]", 100000)+`,"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, 8), safetensors.CodeInvalidJSON, "recursion limit exceeded"},
		{"deeply-nested-unclosed", header(`{"t":{"x":`+strings.Repeat("[", 100000), 0), safetensors.CodeInvalidJSON, ""},
		{"duplicate-name", header(`{"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"t":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, 8), safetensors.CodeDuplicateName, `tensor "t" appears twice`},
		// Duplicates are found once the names are sorted; the error is the
		// one a reader in header order meets first.
		{"duplicate-then-syntax-error", header(`{"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"t":{"dtype":"F32","shape":[1],"data_offsets":[4,8]},"u":x}`, 8), safetensors.CodeDuplicateName, `tensor "t" appears twice in the header (second time at byte 62)`},
		{"duplicate-with-bad-value", header(`{"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"t":[1]}`, 8), safetensors.CodeDuplicateName, `tensor "t" appears twice`},
		{"syntax-error-then-duplicate", header(`{"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"u":x,"t":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, 8), safetensors.CodeInvalidJSON, ""},
		{"duplicate-escaped", header(`{"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"\u0074":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, 8), safetensors.CodeDuplicateName, `tensor "t" appears twice`},
		{"first-repeat-reported", header(`{"b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]},"a":{"dtype":"F32","shape":[1],"data_offsets":[12,16]},"b":{"dtype":"F32","shape":[1],"data_offsets":[16,20]}}`, 20), safetensors.CodeDuplicateName, `tensor "b" appears twice in the header (second time at byte 115)`},
		{"shapes-not-shared", header(`{"a":{"dtype":"F32","shape":[1,1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[],"data_offsets":[4,8]},"c":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}}`, 12), nil, ""},
		{"gap", header(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}}`, 12), safetensors.CodeInvalidOffset, "a gap of 4 bytes"},
		{"overlap", header(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, 8), safetensors.CodeInvalidOffset, `overlaps "a"`},
		{"first-not-at-zero", header(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, 8), safetensors.CodeInvalidOffset, "must start at 0"},
		{"reversed", header(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"c":{"dtype":"U8","shape":[0],"data_offsets":[4,3]}}`, 4), safetensors.CodeInvalidOffset, "end before they begin"},
		{"offsets-overflow", header(offsetsNear2to64(), 0), safetensors.CodeIncompleteBuffer, "more than 2^64 bytes"},
		{"shape-overflow", header(`{"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]}}`, 0), safetensors.CodeValidationOverflow, ""},
		{"bits-overflow", header(`{"a":{"dtype":"F64","shape":[4611686018427387904],"data_offsets":[0,0]}}`, 0), safetensors.CodeValidationOverflow, ""},
		{"zero-dim-with-huge-dim", header(`{"a":{"dtype":"F32","shape":[0,18446744073709551615],"data_offsets":[0,0]}}`, 0), nil, ""},
		{"f4-odd", header(`{"a":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}}`, 2), safetensors.CodeMisalignedSlice, "12 bits"},
		{"f4-even", header(`{"a":{"dtype":"F4","shape":[4],"data_offsets":[0,2]}}`, 2), nil, ""},
		{"f6-four", header(`{"a":{"dtype":"F6_E2M3","shape":[4],"data_offsets":[0,3]}}`, 3), nil, ""},
		{"size-mismatch", header(`{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}`, 8), safetensors.CodeInvalidInfo, "needs 12 bytes"},
		{"two-bytes-short", header(ok, 6), safetensors.CodeIncompleteBuffer, "file is 2 bytes short"},
		{"one-byte-short", header(ok, 7), safetensors.CodeIncompleteBuffer, "file is 1 byte short"},
		{"trailing-bytes", header(ok, 11), safetensors.CodeIncompleteBuffer, "3 trailing bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := openRaw(t, c.name, c.raw, c.err, c.detail)
			if f != nil {
				f.Close()
			}
		})
	}
}

// TestHugeHeaderBoundedMemory opens a sparse file whose prefix announces a
// 99 MB header of NULs: the parser must fail on the first byte, reading
// the header in place rather than copying it.
func TestHugeHeaderBoundedMemory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.safetensors")
	f, err := os.Create(path)
	require.NoError(t, err)
	var prefix [8]byte
	binary.LittleEndian.PutUint64(prefix[:], 99_000_000)
	_, err = f.Write(prefix[:])
	require.NoError(t, err)
	require.NoError(t, f.Truncate(8+99_000_000))
	require.NoError(t, f.Close())

	allocs := testing.AllocsPerRun(3, func() {
		_, err := safetensors.Open(path)
		require.ErrorIs(t, err, safetensors.CodeInvalidJSON)
	})
	assert.Less(t, allocs, 200.0)
}

func TestNotRegular(t *testing.T) {
	_, err := safetensors.Open(t.TempDir())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a regular file")
	_, err = safetensors.Open(filepath.Join(t.TempDir(), "nope.safetensors"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestAlignmentWarning(t *testing.T) {
	// An odd header length puts the F32 data at an odd offset.
	raw := header(`{"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}} `, 4)
	f, err := safetensors.NewFile(source.NewReaderFile("odd", bytes.NewReader(raw), int64(len(raw))))
	require.NoError(t, err)
	require.Len(t, f.Warnings(), 1)
	assert.Contains(t, f.Warnings()[0], `1 tensor is not aligned to the element size (first: "t", F32 at byte 63)`)
	_, ok := f.Tensor("t").File.(source.Mappable)
	assert.False(t, ok, "a reader has no mapping")
	assert.Len(t, readAll(t, f.Tensor("t")), 4)
}

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
			f := openRaw(t, c.name, c.raw, c.err, c.detail)
			if f != nil {
				defer f.Close()
				if c.meta != nil {
					assert.Equal(t, c.meta, f.Metadata())
				}
			}
		})
	}
}

// TestVirtual: a generated safetensors file is valid by our own rules
// (the same as the reference's), holds each tensor's bytes, and reads
// the same at every offset and length, across tensors, an empty one
// included.
func TestVirtual(t *testing.T) {
	base := &testmodel.MemFile{B: []byte("0123456789abcdefXYZ")}
	ts := []*tensor.Tensor{
		{Name: "a", DType: tensor.F32, Shape: []uint64{2}, File: base, Offset: 0, Length: 8},
		{Name: "empty", DType: tensor.F32, Shape: []uint64{0}, File: base, Offset: 8, Length: 0},
		{Name: "b", DType: tensor.U8, Shape: []uint64{3}, File: base, Offset: 16, Length: 3},
		{Name: "tied", DType: tensor.F32, Shape: []uint64{2}, File: base, Offset: 0, Length: 8},
	}
	v, err := safetensors.NewVirtual("model.safetensors", ts, map[string]string{"format": "pt"}, base)
	require.NoError(t, err)
	whole, err := io.ReadAll(io.NewSectionReader(v, 0, v.Size()))
	require.NoError(t, err)
	require.EqualValues(t, v.Size(), len(whole))
	f, err := safetensors.NewFile(&testmodel.MemFile{B: whole})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"format": "pt"}, f.Metadata())
	for _, want := range ts {
		got := f.Tensor(want.Name)
		require.NotNil(t, got, want.Name)
		assert.Equal(t, want.Shape, got.Shape)
		assert.Equal(t, base.B[want.Offset:want.Offset+want.Length], whole[got.Offset:got.Offset+got.Length], want.Name)
	}
	for off := int64(0); off < v.Size(); off++ {
		for n := int64(1); n <= 9 && off+n <= v.Size(); n++ {
			p := make([]byte, n)
			k, err := v.ReadAt(p, off)
			require.NoError(t, err)
			require.EqualValues(t, n, k)
			require.True(t, bytes.Equal(whole[off:off+n], p), "at %d, %d bytes", off, n)
		}
	}
}

// openRaw writes raw as a file and opens it: with want nil it must open
// (and is returned); otherwise the open fails with want, a format error
// of one line that says detail, and openRaw returns nil.
func openRaw(t *testing.T, name string, raw []byte, want error, detail string) *safetensors.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), name+".safetensors")
	require.NoError(t, os.WriteFile(path, raw, 0o644))
	f, err := safetensors.Open(path)
	if want == nil {
		require.NoError(t, err)
		return f
	}
	require.ErrorIs(t, err, want)
	assert.True(t, errors.Is(err, safetensors.ErrFormat))
	assert.Contains(t, err.Error(), detail)
	assert.NotContains(t, err.Error(), "\n", "one line")
	return nil
}

// ParseIndexEach names each plain shard file once, as the weight map
// first gives it, before the index is read to its end (a caller opens
// the shards meanwhile); the index's result and errors are ParseIndex's.
func TestParseIndexEach(t *testing.T) {
	for _, c := range []struct {
		name, index string
		found       []string
		err         string
	}{
		{"valid", `{"weight_map":{"b":"s2","a":"s1","c":"s2","d":"s3"}}`, []string{"s2", "s1", "s3"}, ""},
		{"duplicate at the end", `{"weight_map":{"a":"s1","b":"s2","a":"s1"}}`, []string{"s1", "s2"}, `lists tensor "a" twice`},
		{"syntax error at the end", `{"weight_map":{"a":"s1","b":"s2"`, []string{"s1", "s2"}, "at byte"},
		{"not plain file names", `{"weight_map":{"a":"../s1","b":"s2","c":"x/y","d":"..","e":"","f":"."}}`, []string{"s2"}, "not a file name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var found []string
			idx, err := safetensors.ParseIndexEach("i.json", []byte(c.index), func(s string) { found = append(found, s) })
			assert.Equal(t, c.found, found)
			want, werr := safetensors.ParseIndex("i.json", []byte(c.index))
			if c.err != "" {
				require.ErrorIs(t, err, safetensors.CodeInvalidIndex)
				assert.Contains(t, err.Error(), c.err)
				require.Error(t, werr)
				assert.Equal(t, werr.Error(), err.Error())
				return
			}
			require.NoError(t, err)
			require.NoError(t, werr)
			assert.Equal(t, want, idx)
		})
	}
}

// manyTensors is a header of n small tensors with names as a large MoE's.
func manyTensors(n int) []byte {
	var parts []string
	for i := range n {
		parts = append(parts, fmt.Sprintf(`"model.layers.%d.mlp.experts.%d.down_proj.weight":{"dtype":"U8","shape":[1],"data_offsets":[%d,%d]}`, i/128, i%128, i, i+1))
	}
	return header("{"+strings.Join(parts, ",")+"}", n)
}

// TestOpenReusesHeaderBuffers: the names are decoded over the header's
// own bytes, and the header's buffer, the entries and the arenas are
// reused by the next file: an open allocates about what the file keeps
// (its tensors, 128 bytes each, their names and shapes): 2.1 times the
// file here, under 3; it was 5.3 when each open made the header, an
// arena of its size and the entries anew.
func TestOpenReusesHeaderBuffers(t *testing.T) {
	raw := manyTensors(4096)
	open := func() {
		_, err := safetensors.NewFile(source.NewReaderFile("x.safetensors", bytes.NewReader(raw), int64(len(raw))))
		require.NoError(t, err)
	}
	open()
	got := fusetest.BytesAllocated(8, open)
	assert.Less(t, got, uint64(3*len(raw)), "an open of a %d-byte file allocated %d bytes", len(raw), got)
}

// TestIndexNamesInPlace: the weight map's names are decoded over the
// index's bytes: parsing allocates the names once and the entries (1.7
// times the file here, under 2.2), not an arena the size of the file
// besides (2.75 times).
func TestIndexNamesInPlace(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"metadata":{"total_size":4096},"weight_map":{`)
	for i := range 4096 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"model.layers.%d.mlp.experts.%d.down_proj.weight":"model-%05d-of-00032.safetensors"`, i/128, i%128, i/128+1)
	}
	b.WriteString(`}}`)
	index := b.String()
	got := fusetest.BytesAllocated(4, func() {
		idx, err := safetensors.ParseIndex("i.json", []byte(index))
		require.NoError(t, err)
		require.Len(t, idx.Weights, 4096)
	}) - uint64(len(index)) // the test's own copy
	assert.Less(t, got, uint64(len(index))*22/10, "parsing a %d-byte index allocated %d bytes", len(index), got)
}
