package adapter

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/source/remote"
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
