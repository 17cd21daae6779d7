package spec

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// Blocks of the families of families_p2.go, on top of blocks.go: a
// VQ-GAN image tokenizer (Janus), a list field with a class default,
// and the parts of an encoder-decoder composition.

// listAt is the expression for entry i of the list symbol sym, or of def
// (the config class's default list) when the config leaves sym empty or
// absent: "at(sym, i)" guarded by the list's length.
func listAt(sym, i string, def []int) string {
	fallback := "0"
	for k := len(def) - 1; k >= 0; k-- {
		fallback = fmt.Sprintf("(%s) == %d ? %d : (%s)", i, k, def[k], fallback)
	}
	return fmt.Sprintf("(len(%s) > 0 ? at(%s, %s) : (%s))", sym, sym, i, fallback)
}

// vqganDefs are a VQ-GAN's config fields under cfg ("vq_config.") with
// the config class's defaults: base channels, the channel multiplier per
// resolution, residual blocks per resolution, latent and codebook sizes.
// Symbols are prefixed vq.
func vqganDefs(cfg string, cm []int, base, nrb, latent, embed, codes string) []Def {
	strs := make([]string, len(cm))
	for i, m := range cm {
		strs[i] = fmt.Sprint(m)
	}
	return []Def{
		{Sym: "vq_base", Field: cfg + "base_channels", Default: base, Desc: "VQ-GAN base channels", Pos: true},
		{Sym: "vq_cm", Field: cfg + "channel_multiplier", Type: List, Default: "empty", Null: "=",
			Desc: "VQ-GAN channel multiplier per resolution (absent: [" + strings.Join(strs, ", ") + "])"},
		// The number of resolutions: the list's length (an empty list is
		// refused: the class would fail), bounded.
		{Sym: "vq_n", Field: cfg + "channel_multiplier", Type: Count, Default: fmt.Sprint(len(cm)), Null: "=", Max: 64, Desc: "VQ-GAN resolutions"},
		{Sym: "vq_nrb", Field: cfg + "num_res_blocks", Default: nrb, Desc: "VQ-GAN residual blocks per resolution", Pos: true},
		opt("vq_in", cfg+"in_channels", "3"), opt("vq_out", cfg+"out_channels", "3"),
		{Sym: "vq_lat", Field: cfg + "latent_channels", Default: latent, Desc: "VQ-GAN latent channels", Pos: true},
		flag("vq_dl", cfg+"double_latent", "false", "the VQ-GAN encoder outputs twice the latent channels"),
		{Sym: "vq_E", Field: cfg + "embed_dim", Default: embed, Legend: "vqE", Desc: "codebook vector width", Show: true, Pos: true},
		{Sym: "vq_K", Field: cfg + "num_embeddings", Default: codes, Legend: "vqK", Desc: "codebook entries (image tokens)", Show: true, Pos: true},
	}
}

// vqgan is a taming-transformers VQ-GAN under pre ("model.vqmodel."):
// an encoder of len(channel_multiplier) resolutions (num_res_blocks
// residual blocks each, attention blocks at the levels attnEnc holds,
// a strided downsample but at the last), a middle block, a codebook, and
// a mirrored decoder (num_res_blocks+1 blocks per level, in reverse
// order; attnDec in terms of the decoder's level index l). A residual
// block whose width changes has a 1×1 nin_shortcut. cm is the class
// default of channel_multiplier.
func vqgan(pre string, cm []int, attnEnc, attnDec string) (global []T, stacks []Stack, final []T) {
	ch := func(i string) string { return "vq_base*" + listAt("vq_cm", i, cm) }
	conv := func(name, out, in, k string) []T {
		return []T{{Name: name + ".weight", Shape: []string{out, in, k, k}, Role: RoleLinear}, {Name: name + ".bias", Shape: []string{out}, Role: RoleBias}}
	}
	gn := func(name, c string) []T { return norm(name, c, "true") }
	// A residual block from in to out channels, and an attention block.
	res := func(pre, in, out, cond string) []T {
		return cat(gn(pre+"norm1", in), conv(pre+"conv1", out, in, "3"), gn(pre+"norm2", out), conv(pre+"conv2", out, out, "3"),
			when("("+in+") != ("+out+") && ("+cond+")", conv(pre+"nin_shortcut", out, in, "1")))
	}
	attnBlock := func(pre, c string) []T {
		return cat(gn(pre+"norm", c), conv(pre+"q", c, c, "1"), conv(pre+"k", c, c, "1"), conv(pre+"v", c, c, "1"), conv(pre+"proj_out", c, c, "1"))
	}
	perBlock := func(ts []T, n string) []T {
		out := append([]T(nil), ts...)
		for i := range out {
			out[i].Experts, out[i].PerCopy = n, true
		}
		return out
	}
	last := ch("vq_n-1")
	mid := func(pre string) []T {
		return cat(res(pre+"mid.block_1.", last, last, "true"), attnBlock(pre+"mid.attn_1.", last), res(pre+"mid.block_2.", last, last, "true"))
	}
	enc, dec := pre+"encoder.", pre+"decoder."
	// Encoder level l: blocks from ch(l-1) (base at l = 0) to ch(l).
	encIn := "(l == 0 ? vq_base : " + ch("l-1") + ")"
	encBlockIn := "(e == 0 ? " + encIn + " : " + ch("l") + ")"
	// Decoder level l is resolution vq_n-1-l: blocks from the previous
	// level's width to ch(vq_n-1-l).
	decIn := "(l == 0 ? " + last + " : " + ch("vq_n-l") + ")"
	decBlockIn := "(e == 0 ? " + decIn + " : " + ch("vq_n-1-l") + ")"
	global = cat(conv(enc+"conv_in", "vq_base", "vq_in", "3"))
	stacks = []Stack{
		{Name: "vq encoder", Prefix: enc + "down.{l}.", Layers: "vq_n", Tensors: cat(
			perBlock(res("block.{e}.", encBlockIn, ch("l"), "e == 0"), "vq_nrb"),
			when(attnEnc, perBlock(attnBlock("attn.{e}.", ch("l")), "vq_nrb")),
			when("l != vq_n-1", conv("downsample.conv", ch("l"), ch("l"), "3")))},
		{Name: "vq decoder", Prefix: dec + "up.{l}.", Layers: "vq_n", Tensors: cat(
			perBlock(res("block.{e}.", decBlockIn, ch("vq_n-1-l"), "e == 0"), "vq_nrb+1"),
			when(attnDec, perBlock(attnBlock("attn.{e}.", ch("vq_n-1-l")), "vq_nrb+1")),
			when("l != vq_n-1", conv("upsample.conv", ch("vq_n-1-l"), ch("vq_n-1-l"), "3")))},
	}
	final = cat(mid(enc), gn(enc+"norm_out", last), conv(enc+"conv_out", "vq_dl ? 2*vq_lat : vq_lat", last, "3"),
		conv(dec+"conv_in", last, "vq_lat", "3"), mid(dec), gn(dec+"norm_out", ch("0")), conv(dec+"conv_out", "vq_out", ch("0"), "3"),
		conv(pre+"quant_conv", "vq_E", "vq_lat", "1"), conv(pre+"post_quant_conv", "vq_lat", "vq_E", "1"),
		[]T{{Name: pre + "quantize.embedding.weight", Shape: []string{"vq_K", "vq_E"}, Role: RoleEmbedding}})
	return global, stacks, final
}

// encoderPart is an encoder of an encoder-decoder composition: its
// symbols (e…, fields under "encoder.") and tensors (names under
// "encoder.").
type encoderPart struct {
	Name   string
	Defs   []Def
	Global []T
	Stacks []Stack
	Final  []T
}

// encDec is an encoder-decoder composition (VisionEncoderDecoderModel):
// the encoder encoder.model_type names (a table of its own), and the
// decoder decoder.model_type names — the registered causal-LM family of
// that model_type, its fields read from "decoder.", its names under
// "decoder." — joined by enc_to_dec_proj when the widths differ.
type encDec struct {
	Family
	encoders map[string]encoderPart
	// decDefaults are the core dimensions of a decoder config class that
	// its family requires but a decoder config may leave out, as
	// transformers fills them from the class (GPT2Config's 768).
	decDefaults map[string]map[string]string
	cache       sync.Map // "encoder/decoder" model_types → *Family
}

func (v *encDec) register() *Family {
	return &Family{Name: v.Name, Class: v.Class, ConfigClass: v.ConfigClass, ModelTypes: v.ModelTypes,
		Causal: v.Causal, SeqCls: "-", compose: v.compose}
}

// subType is the model_type of the sub-config at field ("encoder").
func subType(c *Config, field string) string {
	var s string
	if raw, ok := c.lookup(field + ".model_type"); ok {
		_ = json.Unmarshal(raw, &s)
	}
	return s
}

func (v *encDec) compose(c *Config) (*Family, error) {
	emt, dmt := subType(c, "encoder"), subType(c, "decoder")
	key := emt + "/" + dmt
	if f, ok := v.cache.Load(key); ok {
		return f.(*Family), nil
	}
	enc, ok := v.encoders[emt]
	if !ok {
		return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType(),
			Reason: fmt.Sprintf("its encoder, encoder.model_type %q, has no spec", emt)}
	}
	df := byType[dmt]
	if df == nil || df.compose != nil || df.causal() == "" {
		return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType(),
			Reason: fmt.Sprintf("its decoder, decoder.model_type %q, has no causal-LM spec", dmt)}
	}
	dec := [][2]string{{"", "decoder."}}
	f := &Family{Name: v.Name + " (" + enc.Name + " + " + df.Name + ")", Class: v.Class, ConfigClass: v.ConfigClass, ModelTypes: v.ModelTypes,
		Causal: v.Causal, SeqCls: "-", Tasks: noTasks, Embed: "decoder." + df.Embed, Head: "decoder." + df.Head}
	for _, d := range df.Defs {
		if d.Field != "" {
			alts := strings.Split(d.Field, "|")
			for i := range alts {
				alts[i] = "decoder." + alts[i]
			}
			d.Field = strings.Join(alts, "|")
			if x, ok := v.decDefaults[dmt][d.Sym]; ok && d.Default == "" {
				d.Default = x
			}
		}
		f.Defs = append(f.Defs, d)
	}
	f.Defs = cat(f.Defs, enc.Defs, []Def{
		{Sym: "xH", Field: "decoder.cross_attention_hidden_size", Default: "0", Null: "=", Desc: "width the decoder's cross-attention reads (0: its own)"}})
	f.Global = cat(enc.Global, rerootTs(df.Global, dec))
	f.Stacks = append(f.Stacks, enc.Stacks...)
	for _, s := range df.Stacks {
		s.Prefix = "decoder." + s.Prefix
		f.Stacks = append(f.Stacks, s)
	}
	f.Final = cat(enc.Final, rerootTs(df.Final, dec),
		// The encoder's output into the decoder's width, when they differ
		// and the decoder does not cross-attend at the encoder's width.
		when("eH != H && xH == 0", linear("enc_to_dec_proj", "H", "eH", "true")))
	for _, ig := range df.Ignore {
		if strings.HasPrefix(ig, "^") {
			ig = `^decoder\.` + ig[1:]
		}
		f.Ignore = append(f.Ignore, ig)
	}
	if err := f.compile(); err != nil {
		return nil, fmt.Errorf("spec: %s with %s and %s: %w", v.Name, enc.Name, df.Name, err)
	}
	v.cache.Store(key, f)
	return f, nil
}

// vitEncoder is a ViT (ViTModel with its pooler) under pre ("encoder."),
// fields under cfg: a class token (and DeiT's distillation token:
// tokens 2), patch and position embeddings, post-norm-free layers of
// BERT-named attention and FFN, a final LayerNorm and the pooler.
func vitEncoder(name, pre, cfg string, tokens int) encoderPart {
	defs := []Def{
		{Sym: "eH", Field: cfg + "hidden_size", Default: "768", Legend: "eH", Desc: "encoder width", Show: true, Pos: true},
		{Sym: "eL", Field: cfg + "num_hidden_layers", Default: "12", Legend: "eL", Desc: "encoder layers", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "eI", Field: cfg + "intermediate_size", Default: "3072", Legend: "eI", Desc: "encoder FFN inner width", Show: true, Pos: true},
		{Sym: "eP", Field: cfg + "patch_size", Default: "16", Legend: "eP", Desc: "patch side, pixels", Show: true, Pos: true},
		opt("eS", cfg+"image_size", "224"), opt("eC", cfg+"num_channels", "3"),
		flag("eqkv", cfg+"qkv_bias", "true", "encoder query, key, value have biases"),
		{Sym: "ePool", Field: cfg + "pooler_output_size", Default: "eH", Null: "eH", Desc: "pooler width", Pos: true},
	}
	global := []T{{Name: pre + "embeddings.cls_token", Shape: []string{"1", "1", "eH"}, Role: RoleEmbedding}}
	if tokens == 2 {
		global = append(global, T{Name: pre + "embeddings.distillation_token", Shape: []string{"1", "1", "eH"}, Role: RoleEmbedding})
	}
	global = cat(global, []T{
		{Name: pre + "embeddings.patch_embeddings.projection.weight", Shape: []string{"eH", "eC", "eP", "eP"}, Role: RoleLinear},
		{Name: pre + "embeddings.patch_embeddings.projection.bias", Shape: []string{"eH"}, Role: RoleBias},
		{Name: pre + "embeddings.position_embeddings", Shape: []string{"1", fmt.Sprintf("(eS/eP)*(eS/eP)+%d", tokens), "eH"}, Role: RoleEmbedding}})
	layer := renameSyms(cat(
		linear("attention.attention.query", "H", "H", "eqkv"), linear("attention.attention.key", "H", "H", "eqkv"),
		linear("attention.attention.value", "H", "H", "eqkv"), linear("attention.output.dense", "H", "H", "true"),
		linear("intermediate.dense", "eI", "H", "true"), linear("output.dense", "H", "eI", "true"),
		norm("layernorm_before", "H", "true"), norm("layernorm_after", "H", "true")), "H", "eH")
	return encoderPart{Name: name, Defs: defs, Global: global,
		Stacks: []Stack{{Name: "encoder", Prefix: pre + "encoder.layer.{l}.", Layers: "eL", Tensors: layer}},
		Final:  cat(norm(pre+"layernorm", "eH", "true"), linear(pre+"pooler.dense", "ePool", "eH", "true"))}
}

// objectEntry reads an object entry of a List field as a map of its
// integer, boolean (1 or 0) and string members; other members (nested
// objects, arrays, fractions) are left out, as no shape reads them.
func objectEntry(raw json.RawMessage) (map[string]any, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return nil, false
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		var s string
		var b bool
		var n int64
		switch {
		case json.Unmarshal(v, &s) == nil:
			out[k] = s
		case json.Unmarshal(v, &b) == nil:
			out[k] = b2i(b)
		case json.Unmarshal(v, &n) == nil:
			out[k] = n
		}
	}
	return out, true
}

// swinEncoder is a Swin Transformer (SwinModel; DonutSwinModel, Donut's
// and Nougat's encoder, without the final LayerNorm: final false) under
// pre, fields under cfg: a patch embedding, len(depths) stages of
// depths[l] windowed-attention blocks of width embed_dim·2^l with a
// relative-position table per block (and its index buffer, written as
// int64), a patch merging between stages. eH, the encoder's output width,
// is embed_dim·2^(stages-1).
func swinEncoder(name, pre, cfg string, final bool) encoderPart {
	depths, heads := []int{2, 2, 6, 2}, []int{3, 6, 12, 24}
	defs := []Def{
		{Sym: "eE", Field: cfg + "embed_dim", Default: "96", Legend: "eE", Desc: "first stage width", Show: true, Pos: true},
		{Sym: "eDl", Field: cfg + "depths", Type: List, Default: "empty", Null: "=", Desc: "blocks per stage (absent: [2, 2, 6, 2])"},
		{Sym: "eN", Field: cfg + "depths", Type: Count, Default: "4", Null: "=", Max: 16, Desc: "stages"},
		{Sym: "eHl", Field: cfg + "num_heads", Type: List, Default: "empty", Null: "=", Desc: "heads per stage (absent: [3, 6, 12, 24])"},
		{Sym: "eW", Field: cfg + "window_size", Default: "7", Desc: "attention window side", Pos: true},
		opt("eP", cfg+"patch_size", "4"), opt("eC", cfg+"num_channels", "3"),
		{Sym: "eSl", Field: cfg + "image_size", Type: IntOrList, Default: "224", Desc: "image side, or [height, width]"},
		derived("eSh", "pick(eSl, 0)"), derived("eSw", "pick(eSl, 1)"),
		{Sym: "emr", Field: cfg + "mlp_ratio", Type: Milli, Default: "4000", Desc: "FFN width ratio in thousandths", Pos: true},
		flag("eqkv", cfg+"qkv_bias", "true", "query, key, value have biases"),
		flag("eAbs", cfg+"use_absolute_embeddings", "false", "learned absolute positions"),
		derived("eH", "eE*pow(2, eN-1)"),
	}
	dim := "eE*pow(2, l)"
	lin := func(name, out, in, bias string) []T {
		return renameSyms(linear(name, "O", "N", bias), "O", out, "N", in)
	}
	ffn := "(" + dim + ")*emr/1000"
	block := cat(norm("layernorm_before", dim, "true"),
		[]T{{Name: "attention.self.relative_position_bias_table", Shape: []string{"(2*eW-1)*(2*eW-1)", listAt("eHl", "l", heads)}, Role: RoleEmbedding},
			// A persistent int64 buffer, recomputed from window_size at
			// load: present in Donut's checkpoints, harmless if absent.
			{Name: "attention.self.relative_position_index", Shape: []string{"eW*eW", "eW*eW"}, Role: RoleNorm, AnyDType: true, Optional: "true"}},
		lin("attention.self.query", dim, dim, "eqkv"), lin("attention.self.key", dim, dim, "eqkv"), lin("attention.self.value", dim, dim, "eqkv"),
		lin("attention.output.dense", dim, dim, "true"), norm("layernorm_after", dim, "true"),
		lin("intermediate.dense", ffn, dim, "true"), lin("output.dense", dim, ffn, "true"))
	for i := range block {
		block[i].Name = "blocks.{e}." + block[i].Name
		block[i].Experts, block[i].PerCopy = listAt("eDl", "l", depths), true
	}
	stage := cat(block, when("l < eN-1",
		lin("downsample.reduction", "2*"+dim, "4*"+dim, ""), norm("downsample.norm", "4*"+dim, "true")))
	global := cat([]T{{Name: pre + "embeddings.patch_embeddings.projection.weight", Shape: []string{"eE", "eC", "eP", "eP"}, Role: RoleLinear},
		{Name: pre + "embeddings.patch_embeddings.projection.bias", Shape: []string{"eE"}, Role: RoleBias},
		{Name: pre + "embeddings.position_embeddings", Shape: []string{"1", "(eSh/eP)*(eSw/eP)+1", "eE"}, Role: RoleEmbedding, If: "eAbs"}},
		norm(pre+"embeddings.norm", "eE", "true"))
	var fin []T
	if final {
		fin = norm(pre+"layernorm", "eH", "true")
	}
	return encoderPart{Name: name, Defs: defs, Global: global,
		Stacks: []Stack{{Name: "encoder stage", Prefix: pre + "encoder.layers.{l}.", Layers: "eN", Tensors: stage}}, Final: fin}
}
