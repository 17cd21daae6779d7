package spec

import "fmt"

// Vision models: plain vision transformers (ViT and DINOv2 — a patch
// embedding with a CLS token and learned positions, BERT-named attention,
// a final layernorm — with their base model, image classifier and (ViT)
// masked image modeling classes; DeiT's distillation token, ViT-MSN,
// ViT-MAE, I-JEPA, DINOv2 with registers, BEiT and Data2Vec-Vision, YOLOS) and
// hierarchical ones (Swin and its Donut and MaskFormer copies, ConvNeXt
// v1 and v2: stages that widen, backbones).

// vitDefs are a ViT config's fields with the class's defaults.
func vitDefs(h, l, heads, patch, image string) []Def {
	return cat(trunkAt("=0", "hidden_size="+h, "num_hidden_layers="+l, "encoder layers")[1:], []Def{
		encHeads("num_attention_heads", heads),
		{Sym: "P", Field: "patch_size", Default: patch, Legend: "P", Desc: "patch side, pixels", Show: true, Pos: true},
		{Sym: "S", Field: "image_size", Default: image, Desc: "image side, pixels", Pos: true},
		channels("Ch", "num_channels"),
		derived("N", "(S/P)*(S/P)"),
		flag("qkv_bias", "qkv_bias", "true", "query, key and value have biases"),
		derived("mask", "false"), derived("pool", "false"),
	})
}

// vitTokens are the tokens a ViT's embeddings put before the patches.
type vitTokens struct {
	CLS       bool // the class token (I-JEPA has none)
	Distill   bool // DeiT's distillation token, after it
	Registers bool // DINOv2's register tokens (num_register_tokens: R), without positions
}

// vitEmbeddings are a ViT's embeddings under pre: its tokens, the mask
// token where mask holds (its shape maskShape), the patch projection and
// the positions of the N patches and the class and distillation tokens.
func vitEmbeddings(pre string, tok vitTokens, maskShape ...string) []T {
	var out []T
	pos := "N"
	if tok.CLS {
		pos += "+1"
		out = append(out, T{Name: pre + "cls_token", Shape: []string{"1", "1", "H"}, Role: RoleNorm})
	}
	if tok.Distill {
		pos += "+1"
		out = append(out, T{Name: pre + "distillation_token", Shape: []string{"1", "1", "H"}, Role: RoleNorm})
	}
	if tok.Registers {
		out = append(out, T{Name: pre + "register_tokens", Shape: []string{"1", "R", "H"}, Role: RoleNorm})
	}
	return append(out,
		T{Name: pre + "mask_token", Shape: maskShape, Role: RoleNorm, If: "mask"},
		T{Name: pre + "patch_embeddings.projection.weight", Shape: []string{"H", "Ch", "P", "P"}, Role: RoleLinear},
		T{Name: pre + "patch_embeddings.projection.bias", Shape: []string{"H"}, Role: RoleBias},
		T{Name: pre + "position_embeddings", Shape: []string{"1", pos, "H"}, Role: RoleEmbedding})
}

// vitAttention is the ViT attention under the layer: attention.attention.
// {query,key,value} and attention.output.dense.
var vitAttention = cat(linear("attention.attention.query", "H", "H", "qkv_bias"), linear("attention.attention.key", "H", "H", "qkv_bias"),
	linear("attention.attention.value", "H", "H", "qkv_bias"), linear("attention.output.dense", "H", "H", "true"))

// vitOpts say how a ViT-like family differs from ViT.
type vitOpts struct {
	Name, Class, MT string
	Base            string    // the base model's prefix in the task classes: "vit."
	Tokens          vitTokens // the tokens before the patches
	Pooler          bool      // the base model class has a pooler (ViT, DeiT)
	MIM             bool      // a ForMaskedImageModeling class
	Tasks           []Task    // further task classes
	Variants        [][][2]string
}

// vitFamily is a ViT: the embeddings under Base, BERT-named layers, a
// final LayerNorm, the base model's pooler where it has one; its tasks
// are the base model, the image classifier, masked image modeling where
// MIM, and the further tasks.
func vitFamily(o vitOpts) *Family {
	tasks := []Task{
		{Suffix: TaskBase, Prefix: "-", Defs: []Def{derived("pool", fmt.Sprint(o.Pooler))}},
		{Suffix: "ForImageClassification", Head: classifier("classifier", "H"), Labels: true},
	}
	if o.MIM {
		tasks = append(tasks, Task{Suffix: "ForMaskedImageModeling", Defs: []Def{derived("mask", "true")}, Head: conv("decoder.0", "stride*stride*Ch", "H", "1", "1")})
	}
	base := o.Base
	return &Family{Name: o.Name, Class: o.Class, ModelTypes: []string{o.MT}, Causal: "-", SeqCls: "-",
		Defs: cat(vitDefs("768", "12", "12", "16", "224"), []Def{inner("intermediate_size", "3072"),
			{Sym: "PO", Field: "pooler_output_size", Default: "H", Null: "H", Desc: "pooler width", Pos: true},
			{Sym: "stride", Field: "encoder_stride", Default: "16", Desc: "the masked-image decoder's upsampling", Pos: true}}),
		Global: vitEmbeddings(base+"embeddings.", o.Tokens, "1", "1", "H"),
		Stacks: []Stack{{Prefix: base + "encoder.layer.{l}.", Layers: "L", Tensors: cat(vitAttention,
			linear("intermediate.dense", "I", "H", "true"), linear("output.dense", "H", "I", "true"),
			norm("layernorm_before", "H", "true"), norm("layernorm_after", "H", "true"))}},
		Final:    cat(norm(base+"layernorm", "H", "true"), when("pool", linear(base+"pooler.dense", "PO", "H", "true"))),
		Embed:    base + "embeddings.patch_embeddings.projection.weight",
		Tasks:    append(tasks, o.Tasks...),
		Variants: o.Variants,
	}
}

var _ = register(
	func() *Family {
		return vitFamily(vitOpts{Name: "ViT", Class: "ViT", MT: "vit", Base: "vit.", Tokens: vitTokens{CLS: true}, Pooler: true, MIM: true})
	},
	// DeiT: ViT with a distillation token; its teacher-distilled
	// classifier has a head on each token.
	func() *Family {
		return vitFamily(vitOpts{Name: "DeiT", Class: "DeiT", MT: "deit", Base: "deit.", Tokens: vitTokens{CLS: true, Distill: true}, Pooler: true, MIM: true,
			Tasks: []Task{{Suffix: "ForImageClassificationWithTeacher",
				Head: cat(classifier("cls_classifier", "H"), classifier("distillation_classifier", "H")), Labels: true}}})
	},
	// ViT-MSN: ViT's layout under vit., without a pooler. 5.x's
	// classifier saves the encoder's layers without the vit. prefix.
	func() *Family {
		return vitFamily(vitOpts{Name: "ViT-MSN", Class: "ViTMSN", MT: "vit_msn", Base: "vit.", Tokens: vitTokens{CLS: true},
			Variants: [][][2]string{{{"vit.encoder.", "encoder."}}}})
	},
	// ViT-MAE: ViT under vit. without a pooler; its pre-training class
	// adds the masked autoencoder's decoder.
	func() *Family {
		return vitFamily(vitOpts{Name: "ViT-MAE", Class: "ViTMAE", MT: "vit_mae", Base: "vit.", Tokens: vitTokens{CLS: true},
			Tasks: []Task{maeDecoder}})
	},
	// I-JEPA: no class token, positions of the patches only.
	func() *Family {
		return vitFamily(vitOpts{Name: "I-JEPA", Class: "IJepa", MT: "ijepa", Base: "ijepa.", Tokens: vitTokens{}})
	},
	func() *Family { return dinov2Family("DINOv2", "Dinov2", "dinov2", "dinov2.", "14", false) },
	// DINOv2 with registers: register tokens after the CLS token.
	func() *Family {
		return dinov2Family("DINOv2 with registers", "Dinov2WithRegisters", "dinov2_with_registers", "dinov2_with_registers.", "16", true)
	},
)

// swinFamily is a Swin Transformer family: swinEncoder under base ("swin."),
// its final LayerNorm where final holds (Donut's encoder has none; a
// backbone neither), a mask token for masked image modeling, and the
// tasks given.
func swinFamily(name, class string, types []string, base string, final bool, tasks ...Task) *Family {
	enc := swinEncoder(name, base, "", false)
	defs := enc.Defs
	return &Family{Name: name, Class: class, ModelTypes: types, Causal: "-", SeqCls: "-",
		Defs: cat(defs, swinOutDefs(""), []Def{
			derived("mask", "false"), derived("fin", fmt.Sprint(final)),
			{Sym: "stride", Field: "encoder_stride", Default: "32", Desc: "the masked-image decoder's upsampling", Pos: true},
		}),
		Global: cat(enc.Global, []T{{Name: base + "embeddings.mask_token", Shape: []string{"1", "1", "eE"}, Role: RoleNorm, If: "mask"}}),
		Stacks: enc.Stacks,
		Final:  when("fin", norm(base+"layernorm", "eH", "true")),
		Embed:  base + "embeddings.patch_embeddings.projection.weight",
		Tasks:  tasks,
	}
}

// swinMIM is the masked-image-modeling head: a 1×1 convolution to
// stride²·channels, pixel-shuffled.
var swinMIM = Task{Suffix: "ForMaskedImageModeling", Defs: []Def{derived("mask", "true")},
	Head: conv("decoder.0", "stride*stride*eC", "eMimH", "1", "1")}

var _ = register(
	func() *Family {
		return swinFamily("Swin", "Swin", []string{"swin"}, "swin.", true,
			Task{Suffix: TaskBase, Prefix: "-"},
			Task{Suffix: "ForImageClassification", Head: classifier("classifier", "eH"), Labels: true},
			swinMIM,
			// 5.x's SwinBackbone holds a SwinModel as swin., whose final
			// norm it saves (and ignores on load); 4.x's has none.
			Task{Suffix: "Backbone", Prefix: "-", Defs: []Def{derived("fin", "false")},
				Head: cat(swinOutNorms("", false), when("tf5", norm("swin.layernorm", "eH", "true")))})
	},
	func() *Family {
		return swinFamily("Donut-Swin", "DonutSwin", []string{"donut-swin"}, "donut.", false,
			Task{Suffix: TaskBase, Prefix: "-"},
			Task{Suffix: "ForImageClassification", Head: classifier("classifier", "eH"), Labels: true})
	},
	// MaskFormer's Swin: its backbone keeps the model whole under
	// "model." and norms every stage's output.
	func() *Family {
		return swinFamily("MaskFormer-Swin", "MaskFormerSwin", []string{"maskformer-swin"}, "model.", true,
			Task{Suffix: TaskBase, Prefix: "-"},
			Task{Suffix: "Backbone", Head: swinOutNorms("", true)})
	},
)

// convNextFamily is a ConvNeXt (v2: a GRN in place of the layer scale):
// a patchifying convolution and LayerNorm, num_stages stages of
// depths[l] blocks hidden_sizes[l] wide (a depthwise 7×7 convolution, a
// LayerNorm, an inverted bottleneck of 4×), each stage after the first
// entered by a LayerNorm and a 2×2 stride-2 convolution; a final
// LayerNorm (not in the backbone, which norms the stages it outputs).
func convNextFamily(name, class, mt, base string, v2 bool) *Family {
	w := "at(hs, l)"
	block := cat(conv("dwconv", w, "1", "7", "7"), norm("layernorm", w, "true"),
		renameSyms(cat(linear("pwconv1", "O", "N", "true"), linear("pwconv2", "N", "O", "true")), "O", "4*"+w, "N", w))
	if v2 {
		block = cat(block, []T{{Name: "grn.weight", Shape: []string{"1", "1", "1", "4*" + w}, Role: RoleNorm},
			{Name: "grn.bias", Shape: []string{"1", "1", "1", "4*" + w}, Role: RoleNorm}})
	} else {
		block = cat(block, []T{{Name: "layer_scale_parameter", Shape: []string{w}, Role: RoleNorm, If: "ls > 0"}})
	}
	for i := range block {
		block[i].Name = "layers.{e}." + block[i].Name
		block[i].Experts, block[i].PerCopy = "at(dp, l)", true
	}
	stage := cat(when("l > 0", norm("downsampling_layer.0", "at(hs, l-1)", "true"), conv("downsampling_layer.1", w, "at(hs, l-1)", "2", "2")), block)
	return &Family{Name: name, Class: class, ModelTypes: []string{mt}, Causal: "-", SeqCls: "-",
		Defs: []Def{
			{Sym: "nS", Field: "num_stages", Default: "4", Legend: "stages", Desc: "stages", Show: true, Pos: true, Max: 16},
			listOf("hs", "hidden_sizes", "list(96, 192, 384, 768)", "each stage's width"),
			listOf("dp", "depths", "list(3, 3, 9, 3)", "each stage's blocks"),
			{Sym: "P", Field: "patch_size", Default: "4", Legend: "P", Desc: "patch side, pixels", Show: true, Pos: true},
			channels("Ch", "num_channels"),
			{Sym: "ls", Field: "layer_scale_init_value", Type: Sign, Default: "1", Desc: "a layer scale per block where positive"},
			listOf("eOut", "out_indices", "list(nS)", "the stages a backbone outputs"),
			derived("H", "at(hs, nS-1)"), derived("fin", "true"),
		},
		Global: cat(conv(base+"embeddings.patch_embeddings", "at(hs, 0)", "Ch", "P", "P"), norm(base+"embeddings.layernorm", "at(hs, 0)", "true")),
		Stacks: []Stack{{Name: "stage", Prefix: base + "encoder.stages.{l}.", Layers: "nS", Tensors: stage}},
		Final:  when("fin", norm(base+"layernorm", "H", "true")),
		Embed:  base + "embeddings.patch_embeddings.weight",
		Tasks: []Task{
			{Suffix: TaskBase, Prefix: "-"},
			{Suffix: "ForImageClassification", Head: classifier("classifier", "H"), Labels: true},
			{Suffix: "Backbone", Prefix: "-", Defs: []Def{derived("fin", "false")}, Head: backboneNorms("", "eOut", "at(hs, 0)", "at(hs, e-1)", "nS")},
		},
	}
}

var _ = register(
	func() *Family { return convNextFamily("ConvNeXt", "ConvNext", "convnext", "convnext.", false) },
	func() *Family { return convNextFamily("ConvNeXt V2", "ConvNextV2", "convnextv2", "convnextv2.", true) },
)

// dinov2Family is a DINOv2: layer scales, an MLP of hidden_size·mlp_ratio
// (or a SwiGLU of two thirds of it, rounded up to 8), a mask token
// always, register tokens where registers, and a classifier on the CLS
// token and the mean patch token (2H); patch is the class's patch side.
func dinov2Family(name, class, mt, base, patch string, registers bool) *Family {
	defs := cat(vitDefs("768", "12", "12", patch, "224"), []Def{
		{Sym: "ratio", Field: "mlp_ratio", Type: Milli, Default: "4000", Desc: "FFN width over hidden_size (×1000)"},
		flag("swiglu", "use_swiglu_ffn", "false", "a SwiGLU FFN"),
		derived("I", "H*ratio/1000"),
		derived("Isw", "((I*2/3) + 7) / 8 * 8"),
	})
	if registers {
		defs = append(defs, Def{Sym: "R", Field: "num_register_tokens", Default: "4", Desc: "register tokens", Pos: true})
		defs = replaceDef(defs, derived("mask", "true"))
	} else {
		// DINOv2 builds its mask token where use_mask_token (with
		// registers, always).
		defs = replaceDef(defs, flag("mask", "use_mask_token", "true", "a mask token"))
	}
	return &Family{Name: name, Class: class, ModelTypes: []string{mt}, Causal: "-", SeqCls: "-",
		Defs:   defs,
		Global: vitEmbeddings(base+"embeddings.", vitTokens{CLS: true, Registers: registers}, "1", "H"),
		Stacks: []Stack{{Prefix: base + "encoder.layer.{l}.", Layers: "L", Tensors: cat(vitAttention,
			vec("layer_scale1.lambda1", "H"), vec("layer_scale2.lambda1", "H"),
			when("!swiglu", linear("mlp.fc1", "I", "H", "true"), linear("mlp.fc2", "H", "I", "true")),
			when("swiglu", linear("mlp.weights_in", "2*Isw", "H", "true"), linear("mlp.weights_out", "H", "Isw", "true")),
			norm("norm1", "H", "true"), norm("norm2", "H", "true"))}},
		Final: norm(base+"layernorm", "H", "true"),
		Embed: base + "embeddings.patch_embeddings.projection.weight",
		Tasks: []Task{
			{Suffix: TaskBase, Prefix: "-"},
			{Suffix: "Backbone", Prefix: "-"},
			{Suffix: "ForImageClassification", Head: classifier("classifier", "2*H"), Labels: true},
		},
	}
}

// beitFamily is a BEiT (and Data2Vec-Vision, its copy): a ViT whose key
// has no bias, with switches for the mask token, absolute positions, a
// relative position table per layer or one shared, layer scales
// (lambda_1/2 where layer_scale_init_value > 0) and mean pooling (a
// pooler LayerNorm instead of the final one); its backbone adds the FPN
// of add_fpn. basePool: the base model class has the pooler (BEiT's, not
// Data2Vec-Vision's).
func beitFamily(name, class, mt, base string, basePool, renamed5 bool) *Family {
	head := uperBEiT
	head.Maps, head.AuxN, head.Ch = "4", "tf5 ? max(aN, 0) : (aN == 0 ? 0 : max(aN, 1))", func(string) string { return "H" }
	seg := head.build()
	if renamed5 {
		head5 := uperBEiT5
		head5.Maps, head5.AuxN, head5.Ch = head.Maps, head.AuxN, head.Ch
		seg = cat(when("!tf5", seg), when("tf5", head5.build()))
	}
	rel := func(name string) T {
		return T{Name: name + ".relative_position_bias_table", Shape: []string{"(2*(S/P)-1)*(2*(S/P)-1)+3", "heads"}, Role: RoleEmbedding}
	}
	return &Family{Name: name, Class: class, ModelTypes: []string{mt}, Causal: "-", SeqCls: "-",
		Defs: cat(trunkAt("=0", "hidden_size=768", "num_hidden_layers=12", "encoder layers")[1:], []Def{
			encHeads("num_attention_heads", "12"), inner("intermediate_size", "3072"),
			{Sym: "P", Field: "patch_size", Default: "16", Legend: "P", Desc: "patch side, pixels", Show: true, Pos: true},
			{Sym: "S", Field: "image_size", Default: "224", Desc: "image side, pixels", Pos: true},
			channels("Ch", "num_channels"),
			derived("N", "(S/P)*(S/P)"),
			flag("maskTok", "use_mask_token", "false", "a mask token"),
			flag("absPos", "use_absolute_position_embeddings", "false", "learned absolute positions"),
			flag("relPos", "use_relative_position_bias", "false", "a relative position table per layer"),
			flag("shRel", "use_shared_relative_position_bias", "false", "one relative position table for all layers"),
			{Sym: "ls", Field: "layer_scale_init_value", Type: Sign, Default: "1", Desc: "layer scales where positive"},
			flag("meanPool", "use_mean_pooling", "true", "mean pooling (a pooler LayerNorm, no final one)"),
			flag("fpn", "add_fpn", "false", "the backbone's feature pyramid"),
			derived("pool", "false"), derived("fin", "true"),
		}),
		Global: cat([]T{{Name: base + "embeddings.cls_token", Shape: []string{"1", "1", "H"}, Role: RoleNorm},
			{Name: base + "embeddings.mask_token", Shape: []string{"1", "1", "H"}, Role: RoleNorm, If: "maskTok"}},
			conv(base+"embeddings.patch_embeddings.projection", "H", "Ch", "P", "P"),
			[]T{{Name: base + "embeddings.position_embeddings", Shape: []string{"1", "N+1", "H"}, Role: RoleEmbedding, If: "absPos"}},
			when("shRel", []T{rel(base + "encoder.relative_position_bias")})),
		Stacks: []Stack{{Prefix: base + "encoder.layer.{l}.", Layers: "L", Tensors: cat(
			linear("attention.attention.query", "H", "H", "true"), linear("attention.attention.key", "H", "H", ""),
			linear("attention.attention.value", "H", "H", "true"), linear("attention.output.dense", "H", "H", "true"),
			when("relPos", []T{rel("attention.attention.relative_position_bias")}),
			linear("intermediate.dense", "I", "H", "true"), linear("output.dense", "H", "I", "true"),
			norm("layernorm_before", "H", "true"), norm("layernorm_after", "H", "true"),
			when("ls > 0", vec("lambda_1", "H"), vec("lambda_2", "H")))}},
		Final: cat(when("fin && !meanPool", norm(base+"layernorm", "H", "true")),
			when("pool && meanPool", norm(base+"pooler.layernorm", "H", "true"))),
		Embed: base + "embeddings.patch_embeddings.projection.weight",
		Tasks: []Task{
			{Suffix: TaskBase, Prefix: "-", Defs: []Def{derived("pool", fmt.Sprint(basePool))}},
			{Suffix: "ForImageClassification", Defs: []Def{derived("pool", "true")}, Head: classifier("classifier", "H"), Labels: true},
			// The FPN on four hidden states (out_indices), UperNet's
			// heads on it.
			{Suffix: "ForSemanticSegmentation", Labels: true, Defs: cat([]Def{
				listOf("ps", "pool_scales", "list(1, 2, 3, 6)", "the pyramid pooling scales"),
			}, replaceDef(uperAuxDefs("H"), derived("aIn", "H"))), Head: cat(
				convT("fpn1.0", "H", "H", "2"), batchNorm("fpn1.1", "H"), convT("fpn1.3", "H", "H", "2"), convT("fpn2.0", "H", "H", "2"),
				seg)},
			// 5.x's backbone holds the model as beit. and saves its
			// final norm (where no mean pooling) and shared table
			// under it (a variant), the rest without.
			{Suffix: "Backbone", Prefix: "-", Defs: []Def{derived("fin", "false")}, Head: cat(when("fpn",
				convT("fpn1.0", "H", "H", "2"), batchNorm3d("fpn1.1", "H"), convT("fpn1.3", "H", "H", "2"), convT("fpn2.0", "H", "H", "2")),
				when("tf5 && !meanPool", norm(base+"layernorm", "H", "true")))},
		},
		// Written as the family's names, which a base-model class
		// strips of base: the backbone's "encoder.…" becomes base+"encoder.…".
		Variants: [][][2]string{{{base + "encoder.relative_position_bias.", base + base + "encoder.relative_position_bias."}}},
	}
}

// convT is a biased 2-D transposed convolution [in, out, k, k].
func convT(name, in, out, k string) []T {
	return []T{{Name: name + ".weight", Shape: []string{in, out, k, k}, Role: RoleLinear}, {Name: name + ".bias", Shape: []string{out}, Role: RoleBias}}
}

var _ = register(
	func() *Family { return beitFamily("BEiT", "Beit", "beit", "beit.", true, false) },
	func() *Family {
		return beitFamily("Data2Vec-Vision", "Data2VecVision", "data2vec-vision", "data2vec_vision.", false, true)
	},
)

// yolosFamily is YOLOS: a ViT under vit. with detection tokens after the
// patches (their positions too), an image of [height, width], mid-layer
// position embeddings for every layer but the first where
// use_mid_position_embeddings, and DETR's two 3-layer MLP heads (classes
// and a no-object class, boxes).
func yolosFamily() *Family {
	pos := "1+N+D"
	mlp := func(pre, out string) []T {
		return cat(linear(pre+".layers.0", "H", "H", "true"), linear(pre+".layers.1", "H", "H", "true"), linear(pre+".layers.2", out, "H", "true"))
	}
	return &Family{Name: "YOLOS", Class: "Yolos", ModelTypes: []string{"yolos"}, Causal: "-", SeqCls: "-",
		Defs: cat(trunkAt("=0", "hidden_size=768", "num_hidden_layers=12", "encoder layers")[1:], []Def{
			encHeads("num_attention_heads", "12"), inner("intermediate_size", "3072"),
			{Sym: "P", Field: "patch_size", Default: "16", Legend: "P", Desc: "patch side, pixels", Show: true, Pos: true},
			{Sym: "Sl", Field: "image_size", Type: IntOrList, Default: "list(512, 864)", Desc: "image [height, width], or its side"},
			derived("Sh", "pick(Sl, 0)"), derived("Sw", "pick(Sl, 1)"),
			channels("Ch", "num_channels"),
			derived("N", "(Sh/P)*(Sw/P)"),
			{Sym: "D", Field: "num_detection_tokens", Default: "100", Legend: "D", Desc: "detection tokens", Show: true, Pos: true},
			flag("qkv_bias", "qkv_bias", "true", "query, key and value have biases"),
			flag("mid", "use_mid_position_embeddings", "true", "position embeddings before every layer"),
			derived("pool", "false"),
		}),
		Global: cat([]T{{Name: "vit.embeddings.cls_token", Shape: []string{"1", "1", "H"}, Role: RoleNorm},
			{Name: "vit.embeddings.detection_tokens", Shape: []string{"1", "D", "H"}, Role: RoleNorm}},
			conv("vit.embeddings.patch_embeddings.projection", "H", "Ch", "P", "P"),
			[]T{{Name: "vit.embeddings.position_embeddings", Shape: []string{"1", pos, "H"}, Role: RoleEmbedding},
				{Name: "vit.encoder.mid_position_embeddings", Shape: []string{"L-1", "1", pos, "H"}, Role: RoleEmbedding, If: "mid && L > 1"}}),
		Stacks: []Stack{{Prefix: "vit.encoder.layer.{l}.", Layers: "L", Tensors: cat(vitAttention,
			linear("intermediate.dense", "I", "H", "true"), linear("output.dense", "H", "I", "true"),
			norm("layernorm_before", "H", "true"), norm("layernorm_after", "H", "true"))}},
		Final: cat(norm("vit.layernorm", "H", "true"), when("pool", linear("vit.pooler.dense", "H", "H", "true"))),
		Embed: "vit.embeddings.patch_embeddings.projection.weight",
		Tasks: []Task{
			{Suffix: TaskBase, Prefix: "-", Defs: []Def{derived("pool", "true")}},
			{Suffix: "ForObjectDetection", Head: cat(mlp("class_labels_classifier", "C+1"), mlp("bbox_predictor", "4")), Labels: true},
		},
	}
}

var _ = register(yolosFamily)

// maeDecoder is ViTMAEForPreTraining's decoder: an embedding to its own
// width, a mask token and positions, decoder_num_hidden_layers ViT
// layers, a norm and the pixel prediction (patch²·channels).
var maeDecoder = Task{Suffix: "ForPreTraining",
	Defs: []Def{
		{Sym: "dH", Field: "decoder_hidden_size", Default: "512", Legend: "dH", Desc: "decoder width", Show: true, Pos: true},
		{Sym: "dL", Field: "decoder_num_hidden_layers", Default: "8", Legend: "dL", Desc: "decoder layers", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "dI", Field: "decoder_intermediate_size", Default: "2048", Desc: "decoder FFN inner width", Pos: true},
	},
	Head: cat(linear("decoder.decoder_embed", "dH", "H", "true"),
		[]T{{Name: "decoder.mask_token", Shape: []string{"1", "1", "dH"}, Role: RoleNorm},
			{Name: "decoder.decoder_pos_embed", Shape: []string{"1", "N+1", "dH"}, Role: RoleEmbedding}},
		perBlock("dL", renameSyms(prefixed("decoder.decoder_layers.{e}.", cat(vitAttention,
			linear("intermediate.dense", "I", "H", "true"), linear("output.dense", "H", "I", "true"),
			norm("layernorm_before", "H", "true"), norm("layernorm_after", "H", "true"))), "H", "dH", "I", "dI", "qkv_bias", "qkv_bias")),
		norm("decoder.decoder_norm", "dH", "true"), linear("decoder.decoder_pred", "P*P*Ch", "dH", "true")),
}

// prefixed returns ts with pre before each name.
func prefixed(pre string, ts []T) []T {
	out := append([]T(nil), ts...)
	for i := range out {
		out[i].Name = pre + out[i].Name
	}
	return out
}
