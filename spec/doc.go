// Package spec decides what a model's config.json implies: the tensors
// its architecture has, with their names, shapes and dtypes.
//
// It parses config.json strictly ([ParseConfig]) and derives the tensor
// set the architecture implies ([Expect]), as a [Plan]: the expected
// tensors, the legend of their dimensions, the quantization's packing,
// and where a format names tensors its own way ([Plan.Rename]) or
// transformers 5.x lays them out otherwise ([Plan.PickVariant]). Whether
// a model's files hold that set is package check's; what the
// quantization config means is package quantconfig's.
//
// Architectures are data: each family is a table entry of config fields
// with their class defaults and tensor templates, built from the shared
// blocks (blocks*.go) and evaluated by a small expression language
// (expr.go). The families are filed by model group, one word each:
// decoders*.go (dense decoder LMs), moe.go, ssm.go (state-space and
// hybrids), encoders*.go, encdec.go (encoder-decoders), timeseries.go,
// speech*.go and audio_*.go (speech, audio codecs and towers), vision*.go
// (vision-only models: CNNs, dense heads, DETR, MaskFormer, SAM, Paddle),
// multimodal*.go. ADDING.md's table says which file holds what and how
// to add a family; [Architectures] lists them.
//
// This package imports no checker and no format package; it sees a
// format's names only through model.Names (a test in
// internal/importclaims checks).
package spec
