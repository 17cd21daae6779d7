package spec

import "fmt"

// Encoders with structures of their own: Perceiver (a
// latent array cross-attending to any input, each task class with its
// own pre- and post-processors), the OpenAI privacy filter and
// GPTSAN-japanese.

// perceiverLayer is a PerceiverLayer under pre: attention (cross where
// kv is not "", reading kv-wide inputs) from q-wide queries, with
// query/key width qk and value width v (expressions), the output dense
// back to q (cross) or v wide, the MLP of widening factor wf.
func perceiverLayer(pre, q, kv, qk, v, wf string) []T {
	a := pre + "attention."
	ts := norm(a+"self.layernorm1", q, "true")
	in, out := q, v
	if kv != "" {
		ts = cat(ts, norm(a+"self.layernorm2", kv, "true"))
		in, out = kv, q
	}
	lin := func(name, o, i string) []T { return renameSyms(linear(name, "O", "N", "true"), "O", o, "N", i) }
	return cat(ts, lin(a+"self.query", qk, q), lin(a+"self.key", qk, in), lin(a+"self.value", v, in),
		lin(a+"output.dense", out, v), norm(pre+"layernorm", q, "true"),
		lin(pre+"mlp.dense1", wf+"*"+q, q), lin(pre+"mlp.dense2", q, wf+"*"+q))
}

// perceiverDecoder is a PerceiverBasicDecoder under pre with its
// trainable query positions (P of them, q wide) and, where final, the
// projection to out.
func perceiverDecoder(pre, P, q, qk, v, out string, final bool) []T {
	ts := cat([]T{{Name: pre + "output_position_encodings.position_embeddings", Shape: []string{P, q}, Role: RoleEmbedding}},
		perceiverLayer(pre+"decoding_cross_attention.", q, "DL", qk, v, "1"))
	if final {
		ts = cat(ts, renameSyms(linear(pre+"final_layer", "O", "N", "true"), "O", out, "N", q))
	}
	return ts
}

// perceiver is Perceiver: the latents and the encoder (a cross-attention
// from the latents to KV-wide inputs, then one block of self-attention
// layers, shared by num_blocks), and each class's pre- and
// post-processors: text embeddings (masked LM, sequence classifier), a
// 1×1 convolution with concatenated learned positions (the learned image
// classifier); a decoder cross-attending from learned queries to the
// latents (the masked LM's at every position, then the embedding's
// transpose and a bias; the classifiers' from one query to the labels).
func perceiver() *Family {
	p := "perceiver."
	clsDec := perceiverDecoder(p+"decoder.decoder.", "1", "DL", "DL", "DL", "C", true)
	text := []T{{Name: p + "input_preprocessor.embeddings.weight", Shape: []string{"V", "DM"}, Role: RoleEmbedding},
		{Name: p + "input_preprocessor.position_embeddings.weight", Shape: []string{"P", "DM"}, Role: RoleEmbedding}}
	qkCross := "qkc > 0 ? qkc : (xshape == 'q' ? DL : KV)"
	qkSelf := "qkc > 0 ? qkc : DL"
	return &Family{Name: "Perceiver", Class: "Perceiver", ModelTypes: []string{"perceiver"}, Causal: "-", SeqCls: "-",
		Defs: []Def{
			{Sym: "NL", Field: "num_latents", Default: "256", Legend: "NL", Desc: "latents", Show: true, Pos: true},
			{Sym: "DL", Field: "d_latents", Default: "1280", Legend: "DL", Desc: "latent width", Show: true, Pos: true},
			{Sym: "DM", Field: "d_model", Default: "768", Legend: "DM", Desc: "input width (text)", Show: true, Pos: true},
			{Sym: "L", Field: "num_self_attends_per_block", Default: "26", Legend: "L", Desc: "self-attention layers (one block, shared by num_blocks)", Show: true, Pos: true, Max: MaxLayers},
			{Sym: "qkc", Field: "qk_channels", Default: "0", Null: "0", Desc: "query/key width (0: the queries')"},
			{Sym: "vc", Field: "v_channels", Default: "0", Null: "0", Desc: "value width (0: the query/key width)"},
			{Sym: "xshape", Field: "cross_attention_shape_for_attention", Type: Str, Default: "'kv'", Desc: "the cross-attention's query/key width: the queries' (q) or the inputs' (kv)"},
			field("swf", "self_attention_widening_factor", "1", "the self-attention MLP's widening"),
			field("cwf", "cross_attention_widening_factor", "1", "the cross-attention MLP's widening"),
			{Sym: "V", Field: "vocab_size", Default: "262", Legend: "V", Desc: "text tokens", Show: true, Pos: true},
			field("P", "max_position_embeddings", "2048", "text positions"),
			field("IS", "image_size", "56", "image side, pixels"),
			// The inputs' width: the text preprocessor's (d_model), the
			// image classifier's (its convolution and positions, concatenated).
			derived("KV", "DM"),
			derived("xqk", qkCross), derived("xv", "vc > 0 ? vc : xqk"),
			derived("sqk", qkSelf), derived("sv", "vc > 0 ? vc : sqk"),
		},
		Global: cat([]T{{Name: p + "embeddings.latents", Shape: []string{"NL", "DL"}, Role: RoleEmbedding}},
			perceiverLayer(p+"encoder.cross_attention.", "DL", "KV", "xqk", "xv", "cwf")),
		Stacks: []Stack{{Prefix: p + "encoder.self_attends.{l}.", Layers: "L", Tensors: perceiverLayer("", "DL", "", "sqk", "sv", "swf")}},
		Embed:  p + "embeddings.latents", Head: "-", BasePrefix: p,
		Tasks: []Task{
			{Suffix: TaskBase, Prefix: "-"},
			{Suffix: TaskMaskedLM, Head: cat(text, perceiverDecoder(p+"decoder.", "P", "DM", "256", "DM", "", false),
				[]T{{Name: "embedding_decoder.bias", Shape: []string{"V"}, Role: RoleBias}})},
			{Suffix: HeadSeqCls, Labels: true, Head: cat(text, clsDec)},
			{Suffix: "ForImageClassificationLearned", Labels: true, Defs: []Def{derived("KV", "512")},
				Head: cat(conv(p+"input_preprocessor.convnet_1x1", "256", "3", "1", "1"),
					[]T{{Name: p + "input_preprocessor.position_embeddings.position_embeddings", Shape: []string{"IS*IS", "256"}, Role: RoleEmbedding}},
					linear(p+"input_preprocessor.positions_projection", "256", "256", "true"), clsDec)},
		}}
}

var _ = register(perceiver)

// openAIPrivacyFilter is OpenAI's privacy filter, a bidirectional
// token classifier with GPT-OSS's layers (the registered family's, its
// config class's defaults): the base model and the token classifier
// (score with its bias).
func openAIPrivacyFilter() *Family {
	f := *gptOss
	f.Name, f.Class, f.ModelTypes, f.Causal, f.SeqCls = "OpenAI privacy filter", "OpenAIPrivacyFilter", []string{"openai_privacy_filter"}, "-", "-"
	for _, d := range [][2]string{{"V", "200064"}, {"H", "640"}, {"L", "8"}, {"heads", "14"}, {"kv", "2"}, {"I", "640"}, {"E", "128"}, {"topk", "4"}} {
		f.Defs = withDefault(f.Defs, d[0], d[1])
	}
	f.compiled, f.compileErr = nil, nil
	f.Tasks = []Task{{Suffix: TaskBase, Prefix: "-"}, {Suffix: TaskTokenCls, Head: linear("score", "C", "H", "true"), Labels: true}}
	return &f
}

var _ = register(openAIPrivacyFilter)

// gptsanJapanese is GPTSAN-japanese (transformers 4.x only): a prefix
// LM of num_switch_layers Switch-Transformer blocks (a router, experts
// of two bias-free linears, a soft bypass) then num_ext_layers dense
// ones (biased, d_ext wide, with extra positions); the spout, eight
// d_spout-wide linears (every other module) and one to num_layers·2·H
// (num_layers as config.json gives it, else the blocks' count).
func gptsanJapanese() *Family {
	var spout []T
	for i := 0; i < 8; i++ {
		spout = append(spout, T{Name: fmt.Sprintf("model.spout.%d.weight", 2*i), Shape: []string{"sp", "sp"}, Role: RoleLinear, If: "sp > 0"})
	}
	spout = append(spout, T{Name: "model.spout.16.weight", Shape: []string{"NLy*2*H", "sp"}, Role: RoleLinear, If: "sp > 0"})
	return &Family{Name: "GPTSAN-japanese", Class: "GPTSanJapanese", ModelTypes: []string{"gptsan-japanese"},
		Causal: "GPTSanJapaneseForConditionalGeneration", SeqCls: "-", Tasks: noTasks,
		Defs: []Def{
			{Sym: "V", Field: "vocab_size", Default: "36000", Legend: "V", Desc: "vocabulary", Show: true, Pos: true},
			{Sym: "H", Field: "d_model", Default: "1024", Legend: "H", Desc: "width", Show: true, Pos: true},
			{Sym: "nsw", Field: "num_switch_layers", Default: "10", Legend: "L", Desc: "Switch-Transformer blocks", Show: true, Max: MaxLayers},
			{Sym: "next", Field: "num_ext_layers", Default: "0", Desc: "dense extra blocks after them", Max: MaxLayers},
			field("P", "max_position_embeddings", "1280", "positions"),
			field("F", "d_ff", "8192", "each expert's inner width"),
			field("Fx", "d_ext", "4096", "the extra blocks' inner width"),
			{Sym: "sp", Field: "d_spout", Default: "128", Null: "0", Desc: "the spout's width (0: none)"},
			{Sym: "E", Field: "num_experts", Default: "16", Legend: "E", Desc: "experts per switch block", Show: true, Max: MaxExperts},
			flag("rb", "router_bias", "false", "the router has a bias"),
			{Sym: "NLy", Field: "num_layers", Default: "nsw+next", Desc: "layers the spout feeds"},
			tie("true"),
		},
		Global: cat(embed("model.embed_tokens.weight"), []T{{Name: "model.position_embeddings.weight", Shape: []string{"P", "H"}, Role: RoleEmbedding},
			{Name: "model.extra_position_embeddings.weight", Shape: []string{"P", "H"}, Role: RoleEmbedding, If: "next > 0"}},
			linear("model.last_project", "H", "H", "true"), spout),
		Stacks: []Stack{{Prefix: "model.blocks.{l}.", Layers: "nsw+next", Kinds: []Kind{{Name: "switch", If: "l < nsw"}, {Name: "ext"}}, Tensors: cat(
			norm("self_attn.norm", "H", "true"),
			linear("self_attn.self_attn.q_proj", "H", "H", ""), linear("self_attn.self_attn.k_proj", "H", "H", ""),
			linear("self_attn.self_attn.v_proj", "H", "H", ""), linear("self_attn.self_attn.out_proj", "H", "H", ""),
			norm("feed_forward.norm", "H", "true"),
			when("switch", linear("feed_forward.mlp.router.classifier", "E", "H", "rb"),
				[]T{{Name: "feed_forward.mlp.experts.expert_{e}.wi.weight", Shape: []string{"F", "H"}, Role: RoleLinear, Experts: "E"},
					{Name: "feed_forward.mlp.experts.expert_{e}.wo.weight", Shape: []string{"H", "F"}, Role: RoleLinear, Experts: "E"}},
				linear("feed_forward.soft_bypass_mlp", "H", "H", "")),
			when("ext", linear("feed_forward.mlp.wi", "Fx", "H", "true"), linear("feed_forward.mlp.wo", "H", "Fx", "true")))}},
		Final: []T{{Name: "final_logits_bias", Shape: []string{"1", "V"}, Role: RoleNorm, AnyDType: true},
			// The head is tied to the embedding whatever
			// tie_word_embeddings says (not saved).
			{Name: "lm_head.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "true"}},
		Embed: "model.embed_tokens.weight", Head: "lm_head.weight"}
}

var _ = register(gptsanJapanese)
