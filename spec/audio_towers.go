package spec

import "strconv"

// Audio towers and audio-text dual encoders: CLAP (an HTS-AT audio
// tower, Swin's stages over a spectrogram, beside a RoBERTa text tower).

// refield is defs with the fields of the symbols in fields read from
// other config fields (sym → field under cfg) and the defaults of those
// in defaults replaced: a shared block's definitions under another
// config class's names.
func refield(defs []Def, cfg string, fields, defaults map[string]string) []Def {
	out := make([]Def, len(defs))
	for i, d := range defs {
		if f, ok := fields[d.Sym]; ok {
			d.Field = cfg + f
		}
		if x, ok := defaults[d.Sym]; ok {
			d.Default = x
		}
		out[i] = d
	}
	return out
}

// clapAudioEncoder is CLAP's HTS-AT audio encoder under pre
// ("audio_model.audio_encoder."), fields under cfg: a batch norm over the
// mel bins, a patch embedding (with enable_fusion, a mel convolution and
// the attentional feature fusion block beside it), Swin's stages
// (swinEncoderV's, eE wide at first) and a final norm.
func clapAudioEncoder(pre, cfg string) ([]Def, []T, Stack, []T) {
	sw := swinEncoderV("CLAP audio", pre, cfg, false, false)
	var defs []Def
	for _, d := range sw.Defs {
		switch d.Sym {
		case "eP", "eC", "eSl", "eSh", "eSw", "eAbs", "eNL", "eMimH":
			continue
		}
		defs = append(defs, d)
	}
	defs = refield(defs, cfg, map[string]string{"eE": "patch_embeds_hidden_size", "eHl": "num_attention_heads"},
		map[string]string{"eW": "8", "eHl": "list(4, 8, 16, 32)", "eDl": "list(2, 2, 6, 2)"})
	defs = cat(defs, []Def{
		{Sym: "ePl", Field: cfg + "patch_size", Type: IntOrList, Default: "4", Desc: "patch side, or [height, width]"},
		{Sym: "eSt", Field: cfg + "patch_stride", Type: IntOrList, Default: "list(4, 4)", Desc: "patch stride, or [height, width]"},
		derived("ePh", "pick(ePl, 0)"), derived("ePw", "pick(ePl, 1)"),
		opt("eC", cfg+"patch_embed_input_channels", "1"),
		field("emel", cfg+"num_mel_bins", "64", "mel bins"),
		flag("efuse", cfg+"enable_fusion", "false", "a fusion of the mel spectrogram beside the patches"),
		{Sym: "eft", Field: cfg + "fusion_type", Type: Str, Default: "''", Null: "''", Desc: "the fusion's kind (channel_map: four input channels)"},
		flag("epln", cfg+"enable_patch_layer_norm", "true", "a norm after the patch embedding"),
		field("eaff", cfg+"aff_block_r", "4", "the fusion block's reduction"),
	})
	pe := pre + "patch_embed."
	// The fusion block's two branches: conv, batch norm, ReLU, conv,
	// batch norm; the global one after a pooling (modules numbered from
	// k).
	aff := func(p string, k int) []T {
		i, n := "eE/eaff", func(j int) string { return p + strconv.Itoa(k+j) }
		return cat(conv(n(0), i, "eE", "1", "1"), batchNorm(n(1), i), conv(n(3), "eE", i, "1", "1"), batchNorm(n(4), "eE"))
	}
	global := cat(batchNorm(pre+"batch_norm", "emel"),
		conv(pe+"proj", "eE", "eC*(efuse && eft == 'channel_map' ? 4 : 1)", "ePh", "ePw"),
		when("epln", norm(pe+"norm", "eE", "true")),
		when("efuse", conv(pe+"mel_conv2d", "eE", "eC", "ePh", "ePw*3"),
			aff(pe+"fusion_model.local_att.", 0), aff(pe+"fusion_model.global_att.", 1)))
	st := sw.Stacks[0]
	st.Name, st.Prefix = "audio stage", pre+"layers.{l}."
	return defs, global, st, norm(pre+"norm", "eH", "true")
}

// clap is CLAP (ClapModel): the RoBERTa-layout text tower with its
// pooler and saved position and token-type id buffers, the audio
// encoder, two-layer projections of both to projection_dim (the config
// class sets the towers' projection_dim to it), the two logit scales.
func clap() *Family {
	t := bertText("text_model.", "50265", "768", "12", "12", "3072", "514", "1", "false")
	ad, ag, as, af := clapAudioEncoder("audio_model.audio_encoder.", "audio_config.")
	proj := func(p, in string) []T {
		return cat(linear(p+"linear1", "proj", in, "true"), linear(p+"linear2", "proj", "proj", "true"))
	}
	return &Family{Name: "CLAP", Class: "Clap", ModelTypes: []string{"clap"}, Causal: "-", SeqCls: "-",
		Defs: cat(t.Defs, ad, []Def{
			{Sym: "aH", Field: "audio_config.hidden_size", Default: "768", Legend: "aH", Desc: "the audio output's width the projection reads", Show: true, Pos: true},
			{Sym: "proj", Field: "projection_dim", Default: "512", Legend: "proj", Desc: "shared embedding width", Show: true, Pos: true}}),
		Global: cat(t.Global, []T{{Name: "text_model.embeddings.position_ids", Shape: []string{"1", "P"}, Role: RoleNorm, AnyDType: true},
			{Name: "text_model.embeddings.token_type_ids", Shape: []string{"1", "P"}, Role: RoleNorm, AnyDType: true}}, ag),
		Stacks: cat(t.Stacks, []Stack{as}),
		Final: cat(linear("text_model.pooler.dense", "H", "H", "true"), af, proj("text_projection.", "H"), proj("audio_projection.", "aH"),
			[]T{{Name: "logit_scale_a", Shape: []string{}, Role: RoleNorm}, {Name: "logit_scale_t", Shape: []string{}, Role: RoleNorm}}),
		Embed: "text_model.embeddings.word_embeddings.weight", Head: "-",
		Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}}}
}

var _ = register(clap())
