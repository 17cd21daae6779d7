// Package pytorch validates PyTorch checkpoints (pytorch_model.bin,
// .pt, .pth) and turns their tensors into [tensor.Tensor] views, without
// running pickle.
//
// [NewFile] reads one file through a [source.File]. A torch.save file of
// PyTorch 1.6 and later is a ZIP archive: ARCHIVE/data.pkl describes the
// object saved, and each storage is a stored (uncompressed) record
// ARCHIVE/data/KEY, so every contiguous tensor is a byte range of the
// file — zero-copy, like safetensors. The central directory is read over
// ReadAt by a small reader of our own (zipdir.go), which knows the ZIP64
// records torch.save writes past 4 GB. Where a storage's bytes start is its local
// header's business: a remote file's are read at open; a local file's
// are predicted from torch.save's layout and checked (a few at open, the
// rest before the first byte of any storage is served: lazy.go), so a
// check that reads no tensor reads no more than the head, data.pkl and
// the tail. The legacy format (before 1.6:
// five pickles, then each storage's length and bytes) is read too. A
// TorchScript archive, its lite-interpreter form, the pre-0.4 tar format
// and anything else are refused with one line saying what the file is.
//
// A tensor is a storage, an offset, a shape, strides and a dtype.
// Tensors viewing the same bytes of one storage (a tied head) carry the
// same [tensor.Tensor.Storage] and StorageOffset ([tensor.SameBytes]). A
// non-contiguous tensor (a transposed weight) has Strides, and its File
// is a [source.Derived] that gathers the row-major bytes on first read.
// [Join] merges the shards of a checkpoint; the index
// (pytorch_model.bin.index.json) follows the safetensors index rules,
// applied by package safetensors.
//
// # Security
//
// data.pkl is untrusted input, read by a small interpreter of our own
// (pickle.go) that knows the opcodes of protocols 2 to 5 and builds
// plain Go values; it never imports or calls anything. A GLOBAL must be
// one of the few names a state dict is made of, after the list that
// torch.load(weights_only=True) allows (torch/_weights_only_unpickler.py):
// collections.OrderedDict, torch._utils._rebuild_tensor_v2 and
// _rebuild_parameter, the storage classes, the dtypes, torch.Size; any
// other is refused with an error naming it ([CodeForbidden]), before
// anything is done with it. What REDUCE, NEWOBJ and BUILD do with an
// allowed name is written out in Go. The stack, the open MARKs, the memo
// and the nesting of containers are bounded; every length in the stream
// is checked against the bytes left before use; each container is
// visited once when the tensors are named, so a stream that reuses one
// through its memo costs no more than its length. The central directory
// must lie inside the file, before its end record; its record count is
// checked against its length before anything is allocated, and each
// record's name and extra fields against the bytes read. Every storage
// must be stored, have one record, lie inside the file, share no byte
// with another, and hold the bytes its tensors reach. Every failure is a
// [*FormatError] with a stable [Code]; errors.Is(err, CodeX) matches one,
// errors.Is(err, ErrFormat) any.
package pytorch
