package check

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/tensor"
)

// WrongDim is a sentence-transformers module whose config disagrees with
// the dimension the module before it outputs.
const WrongDim ProblemKind = "dimension"

// ModuleCheck is one module of a sentence-transformers repository as
// checked: the transformer module is the model's own check; Pooling's
// word_embedding_dimension is checked against the transformer's hidden
// size, Dense's tensors against its config.json and its in_features
// against the output of the module before it, Normalize's absence of
// tensors.
type ModuleCheck struct {
	Module *model.Module
	// Lines say what was checked, for the report's section.
	Lines []string
	// Problems are this module's, also in the Report's Problems.
	Problems []Problem
	// Out is the dimension the module outputs, 0 when unknown.
	Out uint64
	// Checked is false for a module of a type fsmount does not know.
	Checked bool
}

// hiddenSize is the transformer's output dimension from its config: the
// first of the fields transformers' configs name it by, 0 if none.
func hiddenSize(cfg []byte) (uint64, string) {
	var c map[string]json.RawMessage
	if json.Unmarshal(cfg, &c) != nil {
		return 0, ""
	}
	for _, k := range []string{"hidden_size", "d_model", "dim", "n_embd", "hidden_dim"} {
		var n uint64
		if raw, ok := c[k]; ok && json.Unmarshal(raw, &n) == nil && n > 0 {
			return n, k
		}
	}
	return 0, ""
}

type poolingConfig struct {
	Dim      *uint64 `json:"word_embedding_dimension"`
	CLS      bool    `json:"pooling_mode_cls_token"`
	Mean     *bool   `json:"pooling_mode_mean_tokens"` // Pooling's default: true
	Max      bool    `json:"pooling_mode_max_tokens"`
	MeanSqrt bool    `json:"pooling_mode_mean_sqrt_len_tokens"`
	Weighted bool    `json:"pooling_mode_weightedmean_tokens"`
	Last     bool    `json:"pooling_mode_lasttoken"`
}

// modes are the pooling modes set, each a copy of the token embedding's
// width in the output (sentence-transformers' pooling_mode_multiplier).
func (p *poolingConfig) modes() []string {
	var out []string
	for _, m := range []struct {
		on   bool
		name string
	}{{p.CLS, "cls"}, {p.Max, "max"}, {p.Mean == nil || *p.Mean, "mean"}, {p.MeanSqrt, "mean_sqrt_len"}, {p.Weighted, "weightedmean"}, {p.Last, "lasttoken"}} {
		if m.on {
			out = append(out, m.name)
		}
	}
	return out
}

type denseConfig struct {
	In         *uint64 `json:"in_features"`
	Out        *uint64 `json:"out_features"`
	Bias       *bool   `json:"bias"`
	Activation string  `json:"activation_function"`
}

// ModuleConfigError is a module's config.json that is missing or
// unreadable.
type ModuleConfigError struct {
	File string
	Msg  string
}

func (e *ModuleConfigError) Error() string { return e.File + ": " + e.Msg }

// checkModules checks a sentence-transformers repository's modules after
// the transformer's check, adding each module's problems to the report's.
func (r *Report) checkModules() error {
	m := r.Model
	if m.Modules == nil {
		return nil
	}
	prev, field := hiddenSize(m.Config)
	from := "the transformer's " + field
	for _, mod := range m.Modules {
		mc := ModuleCheck{Module: mod, Checked: true}
		line := func(format string, args ...any) { mc.Lines = append(mc.Lines, fmt.Sprintf(format, args...)) }
		problem := func(p Problem) { mc.Problems = append(mc.Problems, p) }
		dir := mod.Dir()
		var err error
		switch mod.Kind() {
		case model.ModuleTransformer:
			line("the model above: %s", modelSummary(r))
			mc.Out = prev
		case model.ModulePooling:
			var c poolingConfig
			if err = decodeModuleConfig(mod, &c); err != nil {
				break
			}
			if c.Dim == nil {
				err = &ModuleConfigError{mod.ConfigName, "no word_embedding_dimension"}
				break
			}
			modes := c.modes()
			line("word_embedding_dimension %d, pooling %s", *c.Dim, strings.Join(modes, " + "))
			switch {
			case prev == 0:
				line("the transformer's hidden size is not known: word_embedding_dimension not checked")
			case *c.Dim != prev:
				problem(Problem{Kind: WrongDim, Tensor: dir,
					Detail: fmt.Sprintf("%s/config.json: word_embedding_dimension %d ≠ %d, %s", dir, *c.Dim, prev, from)})
			default:
				line("✓ word_embedding_dimension %d = %s", prev, from)
			}
			// Pooling pools what the transformer outputs, whatever
			// word_embedding_dimension says: what follows is checked
			// against that.
			width, what := *c.Dim, "word_embedding_dimension"
			if prev != 0 {
				width, what = prev, "hidden size"
			}
			mc.Out = width * uint64(len(modes))
			line("outputs %d (%d × %d pooling %s)", mc.Out, width, len(modes), plural(len(modes), "mode", "modes"))
			from = fmt.Sprintf("the output of %s (%s %d × %d pooling %s)", dir, what, width, len(modes), plural(len(modes), "mode", "modes"))
			r.unexpectedIn(mod, problem)
		case model.ModuleDense:
			var c denseConfig
			if err = decodeModuleConfig(mod, &c); err != nil {
				break
			}
			if c.In == nil || c.Out == nil {
				err = &ModuleConfigError{mod.ConfigName, "no in_features or out_features"}
				break
			}
			bias := c.Bias == nil || *c.Bias // Dense's default
			line("in_features %d, out_features %d, bias %t, activation %s", *c.In, *c.Out, bias, c.Activation)
			if prev != 0 && *c.In != prev {
				problem(Problem{Kind: WrongDim, Tensor: dir + "/linear.weight",
					Detail: fmt.Sprintf("%s/linear.weight: in_features %d ≠ %d, %s", dir, *c.In, prev, from)})
			} else if prev != 0 {
				line("✓ in_features %d = %s", prev, from)
			}
			want := []NamedShape{{Name: "linear.weight", Shape: []uint64{*c.Out, *c.In}}}
			if bias {
				want = append(want, NamedShape{Name: "linear.bias", Shape: []uint64{*c.Out}})
			}
			if len(mod.Files) == 0 {
				line("no %s or %s in %s", model.SingleName, model.PyTorchName, dir)
			}
			for _, w := range want {
				i := slices.IndexFunc(mod.Tensors, func(t *tensor.Tensor) bool { return t.Name == w.Name })
				switch {
				case i < 0:
					problem(Problem{Kind: Missing, Tensor: dir + "/" + w.Name,
						Detail: fmt.Sprintf("%s/%s %s is missing (%s/config.json: bias %t)", dir, w.Name, tensor.FormatShape(w.Shape), dir, bias)})
				case !slices.Equal(mod.Tensors[i].Shape, w.Shape):
					t := mod.Tensors[i]
					problem(Problem{Kind: Misshaped, Tensor: dir + "/" + w.Name, Shape: t.Shape, HasShape: true,
						Detail: fmt.Sprintf("%s/%s is %s, %s/config.json implies %s [out_features, in_features]", dir, w.Name, tensor.FormatShape(t.Shape), dir, tensor.FormatShape(w.Shape))})
				default:
					t := mod.Tensors[i]
					line("✓ %-14s %-5s %s", w.Name, t.DType, tensor.FormatShape(t.Shape))
				}
			}
			for _, t := range mod.Tensors {
				if !slices.ContainsFunc(want, func(w NamedShape) bool { return w.Name == t.Name }) {
					problem(Problem{Kind: Unexpected, Tensor: dir + "/" + t.Name, Shape: t.Shape, HasShape: true, DType: t.DType.String(),
						Detail: fmt.Sprintf("%s/%s %s is not a tensor of Dense (linear.weight, linear.bias)", dir, t.Name, tensor.FormatShape(t.Shape))})
				}
			}
			mc.Out = *c.Out
			from = fmt.Sprintf("the output of %s (out_features %d)", dir, *c.Out)
		case model.ModuleNormalize:
			line("L2 normalization: no weights; outputs %d", prev)
			mc.Out = prev
			r.unexpectedIn(mod, problem)
		default:
			mc.Checked = false
			line("not checked: %s is not a module fsmount knows; what follows it is not checked against its output", mod.Type)
			from = "unknown"
		}
		if err != nil {
			return err
		}
		if !mc.Checked {
			prev = 0
		} else {
			prev = mc.Out
		}
		r.Problems = append(r.Problems, mc.Problems...)
		r.Modules = append(r.Modules, mc)
	}
	return nil
}

// unexpectedIn reports a module with no weights that has some.
func (r *Report) unexpectedIn(mod *model.Module, problem func(Problem)) {
	for _, t := range mod.Tensors {
		problem(Problem{Kind: Unexpected, Tensor: mod.Dir() + "/" + t.Name, Shape: t.Shape, HasShape: true, DType: t.DType.String(),
			Detail: fmt.Sprintf("%s/%s %s: %s has no weights", mod.Dir(), t.Name, tensor.FormatShape(t.Shape), mod.Kind())})
	}
}

// decodeModuleConfig reads a module's config.json into v.
func decodeModuleConfig(mod *model.Module, v any) error {
	if mod.Config == nil {
		return &ModuleConfigError{mod.Dir() + "/" + model.ConfigName, "missing: a " + mod.Kind() + " module needs it"}
	}
	if err := json.Unmarshal(mod.Config, v); err != nil {
		return &ModuleConfigError{mod.ConfigName, "not a " + mod.Kind() + " config: " + err.Error()}
	}
	return nil
}

// modelSummary says how the transformer module was checked.
func modelSummary(r *Report) string {
	switch {
	case r.Plan != nil:
		return "checked against " + r.Plan.Arch
	case r.Depth == DepthStructural:
		return "checked structurally"
	}
	return "not checked"
}

// writeModules writes a section per module.
func (r *Report) writeModules(b *strings.Builder) {
	for _, mc := range r.Modules {
		where := mc.Module.Path
		if where == "" {
			where = "the root"
		}
		b.WriteString(SectionRule(fmt.Sprintf("module %d: %s (%s)", mc.Module.Index, where, mc.Module.Kind())))
		for _, l := range mc.Lines {
			b.WriteString("  " + Escape(l) + "\n")
		}
		for _, p := range mc.Problems {
			b.WriteString("  ✗ " + Escape(string(p.Kind)+": "+p.Detail) + "\n")
		}
		b.WriteByte('\n')
	}
}

// modulesVerdict is the verdict's line on the modules: how many were
// checked and the sentence embedding's dimension, and those not checked.
func (r *Report) modulesVerdict(line func(string, ...any)) {
	if r.Modules == nil {
		return
	}
	checked, out := 0, uint64(0)
	for _, mc := range r.Modules {
		if !mc.Checked {
			line("– module %s (%s) not checked: fsmount does not know it", mc.Module.Dir(), mc.Module.Type)
			out = 0
			continue
		}
		checked++
		out = mc.Out
	}
	dim := ""
	if out != 0 {
		dim = fmt.Sprintf(", sentence embedding dimension %d", out)
	}
	line("sentence-transformers: %d of %d modules checked%s", checked, len(r.Modules), dim)
}

// ModulesChecked reports whether every module of a sentence-transformers
// repository was checked (true for any other model): one fsmount does
// not know leaves the repository only partly checked.
func (r *Report) ModulesChecked() bool {
	for _, mc := range r.Modules {
		if !mc.Checked {
			return false
		}
	}
	return true
}
