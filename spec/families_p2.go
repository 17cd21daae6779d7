package spec

import "fmt"

// Multimodal architectures of the reference layouts (issue #21, branch
// arch-p2): IDEFICS, Janus, Kosmos-2, Kosmos-2.5, Phi-4-multimodal, UDOP
// and VisionEncoderDecoder. Each row is built from the shared blocks of
// blocks.go, the tower helpers of families_vision.go and the blocks of
// blocks_p2.go; docs/architectures.md lists them.

// clipTowerDefs are the symbols visionTower reads for a CLIP-style tower
// (class embedding, pre- and post-norm) whose config fields live under
// cfg ("vision_config."), with its config class's defaults: hidden is
// the width's field name (IDEFICS says embed_dim), then the defaults of
// width, layers, FFN width, patch and image side.
func clipTowerDefs(cfg, hidden, h, l, i, p, s string) []Def {
	return towerAs("clip_vision_model", cfg, hidden, h, l, i, p, s)
}

// siglipTowerDefs are clipTowerDefs for a SigLIP tower with its pooling
// head (a tower class of its own with SigLIP's layout: Phi-4-multimodal's).
func siglipTowerDefs(cfg, hidden, h, l, i, p, s string) []Def {
	return towerAs("siglip_vision_model", cfg, hidden, h, l, i, p, s)
}

func towerAs(mt, cfg, hidden, h, l, i, p, s string) []Def {
	clip := mt == "clip_vision_model"
	return []Def{
		derived("vmt", "'"+mt+"'"),
		derived("clip", fmt.Sprint(clip)), derived("pix", "false"), derived("s2", "false"), derived("vhead", fmt.Sprint(!clip)), derived("vNP", "0"),
		{Sym: "vH", Field: cfg + hidden, Default: h, Legend: "vH", Desc: "vision tower width", Show: true, Pos: true},
		vLayers(cfg, l),
		vFFN(cfg, i),
		vPatch(cfg, p),
		{Sym: "vS", Field: cfg + "image_size", Default: s, Desc: "image side, pixels", Pos: true},
		{Sym: "vC", Field: cfg + "num_channels", Default: "3", Desc: "image channels", Pos: true},
		derived("vN", "(vS/vP)*(vS/vP)"),
	}
}

var _ = register(func() *Family {
	g, s, f := visionTower("model.vision_model.", "model.vision_model.")
	// The perceiver's attention and ReLU MLP are vision-width (vH) wide.
	perceiver := cat(
		norm("0.context_layer_norm", "vH", "true"), norm("0.latents_layer_norm", "vH", "true"),
		when("rs_qk", norm("0.q_layer_norm", "rs_hd", "true"), norm("0.k_layer_norm", "rs_hd", "true")),
		linear("0.q_proj", "rs_heads*rs_hd", "vH", ""), linear("0.k_proj", "rs_heads*rs_hd", "vH", ""),
		linear("0.v_proj", "rs_heads*rs_hd", "vH", ""), linear("0.output_proj", "vH", "rs_heads*rs_hd", ""),
		norm("1.ln", "vH", "true"), linear("1.fc", "4*vH", "vH", ""), linear("1.c_proj", "vH", "4*vH", ""))
	alpha := func(name string) []T {
		return []T{{Name: name, Shape: []string{"1"}, Role: RoleNorm, If: "!alpha_vec"}, {Name: name, Shape: []string{"1", "1", "H"}, Role: RoleNorm, If: "alpha_vec"}}
	}
	// IDEFICS (v1): a LLaMA decoder, a CLIP tower, and a gated
	// cross-attention layer (tanh-gated by alpha_cross_attn/alpha_dense,
	// scalars or H-vectors) before every cross_layer_interval-th layer;
	// with use_resampler, a perceiver resampler of the image features;
	// additional_vocab_size extra rows in a decoupled embedding and head.
	return &Family{Name: "IDEFICS", Class: "Idefics", ModelTypes: []string{"idefics"}, Causal: "IdeficsForVisionText2Text", SeqCls: "-",
		Defs: cat(
			withDefault(withDefault(withDefault(withDefault(withDefault(llamaDimsNoHD("heads", "heads"), "V", "32000"), "H", "4096"), "L", "32"), "heads", "32"), "I", "11008"),
			[]Def{
				tie("false"),
				opt("addV", "additional_vocab_size", "0"),
				{Sym: "xi", Field: "cross_layer_interval", Default: "1", Desc: "a gated cross-attention layer every {xi} layers", Pos: true},
				flag("qk", "qk_layer_norms", "false", "cross-attention q and k norms"),
				{Sym: "alpha", Field: "alpha_type", Type: Str, Default: "'float'", Desc: "the gates: a scalar (float) or an H-vector (vector)"},
				derived("alpha_vec", "alpha == 'vector'"),
				flag("resampler", "use_resampler", "false", "a perceiver resampler of the image features"),
				opt("rs_depth", "perceiver_config.resampler_depth", "6"), opt("rs_lat", "perceiver_config.resampler_n_latents", "64"),
				opt("rs_heads", "perceiver_config.resampler_n_heads", "16"), opt("rs_hd", "perceiver_config.resampler_head_dim", "96"),
				flag("rs_qk", "perceiver_config.qk_layer_norms_perceiver", "false", "perceiver q and k norms"),
			},
			clipTowerDefs("vision_config.", "embed_dim", "768", "32", "5120", "14", "224")),
		Global: cat(embed("model.embed_tokens.weight"),
			[]T{{Name: "model.embed_tokens.additional_embedding.weight", Shape: []string{"addV", "H"}, Role: RoleEmbedding, If: "addV > 0"}},
			g),
		Stacks: cat(
			decoderLayers(nil, llamaBlock("", "", gatedMLP("mlp.", "I", ""))),
			[]Stack{{Name: "cross", Prefix: "model.gated_cross_attn_layers.{l}.", Layers: "L / xi", Tensors: cat(
				alpha("alpha_cross_attn"), alpha("alpha_dense"),
				linear("cross_attn.q_proj", "H", "H", ""), linear("cross_attn.k_proj", "H", "vH", ""), linear("cross_attn.v_proj", "H", "vH", ""),
				linear("cross_attn.o_proj", "H", "H", ""),
				when("qk", norm("cross_attn.q_layer_norm", "d", ""), norm("cross_attn.k_layer_norm", "d", "")),
				inNorm, postNorm, gatedMLP("mlp.", "I", ""))}},
			s,
			[]Stack{{Name: "resampler", Prefix: "model.perceiver_resampler.blocks.{l}.", Layers: "resampler ? rs_depth : 0", Tensors: perceiver}}),
		Final: cat(f, norm("model.norm", "H", ""),
			when("resampler", []T{{Name: "model.perceiver_resampler.latents", Shape: []string{"rs_lat", "vH"}, Role: RoleEmbedding}},
				norm("model.perceiver_resampler.layer_norm", "vH", "true")),
			lmHead("lm_head.weight"),
			[]T{{Name: "lm_head.additional_fc.weight", Shape: []string{"addV", "H"}, Role: RoleLinear, If: "addV > 0", Optional: "tied"}}),
		Ignore: []string{`\.rotary_emb\.inv_freq$`},
	}
}())

// janusCM is JanusVQVAEConfig's default channel_multiplier.
var janusCM = []int{1, 1, 2, 2, 4}

var _ = register(func() *Family {
	vg, vs, vf := vqgan("model.vqmodel.", janusCM, "l == vq_n-1", "l == 0")
	// Janus: a SigLIP-style tower (attention output "projection_layer",
	// optional q/k LayerNorms, FFN of hidden·mlp_ratio) with an MLP
	// aligner of vision_config.depth linears; a VQ-GAN with its own
	// aligner (vq_config.num_hidden_layers linears), generation
	// embeddings and head; the Llama language model under
	// model.language_model.
	return (&vlm{Family: Family{Name: "Janus", Class: "Janus", ModelTypes: []string{"janus"}, Causal: "JanusForConditionalGeneration",
		Defs: cat([]Def{
			vWidth(vcfg, "1024"),
			vLayers(vcfg, "24"),
			{Sym: "vr", Field: "vision_config.mlp_ratio", Type: Milli, Default: "4000", Desc: "vision FFN width ratio in thousandths", Pos: true},
			derived("vI", "vH*vr/1000"),
			vPatch(vcfg, "16"),
			opt("vS", "vision_config.image_size", "384"), opt("vC", "vision_config.num_channels", "3"),
			flag("vbias", "vision_config.attention_bias", "true", "vision q, k, v have biases"),
			flag("vqk", "vision_config.use_qk_norm", "false", "vision q and k LayerNorms"),
			{Sym: "vPj", Field: "vision_config.projection_dim", Default: "2048", Desc: "aligner width", Pos: true},
			{Sym: "vDepth", Field: "vision_config.depth", Default: "2", Desc: "aligner linears", Pos: true},
			{Sym: "gPj", Field: "vq_config.projection_dim", Default: "2048", Desc: "generation aligner and head width", Pos: true},
			{Sym: "gDepth", Field: "vq_config.num_hidden_layers", Default: "2", Desc: "generation aligner linears", Pos: true},
			{Sym: "gIn", Field: "vq_config.image_token_embed_dim", Default: "2048", Desc: "generation head input width", Pos: true},
		}, vqganDefs("vq_config.", janusCM, "128", "2", "256", "8", "16384")),
		Global: cat([]T{{Name: "model.vision_model.embeddings.patch_embedding.weight", Shape: []string{"vH", "vC", "vP", "vP"}, Role: RoleLinear},
			{Name: "model.vision_model.embeddings.patch_embedding.bias", Shape: []string{"vH"}, Role: RoleBias},
			{Name: "model.vision_model.embeddings.position_embedding.weight", Shape: []string{"(vS/vP)*(vS/vP)", "vH"}, Role: RoleEmbedding}}, vg),
		Stacks: cat([]Stack{{Name: "vision", Prefix: "model.vision_model.encoder.layers.{l}.", Layers: "vL", Tensors: renameSyms(cat(
			norm("layer_norm1", "H", "true"),
			linear("self_attn.q_proj", "H", "H", "vbias"), linear("self_attn.k_proj", "H", "H", "vbias"), linear("self_attn.v_proj", "H", "H", "vbias"),
			linear("self_attn.projection_layer", "H", "H", "true"),
			when("vqk", norm("self_attn.q_norm", "H", "true"), norm("self_attn.k_norm", "H", "true")),
			norm("layer_norm2", "H", "true"), plainMLP("mlp.fc1", "mlp.fc2", "vI", "true")), "H", "vH")}}, vs),
		Final: cat(norm("model.vision_model.post_layernorm", "vH", "true"),
			linear("model.aligner.fc1", "vPj", "vH", "true"),
			[]T{{Name: "model.aligner.hidden_layers.{e}.weight", Shape: []string{"vPj", "vPj"}, Role: RoleLinear, Experts: "vDepth-1", PerCopy: true},
				{Name: "model.aligner.hidden_layers.{e}.bias", Shape: []string{"vPj"}, Role: RoleBias, Experts: "vDepth-1", PerCopy: true}},
			vf,
			[]T{{Name: "model.generation_embeddings.weight", Shape: []string{"vq_K", "vq_E"}, Role: RoleEmbedding}},
			linear("model.generation_aligner.fc1", "gPj", "vq_E", "true"),
			[]T{{Name: "model.generation_aligner.hidden_layers.{e}.weight", Shape: []string{"gPj", "gPj"}, Role: RoleLinear, Experts: "gDepth-1", PerCopy: true},
				{Name: "model.generation_aligner.hidden_layers.{e}.bias", Shape: []string{"gPj"}, Role: RoleBias, Experts: "gDepth-1", PerCopy: true}},
			linear("model.generation_head.proj_out", "gPj", "gIn", "true"), linear("model.generation_head.vision_head", "vq_K", "gPj", "true")),
	}, text: "llama", reroot: newLM}).register()
}())

var _ = register(
	// VisionEncoderDecoder: a ViT, DeiT, Swin or Donut-Swin encoder and any decoder with a
	// causal-LM spec (GPT-2, BERT, RoBERTa, TrOCR, mBART, …), its
	// cross-attention switched on by add_cross_attention as the
	// composition sets it.
	(&encDec{Family: Family{Name: "VisionEncoderDecoder", Class: "VisionEncoderDecoder", ModelTypes: []string{"vision-encoder-decoder"},
		Causal: "VisionEncoderDecoderModel"},
		encoders: map[string]encoderPart{
			"vit":        vitEncoder("ViT", "encoder.", "encoder.", 1),
			"deit":       vitEncoder("DeiT", "encoder.", "encoder.", 2),
			"swin":       swinEncoder("Swin", "encoder.", "encoder.", true),
			"donut-swin": swinEncoder("Donut-Swin", "encoder.", "encoder.", false),
		},
		decDefaults: map[string]map[string]string{"gpt2": {"V": "50257", "H": "768", "heads": "12"}},
	}).register(),
)

// kosmosTextDefs are Kosmos2TextConfig's fields (and Kosmos-2.5's) under
// text_config, with the class's defaults.
func kosmosTextDefs(v, h, l, heads, ffn string) []Def {
	return []Def{
		{Sym: "V", Field: "text_config.vocab_size", Default: v, Legend: "V", Desc: "distinct tokens", Show: true, Pos: true},
		{Sym: "H", Field: "text_config.embed_dim", Default: h, Legend: "H", Desc: "residual-stream width (the bus)", Show: true, Pos: true},
		{Sym: "L", Field: "text_config.layers", Default: l, Legend: "L", Desc: "text blocks", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "heads", Field: "text_config.attention_heads", Default: heads, Desc: "attention heads", Show: true, Pos: true, Divides: "H"},
		{Sym: "I", Field: "text_config.ffn_dim", Default: ffn, Legend: "I", Desc: "FFN inner width", Show: true, Pos: true},
		flag("cross", "text_config.add_cross_attention", "false", "each block has cross-attention to an encoder"),
		// The head's tie: Kosmos2TextForCausalLM's config (PretrainedConfig's
		// default true), or the composite's.
		{Sym: "tied", Field: "text_config.tie_word_embeddings|tie_word_embeddings", Type: Bool, Default: "true", Desc: "lm_head shares embed_tokens' weights"},
	}
}

// kosmosAttn is a Kosmos text attention under pre: q, k, v, out, all
// biased, H wide; inner adds the sub-LayerNorm before out_proj (Kosmos-2's
// self-attention).
func kosmosAttn(pre string, inner bool) []T {
	ts := cat(linear(pre+"q_proj", "H", "H", "true"), linear(pre+"k_proj", "H", "H", "true"), linear(pre+"v_proj", "H", "H", "true"),
		linear(pre+"out_proj", "H", "H", "true"))
	if inner {
		ts = cat(ts, norm(pre+"inner_attn_ln", "H", "true"))
	}
	return ts
}

// kosmosText is the Kosmos text decoder under text_model.: pre-LN blocks
// (self-attention, optional cross-attention, an FFN with its own
// LayerNorm of width I), sinusoidal positions (not stored), a final
// LayerNorm and the tied head; segments adds Kosmos-2.5's segment
// embedding.
func kosmosText(inner, segments bool) ([]T, Stack, []T) {
	global := embed("text_model.model.embed_tokens.weight")
	if segments {
		global = append(global, T{Name: "text_model.model.segment_emb.weight", Shape: []string{"2", "H"}, Role: RoleEmbedding})
	}
	layer := cat(kosmosAttn("self_attn.", inner), norm("self_attn_layer_norm", "H", "true"),
		when("cross", kosmosAttn("encoder_attn.", false), norm("encoder_attn_layer_norm", "H", "true")),
		linear("ffn.fc1", "I", "H", "true"), linear("ffn.fc2", "H", "I", "true"), norm("ffn.ffn_layernorm", "I", "true"),
		norm("final_layer_norm", "H", "true"))
	final := cat(norm("text_model.model.layer_norm", "H", "true"),
		[]T{{Name: "text_model.lm_head.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"}})
	return global, Stack{Prefix: "text_model.model.layers.{l}.", Layers: "L", Tensors: layer}, final
}

// kosmosProjection is the image-to-text projection: a dense layer from
// the tower's width, latent_query_num learned queries and one attention
// over them.
func kosmosProjection(nq string) ([]Def, []T) {
	return []Def{opt("nq", "latent_query_num", nq)},
		cat(linear("image_to_text_projection.dense", "H", "vH", "true"),
			[]T{{Name: "image_to_text_projection.latent_query", Shape: []string{"nq", "H"}, Role: RoleEmbedding}},
			kosmosAttn("image_to_text_projection.x_attn.", false))
}

var _ = register(func() *Family {
	tg, ts, tf := kosmosText(true, false)
	vg, vs, vf := visionTower("vision_model.model.", "vision_model.model.")
	pd, pt := kosmosProjection("64")
	// Kosmos-2: a CLIP tower, the image-to-text projection, and the
	// Kosmos text decoder (MAGNETO sub-LayerNorms).
	return &Family{Name: "Kosmos-2", Class: "Kosmos2", ModelTypes: []string{"kosmos-2"}, Causal: "Kosmos2ForConditionalGeneration", SeqCls: "-",
		Defs:   cat(kosmosTextDefs("65037", "2048", "24", "32", "8192"), clipTowerDefs("vision_config.", "hidden_size", "1024", "24", "4096", "14", "224"), pd),
		Global: cat(tg, vg), Stacks: cat([]Stack{ts}, vs), Final: cat(tf, vf, pt),
		Embed: "text_model.model.embed_tokens.weight", Head: "text_model.lm_head.weight",
	}
}())

var _ = register(func() *Family {
	tg, ts, tf := kosmosText(false, true)
	pd, pt := kosmosProjection("2048")
	// Kosmos-2.5: a Pix2Struct-style vision encoder (flattened patches,
	// row and column embeddings, T5 layers of heads·head_dim), the
	// image-to-text projection and the Kosmos text decoder with segment
	// embeddings.
	return &Family{Name: "Kosmos-2.5", Class: "Kosmos2_5", ModelTypes: []string{"kosmos-2.5"}, Causal: "Kosmos2_5ForConditionalGeneration", SeqCls: "-",
		Defs: cat(kosmosTextDefs("108481", "1536", "24", "16", "6144"), []Def{
			{Sym: "vH", Field: "vision_config.hidden_size", Default: "1536", Legend: "vH", Desc: "vision encoder width", Show: true, Pos: true},
			{Sym: "vL", Field: "vision_config.num_hidden_layers", Default: "18", Legend: "vL", Desc: "vision encoder layers", Show: true, Pos: true, Max: MaxLayers},
			{Sym: "vI", Field: "vision_config.intermediate_size|vision_config.d_ff", Default: "3968", Legend: "vI", Desc: "vision FFN inner width", Show: true, Pos: true},
			opt("vheads", "vision_config.num_attention_heads", "24"), opt("vdkv", "vision_config.head_dim|vision_config.d_kv", "64"),
			opt("vPE", "vision_config.patch_embed_hidden_size", "768"), opt("vSeq", "vision_config.max_num_patches|vision_config.seq_len", "4096"),
		}, pd),
		Global: cat(tg, linear("vision_model.embeddings.patch_projection", "vH", "vPE", "true"),
			[]T{{Name: "vision_model.embeddings.row_embedder.weight", Shape: []string{"vSeq", "vH"}, Role: RoleEmbedding},
				{Name: "vision_model.embeddings.column_embedder.weight", Shape: []string{"vSeq", "vH"}, Role: RoleEmbedding}}),
		Stacks: []Stack{ts, {Name: "vision", Prefix: "vision_model.encoder.layer.{l}.", Layers: "vL", Tensors: cat(
			t5Attn("attention.", "vheads*vdkv", "vH"), norm("pre_attention_layer_norm", "vH", ""), norm("pre_mlp_layer_norm", "vH", ""),
			linear("mlp.wi_0", "vI", "vH", ""), linear("mlp.wi_1", "vI", "vH", ""), linear("mlp.wo", "vH", "vI", ""))}},
		Final: cat(tf, norm("vision_model.layernorm", "vH", ""), pt),
		Embed: "text_model.model.embed_tokens.weight", Head: "text_model.lm_head.weight",
	}
}())

// t5SelfAttn is a T5 attention under pre (q, k, v [heads·d_kv, H], o),
// no biases; bias adds the relative-position bucket table (a stack's
// first block).
func t5SelfAttn(pre string, bias bool) []T {
	ts := cat(linear(pre+"q", "heads*dkv", "H", ""), linear(pre+"k", "heads*dkv", "H", ""), linear(pre+"v", "heads*dkv", "H", ""),
		linear(pre+"o", "H", "heads*dkv", ""))
	if bias {
		ts = append(ts, T{Name: pre + "relative_attention_bias.weight", Shape: []string{"buckets", "heads"}, Role: RoleEmbedding, If: "l == 0"})
	}
	return ts
}

// t5FFN is T5's DenseReluDense under pre: wi (or gated wi_0 and wi_1) and
// wo, no biases.
func t5FFN(pre string) []T {
	return cat(when("!gated", linear(pre+"wi", "F", "H", "")), when("gated", linear(pre+"wi_0", "F", "H", ""), linear(pre+"wi_1", "F", "H", "")),
		linear(pre+"wo", "H", "F", ""))
}

// udopBiases are a UDOP stack's relative_bias_args biases under pre: one
// bucket table per entry that is not '1d' (the 1d ones are tied to the
// first block's and stored there), relative_attention_num_buckets rows
// (+2 with prefix_bucket, unless expand).
func udopBiases(pre string) []T {
	entry := func(k, def string) string {
		return "(len(rb) > 0 ? key(at(rb, e), '" + k + "', " + def + ") : " + def + ")"
	}
	return []T{{Name: pre + "relative_bias.biases.{e}.relative_attention_bias.weight", Role: RoleEmbedding, Experts: "len(rb) > 0 ? len(rb) : 3", PerCopy: true,
		If:    "(len(rb) > 0 ? key(at(rb, e), 'type', '') : (e == 0 ? '1d' : 'horizontal')) != '1d'",
		Shape: []string{entry("relative_attention_num_buckets", "32") + " + (" + entry("prefix_bucket", "0") + " && !" + entry("expand", "0") + " ? 2 : 0)", "heads"}}}
}

var _ = register(
	// UDOP: a T5 encoder-decoder over text and image patches (a shared
	// patch embedding, 2-D cell position embeddings in the encoder) with
	// the relative biases relative_bias_args lists in both stacks.
	&Family{Name: "UDOP", Class: "Udop", ModelTypes: []string{"udop"}, Causal: "UdopForConditionalGeneration", SeqCls: "-",
		Defs: cat(trunkAt("vocab_size=33201", "d_model=1024", "num_layers=24", "encoder blocks"), []Def{
			{Sym: "Ld", Field: "num_decoder_layers", Default: "L", Null: "L", Legend: "Ld", Desc: "decoder blocks", Show: true, Pos: true, Max: MaxLayers},
			{Sym: "heads", Field: "num_heads", Default: "16", Desc: "attention heads of {dkv}", Show: true, Pos: true},
			opt("dkv", "d_kv", "64"),
			{Sym: "F", Field: "d_ff", Default: "4096", Legend: "F", Desc: "FFN inner width", Show: true, Pos: true},
			{Sym: "ffp", Field: "feed_forward_proj", Type: Str, Default: "'relu'", Desc: "the FFN's activation, gated-… for a gated FFN"},
			{Sym: "gated", Field: "is_gated_act", Type: Bool, Default: "ffp == 'gated-gelu' || ffp == 'gated-relu' || ffp == 'gated-silu' || ffp == 'gated-gelu_new'", Desc: "the FFN is gated (wi_0, wi_1)"},
			opt("buckets", "relative_attention_num_buckets", "32"),
			{Sym: "rb", Field: "relative_bias_args", Type: List, Default: "empty", Null: "=", Desc: "the relative biases (absent: 1d, horizontal, vertical)"},
			opt("max2d", "max_2d_position_embeddings", "1024"),
			opt("vP", "patch_size", "16"), opt("vC", "num_channels", "3"),
			tie("true"),
		}),
		Global: cat([]T{{Name: "shared.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding},
			{Name: "encoder.cell_2d_embedding.x_position_embeddings.weight", Shape: []string{"max2d", "H"}, Role: RoleEmbedding},
			{Name: "encoder.cell_2d_embedding.y_position_embeddings.weight", Shape: []string{"max2d", "H"}, Role: RoleEmbedding},
			{Name: "patch_embed.proj.weight", Shape: []string{"H", "vC", "vP", "vP"}, Role: RoleLinear},
			{Name: "patch_embed.proj.bias", Shape: []string{"H"}, Role: RoleBias},
			// transformers 5.x writes the decoder's reference to the shared
			// patch embedding too.
			{Name: "decoder.embed_patches.proj.weight", Shape: []string{"H", "vC", "vP", "vP"}, Role: RoleLinear, Optional: "true"},
			{Name: "decoder.embed_patches.proj.bias", Shape: []string{"H"}, Role: RoleBias, Optional: "true"}},
			udopBiases("encoder."), udopBiases("decoder.")),
		Stacks: []Stack{
			{Name: "encoder", Prefix: "encoder.block.{l}.", Layers: "L", Tensors: cat(
				t5SelfAttn("layer.0.SelfAttention.", true), norm("layer.0.layer_norm", "H", ""), t5FFN("layer.1.DenseReluDense."), norm("layer.1.layer_norm", "H", ""))},
			{Prefix: "decoder.block.{l}.", Layers: "Ld", Tensors: cat(
				t5SelfAttn("layer.0.SelfAttention.", true), norm("layer.0.layer_norm", "H", ""),
				t5SelfAttn("layer.1.EncDecAttention.", false), norm("layer.1.layer_norm", "H", ""),
				t5FFN("layer.2.DenseReluDense."), norm("layer.2.layer_norm", "H", ""))},
		},
		Final: cat(norm("encoder.final_layer_norm", "H", ""), norm("decoder.final_layer_norm", "H", ""),
			[]T{{Name: "lm_head.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"}}),
		Embed: "shared.weight",
	},
)

// phi4Audio is Phi-4-multimodal's Conformer audio encoder under pre:
// mean/variance normalisation buffers, a NeMo subsampling (a strided conv,
// then depthwise and pointwise convs per further halving of
// time_reduction), a relative-position bias table and num_blocks
// Conformer blocks (macaron FFNs around attention and a GLU conv module).
func phi4Audio(pre string) ([]Def, []T, Stack) {
	a := "audio_config."
	defs := []Def{
		{Sym: "aH", Field: a + "hidden_size", Default: "1024", Legend: "aH", Desc: "audio encoder width", Show: true, Pos: true},
		{Sym: "aL", Field: a + "num_blocks", Default: "24", Legend: "aL", Desc: "Conformer blocks", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "aI", Field: a + "intermediate_size", Default: "1536", Legend: "aI", Desc: "audio FFN inner width", Show: true, Pos: true},
		{Sym: "aHeads", Field: a + "num_attention_heads", Default: "16", Desc: "audio attention heads", Pos: true},
		opt("aIn", a+"input_size", "80"), opt("aC", a+"nemo_conv_channels", "1024"),
		{Sym: "aTR", Field: a + "time_reduction", Default: "8", Desc: "time reduction of the subsampling", Pos: true, Max: 2048},
		// The subsampling stages: int(log2(time_reduction)).
		derived("aS", "log2(aTR)"),
		// nemo_final_size: input_size halved (rounding up) once per stage.
		derived("aF", "(aIn + pow(2, aS) - 1) / pow(2, aS)"),
		opt("aEPW", a+"ext_pw_out_channel", "1024"), opt("aDSC", a+"depthwise_seperable_out_channel|"+a+"depthwise_separable_out_channel", "1024"),
		opt("aDM", a+"depthwise_multiplier", "1"), opt("aK", a+"kernel_size", "3"),
		opt("aBD", a+"bias_max_distance", "1000"), flag("aSym", a+"bias_symmetric", "false", "the audio relative bias is symmetric"),
		opt("aDR", a+"downsample_rate", "1"),
	}
	enc := pre + "encoder."
	global := []T{
		{Name: enc + "encoder_embedding.global_mean", Shape: []string{"aIn"}, Role: RoleNorm},
		{Name: enc + "encoder_embedding.global_invstd", Shape: []string{"aIn"}, Role: RoleNorm},
		// conv.0 a strided conv from one channel; then per further stage a
		// depthwise conv (3k+2) and a pointwise one (3k+3); the others are
		// activations.
		{Name: enc + "embed.conv.{e}.weight", Experts: "max(3*aS-2, 1)", PerCopy: true, If: "e % 3 != 1", Role: RoleLinear,
			Shape: []string{"aC", "e > 0 && e % 3 == 0 ? aC : 1", "e > 0 && e % 3 == 0 ? 1 : 3", "e > 0 && e % 3 == 0 ? 1 : 3"}},
		{Name: enc + "embed.conv.{e}.bias", Experts: "max(3*aS-2, 1)", PerCopy: true, If: "e % 3 != 1", Role: RoleBias, Shape: []string{"aC"}},
		{Name: enc + "relative_attention_bias_layer.bias_values.weight", Shape: []string{"aSym ? aBD : 2*aBD", "aHeads"}, Role: RoleEmbedding},
	}
	global = cat(global, linear(enc+"embed.out", "aH", "aC*aF", "true"))
	ffn := func(p string) []T {
		return cat(norm(p+"layer_norm", "aH", "true"), linear(p+"gate_up_proj", "2*aI", "aH", "true"), linear(p+"down_proj", "aH", "aI", "true"))
	}
	conv1d := func(name, out, in, k string) []T {
		return []T{{Name: name + ".weight", Shape: []string{out, in, k}, Role: RoleLinear}, {Name: name + ".bias", Shape: []string{out}, Role: RoleBias}}
	}
	layer := cat(ffn("feed_forward_in."),
		renameSyms(cat(linear("self_attn.q_proj", "H", "H", "true"), linear("self_attn.k_proj", "H", "H", "true"),
			linear("self_attn.v_proj", "H", "H", "true"), linear("self_attn.o_proj", "H", "H", "true")), "H", "aH"),
		norm("conv.layer_norm", "aH", "true"),
		conv1d("conv.glu.ext_pw_conv_1d", "2*aEPW", "aH", "1"),
		[]T{{Name: "conv.glu.b1", Shape: []string{"1", "aEPW", "1"}, Role: RoleBias}, {Name: "conv.glu.b2", Shape: []string{"1", "aEPW", "1"}, Role: RoleBias}},
		conv1d("conv.dw_sep_conv_1d.dw_conv", "aH*aDM", "1", "aK"), conv1d("conv.dw_sep_conv_1d.pw_conv", "aDSC", "aH*aDM", "1"),
		conv1d("conv.ext_pw_conv_1d", "aEPW", "aH", "1"),
		ffn("feed_forward_out."), norm("layer_norm_att", "aH", "true"), norm("layer_norm", "aH", "true"))
	return defs, global, Stack{Name: "audio", Prefix: enc + "encoders.{l}.", Layers: "aL", Tensors: layer}
}

var _ = register(func() *Family {
	const img, aud = "model.embed_tokens_extend.image_embed.", "model.embed_tokens_extend.audio_embed."
	vg, vs, vf := visionTower(img+"img_processor.", img+"img_processor.")
	ad, ag, as := phi4Audio(aud)
	// Phi-4-multimodal: the Phi-3 language model (its fields at the top
	// level, Phi4MultimodalConfig's defaults), a SigLIP tower with the
	// image projection and feature separators, and the Conformer audio
	// encoder with its speech and vision-speech projections.
	return (&vlm{Family: Family{Name: "Phi-4-multimodal", Class: "Phi4Multimodal", ModelTypes: []string{"phi4_multimodal"}, Causal: "Phi4MultimodalForCausalLM",
		Defs:   cat(siglipTowerDefs("vision_config.", "hidden_size", "1152", "27", "4304", "14", "448"), ad),
		Global: cat(vg, ag),
		Stacks: cat(vs, []Stack{as}),
		Final: cat(vf,
			linear(img+"img_projection_up", "H", "vH", "true"), linear(img+"img_projection_down", "H", "H", "true"),
			[]T{{Name: img + "global_img_feature_extensor", Shape: []string{"1", "1", "vH"}, Role: RoleEmbedding},
				{Name: img + "sub_img_feature_extensor", Shape: []string{"1", "1", "1", "vH"}, Role: RoleEmbedding}},
			linear(aud+"up_proj_for_speech", "H", "aH*aDR", "true"), linear(aud+"down_proj_for_speech", "H", "H", "true"),
			linear(aud+"up_proj_for_vision_speech", "H", "aH*aDR", "true"), linear(aud+"down_proj_for_vision_speech", "H", "H", "true")),
	}, text: "phi3", flat: true,
		defaults: map[string]string{"V": "200064", "H": "3072", "L": "32", "heads": "32", "kv": "8", "I": "8192"}}).register()
}())
