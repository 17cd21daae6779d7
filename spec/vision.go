package spec

import "fmt"

// Vision models: plain vision transformers (ViT and DINOv2 — a patch
// embedding with a CLS token and learned positions, BERT-named attention,
// a final layernorm — with their base model, image classifier and (ViT)
// masked image modeling classes) and hierarchical ones (Swin and its
// Donut and MaskFormer copies: stages that widen, backbones).

// vitDefs are a ViT config's fields with the class's defaults.
func vitDefs(h, l, heads, patch, image string) []Def {
	return cat(trunkAt("=0", "hidden_size="+h, "num_hidden_layers="+l, "encoder layers")[1:], []Def{
		encHeads("num_attention_heads", heads),
		{Sym: "P", Field: "patch_size", Default: patch, Legend: "P", Desc: "patch side, pixels", Show: true, Pos: true},
		{Sym: "S", Field: "image_size", Default: image, Desc: "image side, pixels", Pos: true},
		{Sym: "Ch", Field: "num_channels", Default: "3", Desc: "image channels", Pos: true},
		derived("N", "(S/P)*(S/P)"),
		flag("qkv_bias", "qkv_bias", "true", "query, key and value have biases"),
		derived("mask", "false"), derived("pool", "false"),
	})
}

// patchEmbeddings are a ViT's embeddings under pre: the CLS token, the
// mask token where mask holds (its shape maskShape), the patch projection
// and the positions of N patches and the CLS token.
func patchEmbeddings(pre string, maskShape ...string) []T {
	return []T{
		{Name: pre + "cls_token", Shape: []string{"1", "1", "H"}, Role: RoleNorm},
		{Name: pre + "mask_token", Shape: maskShape, Role: RoleNorm, If: "mask"},
		{Name: pre + "patch_embeddings.projection.weight", Shape: []string{"H", "Ch", "P", "P"}, Role: RoleLinear},
		{Name: pre + "patch_embeddings.projection.bias", Shape: []string{"H"}, Role: RoleBias},
		{Name: pre + "position_embeddings", Shape: []string{"1", "N+1", "H"}, Role: RoleEmbedding},
	}
}

// vitAttention is the ViT attention under the layer: attention.attention.
// {query,key,value} and attention.output.dense.
var vitAttention = cat(linear("attention.attention.query", "H", "H", "qkv_bias"), linear("attention.attention.key", "H", "H", "qkv_bias"),
	linear("attention.attention.value", "H", "H", "qkv_bias"), linear("attention.output.dense", "H", "H", "true"))

var _ = register(
	&Family{Name: "ViT", Class: "ViT", ModelTypes: []string{"vit"}, Causal: "-", SeqCls: "-",
		Defs: cat(vitDefs("768", "12", "12", "16", "224"), []Def{inner("intermediate_size", "3072"),
			{Sym: "PO", Field: "pooler_output_size", Default: "H", Null: "H", Desc: "pooler width", Pos: true},
			{Sym: "stride", Field: "encoder_stride", Default: "16", Desc: "the masked-image decoder's upsampling", Pos: true}}),
		Global: patchEmbeddings("vit.embeddings.", "1", "1", "H"),
		Stacks: []Stack{{Prefix: "vit.encoder.layer.{l}.", Layers: "L", Tensors: cat(vitAttention,
			linear("intermediate.dense", "I", "H", "true"), linear("output.dense", "H", "I", "true"),
			norm("layernorm_before", "H", "true"), norm("layernorm_after", "H", "true"))}},
		Final: cat(norm("vit.layernorm", "H", "true"), when("pool", linear("vit.pooler.dense", "PO", "H", "true"))),
		Embed: "vit.embeddings.patch_embeddings.projection.weight",
		Tasks: []Task{
			{Suffix: TaskBase, Prefix: "-", Defs: []Def{derived("pool", "true")}},
			{Suffix: "ForImageClassification", Head: classifier("classifier", "H"), Labels: true},
			{Suffix: "ForMaskedImageModeling", Defs: []Def{derived("mask", "true")}, Head: []T{
				{Name: "decoder.0.weight", Shape: []string{"stride*stride*Ch", "H", "1", "1"}, Role: RoleLinear},
				{Name: "decoder.0.bias", Shape: []string{"stride*stride*Ch"}, Role: RoleBias}}},
		},
	},
	// DINOv2: layer scales, an MLP of hidden_size·mlp_ratio (or a SwiGLU
	// of two thirds of it, rounded up to 8), a mask token always, and a
	// classifier on the CLS token and the mean patch token (2H).
	&Family{Name: "DINOv2", Class: "Dinov2", ModelTypes: []string{"dinov2"}, Causal: "-", SeqCls: "-",
		Defs: cat(vitDefs("768", "12", "12", "14", "224"), []Def{
			{Sym: "ratio", Field: "mlp_ratio", Type: Milli, Default: "4000", Desc: "FFN width over hidden_size (×1000)"},
			flag("swiglu", "use_swiglu_ffn", "false", "a SwiGLU FFN"),
			derived("I", "H*ratio/1000"),
			derived("Isw", "((I*2/3) + 7) / 8 * 8"),
		}),
		Global: patchEmbeddings("dinov2.embeddings.", "1", "H"),
		Stacks: []Stack{{Prefix: "dinov2.encoder.layer.{l}.", Layers: "L", Tensors: cat(vitAttention,
			vec("layer_scale1.lambda1", "H"), vec("layer_scale2.lambda1", "H"),
			when("!swiglu", linear("mlp.fc1", "I", "H", "true"), linear("mlp.fc2", "H", "I", "true")),
			when("swiglu", linear("mlp.weights_in", "2*Isw", "H", "true"), linear("mlp.weights_out", "H", "Isw", "true")),
			norm("norm1", "H", "true"), norm("norm2", "H", "true"))}},
		Final: norm("dinov2.layernorm", "H", "true"),
		Embed: "dinov2.embeddings.patch_embeddings.projection.weight",
		Tasks: []Task{
			{Suffix: TaskBase, Prefix: "-", Defs: []Def{derived("mask", "true")}},
			{Suffix: "Backbone", Prefix: "-", Defs: []Def{derived("mask", "true")}},
			{Suffix: "ForImageClassification", Defs: []Def{derived("mask", "true")}, Head: classifier("classifier", "2*H"), Labels: true},
		},
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
	Head: conv("decoder.0", "stride*stride*eC", "eH", "1", "1")}

var _ = register(
	swinFamily("Swin", "Swin", []string{"swin"}, "swin.", true,
		Task{Suffix: TaskBase, Prefix: "-"},
		Task{Suffix: "ForImageClassification", Head: classifier("classifier", "eH"), Labels: true},
		swinMIM,
		// 5.x's SwinBackbone holds a SwinModel as swin., whose final
		// norm it saves (and ignores on load); 4.x's has none.
		Task{Suffix: "Backbone", Prefix: "-", Defs: []Def{derived("fin", "false")},
			Head: cat(swinOutNorms("", false), when("tf5", norm("swin.layernorm", "eH", "true")))}),
	swinFamily("Donut-Swin", "DonutSwin", []string{"donut-swin"}, "donut.", false,
		Task{Suffix: TaskBase, Prefix: "-"},
		Task{Suffix: "ForImageClassification", Head: classifier("classifier", "eH"), Labels: true}),
	// MaskFormer's Swin: its backbone keeps the model whole under
	// "model." and norms every stage's output.
	swinFamily("MaskFormer-Swin", "MaskFormerSwin", []string{"maskformer-swin"}, "model.", true,
		Task{Suffix: TaskBase, Prefix: "-"},
		Task{Suffix: "Backbone", Head: swinOutNorms("", true)}),
)
