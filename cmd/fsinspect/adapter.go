package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsmount/fsmount/adapter"
	"github.com/fsmount/fsmount/internal/merge"
	"github.com/fsmount/fsmount/internal/progress"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/source/remote"
)

// openBase opens the base an adapter is checked against: --base, else
// the adapter's base_model_name_or_path when it is a local directory. It
// returns nil and the reason when there is none; no network access is
// made that the user did not ask for.
func openBase(a *adapter.Adapter, base string, ro *remote.Options) (*model.Model, string, error) {
	if base != "" {
		m, err := model.OpenWith(base, ro)
		if err != nil {
			return nil, "", fmt.Errorf("--base %s: %w", base, err)
		}
		return m, "", nil
	}
	named := a.Config.Base
	if named == "" {
		return nil, "the adapter names no base (base_model_name_or_path); give one with --base LOCATION", nil
	}
	if st, err := os.Stat(named); err == nil && st.IsDir() && !strings.Contains(named, "://") {
		m, err := model.OpenWith(named, ro)
		if err != nil {
			return nil, "", fmt.Errorf("base_model_name_or_path %s: %w", named, err)
		}
		return m, "", nil
	}
	if filepath.IsAbs(named) {
		return nil, fmt.Sprintf("the base it names, %s, is not a directory here; give one with --base LOCATION", named), nil
	}
	return nil, fmt.Sprintf("the base it names is %s, not a local directory; check against it with --base hf://%s (or a local copy)", named, named), nil
}

// runAdapter checks the adapter at loc and prints its report.
func runAdapter(loc, base string, asJSON bool, ro *remote.Options, stdout, stderr io.Writer) int {
	a, err := adapter.Open(loc, ro)
	if err != nil {
		fmt.Fprintf(stderr, "fsinspect: %v\n", err)
		return exitInvalid
	}
	defer a.Close()
	b, why, err := openBase(a, base, ro)
	if err != nil {
		fmt.Fprintf(stderr, "fsinspect: %v\n", err)
		return exitInvalid
	}
	if b != nil {
		defer b.Close()
	}
	r := adapter.Check(a, b, why)
	if asJSON {
		stdout.Write(r.JSON())
	} else {
		io.WriteString(stdout, r.Text())
	}
	switch {
	case !r.Clean():
		return exitProblems
	case r.Partial():
		return exitSkipped
	}
	return exitClean
}

// runMerge proves that merged is base + the adapter's deltas.
func runMerge(merged, loc, base string, asJSON bool, ro *remote.Options, stdout, stderr io.Writer) int {
	a, err := adapter.Open(loc, ro)
	if err != nil {
		fmt.Fprintf(stderr, "fsinspect: %v\n", err)
		return exitInvalid
	}
	defer a.Close()
	b, why, err := openBase(a, base, ro)
	if err != nil {
		fmt.Fprintf(stderr, "fsinspect: %v\n", err)
		return exitInvalid
	}
	if b == nil {
		fmt.Fprintf(stderr, "fsinspect: --compare with an adapter needs its base: %s\n", why)
		return exitUsage
	}
	defer b.Close()
	m, err := model.OpenWith(merged, ro)
	if err != nil {
		fmt.Fprintf(stderr, "fsinspect: %v\n", err)
		return exitInvalid
	}
	defer m.Close()
	r := adapter.Check(a, b, "")
	if !r.Clean() {
		io.WriteString(stdout, r.Text())
		fmt.Fprintf(stderr, "fsinspect: the adapter does not fit the base: no merge to prove\n")
		return exitProblems
	}
	bar := progress.New(stderr, "proving the merge")
	res, err := merge.Prove(r, m, &merge.Options{Progress: bar.Update})
	bar.Done()
	if err != nil {
		fmt.Fprintf(stderr, "fsinspect: %v\n", err)
		return exitInvalid
	}
	if asJSON {
		stdout.Write(res.JSON())
	} else {
		io.WriteString(stdout, res.Text())
	}
	if !res.OK() {
		return exitProblems
	}
	return exitClean
}
