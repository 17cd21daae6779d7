// Package safetensors maps safetensors files and validates their headers.
//
// A file is mapped read-only with mmap; every tensor's bytes are a slice of
// that mapping, so no weight is ever copied onto the heap. [Open] maps one
// file, [OpenIndex] maps every shard named by a model.safetensors.index.json
// and joins them into one [Checkpoint].
//
// # Security
//
// The header is untrusted input. Validation follows the reference
// implementation (huggingface/safetensors) rule for rule and in its order:
// the 8-byte length is checked against the file size and a 100 MB cap before
// any byte of the header is looked at, every offset and every shape product
// is computed with overflow checks, and the tensors must tile the data
// section exactly, with no gap, overlap or trailing byte. No allocation is
// sized from a length read from the file: the header is parsed in place in
// the mapping and the tensor table grows with the entries actually present.
// Duplicate tensor names, which the reference silently collapses, are
// rejected. Every failure is a [*FormatError] carrying a stable code.
package safetensors
