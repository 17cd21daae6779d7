// Package compare compares two checkpoints tensor by tensor: which names
// only one has, which shapes changed, which tensors are byte-identical,
// and, for the others, how far apart their values are as numbers (BF16
// against F32, a dequantized FP8 weight against BF16). MODEL is the
// checkpoint under study and OTHER the reference: every difference is
// MODEL − OTHER, and relative L2 is ‖MODEL − OTHER‖ / ‖OTHER‖.
//
// # Use
//
// fsinspect --compare OTHER MODEL:
//
//	r, err := compare.Models(other, model, &compare.Options{Progress: bar})
//	fmt.Print(r.Text())       // the summary table
//	j, _ := r.JSON()          // --json
//	ok := r.Within(tolerance) // --tolerance: exit status
//
// The mount's compare/ directory, whose sizes are all known before a
// value is read:
//
//	c, err := compare.New(other, model, nil)
//	c.Files()               // summary, only-in-model, only-in-other
//	for _, name := range c.Shared() {
//		c.TensorFiles(name) // <name>/stats, delta.f32, delta.npy
//	}
//
// # Pairing names
//
// Names are paired in three steps. Names present in both are paired.
// Among the names left, those equal but for a leading "model." (the base
// model prefix that transformers writes for a *ForCausalLM and not for
// the bare model) are paired when the pairing is one to one; the entry
// says Match "prefix". Last, a head (lm_head.weight, GGUF output.weight)
// present in one checkpoint only is compared with the other's embedding
// (model.embed_tokens.weight, token_embd.weight), Match "tied", unless
// the checkpoint without a head has "tie_word_embeddings": false in its
// config.json: a tied checkpoint and its untied re-save then compare
// equal, and Within does not count the head as missing. An entry's Name
// is MODEL's tensor name, or OTHER's for a name only OTHER has and for a
// head that only OTHER stores.
//
// # Quantized weights
//
// The quantization companions (names ending in weight_scale_inv,
// weight_scale, input_scale, scales, qzeros, g_idx, SCB, weight_format)
// are not compared as tensors: [Result.AuxModel] and [Result.AuxOther]
// list them. An FP8 weight with a weight_scale_inv beside it is decoded
// with its block scales ([decode.NewScaled]; the block is
// [Options.Block], else the one package quantconfig gives, as the views
// use it: the config's weight_block_size, else inferred from the scale's
// shape) and compared with the other's weight of that name. A GPTQ or
// AWQ qweight, a compressed-tensors weight_packed or quantized weight,
// a ModelOpt, MLX or bitsandbytes quantized weight, or GPT-OSS's MXFP4
// expert blocks are decoded with their companions as views.Companions
// (the one home of that decision, shared with the views) says and
// compared under the logical weight's name. Weights whose quantization
// is not modelled (a method quantconfig does not understand or does not
// decode) are entries with status error (not decoded).
//
// # Figures
//
// A pair of the same dtype and byte length is read chunk by chunk and
// compared byte for byte first; if every chunk is equal the pair is
// identical and no value is decoded. Otherwise both tensors are decoded
// chunk by chunk ([Options.ChunkElements], 1M elements by default; no
// decoded tensor is ever held), exactly (see package decode), and reduced
// in float64: max and mean of |MODEL − OTHER|, ‖MODEL‖, ‖OTHER‖,
// ‖MODEL − OTHER‖, ⟨MODEL, OTHER⟩ and the count of elements that differ.
// Relative L2 is then 0 when both norms are 0 and +Inf when only OTHER's
// is; cosine is 1 when both norms are 0 and 0 when one is. Each chunk's
// sums are kept and added in chunk order, so that the figures do not
// depend on scheduling. A tensor compared with itself, or BF16 with its
// exact F32 widening, has relative L2 exactly 0.
//
// Chunks of every pair are compared on [Options.Workers] goroutines at
// once (GOMAXPROCS by default). Dense BF16 pairs take an AVX2 kernel on
// amd64 CPUs that have it (not with -tags purego; its measured gain is
// written in kernel_amd64.go). Both kernels count the same elements,
// NaNs, infinities and differing pairs, and find the same maxima, exactly;
// the float64 sums (of squares and products, behind relative L2, cosine
// and mean |Δ|) are added in another order, four lanes at a time, so they
// may differ from the scalar path's in the last bits (within 1e-12
// relative, as TestAVX2 checks), and so may the figures derived from them. On one
// machine a run always takes the same kernel, so its figures are
// reproducible.
//
// # NaN and infinities
//
// A pair of elements of which one is NaN or infinite is left out of
// every sum. It counts as equal when both are NaN or both the same
// infinity; otherwise it counts in Differ and in NonFinite. −0 equals +0.
// [Result.Within] fails on any NonFinite.
//
// # summary
//
// [Result.Text] and the summary view: a header line; then for each group
// in the report's order (the globals, each layer by number, the finals:
// model.norm, lm_head and their GGUF and GPT names) a line "[layer 3] 11
// tensors, min snr_db +23.45  , max rel_l2 +1.234e-03" (the group's
// lowest SNR, the figure of a quantization to look at first, padded to
// 8) followed by one line per name of the
// group, those not compared first (error, shape, only-model,
// only-other), then by relative L2, largest first; and a footer line of
// counts, with the lowest SNR and the largest relative L2 of all.
// Layers are found by name (layers.N., h.N., blk.N., block.N.).
// Every line is padded with spaces to one length, so the size is known
// from the names: lines × line length. A name line holds the name
// (padded to the longest, control bytes as '?'), then fields separated
// by a space and padded to fixed widths: status (10), match (6), model
// and other dtype ("F8_E4M3*/BF16", a '*' marking dequantized values;
// 25), rel_l2, max_abs and mean_abs with 4 significant digits
// ("+1.234e-03", 11), cosine with 9 decimals ("+0.999999999", 12),
// snr_db with 2 decimals ("+23.45", 8; only for a pair that differs
// against a nonzero OTHER), and the differing and total element counts
// (20, right-aligned). Fields without a figure hold "-".
//
// # only-in-model, only-in-other
//
// The names only one checkpoint has, one a line, sorted.
//
// # stats
//
// Fifteen lines "name value" for one shared name: status, match,
// model_dtype, other_dtype, elements, differ, nonfinite, max_abs,
// mean_abs, rel_l2, cosine, norm_model, norm_other, norm_delta, snr_db. The name
// is padded to 11 bytes, followed by a space and the value right-aligned
// in 24: counts in decimal, figures with 17 significant digits
// ("+1.2345678901234567e-02"), "-" where there is none (norms of an
// identical pair, which are not decoded; every figure of a pair not
// compared). 555 bytes. An error's message is in the JSON only.
//
// # delta.f32, delta.npy
//
// For a pair whose values are compared: MODEL − OTHER of every element,
// row-major, computed in float64 and rounded to little-endian float32,
// 4 bytes an element; a read decodes only the elements it covers, from
// both tensors. delta.npy is a .npy v1.0 header ('<f4', MODEL's decoded
// shape, padded so that the data starts at a multiple of 64 bytes)
// followed by delta.f32.
//
// # Caching
//
// A [Comparison] keeps each pair's entry once computed, whoever asked
// first (Run, stats, summary); the summary view keeps its bytes. The
// first read of summary runs the whole comparison, which may take a
// while (`go test ./internal/compare -bench Dense` measures it, see
// docs/performance.md); a view's reads are not cancellable.
package compare
