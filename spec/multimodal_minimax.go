package spec

// MiniMax-M3-VL (transformers 5.x): a rotary ViT of 3-D patches, a
// two-stage projector, MiniMax-M3's language model; saved in the names of
// the original checkpoints (its conversion mapping reversed).

// minimaxM3Legacy is MiniMax-M3's language model as the VLM saves it:
// the MLP under block_sparse_moe., the routed experts one by one
// (experts.{e}.w1/w3/w2, where the model stacks them), the shared expert
// and the dense MLP with gate_proj and up_proj apart (the model fuses
// them), the router's correction bias beside the gate and the lightning
// indexer's projections as self_attn.index_*.
func minimaxM3Legacy() *Family {
	return std("MiniMax-M3", "MiniMaxM3VLText", nil, minimaxM3Defs(), minimaxM3Kinds,
		inNorm, attn("self_attn.", "", "", qkNorm("self_attn.", "d", "d")),
		when(minimaxM3Indexer,
			linear("self_attn.index_q_proj", "ixn*ixd", "H", ""), linear("self_attn.index_k_proj", "ixd", "H", ""),
			norm("self_attn.index_q_norm", "ixd", ""), norm("self_attn.index_k_norm", "ixd", "")),
		postNorm,
		when("sparse", router("block_sparse_moe.gate.weight"), vecAny("block_sparse_moe.e_score_correction_bias", "E"),
			expertMLPs("block_sparse_moe.experts.", "w1", "w3", "w2"), gatedMLP("block_sparse_moe.shared_experts.", "Ish", "")),
		when("dense", gatedMLP("block_sparse_moe.", "Id", "")))
}

// minimaxM3VL is MiniMax-M3-VL's row (MiniMaxM3SparseForConditionalGeneration):
// the language model under language_model.model., the tower under
// vision_tower.vision_model. (its MLP saved as block_sparse_moe. too),
// the projector as multi_modal_projector. and patch_merge_mlp.
// The base model (MiniMaxM3VLModel) keeps the model's own names where
// the mapping's patterns are anchored at the VLM's top level.
func minimaxM3VL() *Family {
	const vp = "vision_tower.vision_model."
	base := [][2]string{{vp + "embeddings.patch_embedding.", "vision_tower.embeddings.proj."},
		{vp + "encoder.layers.", "vision_tower.layers."}, {vp + "pre_layrnorm.", "vision_tower.pre_layrnorm."},
		{"patch_merge_mlp.linear_", "multi_modal_projector.merge_linear_"}}
	v := &vlm{Family: Family{Name: "MiniMax-M3-VL", Class: "MiniMaxM3VL", ModelTypes: []string{"minimax_m3_vl"},
		Causal: "MiniMaxM3SparseForConditionalGeneration", BasePrefix: "language_model.model.",
		Defs: []Def{vWidth(vcfg, "1280"), vLayers(vcfg, "32"), vFFN(vcfg, "5120"), vPatch(vcfg, "14"),
			opt("vC", "vision_config.num_channels", "3"), opt("vT", "vision_config.temporal_patch_size", "2"),
			opt("vM", "vision_config.spatial_merge_size", "2"), opt("mm_h", "projector_hidden_size", "6144"),
			// merged_hidden_size: __post_init__ computes H·vM², but a value
			// in config.json is set after it and wins.
			opt("mm_m", "merged_hidden_size", "H*vM*vM")},
		Global: patchEmbed3D(vp + "embeddings.patch_embedding.weight"),
		Stacks: []Stack{{Name: "vision", Prefix: vp + "encoder.layers.{l}.", Layers: "vL", Tensors: renameSyms(cat(
			linear("self_attn.q_proj", "H", "H", "true"), linear("self_attn.k_proj", "H", "H", "true"),
			linear("self_attn.v_proj", "H", "H", "true"), linear("self_attn.out_proj", "H", "H", "true"),
			norm("layer_norm1", "H", "true"), norm("layer_norm2", "H", "true"),
			plainMLP("block_sparse_moe.fc1", "block_sparse_moe.fc2", "vI", "true")), "H", "vH")}},
		Final: cat(norm(vp+"pre_layrnorm", "vH", "true"),
			linear("multi_modal_projector.linear_1", "mm_h", "vH", "true"), linear("multi_modal_projector.linear_2", "H", "mm_h", "true"),
			linear("patch_merge_mlp.linear_1", "mm_h", "mm_m", "true"), linear("patch_merge_mlp.linear_2", "H", "mm_h", "true"))},
		textF: minimaxM3Legacy(), reroot: legacyLM, tie5: "tiedTop || tiedText",
		tasks: []Task{{Suffix: TaskBase, Prefix: "language_model.", KeepFinal: true, Variants: [][][2]string{base}}}}
	return v.register()
}

var _ = register(minimaxM3VL)
