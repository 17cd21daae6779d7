package spec_test

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/spec"
)

// The reference layouts: for each architecture transformers 4.57.6 can
// build, what its save_pretrained writes for the default config (a), a
// config with every dimension changed (b) and, where transformers 5.x
// writes otherwise, a-v5 (testdata/layouts-README.md says how they were
// made). testdata/layouts-pending.txt lists the architectures without a
// full spec yet.
const (
	layoutsArchive = "testdata/layouts.tar.gz"
	layoutsPending = "testdata/layouts-pending.txt"
)

// structuralBlind are the pending architectures whose dropped-tensor
// mutant the structural check cannot see, and why: they need their spec
// (none now: BLT and Zamba2, the two there were, have theirs).
var structuralBlind = map[string]string{}

func readLayouts(t *testing.T) []testmodel.RefLayout {
	t.Helper()
	ls, err := testmodel.ReadLayouts(layoutsArchive)
	require.NoError(t, err)
	require.Greater(t, len(ls), 350)
	return ls
}

func readPending(t *testing.T) map[string]bool {
	t.Helper()
	f, err := os.Open(layoutsPending)
	require.NoError(t, err)
	defer f.Close()
	out := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			out[line] = true
		}
	}
	require.NoError(t, sc.Err())
	return out
}

func checkLayout(t *testing.T, config []byte, ts []testmodel.Tensor) *spec.Report {
	t.Helper()
	m, err := testmodel.OpenHeaderOnly(config, ts)
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	r, err := spec.Check(m)
	require.NoError(t, err)
	return r
}

var layerIndex = regexp.MustCompile(`\.(\d+)\.`)

// middleLayerTensor picks a tensor of the middle layer of the given
// stack or else of the one with most layered tensors, or the middle
// tensor.
func middleLayerTensor(ts []testmodel.Tensor, stack string) int {
	counts := map[string]int{}
	maxIndex := map[string]int{}
	for _, x := range ts {
		if m := layerIndex.FindStringSubmatchIndex(x.Name); m != nil {
			stack := x.Name[:m[0]]
			counts[stack]++
			i, _ := strconv.Atoi(x.Name[m[2]:m[3]])
			maxIndex[stack] = max(maxIndex[stack], i)
		}
	}
	best := ""
	for s, n := range counts {
		if n > counts[best] || n == counts[best] && s < best {
			best = s
		}
	}
	if stack != "" {
		best = stack
	}
	if best == "" {
		return len(ts) / 2
	}
	mid := fmt.Sprintf("%s.%d.", best, (maxIndex[best]+1)/2)
	for i, x := range ts {
		if strings.HasPrefix(x.Name, mid) && len(x.Shape) > 0 {
			return i
		}
	}
	return len(ts) / 2
}

func problemNames(r *spec.Report) []string {
	var out []string
	for _, p := range r.Problems {
		out = append(out, p.Tensor)
	}
	return out
}

// TestLayouts: every reference layout of an architecture with a spec
// checks clean, and three mutants of it — a middle layer's tensor
// dropped, one dimension changed, an unexpected tensor added — fail,
// naming the tensor. An architecture without a spec (pending) must pass
// the structural check, and the dropped tensor must fail it.
func TestLayouts(t *testing.T) {
	pending := readPending(t)
	seen := map[string]bool{}
	full := map[string]int{}
	var mu sync.Mutex
	// The layouts run in parallel: faster, and the families' lazy
	// compilation is raced as a mount's concurrent lookups would.
	t.Run("layouts", func(t *testing.T) {
		for _, l := range readLayouts(t) {
			seen[l.Arch] = true
			t.Run(l.Arch+"/"+l.Variant, func(t *testing.T) {
				t.Parallel()
				r := checkLayout(t, l.Config, l.Tensors)
				if pending[l.Arch] {
					require.True(t, r.Plan == nil, "%s has a spec now: delete it from %s", l.Arch, layoutsPending)
					assert.Empty(t, problemNames(r), "structural check of a valid layout:\n%s", r.Verdict())
				} else {
					require.NotNil(t, r.Plan, r.Skipped)
					require.True(t, r.Clean(), r.Verdict())
					mu.Lock()
					full[l.Arch]++
					mu.Unlock()
				}
				main := ""
				if pending[l.Arch] {
					require.NotNil(t, r.Structure)
					if why, ok := structuralBlind[l.Arch]; ok {
						t.Skipf("structural check cannot see the mutant: %s", why)
					}
					require.NotEmpty(t, r.Structure.Main, "the stack of L layers")
					main = r.Structure.Main
				}
				mid := middleLayerTensor(l.Tensors, main)
				victim := l.Tensors[mid]
				dropped := slices.Delete(slices.Clone(l.Tensors), mid, mid+1)
				r = checkLayout(t, l.Config, dropped)
				assert.Contains(t, problemNames(r), victim.Name, "dropped %s:\n%s", victim.Name, r.Verdict())
				if pending[l.Arch] {
					return
				}
				changed := slices.Clone(l.Tensors)
				changed[mid].Shape = slices.Clone(changed[mid].Shape)
				changed[mid].Shape[0]++
				r = checkLayout(t, l.Config, changed)
				assert.Contains(t, problemNames(r), victim.Name, "dim 0 of %s changed:\n%s", victim.Name, r.Verdict())
				for _, p := range r.Problems {
					if p.Tensor == victim.Name {
						assert.Equal(t, spec.Misshaped, p.Kind)
					}
				}
				extra := strings.TrimSuffix(victim.Name, ".weight") + "_extra.weight"
				added := append(slices.Clone(l.Tensors), testmodel.Tensor{Name: extra, DType: victim.DType, Shape: []uint64{7}})
				r = checkLayout(t, l.Config, added)
				assert.Contains(t, problemNames(r), extra, r.Verdict())
			})
		}
	})
	for p := range pending {
		assert.True(t, seen[p], "%s in %s is no layout", p, layoutsPending)
	}
	for p := range structuralBlind {
		assert.True(t, pending[p], "%s has a spec now: delete it from structuralBlind", p)
	}
	t.Logf("fully checked: %d architectures, %d layouts", len(full), func() int {
		n := 0
		for _, v := range full {
			n += v
		}
		return n
	}())
}

// TestDeepSeekV3FullSize: the full-size DeepSeek-V3 (61 layers, 256
// experts), its names and shapes repeated from transformers' layout,
// checks clean: 45,395 tensors, as the issue counts them.
func TestDeepSeekV3FullSize(t *testing.T) {
	dir, n := deepseekV3Full(t)
	assert.Equal(t, 45_395, n)
	r := check(t, dir)
	assert.True(t, r.Clean(), r.Verdict())
	assert.Equal(t, "DeepSeek-V3", r.Plan.Arch)
	assert.Len(t, r.Model.Files, 46)
}
