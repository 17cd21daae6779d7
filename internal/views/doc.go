// Package views renders one tensor's values, and a model's statistics,
// as the contents of read-only files: random-access readers whose size is
// known from the tensor's shape and type alone, without reading it, so
// that a mount can report sizes at LOOKUP and listing never scans. Each
// [View] decodes only the elements a ReadAt range needs, and returns an
// error (which the mount turns into EIO) when the tensor's ReadAt fails
// or is short.
//
// # values
//
// Decoded numbers as text. A tensor of rank 0 or 1 has one value per
// line; of rank 2 or more, one row of its last dimension per line, the
// values separated by single spaces. Every line of a tensor has the same
// length L, so row r starts at byte r·L: lines that hold nan or inf,
// which are shorter than numbers, are padded with trailing spaces before
// their "\n". A tensor whose last dimension is 0 has one "\n" per row;
// one with no elements is empty.
//
// Floating values are printed in scientific notation with an explicit
// sign and a fixed number of significant digits and exponent digits:
//
//	type                         digits  exponent  width  example
//	BF16                         4       2         10     +1.234e-02
//	F16                          5       2         11     -6.550e+04
//	F32, dequantized values      9       2         15     +1.00000000e+00
//	F64                          17      3         24     +1.0000000000000000e+000
//	F8_*, F6_*, F4               3       2         9      -4.48e+02
//
// These digits are enough for every value to round-trip: parsing it
// (strtod, Python float, strconv.ParseFloat) and rounding to the type
// gives back its bits; -0 prints as -0.000e+00. NaN prints as "nan"
// (its payload is not kept), +Inf as "inf", -Inf as "-inf". Dequantized
// values (an FP8 weight with its block scales, a ggml block type) are
// float32 and printed as F32.
//
// Integers are printed exactly, zero-padded to a fixed width: signed
// types with an explicit sign (I8 "+005", "-128"; widths I8 4, I16 6,
// I32 11, I64 20), unsigned types without (U8 "005"; widths U8 3, U16 5,
// U32 10, U64 20). BOOL prints "0" or "1" (any nonzero byte is 1).
//
// head, sed -n 5p, awk and sort -g work on the result.
//
// # values.f32
//
// Little-endian float32 of every element, row-major. Types of 16 bits or
// fewer are exact; F64 is rounded to nearest-even (overflow gives ±Inf),
// as are 32- and 64-bit integers beyond 2^24.
//
// # values.npy
//
// A .npy version 1.0 file whose header is padded with spaces so that the
// data starts at a multiple of 64 bytes. numpy-native types (BOOL, U8,
// I8, I16, U16, F16, I32, U32, F32, C64, F64, I64, U64) are described by
// their own little-endian descr and followed by the tensor's own bytes,
// which [NPY.Raw] locates so that a mount can splice them; every other
// type is stored as '<f4', decoded as values.f32.
//
// # stats
//
// Twelve lines "name value": count, nan, posinf, neginf, zeros,
// subnormals, min, max, mean, std, absmax, rms. The name is padded with
// spaces to 10 bytes, followed by one space and the value right-aligned
// in 24 bytes: counts in decimal, the others with 17 significant digits
// and a 3-digit exponent ("+1.2345678901234567e-002"), or "nan" when
// there is no finite value. 432 bytes in all. See [decode.Stats] for the
// definitions.
//
// # sha256
//
// The lowercase hex SHA-256 of the tensor's bytes and "\n": 65 bytes.
//
// # hist
//
// A header line, one line per bin and one each for nan, +inf and -inf,
// every line 90 bytes: the bin's bounds (13 bytes each, 6 significant
// digits, "+1.23456e-002"), its count (20 bytes, right-aligned) and a bar
// of '#' whose length is 40·log(1+count)/log(1+largest count), padded
// to 40. Bins are equal-width over [min, max] of the finite values (see
// [decode.Histogram]).
//
// # Model stats table
//
// [Model.StatsTable]: a header line and one line per tensor, fields
// separated by tabs and each padded with spaces to a fixed width (the
// name to the longest name, in bytes), so that every line has the same
// length. Fields: name, dtype, count, nan, posinf, neginf, zeros, min,
// max, mean, std, absmax, rms, health. Health is ok, nan, inf, zero,
// constant or empty (see [decode.Health]), or n/a for a tensor that is
// not decoded.
//
// # Caching
//
// Statistics (with the histogram) and the digest of each tensor are
// computed once, on the first read that needs them, by a [decode.Scan]
// on every core, and kept by its [Tensor]: at most one [decode.Stats] of
// about 200 + 8·bins bytes and one 32-byte digest per tensor, whatever
// the tensor's size. A scan that fails is not kept, so the next read
// tries again. A text view (values, stats, hist) of a tensor that cannot
// be decoded holds the single line "not decoded: <why>\n" instead; a
// binary view (values.f32, values.npy) keeps the size it would have and
// fails every read, so that a binary file never carries text.
package views
