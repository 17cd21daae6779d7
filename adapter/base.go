package adapter

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/source/remote"
	"github.com/fsmount/fsmount/spec"
	"github.com/fsmount/fsmount/tensor"
)

// OpenBase opens the base an adapter is checked against: loc when given
// (--base), else the adapter's base_model_name_or_path when that is a
// local directory. Without one it returns nil and a sentence saying why
// and how to name one: it makes no network access the user did not ask
// for, so a Hub ID is suggested as hf://ID, not fetched.
func OpenBase(a *Adapter, loc string, ro *remote.Options) (*model.Model, string, error) {
	if loc != "" {
		m, err := model.OpenWith(loc, ro)
		if err != nil {
			return nil, "", fmt.Errorf("base %s: %w", loc, err)
		}
		return m, "", nil
	}
	named := a.Config.Base
	if named == "" {
		return nil, "the adapter names no base (base_model_name_or_path); give one with --base LOCATION", nil
	}
	if strings.Contains(named, "://") {
		return nil, fmt.Sprintf("the base it names is %s; check against it with --base %s", named, named), nil
	}
	if st, err := os.Stat(named); err == nil && st.IsDir() {
		m, err := model.OpenWith(named, ro)
		if err != nil {
			return nil, "", fmt.Errorf("base_model_name_or_path %s: %w", named, err)
		}
		return m, "", nil
	}
	if filepath.IsAbs(named) || strings.HasPrefix(named, ".") {
		return nil, fmt.Sprintf("the base it names, %s, is not a directory here; give one with --base LOCATION", named), nil
	}
	return nil, fmt.Sprintf("the base it names is %s, not a local directory; check against it with --base hf://%s (or a local copy)", named, named), nil
}

// OpenBaseShapes is OpenBase for a check that needs only the base's
// shapes, not its values: a base given as its config.json alone (the
// file itself, or a location holding it and no weights) is taken as the
// tensors the architecture table (package spec) derives from that config,
// a model of FormatShapes; the report says so. A merge proof or a mount
// needs the weights: they use OpenBase.
func OpenBaseShapes(a *Adapter, loc string, ro *remote.Options) (*model.Model, string, error) {
	named := loc
	if named == "" {
		named = a.Config.Base
		if st, err := os.Stat(named); named == "" || strings.Contains(named, "://") || err != nil || !st.IsDir() {
			return OpenBase(a, loc, ro)
		}
	}
	if !strings.HasSuffix(named, ".json") {
		m, why, err := OpenBase(a, loc, ro)
		if !errors.Is(err, model.ErrNoWeights) {
			return m, why, err
		}
	}
	fsys, file, err := model.Locate(named, ro)
	if err != nil {
		return nil, "", fmt.Errorf("base %s: %w", named, err)
	}
	if file == "" {
		file = model.ConfigName
	}
	f, raw, err := source.ReadAll(fsys, file, model.MaxConfigSize)
	if err != nil {
		return nil, "", fmt.Errorf("base %s: %w", named, err)
	}
	f.Close()
	cfg, err := spec.ParseConfig(path.Join(fsys.String(), file), raw)
	if err != nil {
		return nil, "", fmt.Errorf("base %s: %w", named, err)
	}
	m, err := shapesBase(named, cfg, raw)
	if err != nil {
		// Not modelled: a partial check, not a verdict.
		return nil, fmt.Sprintf("the base %s is a config.json alone, and its shapes cannot be derived from it (%v); give its weights with --base", named, err), nil
	}
	return m, "", nil
}

// shapesBase is the model of the tensors config.json (cfg, parsed from
// raw) implies, without bytes.
func shapesBase(loc string, cfg *spec.Config, raw []byte) (*model.Model, error) {
	plan, err := spec.Expect(cfg)
	if err != nil {
		return nil, err
	}
	dt := tensor.F32
	if d, ok := map[string]tensor.DType{"bfloat16": tensor.BF16, "float16": tensor.F16}[plan.DType]; ok {
		dt = d
	}
	var ts []*tensor.Tensor
	for _, e := range plan.Tensors {
		if e.Optional {
			continue
		}
		ts = append(ts, &tensor.Tensor{Name: e.Name, DType: dt, Shape: e.ShapeValues()})
	}
	slices.SortFunc(ts, func(a, b *tensor.Tensor) int { return strings.Compare(a.Name, b.Name) })
	return model.FromShapes(loc, raw, ts), nil
}
