package safetensors

import (
	"errors"
	"fmt"

	"github.com/fsmount/fsmount/internal/formaterr"
)

// Code is the stable identifier of a validation rule (RULES.md numbers
// them). Codes never change between releases; scripts may match on them.
// A Code is also an error to match with errors.Is: a [*FormatError] is
// its own Code.
type Code string

// The rules of a single file, in the order the reference checks them,
// then those of a sharded checkpoint's index.
const (
	CodeHeaderTooSmall      Code = "header_too_small"      // S1: fewer than 8 bytes
	CodeHeaderTooLarge      Code = "header_too_large"      // S2: length prefix above 100,000,000
	CodeInvalidHeaderLength Code = "invalid_header_length" // S3: header runs past the end of the file
	CodeInvalidUTF8         Code = "invalid_utf8"          // S4: header is not UTF-8
	CodeInvalidJSON         Code = "invalid_json"          // S5: header is not the expected JSON
	CodeDuplicateName       Code = "duplicate_name"        // S5: a tensor name appears twice
	CodeInvalidOffset       Code = "invalid_offset"        // S7: gap, overlap or reversed range
	CodeValidationOverflow  Code = "validation_overflow"   // S8: shape product overflows 64 bits
	CodeMisalignedSlice     Code = "misaligned_slice"      // S9: sub-byte tensor not filling whole bytes
	CodeInvalidInfo         Code = "invalid_info"          // S10: byte range does not match shape × dtype
	CodeIncompleteBuffer    Code = "incomplete_buffer"     // S11: file longer or shorter than the header says

	CodeInvalidIndex    Code = "invalid_index"    // I0: index JSON malformed
	CodeMissingShard    Code = "missing_shard"    // I1: a shard named by the index is absent
	CodeAbsentTensor    Code = "absent_tensor"    // I2: weight_map names a tensor its shard lacks
	CodeUnlistedTensor  Code = "unlisted_tensor"  // I3: a shard holds a tensor weight_map does not map to it
	CodeDuplicateTensor Code = "duplicate_tensor" // I4: a tensor is stored in two shards
	CodeTotalSize       Code = "total_size"       // I5: metadata.total_size differs from the tensor bytes
)

// refNames is the one table of the codes' names in the reference
// implementation (its SafeTensorError variants), where it has one.
var refNames = map[Code]string{
	CodeHeaderTooSmall:      "HeaderTooSmall",
	CodeHeaderTooLarge:      "HeaderTooLarge",
	CodeInvalidHeaderLength: "InvalidHeaderLength",
	CodeInvalidUTF8:         "InvalidHeader",
	CodeInvalidJSON:         "InvalidHeaderDeserialization",
	CodeInvalidOffset:       "InvalidOffset",
	CodeValidationOverflow:  "ValidationOverflow",
	CodeMisalignedSlice:     "MisalignedSlice",
	CodeInvalidInfo:         "TensorInvalidInfo",
	CodeIncompleteBuffer:    "MetadataIncompleteBuffer",
}

func (c Code) Error() string { return "safetensors: " + string(c) }

// RefName returns the reference implementation's name for the rule, such
// as "MetadataIncompleteBuffer", or "" where it has none.
func (c Code) RefName() string { return refNames[c] }

// ErrFormat is matched by every [*FormatError]:
// errors.Is(err, ErrFormat) reports whether err is a validation failure
// rather than an I/O error.
var ErrFormat = errors.New("safetensors: not a valid safetensors file")

// FormatError reports a file that breaks a validation rule.
type FormatError struct {
	File string // the file, as its source names it
	// Hint, when set, says first what the file most likely is ("not a
	// safetensors file (its first 8 bytes are text: …)").
	Hint   string
	Code   Code   // the rule that failed
	Tensor string // the tensor concerned, if any
	Detail string // what was found, with the numbers
}

// RefName returns the reference implementation's name for the failed rule.
func (e *FormatError) RefName() string { return e.Code.RefName() }

func (e *FormatError) Error() string {
	code := string(e.Code)
	if ref := e.RefName(); ref != "" {
		code += " (safetensors: " + ref + ")"
	}
	return formaterr.Join(e.File, e.Hint, code, e.Detail)
}

// Is makes every FormatError match [ErrFormat] and its own [Code].
func (e *FormatError) Is(target error) bool {
	return formaterr.Is(target, ErrFormat, e.Code)
}

func formatErr(file string, code Code, tensor, format string, args ...any) *FormatError {
	return &FormatError{File: file, Code: code, Tensor: tensor, Detail: fmt.Sprintf(format, args...)}
}
