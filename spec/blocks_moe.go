package spec

// Shared blocks of mixture-of-experts layers: expert counts, routers,
// expert MLPs (one per expert or stacked).

// experts is the routed-expert count field, with the expert FFN width.
func experts(field, def, imField, imDef, topkField, topkDef string) []Def {
	return []Def{
		{Sym: "E", Field: field, Default: def, Legend: "E", Desc: "experts per sparse block, {topk} active per token", Show: true, Max: MaxExperts},
		{Sym: "Im", Field: imField, Default: imDef, Legend: "Im", Desc: "expert FFN inner width", Show: true, Pos: true},
		{Sym: "topk", Field: topkField, Default: topkDef, Desc: "experts active per token"},
	}
}

// expertsI is experts whose width is intermediate_size (Mixtral, OLMoE).
func expertsI(field, def, topkField, topkDef string) []Def {
	return []Def{
		{Sym: "E", Field: field, Default: def, Legend: "E", Desc: "experts per block, {topk} active per token", Show: true, Max: MaxExperts},
		derived("Im", "I"),
		{Sym: "topk", Field: topkField, Default: topkDef, Desc: "experts active per token"},
	}
}

// stackedExperts are experts stored as one tensor each of [E, out, in]:
// a fused gate-up of 2·Im and a down projection.
func stackedExperts(gateUp, down string) []T {
	return []T{{Name: gateUp, Shape: []string{"E", "2*Im", "H"}, Role: RoleLinear}, {Name: down, Shape: []string{"E", "H", "Im"}, Role: RoleLinear}}
}

// router is an MoE router [E, H].
func router(name string) []T {
	return []T{{Name: name, Shape: []string{"E", "H"}, Role: RoleRouter}}
}

// expertMLPs are E gated MLPs of width Im: pre+"{e}."+gate/up/down.
func expertMLPs(pre, gate, up, down string) []T {
	return []T{
		{Name: pre + "{e}." + gate + ".weight", Shape: []string{"Im", "H"}, Role: RoleLinear, Experts: "E"},
		{Name: pre + "{e}." + up + ".weight", Shape: []string{"Im", "H"}, Role: RoleLinear, Experts: "E"},
		{Name: pre + "{e}." + down + ".weight", Shape: []string{"H", "Im"}, Role: RoleLinear, Experts: "E"},
	}
}

// Layer patterns.
var (
	// qwenMoE: sparse unless listed in mlp_only_layers, every step-th.
	qwenMoE = []Kind{{Name: "sparse", If: "E > 0 && !in(l, mlp_only) && (l+1) % step == 0"}, {Name: "dense"}}
	// denseFirst: the first k layers dense, then every freq-th sparse.
	denseFirst = []Kind{{Name: "sparse", If: "E > 0 && l >= first_dense && l % moe_freq == 0"}, {Name: "dense"}}
)

// expertBiases are the biases [Im] and [H] of E expert MLPs of
// expertMLPs' names, where cond holds (DeepSeek-V2's mlp_bias).
//
// transformers 5.x fuses the experts into one module without biases: a
// checkpoint it writes has none, whatever mlp_bias says.
func expertBiases(pre, gate, up, down, cond string) []T {
	cond = "(" + cond + ") && !tf5"
	return []T{
		{Name: pre + "{e}." + gate + ".bias", Shape: []string{"Im"}, Role: RoleBias, Experts: "E", If: cond},
		{Name: pre + "{e}." + up + ".bias", Shape: []string{"Im"}, Role: RoleBias, Experts: "E", If: cond},
		{Name: pre + "{e}." + down + ".bias", Shape: []string{"H"}, Role: RoleBias, Experts: "E", If: cond},
	}
}

// gatedMLPBiases are the biases of gatedMLP(pre, I, …) alone.
func gatedMLPBiases(pre, I string) []T {
	return []T{{Name: pre + "gate_proj.bias", Shape: []string{I}, Role: RoleBias},
		{Name: pre + "up_proj.bias", Shape: []string{I}, Role: RoleBias}, {Name: pre + "down_proj.bias", Shape: []string{"H"}, Role: RoleBias}}
}
