// Package gguf parses and validates GGUF files, the model format of
// llama.cpp, into the neutral [tensor.Tensor] view: its one job is to turn
// a GGUF header into checked metadata and tensors, without reading any
// tensor's data.
//
// [NewFile] reads a header through a [source.File] with ReadAt, in bounded
// chunks: the file is never mapped and never read whole. [OpenModel] joins
// the shards of a split model (NAME-00001-of-00003.gguf …) into one.
// Versions 2 and 3 are read; version 1 and big-endian files are refused
// with codes of their own.
//
// Tensor shapes are ggml's ne[] reversed: GGUF stores the innermost,
// contiguous dimension first (a Llama token embedding is ne [4096, 32000]),
// and [tensor.Tensor.Shape] is outermost first like safetensors and numpy
// ([32000, 4096]). [TensorInfo.Dims] keeps the file's order.
//
// [HFName] and [GGUFName] map tensor names between Hugging Face checkpoints
// and GGUF, [ExpertName] one expert to the stacked tensor that holds it;
// [HFRow] and [GGUFRow] follow the row permutation the llama converter
// applies to Q and K projections. Each covered llama.cpp architecture is
// one row of a table ([Architecture], [Architectures]): the Hugging Face
// class and model_type its GGUF derives, the metadata keys read into
// config fields ([CommonKeys] and its own, some derived: [ConfigKey]),
// fields set by a tensor's presence ([Flag]) or fixed, its layer prefix
// and tensor names, the tensors its converter cuts into parts
// ([Arch.Parts]: DeepSeek's kv_b_proj into attn_k_b and attn_v_b), and
// the other rows a file takes by a metadata key or a tensor ([Alt],
// [Arch.For]: DeepSeek-V3 against V2, Falcon-40B against 7B).
//
// # Security
//
// The header is untrusted input. Every count, length and offset is checked
// against the bytes left in the file before it is used: the metadata and
// tensor counts against the smallest size their entries could take, every
// string and array length against the rest of the file and a cap
// (1 GiB strings, 2^30 array elements, arrays nested at most 4 deep). No
// allocation is sized by a count from the file: tables grow as entries are
// actually read, so memory is bounded by the header's real size. Element
// counts and byte sizes are computed with overflow checks; each tensor's
// bytes must be aligned, inside the file, and overlap no other tensor.
// Every violation is a [*FormatError] with a stable [Code]; the parser does
// not panic on any input (FuzzNewFile).
//
// What is legal but refused by llama.cpp, or asked for by the spec but
// not required here, is reported by [File.Warnings]: tensors not packed in
// file order, nested arrays, an alignment that is not a multiple of 8,
// bool bytes other than 0 and 1, keys that are not lower_snake_case.
package gguf
