package gguf

import (
	"encoding/binary"
	"math"
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

// Value is one metadata value: a scalar, or an array of values of one
// type. Fixed-size array elements are kept as the file's little-endian
// bytes, so a 128k-entry array of u32 costs 512 KiB, not 128k boxes.
type Value struct {
	typ  ValueType
	bits uint64 // a fixed-size scalar's bytes, as a little-endian u64
	str  string
	arr  *array
}

type array struct {
	elem ValueType
	n    int
	raw  []byte   // fixed-size elements
	strs []string // string elements
	vals []Value  // nested arrays
}

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

// Index returns element i of an array (a scalar Value, or an array for
// nested arrays). It panics if v is not an array or i is out of range, as
// slice indexing does.
func (v Value) Index(i int) Value {
	a := v.arr
	if i < 0 || i >= a.n {
		panic("gguf: Value.Index out of range")
	}
	switch {
	case a.elem == TypeString:
		return Value{typ: TypeString, str: a.strs[i]}
	case a.elem == TypeArray:
		return a.vals[i]
	}
	s := a.elem.fixedSize()
	return Value{typ: a.elem, bits: leBits(a.raw[i*s : i*s+s])}
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

// Strings returns the elements of an array of strings (the slice is
// shared: do not modify it).
func (v Value) Strings() ([]string, bool) {
	if v.arr == nil || v.arr.elem != TypeString {
		return nil, false
	}
	return v.arr.strs, true
}

// Any returns the value as the Go value of its type: uint8 … float64,
// bool, string, and []any for an array.
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
	case TypeArray:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = v.Index(i).Any()
		}
		return out
	}
	return nil
}

// String renders the value as the text of a metadata/<key> file, without
// the final newline: a scalar on one line (a string as it is, even when it
// holds newlines, such as a chat template), an array one element per line.
// In an array, strings are quoted with Go escapes (strconv.Quote), so that
// every element is exactly one line; a nested array is one line
// "[a, b, c]".
func (v Value) String() string {
	b := v.AppendText(nil)
	if len(b) == 0 { // an empty array
		return ""
	}
	return string(b[:len(b)-1])
}

// Lines returns the value's lines as [Value.String] renders them: one for
// a scalar, one per element for an array.
func (v Value) Lines() []string {
	if v.arr == nil {
		return []string{string(v.appendScalar(nil, false))}
	}
	lines := make([]string, v.Len())
	var b []byte
	for i := range lines {
		b = v.Index(i).appendElem(b[:0])
		lines[i] = string(b)
	}
	return lines
}

// AppendText appends the rendering of [Value.String] with a newline after
// every line: the bytes of a metadata/<key> file.
func (v Value) AppendText(b []byte) []byte {
	if v.arr == nil {
		return append(v.appendScalar(b, false), '\n')
	}
	for i := 0; i < v.Len(); i++ {
		b = append(v.Index(i).appendElem(b), '\n')
	}
	return b
}

// appendElem renders an array element: quoted if a string, inline if an
// array.
func (v Value) appendElem(b []byte) []byte {
	if v.arr == nil {
		return v.appendScalar(b, true)
	}
	b = append(b, '[')
	for i := 0; i < v.Len(); i++ {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = v.Index(i).appendElem(b)
	}
	return append(b, ']')
}

func (v Value) appendScalar(b []byte, quote bool) []byte {
	switch v.typ {
	case TypeUint8, TypeUint16, TypeUint32, TypeUint64:
		return strconv.AppendUint(b, v.bits, 10)
	case TypeInt8, TypeInt16, TypeInt32, TypeInt64:
		i, _ := v.Int()
		return strconv.AppendInt(b, i, 10)
	case TypeFloat32:
		return strconv.AppendFloat(b, float64(math.Float32frombits(uint32(v.bits))), 'g', -1, 32)
	case TypeFloat64:
		return strconv.AppendFloat(b, math.Float64frombits(v.bits), 'g', -1, 64)
	case TypeBool:
		return strconv.AppendBool(b, v.bits != 0)
	case TypeString:
		if quote {
			return strconv.AppendQuote(b, v.str)
		}
		return append(b, v.str...)
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
