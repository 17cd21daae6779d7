package spec

import "encoding/json"

// PaddlePaddle's vision models as transformers 5.x ports them: PP-LCNet
// (a MobileNet-like backbone of depthwise-separable blocks whose per
// stage, per block [kernel, in, out, stride, squeeze-excite] come from
// block_configs). Built from blocks_cnn.go's cbn.

// nestedValue reads a Nested: arrays of arrays, at most depth deep, of
// numbers, flags and strings.
func (c *Config) nestedValue(field string, raw json.RawMessage, depth int) (any, error) {
	if len(raw) == 0 || raw[0] != '[' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s, nil
		}
		var b bool
		if json.Unmarshal(raw, &b) == nil {
			return b2i(b), nil
		}
		n, err := c.parseInt(field, raw)
		return int64(n), err
	}
	if depth == 0 {
		return nil, c.errorf(field, "is nested too deep")
	}
	items, err := c.arrayItems(field, raw)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(items))
	for i, it := range items {
		if out[i], err = c.nestedValue(field, it, depth-1); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ppLCNetFamily is PP-LCNet (PPLCNetBackbone, PPLCNetForImageClassification):
// a 3×3 stem of stem_channels, then a stage per block_configs entry of
// depthwise-separable blocks (a depthwise kernel×kernel convolution, a
// squeeze-excite of in/reduction where the block's flag says, a
// pointwise convolution), every width scaled by scale and rounded by
// make_divisible(divisor); the classifier adds a bias-free 1×1
// convolution to class_expand and a linear head.
func ppLCNetFamily() *Family {
	blk := func(i string) string { return "at(at(at(bc, l), e), " + i + ")" }
	sc := func(c string) string { return "makediv((" + c + ")*sc, 1000, dv, dv)" }
	in, out := sc(blk("1")), sc(blk("2"))
	last := sc("at(at(at(bc, len(bc)-1), len(at(bc, len(bc)-1))-1), 2)")
	layer := cat(cbn{Conv: "depthwise_convolution.convolution", Norm: "depthwise_convolution.normalization", Out: in, In: in, Groups: in, K: blk("0")}.at(""),
		zeroOK(when(blk("4"), conv("squeeze_excitation_module.convolutions.0", in+"/rd", in, "1", "1"),
			conv("squeeze_excitation_module.convolutions.2", in, in+"/rd", "1", "1"))),
		cbn{Conv: "pointwise_convolution.convolution", Norm: "pointwise_convolution.normalization", Out: out, In: in, K: "1"}.at(""))
	return &Family{Name: "PP-LCNet", Class: "PPLCNet", ModelTypes: []string{"pp_lcnet"}, Causal: "-", SeqCls: "-",
		Defs: []Def{
			{Sym: "bc", Field: "block_configs", Type: Nested, Default: "list(list(list(3, 16, 32, 1, 0)), list(list(3, 32, 64, 2, 0), list(3, 64, 64, 1, 0)), " +
				"list(list(3, 64, 128, 2, 0), list(3, 128, 128, 1, 0)), list(list(3, 128, 256, 2, 0), list(5, 256, 256, 1, 0), list(5, 256, 256, 1, 0), " +
				"list(5, 256, 256, 1, 0), list(5, 256, 256, 1, 0), list(5, 256, 256, 1, 0)), list(list(5, 256, 512, 2, 1), list(5, 512, 512, 1, 1)))",
				Null: "=", Desc: "each stage's blocks: [kernel, in, out, stride, squeeze-excite]"},
			{Sym: "sc", Field: "scale", Type: Milli, Default: "1000", Legend: "scale", Desc: "width multiplier (×1000)", Show: true, Pos: true},
			{Sym: "dv", Field: "divisor", Default: "8", Desc: "channels round to a multiple of this", Pos: true},
			{Sym: "stem", Field: "stem_channels", Default: "16", Desc: "the stem's width", Pos: true},
			{Sym: "rd", Field: "reduction", Default: "4", Desc: "squeeze-excite reduction", Pos: true},
			{Sym: "X", Field: "class_expand", Default: "1280", Desc: "the classifier's expansion", Pos: true},
		},
		Global: cbn{Conv: "convolution", Norm: "normalization", Out: sc("stem"), In: "3", K: "3"}.at("encoder.convolution."),
		Stacks: []Stack{{Name: "stage", Prefix: "encoder.blocks.{l}.", Layers: "len(bc)", Tensors: blocksOf("layers.", "len(at(bc, l))", layer)}},
		Embed:  "encoder.convolution.convolution.weight",
		Tasks: []Task{
			{Suffix: "Backbone", KeepFinal: true},
			{Suffix: "ForImageClassification", KeepFinal: true, Labels: true, Head: cat(
				convNB("last_convolution", "X", last, "1", "1"), when("C > 0", classifier("head", "X")))},
		},
	}
}

var _ = register(ppLCNetFamily())
