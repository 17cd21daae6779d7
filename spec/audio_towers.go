package spec

import (
	"fmt"
	"strconv"
	"strings"
)

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

var _ = register(clap)

// gemma4Audio is Gemma 4's audio tower alone (Gemma4AudioModel): two
// stride-2 3×3 convolutions with their norms and a projection (from
// subsampling_conv_channels[0]/4 · [1], as transformers sizes it), then
// conformer layers of Gemma 4's clippable linears (clamp bounds where
// use_clipped_linears): half-step feed-forwards at each end, chunked
// attention with a relative-key projection and a per-dimension scale, a
// light convolution module; the output projection.
func gemma4Audio() *Family {
	ffw := func(p string) []T {
		return cat(norm(p+"pre_layer_norm", "H", ""), clippable(p+"ffw_layer_1", "4*H", "H", "clip"),
			clippable(p+"ffw_layer_2", "H", "4*H", "clip"), norm(p+"post_layer_norm", "H", ""))
	}
	sub := "subsample_conv_projection."
	return &Family{Name: "Gemma4 audio", Class: "Gemma4", ConfigClass: "Gemma4AudioConfig", ModelTypes: []string{"gemma4_audio"},
		Causal: "-", SeqCls: "-", Tasks: []Task{{Suffix: "AudioModel", KeepFinal: true}},
		Defs: []Def{
			{Sym: "H", Field: "hidden_size", Default: "1024", Legend: "H", Desc: "width", Show: true, Pos: true},
			{Sym: "L", Field: "num_hidden_layers", Default: "12", Legend: "L", Desc: "conformer layers", Show: true, Pos: true, Max: MaxLayers},
			{Sym: "heads", Field: "num_attention_heads", Default: "8", Desc: "attention heads", Pos: true},
			derived("d", "H/heads"),
			field("ck", "conv_kernel_size", "5", "the depthwise kernel"),
			{Sym: "sc", Field: "subsampling_conv_channels", Type: List, Default: "list(128, 32)", Desc: "the subsampling convolutions' channels"},
			flag("clip", "use_clipped_linears", "true", "the linears carry clamp bounds"),
			field("out", "output_proj_dims", "1536", "the output projection's width"),
		},
		Global: cat([]T{{Name: sub + "layer0.conv.weight", Shape: []string{"at(sc, 0)", "1", "3", "3"}, Role: RoleLinear}},
			norm(sub+"layer0.norm", "at(sc, 0)", ""),
			[]T{{Name: sub + "layer1.conv.weight", Shape: []string{"at(sc, 1)", "at(sc, 0)", "3", "3"}, Role: RoleLinear}},
			norm(sub+"layer1.norm", "at(sc, 1)", ""), linear(sub+"input_proj_linear", "H", "(at(sc, 0)/4)*at(sc, 1)", "")),
		Stacks: []Stack{{Prefix: "layers.{l}.", Layers: "L", Tensors: cat(ffw("feed_forward1."), ffw("feed_forward2."),
			norm("norm_pre_attn", "H", ""),
			clippable("self_attn.q_proj", "heads*d", "H", "clip"), clippable("self_attn.k_proj", "heads*d", "H", "clip"),
			clippable("self_attn.v_proj", "heads*d", "H", "clip"), clippable("self_attn.post", "H", "H", "clip"),
			linear("self_attn.relative_k_proj", "heads*d", "H", ""), vec("self_attn.per_dim_scale", "d"),
			norm("norm_post_attn", "H", ""),
			norm("lconv1d.pre_layer_norm", "H", ""), clippable("lconv1d.linear_start", "2*H", "H", "clip"),
			[]T{{Name: "lconv1d.depthwise_conv1d.weight", Shape: []string{"H", "1", "ck"}, Role: RoleLinear}},
			norm("lconv1d.conv_norm", "H", ""), clippable("lconv1d.linear_end", "H", "H", "clip"),
			norm("norm_out", "H", ""))}},
		Final: linear("output_proj", "out", "H", "true"),
		Embed: sub + "layer0.conv.weight", Head: "-"}
}

var _ = register(gemma4Audio)

// peAudioEncoder is PE-Audio's encoder (PeAudioEncoder): DAC's encoder
// (dac_config, its ratios and codebook width defaulting to PE's) and
// bottleneck to codebook_dim, a projection to the width H, a patch
// embedder (a class token, a residual pair of group-normed kernel-3
// convolutions), Qwen3's layers (q/k norms, a bias-free gated MLP) and
// a bias-free output projection.
func peAudioEncoder() *Family {
	dg, ds, df := dacEncoder("embedder.dac_encoder.", "dac_")
	pe := "patch_embedder.resnet_block."
	return &Family{Name: "PE-Audio encoder", Class: "PeAudio", ConfigClass: "PeAudioEncoderConfig", ModelTypes: []string{"pe_audio_encoder"},
		Causal: "-", SeqCls: "-", Tasks: []Task{{Suffix: "Encoder", Prefix: "-", KeepFinal: true}},
		Defs: cat([]Def{
			{Sym: "H", Field: "hidden_size", Default: "1792", Legend: "H", Desc: "width", Show: true, Pos: true},
			{Sym: "L", Field: "num_hidden_layers", Default: "6", Legend: "L", Desc: "layers", Show: true, Pos: true, Max: MaxLayers},
			{Sym: "heads", Field: "num_attention_heads", Default: "14", Legend: "heads", Desc: qWidth, Show: true, Pos: true},
			kvDef("num_key_value_heads", "heads", "heads"),
			{Sym: "d", Field: "head_dim", Default: "128", Null: "H/heads", Legend: "d", Desc: "width of one attention head", Show: true, Pos: true},
			inner("intermediate_size", "4800"), attnBiasFlag,
			field("cd", "dac_config.codebook_dim", "128", "the DAC bottleneck's width"),
		}, dacEncoderDefs("dac_config.", "dac_", "list(2, 8, 10, 12)")),
		Global: cat(dg),
		Stacks: []Stack{ds, {Prefix: "layers.{l}.", Layers: "L", Tensors: cat(inNorm,
			attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "d", "d")), postNorm, gatedMLP("mlp.", "I", ""))}},
		Final: cat(df, conv1d3("embedder.bottleneck", "cd", "dac_H", "1", "true"), linear("embedder.data_proj", "H", "cd", "true"),
			[]T{{Name: "patch_embedder.class_embedding", Shape: []string{"1", "1", "H"}, Role: RoleEmbedding}},
			norm(pe+"block1.groupnorm", "H", "true"), conv1d3(pe+"block1.project", "H", "H", "3", "true"),
			norm(pe+"block2.groupnorm", "H", "true"), conv1d3(pe+"block2.project", "H", "H", "3", "true"),
			norm("norm", "H", ""), linear("output", "H", "H", "")),
	}
}

// peAudio is PE-Audio (PeAudioModel): the text model text_config names
// (ModernBERT, the only one modelled: another type exits 3; its fields
// default to PeAudioConfig's text defaults) under text_model., the
// encoder under audio_encoder., a contrastive head on each (a layer norm
// and a bias-free projection to the text width) and the logit scale and
// bias.
func peAudio(enc *Family) *Family {
	t, _ := partOf(modernBert, TaskBase, "text_config.", "text_model.", "t_")
	a, _ := partOf(enc, "Encoder", "audio_config.", "audio_encoder.", "a_")
	textDefaults := map[string]string{"t_H": "1024", "t_I": "2624", "t_L": "22", "t_heads": "16"}
	var defs []Def
	for _, d := range t.Defs {
		if x, ok := textDefaults[d.Sym]; ok {
			d.Default = x
		}
		d.Desc = strings.Replace(d.Desc, "backbone: ", "text: ", 1)
		defs = append(defs, d)
	}
	for _, d := range a.Defs {
		d.Desc = strings.Replace(d.Desc, "backbone: ", "audio: ", 1)
		defs = append(defs, d)
	}
	head := func(pre, in string) []T {
		return cat(norm(pre+"layer_norm", in, "true"), linear(pre+"proj", "t_H", in, ""))
	}
	f := &Family{Name: "PE-Audio", Class: "PeAudio", ModelTypes: []string{"pe_audio"}, Causal: "-", SeqCls: "-", Tasks: codecBase,
		Defs:   cat(defs, []Def{{Sym: "tmt", Field: "text_config.model_type", Type: Str, Default: "'modernbert'", Desc: "the text model"}}),
		Global: cat(t.Global, a.Global), Stacks: cat(t.Stacks, a.Stacks),
		Final: cat(t.Final, a.Final, head("text_audio_head.", "t_H"), head("audio_head.", "a_H"),
			[]T{{Name: "text_audio_logit_scale", Shape: []string{"1"}, Role: RoleNorm}, {Name: "text_audio_logit_bias", Shape: []string{"1"}, Role: RoleNorm}})}
	f.compose = func(c *Config) (*Family, error) {
		if mt := subType(c, "text_config"); mt != "" && mt != "modernbert" {
			return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType(),
				Reason: fmt.Sprintf("its text model, text_config.model_type %q, is not modelled (ModernBERT is)", mt)}
		}
		return f, nil
	}
	return f
}

var _ = registerGroup(results2(func() (*Family, *Family) { e := peAudioEncoder(); return e, peAudio(e) }))
