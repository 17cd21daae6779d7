package gguf

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
	"sort"
	"strconv"
)

// ValueType is the type of a metadata value, as GGUF numbers it.
type ValueType uint32

// The GGUF value types.
const (
	TypeUint8 ValueType = iota
	TypeInt8
	TypeUint16
	TypeInt16
	TypeUint32
	TypeInt32
	TypeFloat32
	TypeBool
	TypeString
	TypeArray
	TypeUint64
	TypeInt64
	TypeFloat64

	numValueTypes
)

var valueTypeNames = [numValueTypes]string{
	"u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "str", "arr", "u64", "i64", "f64",
}

// String returns the type's short name, as gguf.cpp names it: "u32",
// "str", "arr".
func (t ValueType) String() string {
	if t < numValueTypes {
		return valueTypeNames[t]
	}
	return "type(" + strconv.FormatUint(uint64(t), 10) + ")"
}

// fixedSize returns the bytes of one value of a fixed-size type, or 0 for
// strings, arrays and unknown types.
func (t ValueType) fixedSize() int {
	switch t {
	case TypeUint8, TypeInt8, TypeBool:
		return 1
	case TypeUint16, TypeInt16:
		return 2
	case TypeUint32, TypeInt32, TypeFloat32:
		return 4
	case TypeUint64, TypeInt64, TypeFloat64:
		return 8
	}
	return 0
}

// minSize is the fewest bytes one value of the type takes in a file: an
// empty string is its 8-byte length, an empty array its type and count.
func (t ValueType) minSize() int {
	switch t {
	case TypeString:
		return 8
	case TypeArray:
		return 12
	}
	return t.fixedSize()
}

// ErrIndex is the error of [Value.Index] for an index out of range or a
// value that is not an array.
var ErrIndex = errors.New("gguf: array index out of range")

// Value is one metadata value: a scalar, or an array of values of one
// type. A scalar is kept; an array is not: its elements stay in the file,
// and the Value holds where they are, how long their rendering is, and a
// mark every few thousand elements (or 64 KiB of file), so that a
// 100-million-element array costs a few hundred KB, not gigabytes.
// Reading its elements ([Value.Index], [Value.Elems]) or its rendering
// ([Value.ReadTextAt]) reads the file again.
type Value struct {
	typ  ValueType
	bits uint64 // a fixed-size scalar's bytes, as a little-endian u64
	str  string
	arr  *array
}

// array is an array value as it lies in the file.
type array struct {
	src   io.ReaderAt
	name  string // of the file, for errors
	size  int64  // of the file
	elem  ValueType
	depth int // arrays around each element: 1 for a key's value
	n     int
	off   int64  // file offset of the first element
	end   int64  // file offset after the last element
	text  int64  // bytes of the rendering
	marks []mark // ascending; marks[0] is the first element (none if n == 0)
}

// mark is a place in an array's rendering where a read can start: at the
// start of element elem, or inside it when it is a long string (left
// bytes of it still to read at file).
type mark struct {
	file int64
	text int64
	elem int32 // < maxArray
	left int32 // < maxString; -1: at the element's start
}

// Where marks are placed: every markEvery elements, and within a long
// string every markBytes of file, so a read of the rendering at any
// offset renders at most that much before what it returns.
const (
	markEvery = 1024
	markBytes = 64 << 10
)

// Type returns the value's type.
func (v Value) Type() ValueType { return v.typ }

// ElemType returns the element type of an array (and false for a scalar).
func (v Value) ElemType() (ValueType, bool) {
	if v.arr == nil {
		return 0, false
	}
	return v.arr.elem, true
}

// Len returns an array's length, or 0 for a scalar.
func (v Value) Len() int {
	if v.arr == nil {
		return 0
	}
	return v.arr.n
}

// Index reads element i of an array from the file: a scalar Value, or an
// array for nested arrays. It fails with [ErrIndex] if v is not an array
// or i is out of range, and with the read's error if the file cannot be
// read.
func (v Value) Index(i int) (Value, error) {
	a := v.arr
	if a == nil || i < 0 || i >= a.n {
		return Value{}, ErrIndex
	}
	w := a.walker(nil)
	if s := a.elem.fixedSize(); s > 0 {
		w.r.pos = a.off + int64(i)*int64(s)
	} else {
		// The last mark at the start of an element at or before i.
		k := sort.Search(len(a.marks), func(k int) bool { return int(a.marks[k].elem) > i }) - 1
		for a.marks[k].left >= 0 {
			k--
		}
		w.r.pos = a.marks[k].file
		for j := int(a.marks[k].elem); j < i; j++ {
			if err := w.elem(a.elem, a.depth, false); err != nil {
				return Value{}, err
			}
		}
	}
	return w.value(a.elem, a.depth)
}

// Elems reads every element of an array, in order (nil for a scalar).
// The caller asks for the whole array in memory: prefer
// [Value.ReadTextAt] or [Value.Index] for a large one.
func (v Value) Elems() ([]Value, error) {
	a := v.arr
	if a == nil {
		return nil, nil
	}
	w := a.walker(nil)
	w.r.pos = a.off
	out := make([]Value, 0, min(a.n, 4096))
	for range a.n {
		e, err := w.value(a.elem, a.depth)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// Strings reads the elements of an array of strings (false for any other
// value; an error if the file cannot be read).
func (v Value) Strings() ([]string, bool, error) {
	if v.arr == nil || v.arr.elem != TypeString {
		return nil, false, nil
	}
	elems, err := v.Elems()
	if err != nil {
		return nil, true, err
	}
	out := make([]string, len(elems))
	for i, e := range elems {
		out[i] = e.str
	}
	return out, true, nil
}

func leBits(b []byte) uint64 {
	switch len(b) {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}

// Uint returns an unsigned integer value, or a signed one that is not
// negative, widened to uint64; false for any other value.
func (v Value) Uint() (uint64, bool) {
	switch v.typ {
	case TypeUint8, TypeUint16, TypeUint32, TypeUint64:
		return v.bits, true
	case TypeInt8, TypeInt16, TypeInt32, TypeInt64:
		if i, _ := v.Int(); i >= 0 {
			return uint64(i), true
		}
	}
	return 0, false
}

// Int returns a signed integer value, or an unsigned one that fits,
// widened to int64; false for any other value.
func (v Value) Int() (int64, bool) {
	switch v.typ {
	case TypeInt8:
		return int64(int8(v.bits)), true
	case TypeInt16:
		return int64(int16(v.bits)), true
	case TypeInt32:
		return int64(int32(v.bits)), true
	case TypeInt64:
		return int64(v.bits), true
	case TypeUint8, TypeUint16, TypeUint32, TypeUint64:
		if v.bits <= math.MaxInt64 {
			return int64(v.bits), true
		}
	}
	return 0, false
}

// Float returns a float32 or float64 value as a float64.
func (v Value) Float() (float64, bool) {
	switch v.typ {
	case TypeFloat32:
		return float64(math.Float32frombits(uint32(v.bits))), true
	case TypeFloat64:
		return math.Float64frombits(v.bits), true
	}
	return 0, false
}

// Bool returns a bool value (any non-zero byte is true, as llama.cpp reads it).
func (v Value) Bool() (bool, bool) {
	return v.bits != 0, v.typ == TypeBool
}

// Text returns a string value.
func (v Value) Text() (string, bool) { return v.str, v.typ == TypeString }

// Any returns a scalar as the Go value of its type: uint8 … float64,
// bool, string; nil for an array (read it with [Value.Elems]).
func (v Value) Any() any {
	switch v.typ {
	case TypeUint8:
		return uint8(v.bits)
	case TypeInt8:
		return int8(v.bits)
	case TypeUint16:
		return uint16(v.bits)
	case TypeInt16:
		return int16(v.bits)
	case TypeUint32:
		return uint32(v.bits)
	case TypeInt32:
		return int32(v.bits)
	case TypeFloat32:
		return math.Float32frombits(uint32(v.bits))
	case TypeBool:
		return v.bits != 0
	case TypeString:
		return v.str
	case TypeUint64:
		return v.bits
	case TypeInt64:
		return int64(v.bits)
	case TypeFloat64:
		return math.Float64frombits(v.bits)
	}
	return nil
}

// String renders a scalar as the text of a metadata/<key> file without
// the final newline (a string as it is, even when it holds newlines, such
// as a chat template). An array is described, not rendered: "arr[str,3]";
// its text is [Value.ReadTextAt]'s.
func (v Value) String() string {
	if v.arr != nil {
		return v.describe()
	}
	return string(v.appendScalar(nil, false))
}

// TextSize returns the bytes of the value's text, the contents of a
// metadata/<key> file: a scalar on one line (a string as it is), an array
// one element per line, strings quoted with Go escapes (strconv.Quote) so
// that every element is exactly one line, a nested array one line
// "[a, b, c]"; every line ends in a newline. It is known without reading.
func (v Value) TextSize() int64 {
	switch {
	case v.arr != nil:
		return v.arr.text
	case v.typ == TypeString:
		return int64(len(v.str)) + 1
	}
	return int64(len(v.appendScalar(nil, false))) + 1
}

// ReadTextAt reads the value's text (see [Value.TextSize]) at off, as
// io.ReaderAt does. An array's text is rendered from the file, starting
// at the mark before off: a read costs what it returns plus at most a
// mark's span, and keeps nothing.
func (v Value) ReadTextAt(p []byte, off int64) (int, error) {
	size := v.TextSize()
	if off < 0 {
		return 0, errors.New("gguf: negative offset")
	}
	if off >= size {
		return 0, io.EOF
	}
	var n int
	switch {
	case v.arr != nil:
		a := v.arr
		k := sort.Search(len(a.marks), func(k int) bool { return a.marks[k].text > off }) - 1
		m := a.marks[k]
		w := a.walker(&sink{skip: off - m.text, dst: p})
		w.r.pos = m.file
		if err := w.lines(a, m); err != nil {
			return w.sink.n, err
		}
		n = w.sink.n
	case v.typ == TypeString:
		n = copy(p, v.str[min(off, int64(len(v.str))):])
		if n < len(p) {
			p[n] = '\n'
			n++
		}
	default:
		n = copy(p, append(v.appendScalar(nil, false), '\n')[off:])
	}
	if int64(n) < min(int64(len(p)), size-off) {
		return n, io.ErrUnexpectedEOF
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// AppendText appends the whole text of the value (see [Value.TextSize]).
func (v Value) AppendText(b []byte) ([]byte, error) {
	start := len(b)
	b = append(b, make([]byte, v.TextSize())...)
	n, err := v.ReadTextAt(b[start:], 0)
	if err == io.EOF {
		err = nil
	}
	return b[:start+n], err
}

func (v Value) appendScalar(b []byte, quote bool) []byte {
	switch v.typ {
	case TypeString:
		if quote {
			return strconv.AppendQuote(b, v.str)
		}
		return append(b, v.str...)
	}
	return appendFixed(b, v.typ, v.bits)
}

// appendFixed renders a fixed-size value.
func appendFixed(b []byte, t ValueType, bits uint64) []byte {
	switch t {
	case TypeUint8, TypeUint16, TypeUint32, TypeUint64:
		return strconv.AppendUint(b, bits, 10)
	case TypeInt8:
		return strconv.AppendInt(b, int64(int8(bits)), 10)
	case TypeInt16:
		return strconv.AppendInt(b, int64(int16(bits)), 10)
	case TypeInt32:
		return strconv.AppendInt(b, int64(int32(bits)), 10)
	case TypeInt64:
		return strconv.AppendInt(b, int64(bits), 10)
	case TypeFloat32:
		return strconv.AppendFloat(b, float64(math.Float32frombits(uint32(bits))), 'g', -1, 32)
	case TypeFloat64:
		return strconv.AppendFloat(b, math.Float64frombits(bits), 'g', -1, 64)
	case TypeBool:
		return strconv.AppendBool(b, bits != 0)
	}
	return b
}

// KV is one metadata entry.
type KV struct {
	Key   string
	Value Value
}

// describe renders a value briefly for warnings: the type and, for an
// array, its length.
func (v Value) describe() string {
	if v.arr != nil {
		return "arr[" + v.arr.elem.String() + "," + strconv.Itoa(v.arr.n) + "]"
	}
	return v.typ.String()
}
