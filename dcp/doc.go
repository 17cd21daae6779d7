// Package dcp reads a PyTorch Distributed Checkpoint (DCP: what
// torch.distributed.checkpoint.save writes for FSDP, torchtitan, NeMo
// and Megatron's torch_dist) without torch and without running pickle:
// a directory of __<rank>_<n>.distcp files and one pickled .metadata.
//
// [Open] reads .metadata through package pytorch's restricted pickle
// reader ([pytorch.Unpickle]), allowing only the classes DCP's metadata
// is made of (Metadata, TensorStorageMetadata, ChunkStorageMetadata,
// BytesStorageMetadata, MetadataIndex, TensorProperties, StorageMeta,
// _StorageInfo, torch.Size, the dtypes, _get_layout, the memory-format
// enum and pathlib's paths); any other global is refused, named, never
// run. For every state dict key it has the global size and dtype and
// the chunks (boxes of offsets and sizes), and storage_data says where
// each chunk's item is: a file, an offset, a length. Each item of a
// tensor chunk is a complete torch.save archive of the chunk, read by
// package pytorch in place (its central directory, data.pkl and the
// storage's local header: the item's bytes themselves are never read at
// open), so a chunk is a byte range of its .distcp file, zero-copy.
// Non-tensor values (torch.save'd objects) are listed as [Object]s.
//
// A tensor is reassembled by its chunks' offsets and sizes: its
// [Tensor.View] is the one chunk's bytes when one holds it all, else an
// [Assembled] file whose reads go to the chunks in place, run by run (a
// row split is one run per chunk, a column split one per row), and
// whose [Assembled.Pieces] tell a server where each run lies.
//
// # Checks
//
// torch's own loader checks none of this (see
// dcp/testdata/realworld/hostile): every file name must be a bare name
// in the checkpoint's directory, checked before anything is opened;
// every chunk inside its tensor; the chunks of a tensor tiling it
// exactly, no two sharing an element and none missing (the error names
// the tensor and the first missing or shared box); every item inside
// its file, no two sharing bytes; every item a torch.save archive of
// one contiguous tensor of its chunk's shape and the tensor's dtype
// (never reinterpreted); transformed (compressed) items are refused as
// not read. Every count comes from the metadata's own length (each
// entry costs bytes of the pickle), comparisons of chunk pairs and the
// search for a gap's box are bounded. Every failure is a
// [*FormatError] with a stable [Code]; errors.Is(err, CodeX) matches
// one, errors.Is(err, ErrFormat) any.
package dcp
