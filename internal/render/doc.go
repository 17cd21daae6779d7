// Package render draws pictures of a model's weights, as files whose
// size is known from the shape alone: heatmap.png (a matrix down-sampled
// on a diverging colour map), hist.png (a tensor's histogram) and
// overview.png (every kind of block weight's RMS against the layer).
//
// # Fixed sizes
//
// A mount reports a file's size at LOOKUP, before anything is rendered,
// so every picture is a PNG whose byte size is a function of its
// dimensions (pngSize): 8-bit RGB, filter 0 on every row, one IDAT
// holding a zlib stream of stored (uncompressed) deflate blocks, and no
// other chunk than IHDR and IEND. hist.png is [HistW]×[HistH] and
// overview.png [OverviewW]×[OverviewH] always; a heatmap's dimensions
// depend on the tensor's shape only ([HeatmapDims]). Text is drawn in the
// 7×13 fixed font of golang.org/x/image without anti-aliasing, so the
// same input gives the same bytes.
//
// # heatmap.png
//
// The tensor as a matrix [rows, cols]: the last dimension is the columns
// (a weight's inputs), the leading ones flattened into rows (its
// outputs); a vector is one row, a scalar 1×1. Each axis is cut into at
// most maxCells (1024) blocks of consecutive rows or columns,
// floor(i·n/k) being the first of block i, and each cell of the grid
// shows its block's value of largest magnitude (the positive one on a
// tie), so that a single outlying weight is never averaged away; a block
// holding a NaN is black. The colour map is diverging and centred on 0:
// near-white at 0, red for positive, blue for negative (ColorBrewer's
// RdBu stops, 255 levels, level = 128 + floor(127·v/R + 1/2)),
// saturating at ±R where R is the 99th percentile of the cells'
// magnitudes (see [Grid.ColorRange]), so that a few outliers do not wash
// out the rest. A grid of fewer than 256 cells on an axis is magnified
// by an integer factor to at least 256 pixels on that axis (cells may
// then be oblong). The name, the shape, min and max and R are written on
// it, with a scale bar.
//
// The grid is computed in one pass over the values (heatmapGrid), in
// chunks of 256Ki elements by one goroutine per core, each owning a band
// of grid rows, so that the bytes do not depend on scheduling. Each
// block is folded into two integer maxima of its values' bit patterns
// (the largest as int32 is the largest positive value, the largest as
// uint32 the most negative one), which give its value of largest
// magnitude, NaN, and the tensor's max and min, with no floating
// comparison. A BF16 tensor is read with ReadAt into a reused buffer and
// folded on its 16-bit codes, on amd64 by an SSE2 kernel 32 columns at a
// time (fold_amd64.s; the Go loop elsewhere and with -tags purego); other types are decoded with
// [decode.Decoder.Float32]. A tensor with no negative (or no positive)
// value has its min (max) taken from [Source.Stats] instead, which a
// mount caches. Memory is the grid (4 bytes a cell, at most 4 MiB), one
// chunk per worker and the picture, whatever the tensor's size.
//
// # hist.png
//
// The histogram of [decode.Stats] (its bins over [min, max] of the
// finite values), counts on a log scale (bar height ∝ log(1+count)),
// with min, max, mean, std and the NaN and ±Inf counts written on it.
//
// # overview.png
//
// One line per kind of block weight (q_proj, k_proj, …, each norm; see
// [LayerKind]), its RMS against the layer index, on a log scale, with a
// legend: a layer whose weights were scaled or broken stands out. The
// statistics come from [Source.Stats], which a mount caches.
//
// # Caching
//
// Each file is a [Lazy]: rendered on its first read, at most once at a
// time, and kept in a [Cache] bounded by its total bytes (least recently
// used out), from which reads at any offset are served; a failed
// rendering is returned to its readers as an error and not kept. A
// heatmap is at most about 3.9 MB (1153×1127), hist.png 0.8 MB and overview.png 1.6
// MB. Besides the cache, each rendering in progress holds its grid and
// picture.
package render
