package spec

// Omni models: a multimodal thinker (vision, audio, text) with a speech
// talker and a code-to-waveform vocoder (Qwen2.5-Omni), built from the
// thinker rows of multimodal_v5.go and the shared blocks.

// omniTalkerDefs are Qwen2_5OmniTalkerConfig's fields under talker_config
// (symbols t…): a Qwen2 decoder over codec tokens whose embedding is
// embedding_size wide (the thinker's width), projected to hidden_size.
func omniTalkerDefs() []Def {
	c := "talker_config."
	return []Def{
		{Sym: "tV", Field: c + "vocab_size", Default: "8448", Legend: "tV", Desc: "talker codec tokens", Show: true, Pos: true},
		{Sym: "tE", Field: c + "embedding_size", Default: "3584", Desc: "talker embedding width (the thinker's)", Pos: true},
		{Sym: "tH", Field: c + "hidden_size", Default: "3584", Legend: "tH", Desc: "talker width", Show: true, Pos: true},
		{Sym: "tL", Field: c + "num_hidden_layers", Default: "28", Legend: "tL", Desc: "talker blocks", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "theads", Field: c + "num_attention_heads", Default: "28", Desc: "talker attention heads", Pos: true},
		{Sym: "tkv", Field: c + "num_key_value_heads", Default: "4", Desc: "talker key/value heads", Pos: true},
		{Sym: "td", Field: c + "head_dim", Default: "128", Null: "tH/theads", Desc: "talker head width", Pos: true},
		{Sym: "tI", Field: c + "intermediate_size", Default: "18944", Desc: "talker FFN inner width", Pos: true},
	}
}

// omniTalker is the talker under pre ("talker."): the projection of the
// thinker's states, Qwen2 layers (q, k, v biased) and the codec head.
func omniTalker(pre string) ([]T, Stack, []T) {
	layer := renameSyms(llamaBlock("true", "", gatedMLP("mlp.", "I", "")),
		"H", "tH", "heads", "theads", "kv", "tkv", "d", "td", "I", "tI")
	global := cat(linear(pre+"thinker_to_talker_proj", "tH", "tE", "true"),
		[]T{{Name: pre + "model.embed_tokens.weight", Shape: []string{"tV", "tE"}, Role: RoleEmbedding}})
	final := cat(norm(pre+"model.norm", "tH", ""), linear(pre+"codec_head", "tV", "tH", ""))
	return global, Stack{Name: "talker", Prefix: pre + "model.layers.{l}.", Layers: "tL", Tensors: layer}, final
}

// dit2wavDefs are Qwen2_5OmniDiTConfig's fields under cfg (symbols w…):
// the flow-matching DiT that turns codec tokens into a mel spectrogram,
// with its ECAPA-TDNN speaker encoder.
func dit2wavDefs(cfg string) []Def {
	return []Def{
		{Sym: "wH", Field: cfg + "hidden_size", Default: "1024", Legend: "wH", Desc: "DiT width", Show: true, Pos: true},
		{Sym: "wL", Field: cfg + "num_hidden_layers", Default: "22", Legend: "wL", Desc: "DiT blocks", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "wheads", Field: cfg + "num_attention_heads", Default: "16", Desc: "DiT attention heads", Pos: true},
		opt("wd", cfg+"head_dim", "64"), opt("wff", cfg+"ff_mult", "2"),
		opt("wemb", cfg+"emb_dim", "512"), opt("wN", cfg+"num_embeds", "8193"), opt("wmel", cfg+"mel_dim", "80"),
		opt("wspk", cfg+"enc_emb_dim", "192"), opt("wenc", cfg+"enc_dim", "128"),
		{Sym: "wec", Field: cfg + "enc_channels", Type: List, Default: "list(256, 256, 256, 256, 768)", Desc: "speaker encoder channels"},
		{Sym: "wek", Field: cfg + "enc_kernel_sizes", Type: List, Default: "list(5, 3, 3, 3, 1)", Desc: "speaker encoder kernels"},
		opt("watt", cfg+"enc_attention_channels", "64"), opt("wsc", cfg+"enc_res2net_scale", "2"), opt("wse", cfg+"enc_se_channels", "64"),
	}
}

// ecapaTDNN is the ECAPA-TDNN speaker encoder under pre: a TDNN from in
// channels, SE-Res2Net blocks (time-delay convs, scale−1 Res2Net
// branches, a squeeze-excitation), multi-layer aggregation, attentive
// statistics pooling and a 1-wide conv to out; widths and kernels from
// the lists wec and wek. Block l of the stack is blocks.{l}: the TDNN at
// 0, an SE-Res2Net block after.
func ecapaTDNN(pre, in, out string) ([]T, Stack) {
	c, cp, k := "at(wec, l)", "at(wec, l-1)", "at(wek, l)"
	se := when("l > 0",
		conv1d3("tdnn1.conv", c, cp, "1", "true"),
		[]T{{Name: "res2net_block.blocks.{e}.conv.weight", Shape: []string{c + "/wsc", c + "/wsc", k}, Role: RoleLinear, Experts: "wsc-1"},
			{Name: "res2net_block.blocks.{e}.conv.bias", Shape: []string{c + "/wsc"}, Role: RoleBias, Experts: "wsc-1"}},
		conv1d3("tdnn2.conv", c, c, "1", "true"),
		conv1d3("se_block.conv1", "wse", c, "1", "true"), conv1d3("se_block.conv2", c, "wse", "1", "true"))
	layer := cat(when("l == 0", conv1d3("conv", c, in, k, "true")), se)
	last, lk := "at(wec, len(wec)-1)", "at(wek, len(wek)-1)"
	final := cat(conv1d3(pre+"mfa.conv", last, last, lk, "true"),
		conv1d3(pre+"asp.tdnn.conv", "watt", "3*"+last, "1", "true"), conv1d3(pre+"asp.conv", last, "watt", "1", "true"),
		conv1d3(pre+"fc", out, "2*"+last, "1", "true"))
	return final, Stack{Name: "speaker encoder", Prefix: pre + "blocks.{l}.", Layers: "len(wec)-1", Tensors: layer}
}

// dit2wav is Qwen2.5-Omni's DiT under pre: timestep MLP, codec embedding,
// the input projection with the speaker encoder, adaLN-zero blocks
// (biased q, k, v, out; a GELU MLP of ff_mult) and the final modulation;
// 4.x saves the rotary inv_freq buffer.
func dit2wav(pre string) ([]T, []Stack, []T) {
	ef, es := ecapaTDNN(pre+"input_embed.spk_encoder.", "wmel", "wenc")
	global := cat(linear(pre+"time_embed.time_mlp.0", "wH", "256", "true"), linear(pre+"time_embed.time_mlp.2", "wH", "wH", "true"),
		[]T{{Name: pre + "text_embed.codec_embed.weight", Shape: []string{"wN+1", "wemb"}, Role: RoleEmbedding}},
		linear(pre+"input_embed.proj", "wH", "wmel+wenc+wspk+wemb", "true"),
		[]T{{Name: pre + "rotary_embed.inv_freq", Shape: []string{"(wd+1)/2"}, Role: RoleNorm, If: "!tf5"}})
	block := cat(linear("attn_norm.linear", "6*wH", "wH", "true"),
		linear("attn.to_q", "wheads*wd", "wH", "true"), linear("attn.to_k", "wheads*wd", "wH", "true"),
		linear("attn.to_v", "wheads*wd", "wH", "true"), linear("attn.to_out.0", "wH", "wheads*wd", "true"),
		linear("ff.ff.0", "wH*wff", "wH", "true"), linear("ff.ff.3", "wH", "wH*wff", "true"))
	final := cat(ef, linear(pre+"norm_out.linear", "2*wH", "wH", "true"), linear(pre+"proj_out", "wmel", "wH", "true"))
	return global, []Stack{es, {Name: "DiT", Prefix: pre + "transformer_blocks.{l}.", Layers: "wL", Tensors: block}}, final
}

// bigVGANDefs are Qwen2_5OmniBigVGANConfig's fields under cfg: HiFi-GAN's
// lists with its defaults, and its mel input (gmel).
func bigVGANDefs(cfg string) []Def {
	d := hifiGanDefs(cfg)
	d = withDefault(withDefault(withDefault(d, "uic", "1536"), "ur", "list(5, 3, 2, 2, 2, 2)"), "uk", "list(11, 7, 4, 4, 4, 4)")
	return append(d, opt("gmel", cfg+"mel_dim", "80"))
}

// bigVGAN is a BigVGAN vocoder under pre: conv_pre, one transposed conv
// per upsampling rate (each in a one-entry list: ups.{e}.0), residual
// AMP blocks (three dilated conv pairs and six anti-aliased SnakeBeta
// activations, len(rk) per rate at the stage's width), the final
// SnakeBeta and a bias-free conv_post to one channel.
func bigVGAN(pre string) ([]T, Stack, []T) {
	global := cat(conv1d3(pre+"conv_pre", "uic", "gmel", "7", "true"),
		[]T{{Name: pre + "ups.{e}.0.weight", Shape: []string{"uic/pow(2, e)", "uic/pow(2, e+1)", "at(uk, e)"}, Role: RoleLinear, Experts: "nup", PerCopy: true, ZeroOK: true},
			{Name: pre + "ups.{e}.0.bias", Shape: []string{"uic/pow(2, e+1)"}, Role: RoleBias, Experts: "nup", PerCopy: true}})
	ch, k := "uic/pow(2, l/nrk+1)", "at(rk, l%nrk)"
	res := []T{{Name: "convs1.{e}.weight", Shape: []string{ch, ch, k}, Role: RoleLinear, Experts: "3", ZeroOK: true},
		{Name: "convs1.{e}.bias", Shape: []string{ch}, Role: RoleBias, Experts: "3"},
		{Name: "convs2.{e}.weight", Shape: []string{ch, ch, k}, Role: RoleLinear, Experts: "3", ZeroOK: true},
		{Name: "convs2.{e}.bias", Shape: []string{ch}, Role: RoleBias, Experts: "3"},
		{Name: "activations.{e}.act.alpha", Shape: []string{ch}, Role: RoleNorm, Experts: "6"},
		{Name: "activations.{e}.act.beta", Shape: []string{ch}, Role: RoleNorm, Experts: "6"}}
	out := "uic/pow(2, len(ur))"
	final := cat(vec(pre+"activation_post.act.alpha", out), vec(pre+"activation_post.act.beta", out),
		conv1d3(pre+"conv_post", "1", out, "7", "false"))
	return global, Stack{Name: "vocoder", Prefix: pre + "resblocks.{l}.", Layers: "len(ur)*nrk", Tensors: res}, final
}

// qwen25Omni is Qwen2_5OmniForConditionalGeneration: the thinker
// (thinker_config, the registered qwen2_5_omni_thinker row) under
// thinker., and where enable_audio_output holds the talker and the
// token2wav model (DiT and BigVGAN, in float32).
func qwen25Omni() *Family {
	tg, ts, tf := omniTalker("talker.")
	dg, dss, df := dit2wav("token2wav.code2wav_dit_model.")
	bg, bs, bf := bigVGAN("token2wav.code2wav_bigvgan_model.")
	t2w := "token2wav_config."
	stacks := []Stack{ts}
	for _, s := range append(dss, bs) {
		s.Tensors = anyDType(when("audio_out", s.Tensors))
		stacks = append(stacks, s)
	}
	stacks[0].Tensors = when("audio_out", stacks[0].Tensors)
	return (&wrap{Name: "Qwen2.5-Omni", Class: "Qwen2_5Omni", Causal: "Qwen2_5OmniForConditionalGeneration", ModelTypes: []string{"qwen2_5_omni"},
		sub: "thinker_config.", mt: "qwen2_5_omni_thinker", names: [][2]string{{"", "thinker."}},
		Defs: cat([]Def{flag("audio_out", "enable_audio_output", "true", "the talker and token2wav are built")},
			omniTalkerDefs(), dit2wavDefs(t2w+"dit_config."), bigVGANDefs(t2w+"bigvgan_config.")),
		Global: cat(when("audio_out", tg), anyDType(when("audio_out", dg, bg))),
		Stacks: stacks,
		Final:  cat(when("audio_out", tf), anyDType(when("audio_out", df, bf))),
	}).register()
}

var _ = register(qwen25Omni)

// omniMerger is a Qwen3-Omni patch merger under pre: Qwen2.5-VL's names
// (ln_q, mlp.0, mlp.2) over Qwen3-VL's shapes (the LayerNorm over vH,
// or vH·m² after the shuffle in the DeepStack mergers).
func omniMerger(pre, normDim string) []T {
	return cat(norm(pre+"ln_q", normDim, "true"), linear(pre+"mlp.0", "vH*vM*vM", "vH*vM*vM", "true"), linear(pre+"mlp.2", "vOut", "vH*vM*vM", "true"))
}

// qwen3OmniAudio is Qwen3-Omni's audio encoder under pre: three strided
// 3×3 convolutions of downsample_hidden_size channels over the mel bins
// (each halving them, rounding up), a bias-free linear of the flattened
// result to d_model, Whisper's layers (k_proj biased; sinusoidal positions, not
// stored), ln_post and two projections to output_dim.
func qwen3OmniAudio(pre string) ([]Def, []T, Stack, []T) {
	_, s, _ := whisperEncoder(pre, "audio")
	s.Tensors = cat(s.Tensors, vecIf("self_attn.k_proj.bias", "aH", "true")) // biased here
	defs := append(whisperEncoderDefs("audio_config."),
		opt("aDS", "audio_config.downsample_hidden_size", "480"),
		Def{Sym: "aOut", Field: "audio_config.output_dim", Default: "3584", Desc: "audio projection width", Pos: true})
	global := cat(conv(pre+"conv2d1", "aDS", "1", "3", "3"), conv(pre+"conv2d2", "aDS", "aDS", "3", "3"), conv(pre+"conv2d3", "aDS", "aDS", "3", "3"),
		linear(pre+"conv_out", "aH", "aDS*((((amel+1)/2+1)/2+1)/2)", ""))
	final := cat(norm(pre+"ln_post", "aH", "true"), linear(pre+"proj1", "aH", "aH", "true"), linear(pre+"proj2", "aOut", "aH", "true"))
	return defs, global, s, final
}

// qwen3OmniThinker is Qwen3-Omni-MoE's thinker: Qwen3-VL's vision tower
// under visual. (its mergers in Qwen2.5-VL's names), the audio encoder
// and a Qwen3-MoE language model (qwen3_omni_moe_text) under model.
func qwen3OmniThinker() *Family {
	v := qwen3VLVision("Qwen3-Omni-MoE thinker", "Qwen3OmniMoeThinker", "qwen3_omni_moe_thinker")
	re := [][2]string{{"model.visual.", "visual."}}
	v.Global = rerootTs(v.Global, re)
	v.Stacks[0].Prefix = "visual.blocks.{l}."
	v.Stacks[1].Prefix, v.Stacks[1].Tensors = "visual.merger_list.{l}.", omniMerger("", "vH*vM*vM")
	v.Final = omniMerger("visual.merger.", "vH")
	ad, ag, as, af := qwen3OmniAudio("audio_tower.")
	v.Defs, v.Global, v.Stacks, v.Final = cat(v.Defs, ad), cat(v.Global, ag), append(v.Stacks, as), cat(v.Final, af)
	return (&vlm{Family: v, text: "qwen3_omni_moe_text", alias: map[string]string{"qwen3_omni_moe_text": "qwen3_moe"}, tieTop: "false",
		defaults: map[string]string{"V": "3584", "H": "2048", "L": "28", "heads": "28", "kv": "4", "I": "18944", "E": "128", "Im": "768", "topk": "8"}}).register()
}

var _ = register(qwen3OmniThinker)
