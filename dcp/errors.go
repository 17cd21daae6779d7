package dcp

import (
	"errors"
	"fmt"

	"github.com/fsmount/fsmount/internal/formaterr"
)

// Code is the stable identifier of a reason a checkpoint is refused.
// Codes never change between releases; scripts may match on them. A
// Code is also an error to match with errors.Is: a [*FormatError] is its
// own Code.
type Code string

// The reasons a checkpoint is refused.
const (
	CodeNotDCP          Code = "not_dcp"               // .metadata is not a pickled DCP Metadata
	CodeForbidden       Code = "forbidden_global"      // .metadata imports a global DCP's metadata is not made of
	CodeInvalidPickle   Code = "invalid_pickle"        // .metadata's pickle stream is malformed or truncated
	CodeLimit           Code = "limit_exceeded"        // a bound on the metadata's size, values or chunks is exceeded
	CodeInvalidMetadata Code = "invalid_metadata"      // a field of the metadata is not what DCP writes
	CodeUnsupported     Code = "unsupported"           // a dtype, a transform (compression) or a layout not read
	CodeBadPath         Code = "bad_path"              // a storage's relative_path is not a bare file name
	CodeMissingFile     Code = "missing_file"          // a .distcp file the metadata names is absent
	CodeMissingStorage  Code = "missing_storage_entry" // a chunk has no entry in storage_data
	CodeOutOfFile       Code = "item_out_of_file"      // an item's offset and length run past its file
	CodeInvalidItem     Code = "invalid_item"          // an item is not the torch.save archive of one tensor
	CodePayload         Code = "payload_mismatch"      // an item's tensor has another shape or dtype than its chunk
	CodeChunkBounds     Code = "chunk_out_of_bounds"   // a chunk reaches past its tensor's size
	CodeOverlap         Code = "overlapping_chunks"    // two chunks of a tensor share elements
	CodeMissingChunk    Code = "missing_chunk"         // the chunks of a tensor leave elements uncovered
	CodeSharedItem      Code = "shared_item"           // two items share bytes of a file
)

func (c Code) Error() string { return "dcp: " + string(c) }

// ErrFormat is matched by every [*FormatError]: errors.Is(err, ErrFormat)
// reports whether err is a refusal of the checkpoint rather than an I/O
// error.
var ErrFormat = errors.New("dcp: not a readable PyTorch Distributed Checkpoint")

// FormatError reports a checkpoint refused, in one line: the file, what
// is wrong and the code.
type FormatError struct {
	File   string // the file, as its source names it
	Code   Code
	Tensor string // the state dict key concerned, if any
	Detail string // what was found, in plain words
}

func (e *FormatError) Error() string {
	return formaterr.Join(e.File, e.Detail+" (dcp: "+string(e.Code)+")")
}

// Is makes every FormatError match [ErrFormat] and its own [Code].
func (e *FormatError) Is(target error) bool {
	return formaterr.Is(target, ErrFormat, e.Code)
}

func formatErr(file string, code Code, key, format string, args ...any) *FormatError {
	return &FormatError{File: file, Code: code, Tensor: key, Detail: fmt.Sprintf(format, args...)}
}
