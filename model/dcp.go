package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/fsmount/fsmount/dcp"
	"github.com/fsmount/fsmount/safetensors"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
)

// FormatDCP is a PyTorch Distributed Checkpoint (package dcp).
const FormatDCP = "dcp"

// DCPState is what a Distributed Checkpoint holds besides the model's
// weights: a trainer's optimizer state, its other tensors and values.
type DCPState struct {
	// Optimizer are the optimizer's tensors per parameter (Adam's
	// exp_avg, exp_avg_sq, step), sorted by parameter and state.
	Optimizer []OptimizerTensor
	// Other are the tensors that are neither weights nor optimizer state
	// (an RNG state), named by their key.
	Other []*tensor.Tensor
	// Objects are the values that are not tensors (torch.save'd ints,
	// strings, lists: a step count, a run name, param_groups' settings).
	Objects []DCPObject
	// Version is the checkpoint's DCP version ("" before torch wrote one).
	Version string
	// Megatron is set for Megatron-core's torch_dist: its weights
	// stacked on a leading layer axis are shown per layer.
	Megatron bool
	// Keys maps each weight's name to its key in the checkpoint
	// ("model.norm.weight" to "model.model._orig_mod.norm.weight").
	Keys map[string]string
}

// OptimizerTensor is one tensor of an optimizer's state.
type OptimizerTensor struct {
	Param string // the parameter, named as the weights are
	State string // "exp_avg", "exp_avg_sq", "step", "momentum_buffer"…
	T     *tensor.Tensor
}

// DCPObject is a state dict value stored as a torch.save'd object.
type DCPObject struct {
	Key    string
	File   source.File
	Offset int64
	Length int64
}

// wrapperParts are the names wrappers insert into a parameter's name:
// torch.compile's, FSDP1's and activation checkpointing's.
var wrapperParts = []string{"_orig_mod", "_fsdp_wrapped_module", "_checkpoint_wrapped_module"}

// weightRoots and optimRoots are the top-level keys a trainer's state
// dict holds the model and the optimizer under (get_state_dict's pair
// saved as {"model": …, "optim": …}, torchtitan's "optimizer").
var (
	weightRoots = []string{"model"}
	optimRoots  = []string{"optim", "optimizer"}
)

// stripWrappers removes the wrappers' parts of a name.
func stripWrappers(name string) string {
	if !strings.Contains(name, "_") {
		return name
	}
	parts := strings.Split(name, ".")
	parts = slices.DeleteFunc(parts, func(p string) bool { return slices.Contains(wrapperParts, p) })
	return strings.Join(parts, ".")
}

// openDCP opens the Distributed Checkpoint at the root of m.Source. With a
// config to check against, a tensor whose chunks leave a gap is left out
// (the check then finds it missing) and the gap is a warning; without
// one, the gap refuses the checkpoint.
func (m *Model) openDCP() error {
	c, err := dcp.Open(m.Source, dcp.Options{KeepIncomplete: m.Config != nil})
	if err != nil {
		return err
	}
	m.Format = FormatDCP
	m.closers = append(m.closers, c)
	m.Files = append(append(m.Files, c.Metadata), c.Files...)
	slices.SortFunc(m.Files, func(a, b source.File) int { return strings.Compare(a.Name(), b.Name()) })
	st := &DCPState{Version: c.Version, Keys: map[string]string{}}
	for _, fe := range c.Incomplete {
		m.warnings = append(m.warnings, fe.Error())
	}
	// The weights: the tensors under "model" when the state dict has
	// such a root (a trainer's), else every tensor outside the
	// optimizer's.
	hasRoot := slices.ContainsFunc(c.Tensors, func(t *dcp.Tensor) bool {
		return len(t.Path) >= 2 && slices.Contains(weightRoots, t.Path[0])
	})
	var weights []*tensor.Tensor
	for _, t := range c.Tensors {
		v := t.View
		path := t.Path
		if path == nil {
			path = []string{t.Key}
		}
		switch {
		case len(path) >= 2 && slices.Contains(optimRoots, path[0]):
			if param, state, ok := optimizerKey(path); ok {
				st.Optimizer = append(st.Optimizer, OptimizerTensor{Param: param, State: state, T: v})
			} else {
				st.Other = append(st.Other, v)
			}
		case hasRoot && len(path) >= 2 && slices.Contains(weightRoots, path[0]):
			v.Name = stripWrappers(strings.Join(path[1:], "."))
			st.Keys[v.Name] = t.Key
			weights = append(weights, v)
		case hasRoot:
			st.Other = append(st.Other, v)
		default:
			v.Name = stripWrappers(t.Key)
			st.Keys[v.Name] = t.Key
			weights = append(weights, v)
		}
	}
	if m.megatronLayers() {
		weights = splitLayers(weights)
		st.Megatron = true
	}
	slices.SortFunc(weights, func(a, b *tensor.Tensor) int { return strings.Compare(a.Name, b.Name) })
	for i := 1; i < len(weights); i++ {
		if weights[i].Name == weights[i-1].Name {
			return &dcp.FormatError{File: c.Metadata.Name(), Code: dcp.CodeInvalidMetadata, Tensor: weights[i].Name,
				Detail: fmt.Sprintf("two keys name the weight %s once their wrappers' parts (%s) are removed", weights[i].Name, strings.Join(wrapperParts, ", "))}
		}
	}
	slices.SortFunc(st.Optimizer, func(a, b OptimizerTensor) int {
		if c := strings.Compare(a.Param, b.Param); c != 0 {
			return c
		}
		return strings.Compare(a.State, b.State)
	})
	for _, o := range c.Objects {
		st.Objects = append(st.Objects, DCPObject{Key: o.Key, File: o.File, Offset: o.Offset, Length: o.Length})
	}
	m.setTensors(weights)
	m.DCP = st
	return nil
}

// optimizerKey splits an optimizer tensor's path, (optim, state, PARAM,
// STATE…), into the parameter (named as the weights) and the state.
func optimizerKey(path []string) (param, state string, ok bool) {
	if len(path) < 4 || path[1] != "state" {
		return "", "", false
	}
	return stripWrappers(path[2]), strings.Join(path[3:], "."), true
}

// openDCPDir opens the directory's Distributed Checkpoint, or returns
// fs.ErrNotExist when it has no .metadata.
func (m *Model) openDCPDir() error {
	f, err := m.Source.Open(dcp.MetadataName)
	if err != nil {
		return err
	}
	f.Close()
	return m.openDCP()
}

// dcpShardSize is the most bytes of weights one virtual safetensors file
// holds: transformers' save_pretrained default (max_shard_size "5GB").
var dcpShardSize int64 = 5e9

// dcpVirtual lays a Distributed Checkpoint's weights out as
// model.safetensors, or, past dcpShardSize, as shards of at most that
// (a larger tensor alone in its shard) and their index, the tensors in
// name order. None when a weight has a type safetensors lacks.
func (m *Model) dcpVirtual() ([]source.File, error) {
	for _, t := range m.tensors {
		if _, ok := safetensors.ParseDType(t.DType.String()); !ok {
			return nil, nil
		}
	}
	if len(m.tensors) == 0 {
		return nil, nil
	}
	meta := map[string]string{"format": "pt"}
	var groups [][]*tensor.Tensor
	var size int64
	for _, t := range m.tensors {
		if len(groups) == 0 || size > 0 && size+t.Length > dcpShardSize {
			groups = append(groups, nil)
			size = 0
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], t)
		size += t.Length
	}
	return virtualShards(groups, meta, func(int) source.File { return m.Files[0] })
}

// isDCPNotExist reports an error that says there is no checkpoint.
func isDCPNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) && !errors.Is(err, dcp.ErrFormat)
}

// Notes says what a Distributed Checkpoint holds besides the weights
// checked: the optimizer's state, other tensors and values. None for
// other formats.
func (m *Model) Notes() []string {
	st := m.DCP
	if st == nil {
		return nil
	}
	var out []string
	if st.Megatron {
		out = append(out, "a Megatron-core torch_dist checkpoint (metadata.json): weights stacked on a leading layer axis are shown per layer")
	}
	if len(st.Optimizer) > 0 {
		params, states := map[string]bool{}, []string{}
		for _, o := range st.Optimizer {
			params[o.Param] = true
			if !slices.Contains(states, o.State) {
				states = append(states, o.State)
			}
		}
		out = append(out, fmt.Sprintf("a PyTorch Distributed Checkpoint with optimizer state: %d tensors (%s) for %d parameters, in optim/, not checked", len(st.Optimizer), strings.Join(states, ", "), len(params)))
	}
	if len(st.Other) > 0 {
		names := make([]string, len(st.Other))
		for i, t := range st.Other {
			names[i] = t.Name
		}
		out = append(out, fmt.Sprintf("%d other tensors, neither weights nor optimizer state: %s", len(st.Other), listOf(names)))
	}
	if len(st.Objects) > 0 {
		names := make([]string, len(st.Objects))
		for i, o := range st.Objects {
			names[i] = o.Key
		}
		out = append(out, fmt.Sprintf("%d values that are not tensors (torch.save'd objects, not read): %s", len(st.Objects), listOf(names)))
	}
	return out
}

// listOf joins the first few names, saying how many more there are.
func listOf(names []string) string {
	const show = 6
	if len(names) <= show {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:show], ", "), len(names)-show)
}

// megatronLayers reports whether the checkpoint is Megatron-core's
// torch_dist: its metadata.json says so ({"sharded_backend":
// "torch_dist", …}, written beside .metadata by
// megatron.core.dist_checkpointing).
func (m *Model) megatronLayers() bool {
	raw, err := source.ReadFile(m.Source, "metadata.json", 1<<16)
	if err != nil {
		return false
	}
	var md struct {
		Backend string `json:"sharded_backend"`
	}
	return json.Unmarshal(raw, &md) == nil && md.Backend == "torch_dist"
}

// stackedPart is the part of a Megatron key where the layers are
// stacked: "layers." followed by a name, not a layer number
// ("decoder.layers.mlp.linear_fc1.weight").
func stackedAt(name string) int {
	for at := 0; ; {
		i := strings.Index(name[at:], "layers.")
		if i < 0 {
			return -1
		}
		i += at
		if (i == 0 || name[i-1] == '.') && i+7 < len(name) && (name[i+7] < '0' || name[i+7] > '9') {
			return i + 7
		}
		at = i + 7
	}
}

// splitLayers replaces each weight Megatron stacked on a leading layer
// axis ([L, …] under a "layers." with no number) by its L layers, named
// with the layer's number ("decoder.layers.0.mlp.linear_fc1.weight"),
// each the i-th slice of the stacked bytes, read in place, as Megatron's
// own inspector splits them.
func splitLayers(ws []*tensor.Tensor) []*tensor.Tensor {
	var out []*tensor.Tensor
	for _, t := range ws {
		at := stackedAt(t.Name)
		if at < 0 || len(t.Shape) < 2 || t.Shape[0] == 0 {
			out = append(out, t)
			continue
		}
		layer := uint64(t.Length) / t.Shape[0]
		for i := range t.Shape[0] {
			v := *t
			v.Name = t.Name[:at] + strconv.FormatUint(i, 10) + "." + t.Name[at:]
			v.Shape = t.Shape[1:]
			v.Offset = t.Offset + int64(i*layer)
			v.Length = int64(layer)
			out = append(out, &v)
		}
	}
	return out
}
