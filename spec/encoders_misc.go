package spec

// Encoders of the other kinds: document
// encoders with a layout stream or an image patch stream (LayoutLMv3,
// BROS), entity-aware and table encoders (LUKE, TAPAS), the quantized
// RoBERTa (I-BERT), character-level CANINE, and the other encoder-only
// or composite models transformers' auto mappings list. Each family is
// built from the BERT blocks of blocks_encoder.go and the heads of
// blocks_heads.go; the blocks only these families share are at the end.

var _ = register(
	// LayoutLMv3: RoBERTa-style text embeddings with 2-D positions
	// (coordinate_size for x and y, shape_size for h and w), a ViT patch
	// stream (visual_embed) with its class token and positions, relative
	// 1-D and 2-D attention biases shared by the layers; RoBERTa's heads
	// (the QA head one too, num_labels wide), the token classifier a
	// plain linear below 10 labels.
	func() *Family {
		return &Family{Name: "LayoutLMv3", Class: "LayoutLMv3", ModelTypes: []string{"layoutlmv3"}, Causal: "-", SeqCls: "-",
			Defs: cat(bertDefs("50265", "768", "12", "3072", "512", "2"), noRelPos, []Def{
				{Sym: "P2", Field: "max_2d_position_embeddings", Default: "1024", Desc: "2-D positions", Pos: true},
				{Sym: "CS", Field: "coordinate_size", Default: "128", Desc: "x and y embedding width", Pos: true},
				{Sym: "SS", Field: "shape_size", Default: "128", Desc: "height and width embedding width", Pos: true},
				flag("relb", "has_relative_attention_bias", "true", "a relative 1-D attention bias"),
				{Sym: "RB", Field: "rel_pos_bins", Default: "32", Desc: "1-D relative buckets", Pos: true},
				flag("spb", "has_spatial_attention_bias", "true", "relative x and y attention biases"),
				{Sym: "RB2", Field: "rel_2d_pos_bins", Default: "64", Desc: "2-D relative buckets", Pos: true},
				flag("text", "text_embed", "true", "the text embeddings"),
				flag("visual", "visual_embed", "true", "the image patch stream"),
				{Sym: "img", Field: "input_size", Default: "224", Desc: "image side", Pos: true},
				{Sym: "patch", Field: "patch_size", Default: "16", Desc: "patch side", Pos: true},
				channels("ch", "num_channels"),
				tie("true")}),
			BasePrefix: "layoutlmv3.",
			Global: cat(when("text", bertEmbeddings("layoutlmv3.embeddings.", "H", true, true),
				[]T{{Name: "layoutlmv3.embeddings.x_position_embeddings.weight", Shape: []string{"P2", "CS"}, Role: RoleEmbedding},
					{Name: "layoutlmv3.embeddings.y_position_embeddings.weight", Shape: []string{"P2", "CS"}, Role: RoleEmbedding},
					{Name: "layoutlmv3.embeddings.h_position_embeddings.weight", Shape: []string{"P2", "SS"}, Role: RoleEmbedding},
					{Name: "layoutlmv3.embeddings.w_position_embeddings.weight", Shape: []string{"P2", "SS"}, Role: RoleEmbedding}}),
				when("visual", conv("layoutlmv3.patch_embed.proj", "H", "ch", "patch", "patch"),
					[]T{{Name: "layoutlmv3.cls_token", Shape: []string{"1", "1", "H"}, Role: RoleEmbedding},
						{Name: "layoutlmv3.pos_embed", Shape: []string{"1", "(img/patch)*(img/patch)+1", "H"}, Role: RoleEmbedding}},
					norm("layoutlmv3.LayerNorm", "H", "true"), norm("layoutlmv3.norm", "H", "true"))),
			Stacks: []Stack{{Prefix: "layoutlmv3.encoder.layer.{l}.", Layers: "L", Tensors: postLN}},
			Final: cat(when("relb", linear("layoutlmv3.encoder.rel_pos_bias", "heads", "RB", "")),
				when("spb", linear("layoutlmv3.encoder.rel_pos_x_bias", "heads", "RB2", ""), linear("layoutlmv3.encoder.rel_pos_y_bias", "heads", "RB2", ""))),
			Embed: "layoutlmv3.embeddings.word_embeddings.weight",
			Tasks: encTasks("layoutlmv3.", nil,
				encHead{Suffix: HeadSeqCls, Head: denseClassifier("classifier.", "H"), Labels: true},
				encHead{Suffix: TaskTokenCls, Head: cat(when("C < 10", classifier("classifier", "H")), when("C >= 10", denseClassifier("classifier.", "H"))), Labels: true},
				encHead{Suffix: TaskQA, Head: denseClassifier("qa_outputs.", "H"), Labels: true}),
		}
	},
	// I-BERT: RoBERTa whose linears, embeddings, layer norms and
	// activations keep their quantization state as buffers (the integer
	// weights and the scaling factors, saved whatever quant_mode says).
	func() *Family {
		return &Family{Name: "I-BERT", Class: "IBert", ModelTypes: []string{"ibert"}, Causal: "-", SeqCls: "-",
			Defs: cat(bertDefs("30522", "768", "12", "3072", "512", "2"), noRelPos, []Def{tie("true")}),
			Global: cat(qEmbed("ibert.embeddings.word_embeddings", "V", "H"), qEmbed("ibert.embeddings.token_type_embeddings", "TV", "H"),
				qEmbed("ibert.embeddings.position_embeddings", "P", "H"),
				qAct("ibert.embeddings.embeddings_act1"), qAct("ibert.embeddings.embeddings_act2"),
				intLN("ibert.embeddings.LayerNorm", "H"), qAct("ibert.embeddings.output_activation")),
			Stacks: []Stack{{Prefix: "ibert.encoder.layer.{l}.", Layers: "L", Tensors: cat(
				qLinear("attention.self.query", "H", "H"), qLinear("attention.self.key", "H", "H"), qLinear("attention.self.value", "H", "H"),
				qAct("attention.self.query_activation"), qAct("attention.self.key_activation"), qAct("attention.self.value_activation"),
				qAct("attention.self.output_activation"), qAct("attention.self.softmax.act"),
				qLinear("attention.output.dense", "H", "H"), qAct("attention.output.ln_input_act"), intLN("attention.output.LayerNorm", "H"),
				qAct("attention.output.output_activation"),
				qLinear("intermediate.dense", "I", "H"), qAct("intermediate.output_activation"),
				qLinear("output.dense", "H", "I"), qAct("output.ln_input_act"), intLN("output.LayerNorm", "H"), qAct("output.output_activation"),
				qAct("pre_intermediate_act"), qAct("pre_output_act"))}},
			Embed: "ibert.embeddings.word_embeddings.weight",
			Tasks: withTask(robertaTasks("ibert."), Task{Suffix: TaskMaskedLM, Head: robertaHead(), HeadName: "lm_head.decoder.weight"}),
		}
	},
	// LUKE: RoBERTa with entity embeddings (entity_emb_size, mapped to H
	// when narrower) and entity-aware attention (w2e, e2w, e2e queries);
	// the masked LM also predicts entities, its decoder tied to the entity
	// table.
	func() *Family {
		return &Family{Name: "LUKE", Class: "Luke", ModelTypes: []string{"luke"}, Causal: "-", SeqCls: "-",
			Defs: cat(bertDefs("50267", "768", "12", "3072", "512", "2"), noRelPos, []Def{
				{Sym: "EV", Field: "entity_vocab_size", Default: "500000", Desc: "entities", Pos: true},
				{Sym: "EE", Field: "entity_emb_size", Default: "256", Desc: "entity embedding width", Pos: true},
				flag("eaa", "use_entity_aware_attention", "true", "entity-aware query projections"),
				tie("true")}),
			Global: cat(bertEmbeddings("luke.embeddings.", "H", true, true),
				[]T{{Name: "luke.entity_embeddings.entity_embeddings.weight", Shape: []string{"EV", "EE"}, Role: RoleEmbedding}},
				when("EE != H", linear("luke.entity_embeddings.entity_embedding_dense", "H", "EE", "")),
				[]T{{Name: "luke.entity_embeddings.position_embeddings.weight", Shape: []string{"P", "H"}, Role: RoleEmbedding},
					{Name: "luke.entity_embeddings.token_type_embeddings.weight", Shape: []string{"TV", "H"}, Role: RoleEmbedding}},
				norm("luke.entity_embeddings.LayerNorm", "H", "true")),
			Stacks: []Stack{{Prefix: "luke.encoder.layer.{l}.", Layers: "L", Tensors: cat(postLN,
				when("eaa", linear("attention.self.w2e_query", "H", "H", "true"), linear("attention.self.e2w_query", "H", "H", "true"),
					linear("attention.self.e2e_query", "H", "H", "true")))}},
			Embed: "luke.embeddings.word_embeddings.weight",
			Tasks: encTasks("luke.", pooler(""),
				// 4.x ties the entity decoder whatever tie_word_embeddings
				// says and saves the word decoder's bias as lm_head.bias; 5.x
				// ties lm_head.bias to the decoder's bias (kept) and neither
				// decoder to the embeddings unless tied.
				encHead{Suffix: TaskMaskedLM, Pool: true, HeadName: "lm_head.decoder.weight", Head: cat(
					[]T{{Name: "lm_head.bias", Shape: []string{"V"}, Role: RoleBias, If: "!tf5 || !tied"}},
					linear("lm_head.dense", "H", "H", "true"), norm("lm_head.layer_norm", "H", "true"),
					[]T{{Name: "lm_head.decoder.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied && !tf5"},
						{Name: "lm_head.decoder.bias", Shape: []string{"V"}, Role: RoleBias, If: "tf5"}},
					linear("entity_predictions.transform.dense", "EE", "H", "true"), norm("entity_predictions.transform.LayerNorm", "EE", "true"),
					[]T{{Name: "entity_predictions.decoder.weight", Shape: []string{"EV", "EE"}, Role: RoleHead, If: "tf5 && !tied"}},
					vec("entity_predictions.bias", "EV"))},
				encHead{Suffix: HeadSeqCls, Head: classifier("classifier", "H"), Pool: true, Labels: true},
				encHead{Suffix: TaskTokenCls, Head: classifier("classifier", "H"), Labels: true},
				encHead{Suffix: TaskQA, Head: classifier("qa_outputs", "H"), Labels: true},
				encHead{Suffix: TaskMultChoice, Head: choiceHead("classifier", "H"), Pool: true},
				encHead{Suffix: "ForEntityClassification", Head: classifier("classifier", "H"), Pool: true, Labels: true},
				encHead{Suffix: "ForEntityPairClassification", Head: linear("classifier", "C", "2*H", ""), Pool: true, Labels: true},
				encHead{Suffix: "ForEntitySpanClassification", Head: classifier("classifier", "3*H"), Pool: true, Labels: true}),
		}
	},
	// TAPAS: BERT with one token-type table per entry of type_vocab_sizes
	// (segment, column, row, rank…); its QA head scores cells and columns
	// with bare vectors and scalar biases, and aggregates when
	// num_aggregation_labels > 0.
	func() *Family {
		return &Family{Name: "TAPAS", Class: "Tapas", ModelTypes: []string{"tapas"}, Causal: "-", SeqCls: "-",
			Defs: cat(withoutDefs(bertDefs("30522", "768", "12", "3072", "1024", "2"), "TV"), noRelPos, []Def{
				{Sym: "tvs", Field: "type_vocab_sizes", Type: List, Default: "list(3, 256, 256, 2, 256, 256, 10)", Desc: "token-type tables' sizes"},
				{Sym: "NA", Field: "num_aggregation_labels", Default: "0", Desc: "aggregation operators (0: none)"},
				tie("true")}),
			Global: cat(bertEmbeddings("tapas.embeddings.", "H", false, true),
				[]T{{Name: "tapas.embeddings.token_type_embeddings_{e}.weight", Shape: []string{"at(tvs, e)", "H"}, Role: RoleEmbedding, Experts: "len(tvs)", PerCopy: true}}),
			Stacks: []Stack{{Prefix: "tapas.encoder.layer.{l}.", Layers: "L", Tensors: postLN}},
			Embed:  "tapas.embeddings.word_embeddings.weight",
			Tasks: encTasks("tapas.", pooler(""),
				encHead{Suffix: TaskMaskedLM, Head: bertHead("H"), HeadName: "cls.predictions.decoder.weight"},
				encHead{Suffix: TaskQA, Pool: true, Head: cat(vec("output_weights", "H"), vec("column_output_weights", "H"),
					[]T{{Name: "output_bias", Shape: []string{}, Role: RoleBias}, {Name: "column_output_bias", Shape: []string{}, Role: RoleBias}},
					when("NA > 0", linear("aggregation_classifier", "NA", "H", "true")))},
				encHead{Suffix: HeadSeqCls, Head: classifier("classifier", "H"), Pool: true, Labels: true}),
		}
	},
	// BROS: BERT with a relative bounding-box embedding (sinusoids of
	// dim_bbox_sinusoid_emb_1d per coordinate, their inverse frequencies
	// saved, projected to dim_bbox_projection) and a saved position_ids
	// buffer; its SPADE heads link entities with a relation extractor.
	func() *Family {
		return &Family{Name: "BROS", Class: "Bros", ModelTypes: []string{"bros"}, Causal: "-", SeqCls: "-",
			// BrosConfig derives the box widths from H, heads and dim_bbox:
			// 4.x whatever config.json says, 5.x where it says nothing.
			Defs: cat(bertDefs("30522", "768", "12", "3072", "512", "2"), relPos, []Def{
				{Sym: "dbox", Field: "dim_bbox", Default: "8", Desc: "box coordinates", Pos: true},
				{Sym: "D2j", Field: "dim_bbox_sinusoid_emb_2d", Default: "H/4", Null: "=", Desc: "box sinusoid width (read by 5.x)"},
				derived("D2", "tf5 ? D2j : H/4"),
				{Sym: "D1j", Field: "dim_bbox_sinusoid_emb_1d", Default: "D2/dbox", Null: "=", Desc: "sinusoid width per coordinate (read by 5.x)"},
				derived("D1", "tf5 ? D1j : D2/dbox"),
				{Sym: "DPj", Field: "dim_bbox_projection", Default: "H/heads", Null: "=", Desc: "box projection width (read by 5.x)"},
				derived("DP", "tf5 ? DPj : H/heads"),
				{Sym: "NR", Field: "n_relations", Default: "1", Desc: "relations", Pos: true},
				tie("true")}),
			Global: cat(bertEmbeddings("bros.embeddings.", "H", true, true),
				[]T{{Name: "bros.embeddings.position_ids", Shape: []string{"1", "P"}, Role: RoleNorm, AnyDType: true},
					{Name: "bros.bbox_embeddings.bbox_sinusoid_emb.x_pos_emb.inv_freq", Shape: []string{"(D1+1)/2"}, Role: RoleNorm},
					{Name: "bros.bbox_embeddings.bbox_sinusoid_emb.y_pos_emb.inv_freq", Shape: []string{"(D1+1)/2"}, Role: RoleNorm}},
				linear("bros.bbox_embeddings.bbox_projection", "DP", "D2", "")),
			Stacks: []Stack{{Prefix: "bros.encoder.layer.{l}.", Layers: "L", Tensors: postLN}},
			Embed:  "bros.embeddings.word_embeddings.weight",
			Tasks: encTasks("bros.", pooler(""),
				encHead{Suffix: TaskTokenCls, Head: classifier("classifier", "H"), Pool: true, Labels: true},
				encHead{Suffix: "SpadeEEForTokenClassification", Pool: true, Labels: true, Head: cat(
					linear("initial_token_classifier.1", "H", "H", "true"), linear("initial_token_classifier.3", "C", "H", "true"),
					brosRelation("subsequent_token_classifier."))},
				encHead{Suffix: "SpadeELForTokenClassification", Pool: true, Head: brosRelation("entity_linker.")}),
		}
	},
	// CANINE: characters hashed into num_hash_functions tables of
	// H/num_hash_functions, a one-layer local encoder, a strided
	// convolution down to molecules, the deep encoder, a convolution back
	// up (from 2·H) and a one-layer final encoder; every class keeps the
	// pooler.
	func() *Family {
		return &Family{Name: "CANINE", Class: "Canine", ModelTypes: []string{"canine"}, Causal: "-", SeqCls: "-",
			Defs: cat(withoutDefs(bertDefs("", "768", "12", "3072", "16384", "16"), "V"), relPos, []Def{
				{Sym: "NH", Field: "num_hash_functions", Default: "8", Desc: "hash functions", Pos: true, Max: MaxLayers},
				{Sym: "NB", Field: "num_hash_buckets", Default: "16384", Desc: "hash buckets", Pos: true},
				{Sym: "down", Field: "downsampling_rate", Default: "4", Desc: "characters per molecule", Pos: true},
				{Sym: "upk", Field: "upsampling_kernel_size", Default: "4", Desc: "upsampling kernel", Pos: true}}),
			BasePrefix: "canine.",
			Global: cat([]T{{Name: "canine.char_embeddings.HashBucketCodepointEmbedder_{e}.weight", Shape: []string{"NB", "H/NH"}, Role: RoleEmbedding, Experts: "NH"},
				{Name: "canine.char_embeddings.char_position_embeddings.weight", Shape: []string{"NB", "H"}, Role: RoleEmbedding},
				{Name: "canine.char_embeddings.token_type_embeddings.weight", Shape: []string{"TV", "H"}, Role: RoleEmbedding}},
				norm("canine.char_embeddings.LayerNorm", "H", "true"),
				[]T{{Name: "canine.chars_to_molecules.conv.weight", Shape: []string{"H", "H", "down"}, Role: RoleLinear}}, vec("canine.chars_to_molecules.conv.bias", "H"),
				norm("canine.chars_to_molecules.LayerNorm", "H", "true")),
			Stacks: []Stack{{Name: "initial", Prefix: "canine.initial_char_encoder.layer.{l}.", Layers: "1", Tensors: postLN},
				{Prefix: "canine.encoder.layer.{l}.", Layers: "L", Tensors: postLN},
				{Name: "final", Prefix: "canine.final_char_encoder.layer.{l}.", Layers: "1", Tensors: postLN}},
			Final: cat([]T{{Name: "canine.projection.conv.weight", Shape: []string{"H", "2*H", "upk"}, Role: RoleLinear}}, vec("canine.projection.conv.bias", "H"),
				norm("canine.projection.LayerNorm", "H", "true")),
			Embed: "canine.char_embeddings.char_position_embeddings.weight",
			Tasks: encTasks("canine.", pooler(""),
				encHead{Suffix: HeadSeqCls, Head: classifier("classifier", "H"), Pool: true, Labels: true},
				encHead{Suffix: TaskTokenCls, Head: classifier("classifier", "H"), Pool: true, Labels: true},
				encHead{Suffix: TaskQA, Head: classifier("qa_outputs", "H"), Pool: true, Labels: true},
				encHead{Suffix: TaskMultChoice, Head: choiceHead("classifier", "H"), Pool: true}),
		}
	},
)

var _ = register(
	// ImageGPT: GPT-2's layers over colour-cluster tokens with bias-free
	// layer norms; the LM head predicts all tokens but the start token
	// (V-1 rows), the image classifier is a bias-free score.
	func() *Family {
		return &Family{Name: "ImageGPT", Class: "ImageGPT", ModelTypes: []string{"imagegpt"}, Causal: "ImageGPTForCausalImageModeling", SeqCls: "ImageGPTForImageClassification",
			Defs: cat(sized(gpt2Dims("24", "4*H"), "V", "513", "H", "512", "heads", "8"), []Def{
				{Sym: "P", Field: "n_positions", Default: "1024", Legend: "P", Desc: "positions (learned embedding rows)", Show: true, Pos: true},
				tie("false"), flag("cross", "add_cross_attention", "false", "each layer has cross-attention to an encoder")}),
			Global: cat(embed("transformer.wte.weight"), []T{{Name: "transformer.wpe.weight", Shape: []string{"P", "H"}, Role: RoleEmbedding}}),
			Stacks: []Stack{{Prefix: "transformer.h.{l}.", Layers: "L", Tensors: cat(
				norm("ln_1", "H", ""), conv1d("attn.c_attn", "H", "3*H"), conv1d("attn.c_proj", "H", "H"),
				when("cross", conv1d("crossattention.c_attn", "H", "2*H"), conv1d("crossattention.q_attn", "H", "H"),
					conv1d("crossattention.c_proj", "H", "H"), norm("ln_cross_attn", "H", "")),
				norm("ln_2", "H", ""), conv1d("mlp.c_fc", "H", "I"), conv1d("mlp.c_proj", "I", "H"))}},
			Final: cat(norm("transformer.ln_f", "H", ""),
				[]T{{Name: "lm_head.weight", Shape: []string{"V-1", "H"}, Role: RoleHead, If: "causal", Optional: "tied"},
					{Name: "score.weight", Shape: []string{"C", "H"}, Role: RoleScore, If: "seqcls"}}),
			Embed: "transformer.wte.weight", Ignore: gptBuffers, BasePrefix: "transformer.",
			Tasks: []Task{{Suffix: TaskBase, Prefix: "-"}},
		}
	},
	// Decision Transformer: GPT-2 (encoder.) over return, state and
	// action embeddings with a timestep table, and state, action and
	// return predictors.
	func() *Family {
		return &Family{Name: "Decision Transformer", Class: "DecisionTransformer", ModelTypes: []string{"decision_transformer"}, Causal: "-", SeqCls: "-",
			Defs: cat(trunkAt("vocab_size=1", "hidden_size=128", "n_layer|num_hidden_layers=3", "GPT-2 blocks"), []Def{
				encHeads("n_head|num_attention_heads", "1"),
				{Sym: "I", Field: "n_inner", Default: "4*H", Null: "4*H", Legend: "I", Desc: "FFN inner width", Show: true, Pos: true},
				{Sym: "P", Field: "n_positions|max_position_embeddings", Default: "1024", Legend: "P", Desc: "positions", Show: true, Pos: true},
				{Sym: "S", Field: "state_dim", Default: "17", Desc: "state width", Pos: true},
				{Sym: "A", Field: "act_dim", Default: "4", Desc: "action width", Pos: true},
				{Sym: "EP", Field: "max_ep_len", Default: "4096", Desc: "timesteps", Pos: true},
				flag("cross", "add_cross_attention", "false", "each layer has cross-attention"),
			}),
			Global: cat(embed("encoder.wte.weight"), []T{{Name: "encoder.wpe.weight", Shape: []string{"P", "H"}, Role: RoleEmbedding},
				{Name: "embed_timestep.weight", Shape: []string{"EP", "H"}, Role: RoleEmbedding}},
				linear("embed_return", "H", "1", "true"), linear("embed_state", "H", "S", "true"), linear("embed_action", "H", "A", "true"),
				norm("embed_ln", "H", "true")),
			Stacks: []Stack{{Prefix: "encoder.h.{l}.", Layers: "L", Tensors: cat(
				norm("ln_1", "H", "true"), conv1d("attn.c_attn", "H", "3*H"), conv1d("attn.c_proj", "H", "H"),
				when("cross", conv1d("crossattention.c_attn", "H", "2*H"), conv1d("crossattention.q_attn", "H", "H"),
					conv1d("crossattention.c_proj", "H", "H"), norm("ln_cross_attn", "H", "true")),
				norm("ln_2", "H", "true"), conv1d("mlp.c_fc", "H", "I"), conv1d("mlp.c_proj", "I", "H"))}},
			Final: cat(norm("encoder.ln_f", "H", "true"), linear("predict_state", "S", "H", "true"), linear("predict_action.0", "A", "H", "true"),
				linear("predict_return", "1", "H", "true")),
			Embed: "encoder.wte.weight", Ignore: []string{`^encoder\.h\.\d+\.attn\.(masked_)?bias$`},
			Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}},
		}
	},
)

// reformerTasks are Reformer's classes besides ReformerModelWithLMHead
// (decoders.go): the base model keeps the final norm of the two
// concatenated streams (2·H), which every head reads.
var reformerTasks = []Task{{Suffix: TaskBase, Prefix: "-"},
	{Suffix: TaskMaskedLM, CausalHead: true},
	{Suffix: HeadSeqCls, Head: cat(linear("classifier.dense", "H", "2*H", "true"), linear("classifier.out_proj", "C", "H", "true")), Labels: true},
	{Suffix: TaskQA, Head: classifier("qa_outputs", "2*H"), Labels: true}}

// udopTasks: UdopModel is UdopForConditionalGeneration (encdec.go)
// without its LM head, under the same names; 5.x does not tie its 1-D
// relative biases to block 0's and saves them.
var udopTasks = []Task{{Suffix: TaskBase, KeepFinal: true, Defs: []Def{derived("keep1d", "tf5")}}}

// brosRelation is BROS's relation extractor under pre: query and key of
// n_relations·H, and the dummy node.
func brosRelation(pre string) []T {
	return cat(linear(pre+"query", "NR*H", "H", "true"), linear(pre+"key", "NR*H", "H", "true"),
		[]T{{Name: pre + "dummy_node", Shape: []string{"1", "H"}, Role: RoleEmbedding}})
}

// I-BERT's quantization modules (quant_modules.py): each keeps its
// quantization state in buffers beside the float parameters.

// qAct is a QuantAct: the running range and scale, one value each.
func qAct(name string) []T {
	return []T{{Name: name + ".x_min", Shape: []string{"1"}, Role: RoleNorm}, {Name: name + ".x_max", Shape: []string{"1"}, Role: RoleNorm},
		{Name: name + ".act_scaling_factor", Shape: []string{"1"}, Role: RoleNorm}}
}

// qLinear is a QuantLinear: weight and bias with their integer copies and
// a per-output scale.
func qLinear(name, out, in string) []T {
	return cat(linear(name, out, in, "true"), []T{{Name: name + ".weight_integer", Shape: []string{out, in}, Role: RoleLinear},
		{Name: name + ".bias_integer", Shape: []string{out}, Role: RoleBias}, {Name: name + ".fc_scaling_factor", Shape: []string{out}, Role: RoleNorm}})
}

// qEmbed is a QuantEmbedding: the table, its integer copy and its scale.
func qEmbed(name, rows, dim string) []T {
	return []T{{Name: name + ".weight", Shape: []string{rows, dim}, Role: RoleEmbedding},
		{Name: name + ".weight_integer", Shape: []string{rows, dim}, Role: RoleEmbedding},
		{Name: name + ".weight_scaling_factor", Shape: []string{"1"}, Role: RoleNorm}}
}

// intLN is an IntLayerNorm: weight, bias, the shift and its output QuantAct.
func intLN(name, dim string) []T {
	return cat(norm(name, dim, "true"), []T{{Name: name + ".shift", Shape: []string{"1"}, Role: RoleNorm}}, qAct(name+".activation"))
}

// visualBert is VisualBERT: BERT (no relative positions, no
// cross-attention) with visual embeddings beside the text ones (token
// types, positions, a projection from visual_embedding_dim), the
// pooler, an additional layer where bypass_transformer; pre-training
// adds BERT's tied masked-LM head and next-sentence head.
func visualBert() *Family {
	pre := "visual_bert."
	return &Family{Name: "VisualBERT", Class: "VisualBert", ModelTypes: []string{"visual_bert"}, Causal: "-", SeqCls: "-",
		Defs: cat(replaceDef(bertDefs("30522", "768", "12", "3072", "512", "2"), derived("cross", "false")), noRelPos, []Def{
			opt("vE", "visual_embedding_dim", "512"),
			flag("bypass", "bypass_transformer", "false", "an additional layer over the text and visual outputs"),
			tie("true")}),
		Global: cat(bertEmbeddings(pre+"embeddings.", "H", true, true),
			[]T{{Name: pre + "embeddings.visual_token_type_embeddings.weight", Shape: []string{"TV", "H"}, Role: RoleEmbedding},
				{Name: pre + "embeddings.visual_position_embeddings.weight", Shape: []string{"P", "H"}, Role: RoleEmbedding}},
			linear(pre+"embeddings.visual_projection", "H", "vE", "true")),
		Stacks: []Stack{{Prefix: pre + "encoder.layer.{l}.", Layers: "L", Tensors: postLN}},
		Final:  cat(linear(pre+"pooler.dense", "H", "H", "true"), when("bypass", prefixed(pre+"additional_layer.", postLN))),
		Embed:  pre + "embeddings.word_embeddings.weight", Head: bertHeadName,
		Tasks: []Task{{Suffix: TaskBase, Prefix: "-"},
			{Suffix: TaskPreTrain, Head: cat(bertHead("H"), linear("cls.seq_relationship", "2", "H", "true")), HeadName: bertHeadName}},
	}
}

var _ = register(visualBert)

// lxmertAttn is an LXMERT attention under pre: query, key and value
// under qkv ("self." or "att."), output.dense and output.LayerNorm.
func lxmertAttn(pre, qkv string) []T {
	return cat(linear(pre+qkv+"query", "H", "H", "true"), linear(pre+qkv+"key", "H", "H", "true"),
		linear(pre+qkv+"value", "H", "H", "true"), linear(pre+"output.dense", "H", "H", "true"), norm(pre+"output.LayerNorm", "H", "true"))
}

// lxmertFFN is an LXMERT feed-forward: inter.dense and output.dense
// with output.LayerNorm, named pre+"inter" / pre+"output" ("lang_",
// "visn_"; BERT's intermediate/output for "").
func lxmertFFN(inter, out string) []T {
	return cat(linear(inter+".dense", "I", "H", "true"), linear(out+".dense", "H", "I", "true"), norm(out+".LayerNorm", "H", "true"))
}

// lxmert is LXMERT: BERT embeddings, a language encoder (l_layers BERT
// layers), the visual features' and boxes' projections with their
// LayerNorms, an object-relationship encoder (r_layers BERT layers), a
// cross-modality encoder (x_layers: a shared cross attention, then each
// modality's self-attention and FFN) and the pooler; pre-training adds
// BERT's tied masked-LM head and matching head, the object-prediction
// head (task_obj_predict: a decoder per visual loss switched on) and
// the answer head (task_qa: a 2H MLP to num_qa_labels), which question
// answering has alone.
func lxmert() *Family {
	pre := "lxmert."
	enc := pre + "encoder."
	answer := cat(linear("answer_head.logit_fc.0", "2*H", "H", "true"), norm("answer_head.logit_fc.2", "2*H", "true"),
		linear("answer_head.logit_fc.3", "QA", "2*H", "true"))
	return &Family{Name: "LXMERT", Class: "Lxmert", ModelTypes: []string{"lxmert"}, Causal: "-", SeqCls: "-",
		Defs: cat(withoutDefs(bertDefs("30522", "768", "12", "3072", "512", "2"), "L", "cross"), noRelPos, []Def{
			{Sym: "lL", Field: "l_layers", Default: "9", Legend: "lL", Desc: "language layers", Show: true, Max: MaxLayers},
			{Sym: "rL", Field: "r_layers", Default: "5", Legend: "rL", Desc: "object-relationship layers", Show: true, Max: MaxLayers},
			{Sym: "xL", Field: "x_layers", Default: "5", Legend: "xL", Desc: "cross-modality layers", Show: true, Max: MaxLayers},
			opt("vF", "visual_feat_dim", "2048"), opt("vPos", "visual_pos_dim", "4"),
			opt("QA", "num_qa_labels", "9500"), opt("nObj", "num_object_labels", "1600"), opt("nAttr", "num_attr_labels", "400"),
			flag("tObj", "task_obj_predict", "true", "the object-prediction head"),
			flag("tQA", "task_qa", "true", "the answer head"),
			flag("lObj", "visual_obj_loss", "true", "the object-label decoder"),
			flag("lAttr", "visual_attr_loss", "true", "the attribute decoder"),
			flag("lFeat", "visual_feat_loss", "true", "the feature decoder"),
			tie("true")}),
		Global: cat(bertEmbeddings(pre+"embeddings.", "H", true, true),
			linear(enc+"visn_fc.visn_fc", "H", "vF", "true"), norm(enc+"visn_fc.visn_layer_norm", "H", "true"),
			linear(enc+"visn_fc.box_fc", "H", "vPos", "true"), norm(enc+"visn_fc.box_layer_norm", "H", "true")),
		Stacks: []Stack{
			{Name: "language", Prefix: enc + "layer.{l}.", Layers: "lL", Tensors: cat(lxmertAttn("attention.", "self."), lxmertFFN("intermediate", "output"))},
			{Name: "relationship", Prefix: enc + "r_layers.{l}.", Layers: "rL", Tensors: cat(lxmertAttn("attention.", "self."), lxmertFFN("intermediate", "output"))},
			{Name: "cross-modality", Prefix: enc + "x_layers.{l}.", Layers: "xL", Tensors: cat(lxmertAttn("visual_attention.", "att."),
				lxmertAttn("lang_self_att.", "self."), lxmertAttn("visn_self_att.", "self."),
				lxmertFFN("lang_inter", "lang_output"), lxmertFFN("visn_inter", "visn_output"))}},
		Final: linear(pre+"pooler.dense", "H", "H", "true"),
		Embed: pre + "embeddings.word_embeddings.weight", Head: bertHeadName,
		Tasks: []Task{{Suffix: TaskBase, Prefix: "-"},
			{Suffix: TaskPreTrain, HeadName: bertHeadName, Head: cat(bertHead("H"),
				linear("cls.seq_relationship", "2", "H", "true"), // built whatever task_matched
				when("tObj", linear("obj_predict_head.transform.dense", "H", "H", "true"), norm("obj_predict_head.transform.LayerNorm", "H", "true"),
					when("lObj", linear("obj_predict_head.decoder_dict.obj", "nObj", "H", "true")),
					when("lAttr", linear("obj_predict_head.decoder_dict.attr", "nAttr", "H", "true")),
					when("lFeat", linear("obj_predict_head.decoder_dict.feat", "vF", "H", "true"))),
				when("tQA", answer))},
			{Suffix: TaskQA, Head: answer}},
	}
}

var _ = register(lxmert)
