package spec

// Speech and audio models: Whisper's decoder, MusicGen, Moshi.

// musicgen is the MusicGen decoder: one embedding [V+1, H] and one head
// [V, H] per codebook, no biases but the norms', no positions written.
func musicgen(name, class, mt string, cross bool) *Family {
	return &Family{Name: name, Class: class, ConfigClass: class + "DecoderConfig", ModelTypes: []string{mt}, SeqCls: "-",
		Defs: cat(s2sDefs("vocab_size=2048", "hidden_size=1024", "num_hidden_layers=24", "ffn_dim=4096"), []Def{
			{Sym: "CB", Field: "num_codebooks", Default: "4", Legend: "CB", Desc: "parallel codebooks", Show: true, Pos: true},
			tie("false")}),
		Global: []T{{Name: "model.decoder.embed_tokens.{e}.weight", Shape: []string{"V+1", "H"}, Role: RoleEmbedding, Experts: "CB"}},
		Stacks: []Stack{{Prefix: "model.decoder.layers.{l}.", Layers: "L", Tensors: s2sLayer(cross, "", "", "")}},
		Final:  cat(finalLN, []T{{Name: "lm_heads.{e}.weight", Shape: []string{"V", "H"}, Role: RoleHead, Experts: "CB", If: "causal"}}),
		Embed:  "model.decoder.embed_tokens.0.weight", Head: "lm_heads.0.weight",
	}
}

var _ = register(
	// Moshi's text decoder: an extra embedding row, gated fc1 [ffn, H]
	// feeding fc2 [H, ffn/2], projections under .linear.
	std("Moshi", "Moshi", []string{"moshi"},
		cat(withDefault(dims("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "ffn_dim"), "I", "22528"),
			[]Def{{Sym: "d", Field: "head_dim", Default: "H/heads", Null: "H/heads", Legend: "d", Desc: "width of one attention head", Show: true, Pos: true},
				kvDef("num_key_value_heads", "heads", "heads"), tie("false")}), nil,
		inNorm, linear("self_attn.q_proj.linear", "heads*d", "H", ""), linear("self_attn.k_proj.linear", "kv*d", "H", ""),
		linear("self_attn.v_proj.linear", "kv*d", "H", ""), linear("self_attn.o_proj.linear", "H", "heads*d", ""),
		postNorm, linear("mlp.fc1", "I", "H", ""), linear("mlp.fc2", "H", "I/2", "")).
		with(func(f *Family) {
			f.SeqCls = "-"
			f.Global = []T{{Name: "model.embed_tokens.weight", Shape: []string{"V+1", "H"}, Role: RoleEmbedding}}
			f.Final = cat(norm("model.norm", "H", ""), []T{{Name: "lm_head.weight", Shape: []string{"V", "H"}, Role: RoleHead, If: "causal", Optional: "tied"}})
		}),
	// Whisper: k_proj has no bias; positions [max_target_positions, H].
	func() *Family {
		f := seq2seqDecoder("Whisper", "Whisper", "whisper", cat(s2sDefs("vocab_size=51865", "d_model=384", "decoder_layers=4", "decoder_ffn_dim=1536"), []Def{posDef("max_target_positions", "448")}),
			decoderPositions("P"), s2sLayer(true, "true", "", "true"), finalLN)
		f.Final = cat(finalLN, lmHead("proj_out.weight"))
		f.Head = "proj_out.weight"
		return f
	}(),
	musicgen("MusicGen", "Musicgen", "musicgen_decoder", true),
	musicgen("MusicGen-Melody", "MusicgenMelody", "musicgen_melody_decoder", false),
)
