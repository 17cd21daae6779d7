// Package safetensors validates safetensors files and turns their tensors
// into [tensor.Tensor] views.
//
// [NewFile] reads one file through a [source.File]: the 8-byte length
// prefix, then the JSON header with one ReadAt into a buffer whose size
// is checked against the file first. Tensor bytes are never read here;
// each tensor is a byte range of the source file. [ParseIndex], [Join]
// and [Index.Check] apply the rules of a sharded checkpoint's index.
// Finding the files of a model is package model's job.
//
// # Security
//
// The header is untrusted input. Validation follows the reference
// implementation (huggingface/safetensors) rule for rule and in its order
// (RULES.md numbers them): the 8-byte length is checked against the file
// size and a 100 MB cap before any byte of the header is read, every
// offset and every shape product is computed with overflow checks, and
// the tensors must tile the data section exactly, with no gap, overlap or
// trailing byte. No allocation is sized from a length read from the file
// before it is checked, and the tensor table grows with the entries
// actually present. Duplicate tensor names, which the reference silently
// collapses, are rejected. Every failure is a [*FormatError] carrying a
// stable [Code]; errors.Is(err, CodeX) matches one rule, errors.Is(err,
// ErrFormat) any.
package safetensors
