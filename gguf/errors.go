package gguf

import (
	"errors"
	"fmt"

	"github.com/fsmount/fsmount/internal/formaterr"
)

// Code is the stable identifier of a validation rule. Codes never change
// between releases; scripts may match on them. A Code is also an error, so
// that errors.Is(err, gguf.CodeDuplicateKey) asks whether err broke that
// rule: the codes are constants, not variables anyone could reassign.
type Code string

// The rules, in the order a file meets them. The comment is what the code
// means; the table rules below says the same for messages.
const (
	CodeBadMagic        Code = "bad_magic"          // the first 4 bytes are not "GGUF"
	CodeVersion1        Code = "version_1"          // GGUF v1 (32-bit counts), no longer supported
	CodeBadVersion      Code = "bad_version"        // a version other than 1, 2 or 3
	CodeByteOrder       Code = "big_endian"         // the version reads byte-swapped: a big-endian file
	CodeTruncated       Code = "truncated"          // the file ends inside the header
	CodeBadCount        Code = "bad_count"          // a count larger than the bytes left could hold
	CodeBadString       Code = "bad_string"         // a string length past the file or the cap
	CodeBadKey          Code = "bad_key"            // an empty metadata key
	CodeDuplicateKey    Code = "duplicate_key"      // a metadata key appears twice
	CodeBadValueType    Code = "bad_value_type"     // a value or array element type outside 0..12
	CodeArrayDepth      Code = "array_too_deep"     // arrays nested deeper than the cap
	CodeBadAlignment    Code = "bad_alignment"      // general.alignment not a u32 power of two
	CodeBadTensorName   Code = "bad_tensor_name"    // a tensor name empty or of 64 bytes or more
	CodeDuplicateTensor Code = "duplicate_tensor"   // a tensor name appears twice (also across split files)
	CodeBadDims         Code = "bad_dims"           // n_dims outside 1..4
	CodeBadDim          Code = "bad_dim"            // a dimension above 2^63-1
	CodeBadType         Code = "bad_type"           // an unknown or removed ggml type id
	CodeBlockMultiple   Code = "not_block_multiple" // ne[0] not a multiple of the type's block size
	CodeSizeOverflow    Code = "size_overflow"      // element count or byte size overflows 63 bits
	CodeMisaligned      Code = "misaligned_offset"  // a tensor offset not a multiple of the alignment
	CodeOutOfBounds     Code = "out_of_bounds"      // tensor data (or the data section) past the end of the file
	CodeOverlap         Code = "overlap"            // two tensors' bytes overlap
	CodeBadSplit        Code = "bad_split"          // split.* keys or shard names inconsistent
	CodeMissingShard    Code = "missing_shard"      // a shard of a split model cannot be opened
)

// rules is the one table of codes: each with the sentence used in
// messages.
var rules = map[Code]string{
	CodeBadMagic:        "not a GGUF file",
	CodeVersion1:        "GGUF version 1 is not supported",
	CodeBadVersion:      "unsupported GGUF version",
	CodeByteOrder:       "big-endian GGUF is not supported",
	CodeTruncated:       "file truncated",
	CodeBadCount:        "count larger than the file",
	CodeBadString:       "bad string length",
	CodeBadKey:          "bad metadata key",
	CodeDuplicateKey:    "duplicate metadata key",
	CodeBadValueType:    "bad value type",
	CodeArrayDepth:      "arrays nested too deep",
	CodeBadAlignment:    "bad general.alignment",
	CodeBadTensorName:   "bad tensor name",
	CodeDuplicateTensor: "duplicate tensor name",
	CodeBadDims:         "bad number of dimensions",
	CodeBadDim:          "bad dimension",
	CodeBadType:         "bad tensor type",
	CodeBlockMultiple:   "row length not a multiple of the block size",
	CodeSizeOverflow:    "tensor size overflows",
	CodeMisaligned:      "tensor offset not aligned",
	CodeOutOfBounds:     "tensor data outside the file",
	CodeOverlap:         "tensors overlap",
	CodeBadSplit:        "inconsistent split model",
	CodeMissingShard:    "missing shard",
}

// Error returns the code's sentence, such as "duplicate metadata key".
func (c Code) Error() string {
	if s, ok := rules[c]; ok {
		return "gguf: " + s
	}
	return "gguf: " + string(c)
}

// ErrFormat is matched by every [*FormatError]: errors.Is(err, ErrFormat)
// reports whether err is a validation failure rather than an I/O error.
var ErrFormat = errors.New("gguf: not a valid GGUF file")

// FormatError reports a file that breaks a validation rule.
type FormatError struct {
	File   string // the file, as its source names it
	Code   Code   // the rule that failed
	Tensor string // the tensor or metadata key concerned, if any
	Detail string // what was found, with the numbers and the byte offset
}

func (e *FormatError) Error() string {
	return formaterr.Join(e.File, string(e.Code)+" ("+rules[e.Code]+")", e.Tensor, e.Detail)
}

// Is makes every FormatError match [ErrFormat] and the [Code] of its rule.
func (e *FormatError) Is(target error) bool {
	return formaterr.Is(target, ErrFormat, e.Code)
}

// HasCode reports whether err is, or wraps, a [*FormatError] of code c.
func HasCode(err error, c Code) bool {
	var fe *FormatError
	return errors.As(err, &fe) && fe.Code == c
}

func formatErr(file string, code Code, tensor, format string, args ...any) *FormatError {
	return &FormatError{File: file, Code: code, Tensor: tensor, Detail: fmt.Sprintf(format, args...)}
}
