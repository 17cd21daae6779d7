package pytorch

import (
	"errors"
	"fmt"

	"github.com/fsmount/fsmount/internal/formaterr"
)

// Code is the stable identifier of a reason a file is refused. Codes
// never change between releases; scripts may match on them. A Code is
// also an error to match with errors.Is: a [*FormatError] is its own Code.
type Code string

// The reasons a file is refused.
const (
	CodeNotPyTorch     Code = "not_pytorch"          // neither a torch.save ZIP nor a legacy torch.save pickle
	CodeTorchScript    Code = "torchscript"          // a TorchScript archive (torch.jit.save), or its lite form
	CodeLegacyTar      Code = "legacy_tar"           // the tar format of PyTorch before 0.4
	CodeCorruptArchive Code = "corrupt_archive"      // the ZIP structure is broken or truncated
	CodeMissingRecord  Code = "missing_record"       // no data.pkl, or a record the pickle names is absent
	CodeCompressed     Code = "compressed_entry"     // a storage entry is compressed, not stored
	CodeBigEndian      Code = "big_endian"           // the archive's byteorder record says big
	CodeInvalidPickle  Code = "invalid_pickle"       // the pickle stream is malformed or truncated
	CodeForbidden      Code = "forbidden_global"     // the pickle names a global a state dict does not use
	CodeLimit          Code = "limit_exceeded"       // a bound on memo, stack, nesting or size is exceeded
	CodeUnsupported    Code = "unsupported_tensor"   // a tensor of a kind not read (quantized, sparse, complex…)
	CodeInvalidTensor  Code = "invalid_tensor"       // a shape, stride or offset that cannot be right
	CodeShortStorage   Code = "short_storage"        // a storage shorter than its tensors need
	CodeOverlap        Code = "overlapping_storages" // two storages share bytes of the file
	CodeNoTensors      Code = "no_tensors"           // the pickle holds no tensor
	CodeDuplicate      Code = "duplicate_tensor"     // a tensor name in two shards
)

func (c Code) Error() string { return "pytorch: " + string(c) }

// ErrFormat is matched by every [*FormatError]: errors.Is(err, ErrFormat)
// reports whether err is a refusal of the file rather than an I/O error.
var ErrFormat = errors.New("pytorch: not a readable PyTorch checkpoint")

// FormatError reports a file refused, in one line: the file, what it is
// or what is wrong, and the code.
type FormatError struct {
	File   string // the file, as its source names it
	Code   Code
	Tensor string // the tensor concerned, if any
	Detail string // what was found, in plain words
}

func (e *FormatError) Error() string {
	return formaterr.Join(e.File, e.Detail+" (pytorch: "+string(e.Code)+")")
}

// Is makes every FormatError match [ErrFormat] and its own [Code].
func (e *FormatError) Is(target error) bool {
	return formaterr.Is(target, ErrFormat, e.Code)
}

func formatErr(file string, code Code, tensor, format string, args ...any) *FormatError {
	return &FormatError{File: file, Code: code, Tensor: tensor, Detail: fmt.Sprintf(format, args...)}
}
