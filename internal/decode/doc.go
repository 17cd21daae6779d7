// Package decode turns a tensor's bytes into numbers: exact decoding of
// every element type to float32 and float64, random-access decoding of
// element ranges ([Decoder]), FP8 block dequantization with a scale
// companion, and streaming statistics over a whole tensor ([Scan]).
//
// # Exactness
//
// Every value of every type of 16 bits or fewer is exactly representable
// in float32, and every value of every floating type in float64, so
// decoding is exact: BF16 is a shift, F16 and the 8-, 6- and 4-bit types
// are table lookups of float32 bit patterns built with integer arithmetic
// from the formats' definitions. F64 decoded to float32 is rounded to
// nearest-even (overflow gives ±Inf); 32- and 64-bit integers decoded to
// float32, and 64-bit integers beyond 2^53 decoded to float64, are
// rounded to nearest-even as Go's conversions do.
//
// # Sub-byte packing
//
// F4 (E2M1) stores two elements per byte, element 2k in the low nibble
// (bits 3..0) and 2k+1 in the high nibble, as PyTorch's float4_e2m1fn_x2.
// The F6 types store four elements in three bytes; no specification
// (safetensors, PyTorch, OCP MX) defines the bit order, so this package
// assumes the little-endian bit stream: the three bytes read as a 24-bit
// little-endian integer v, element k is bits 6k..6k+5 of v. This is an
// assumption, stated in [F6Packing], not a documented format.
//
// # Block types
//
// The ggml block-quantized types decode a block at a time through a
// function registered with [Register]; until one is registered they are
// refused with an [*UnsupportedError]. Complex (C64) values have no
// scalar decoding and are refused too.
//
// # Quantized layouts
//
// A weight with companions decodes to float32 through its own
// constructor: [NewScaled] for FP8 block scales (value = code ·
// scale[i/bn][j/bk], the scale multiplied although named
// weight_scale_inv), [NewGPTQ] for GPTQ (2, 4 and 8 bits, checkpoint
// formats v1 and v2, g_idx honoured; 3-bit is refused) and [NewAWQ] for
// AWQ GEMM 4-bit, and [NewQuantized] for the rest ([Quantized] gives
// the formula): compressed-tensors, ModelOpt (INT4 packed along the
// output dimension, pre_quant_scale folded in), MLX, bitsandbytes
// (4-bit table codes over the flattened weight, double quantization;
// int8 with SCB) and GPT-OSS's MXFP4 expert stacks (stored transposed).
// GPTQ and AWQ weights decode to their original orientation [out, in].
// The companions (scales, zeros, g_idx) are read whole on first use, up
// to [MaxScaleElements].
//
// # Statistics
//
// [Scan] reads a tensor with ReadAt in chunks on every core, in memory
// bounded by a few chunks per worker, and accumulates in float64. For the
// types of 16 bits or fewer it counts each bit pattern and derives every
// statistic and the histogram from the counts after one pass: the counts
// merge exactly between chunks and workers, and mean and variance are
// computed from them in two passes over at most 65536 distinct values.
// For wider types each block of 1024 elements contributes its count,
// mean and centred sum of squares, merged with Chan's formula; the
// histogram then needs a second pass, because its range [min, max] is
// known only after the first.
package decode
