package spec_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/stretchr/testify/require"
)

// TestMeasureStructural is a measuring harness, not a gate: with
// FSMOUNT_MEASURE_STRUCTURAL=1 it runs the structural check alone (the
// model_type and architectures renamed so that no spec applies) on every
// reference layout of testdata (layouts, layouts-more and the fuzz
// archives) and counts the valid layouts it fails (false fails) and the
// mutants it catches: a tensor of the middle layer of the main stack and
// of the largest stack dropped, or its first dimension changed. It is
// how a change of the structural rules is weighed (check/structural.go).
//
//	FSMOUNT_MEASURE_STRUCTURAL=1 go test -count=1 -run TestMeasureStructural -v ./spec/
func TestMeasureStructural(t *testing.T) {
	if os.Getenv("FSMOUNT_MEASURE_STRUCTURAL") == "" {
		t.Skip("FSMOUNT_MEASURE_STRUCTURAL is not set")
	}
	archives := []string{layoutsArchive, "testdata/layouts-more.tar.gz"}
	fuzz, _ := filepath.Glob("testdata/fuzz-layouts*.tar.gz")
	archives = append(archives, fuzz...)
	var ls []testmodel.RefLayout
	for _, a := range archives {
		more, err := testmodel.ReadLayouts(a)
		require.NoError(t, err, a)
		ls = append(ls, more...)
	}
	var mu sync.Mutex
	var falseFails, missed []string
	mutants, caught := 0, 0
	t.Run("layouts", func(t *testing.T) {
		for _, l := range ls {
			if only := os.Getenv("FSMOUNT_MEASURE_ONLY"); only != "" && !strings.Contains(l.Arch+"/"+l.Variant, only) {
				continue
			}
			t.Run(l.Arch+"/"+l.Variant, func(t *testing.T) {
				t.Parallel()
				cfg := anonymous(t, l.Config)
				r := checkLayout(t, cfg, l.Tensors)
				if r.Structure == nil {
					return
				}
				if !r.Clean() {
					mu.Lock()
					falseFails = append(falseFails, fmt.Sprintf("%s/%s: %s", l.Arch, l.Variant, r.Problems[0].Detail))
					mu.Unlock()
					return
				}
				victims := []int{middleLayerTensor(l.Tensors, r.Structure.Main)}
				if v := middleLayerTensor(l.Tensors, ""); v != victims[0] {
					victims = append(victims, v)
				}
				for _, mid := range victims {
					victim := l.Tensors[mid]
					dropped := slices.Delete(slices.Clone(l.Tensors), mid, mid+1)
					for kind, ts := range map[string][]testmodel.Tensor{"dropped": dropped, "changed": dimChanged(l.Tensors, mid)} {
						r := checkLayout(t, cfg, ts)
						mu.Lock()
						mutants++
						if slices.Contains(problemNames(r), victim.Name) {
							caught++
						} else {
							missed = append(missed, fmt.Sprintf("%s/%s: %s %s", l.Arch, l.Variant, kind, victim.Name))
							if os.Getenv("FSMOUNT_MEASURE_ONLY") != "" {
								t.Logf("%s %s:\n%s", kind, victim.Name, r.Verdict())
							}
						}
						mu.Unlock()
					}
				}
			})
		}
	})
	sort.Strings(falseFails)
	sort.Strings(missed)
	t.Logf("%d layouts: %d false fails, %d of %d mutants caught", len(ls), len(falseFails), caught, mutants)
	if os.Getenv("FSMOUNT_MEASURE_LIST") != "" {
		t.Logf("false fails:\n%s\nmissed mutants:\n%s", strings.Join(falseFails, "\n"), strings.Join(missed, "\n"))
	}
}

// anonymous renames a config's model_type and architectures so that no
// spec claims it.
func anonymous(t *testing.T, config []byte) []byte {
	var c map[string]any
	if json.Unmarshal(config, &c) != nil {
		t.Skip("config.json is not plain JSON (NaN)")
	}
	c["model_type"] = "zz_unknown"
	c["architectures"] = []string{"ZzUnknownModel"}
	out, err := json.Marshal(c)
	require.NoError(t, err)
	return out
}
