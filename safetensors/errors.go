package safetensors

import (
	"errors"
	"fmt"
)

// Code is the stable identifier of a validation rule. Codes never change
// between releases; scripts may match on them.
type Code string

// Rule codes of the single-file checks, in the order the reference checks
// them, followed by the codes of the sharded-index checks.
const (
	CodeHeaderTooSmall      Code = "header_too_small"      // fewer than 8 bytes
	CodeHeaderTooLarge      Code = "header_too_large"      // length prefix above 100,000,000
	CodeInvalidHeaderLength Code = "invalid_header_length" // header runs past the end of the file
	CodeInvalidUTF8         Code = "invalid_utf8"          // header is not UTF-8
	CodeInvalidJSON         Code = "invalid_json"          // header is not the expected JSON
	CodeDuplicateName       Code = "duplicate_name"        // a tensor name appears twice
	CodeInvalidOffset       Code = "invalid_offset"        // gap, overlap or reversed range
	CodeValidationOverflow  Code = "validation_overflow"   // shape product overflows 64 bits
	CodeMisalignedSlice     Code = "misaligned_slice"      // sub-byte tensor not filling whole bytes
	CodeInvalidInfo         Code = "invalid_info"          // byte range does not match shape × dtype
	CodeIncompleteBuffer    Code = "incomplete_buffer"     // file longer or shorter than the header says

	CodeInvalidIndex    Code = "invalid_index"    // index JSON malformed
	CodeMissingShard    Code = "missing_shard"    // I1: a shard named by the index is absent
	CodeAbsentTensor    Code = "absent_tensor"    // I2: weight_map names a tensor its shard lacks
	CodeUnlistedTensor  Code = "unlisted_tensor"  // I3: a shard holds a tensor weight_map does not map to it
	CodeDuplicateTensor Code = "duplicate_tensor" // I4: a tensor is stored in two shards
	CodeTotalSize       Code = "total_size"       // I5: metadata.total_size differs from the tensor bytes
)

// refNames maps each code to the name of the reference implementation's
// error variant (SafeTensorError), where it has one.
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

// ErrFormat is matched by every [*FormatError]:
// errors.Is(err, ErrFormat) reports whether err is a validation failure
// rather than an I/O error.
var ErrFormat = errors.New("safetensors: not a valid safetensors file")

// Sentinels, one per rule, for errors.Is. A *FormatError matches the
// sentinel of its own code.
var (
	ErrHeaderTooSmall      = &FormatError{Code: CodeHeaderTooSmall}
	ErrHeaderTooLarge      = &FormatError{Code: CodeHeaderTooLarge}
	ErrInvalidHeaderLength = &FormatError{Code: CodeInvalidHeaderLength}
	ErrInvalidUTF8         = &FormatError{Code: CodeInvalidUTF8}
	ErrInvalidJSON         = &FormatError{Code: CodeInvalidJSON}
	ErrDuplicateName       = &FormatError{Code: CodeDuplicateName}
	ErrInvalidOffset       = &FormatError{Code: CodeInvalidOffset}
	ErrValidationOverflow  = &FormatError{Code: CodeValidationOverflow}
	ErrMisalignedSlice     = &FormatError{Code: CodeMisalignedSlice}
	ErrInvalidInfo         = &FormatError{Code: CodeInvalidInfo}
	ErrIncompleteBuffer    = &FormatError{Code: CodeIncompleteBuffer}
	ErrInvalidIndex        = &FormatError{Code: CodeInvalidIndex}
	ErrMissingShard        = &FormatError{Code: CodeMissingShard}
	ErrAbsentTensor        = &FormatError{Code: CodeAbsentTensor}
	ErrUnlistedTensor      = &FormatError{Code: CodeUnlistedTensor}
	ErrDuplicateTensor     = &FormatError{Code: CodeDuplicateTensor}
	ErrTotalSize           = &FormatError{Code: CodeTotalSize}
)

// FormatError reports a file that breaks a validation rule.
type FormatError struct {
	File   string // the file, as it was named to Open
	Code   Code   // the rule that failed
	Tensor string // the tensor concerned, if any
	Detail string // what was found, with the numbers
}

// RefName returns the reference implementation's name for the failed rule,
// such as "MetadataIncompleteBuffer", or "" where it has none.
func (e *FormatError) RefName() string { return refNames[e.Code] }

func (e *FormatError) Error() string {
	msg := string(e.Code)
	if ref := e.RefName(); ref != "" {
		msg += " (safetensors: " + ref + ")"
	}
	if e.File != "" {
		msg = e.File + ": " + msg
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Is makes every FormatError match [ErrFormat], and match a FormatError
// target that has the same Code and no File (the sentinels above).
func (e *FormatError) Is(target error) bool {
	if target == ErrFormat {
		return true
	}
	t, ok := target.(*FormatError)
	return ok && t.File == "" && t.Code == e.Code
}

func formatErr(file string, code Code, tensor, format string, args ...any) *FormatError {
	return &FormatError{File: file, Code: code, Tensor: tensor, Detail: fmt.Sprintf(format, args...)}
}
