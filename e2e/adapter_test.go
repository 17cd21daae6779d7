package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/fusetest"
	"github.com/fsmount/fsmount/internal/testmodel"
)

// fsinspect on adapters, as a user runs it: the exit codes (0 clean, 1
// problems, 2 invalid, 3 partial) and the merge proof's.
func TestInspectAdapter(t *testing.T) {
	dir := t.TempDir()
	ad := filepath.Join(dir, "lora")
	require.NoError(t, testmodel.WriteAdapter(ad, testmodel.TinyAdapterConfig, testmodel.TinyAdapterTensors()))
	tiny := filepath.Join("..", "testdata", "tiny-qwen3")

	r := runCmd(t, "fsinspect", ad)
	assert.Equal(t, 3, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "– partial check: the base it names is testdata/tiny-qwen3, not a local directory; check against it with --base hf://testdata/tiny-qwen3 (or a local copy)")

	r = runCmd(t, "fsinspect", "--base", tiny, ad)
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "✓ all 8 expected tensors present, shapes match the config and the base")

	r = runCmd(t, "fsinspect", "--json", "--base", tiny, ad)
	require.Equal(t, 0, r.code, r.stderr)
	var j struct {
		Type    string `json:"type"`
		Clean   bool   `json:"clean"`
		Modules []struct {
			Module string   `json:"module"`
			Shape  []uint64 `json:"delta_shape"`
		} `json:"modules"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &j))
	assert.Equal(t, "LoRA", j.Type)
	assert.True(t, j.Clean)
	require.Len(t, j.Modules, 4)
	assert.Equal(t, []uint64{64, 32}, j.Modules[0].Shape)

	// Another base: exit 1.
	gpt2 := filepath.Join(dir, "gpt2")
	require.NoError(t, testmodel.WriteHeaderOnly(gpt2, testmodel.GPT2Config(2), testmodel.GPT2Tensors(2)))
	r = runCmd(t, "fsinspect", "--base", gpt2, ad)
	assert.Equal(t, 1, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "✗ 8 problems: 8 unexpected")

	// An invalid adapter: exit 2, one line naming the file.
	bad := filepath.Join(dir, "bad")
	require.NoError(t, os.MkdirAll(bad, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bad, "adapter_config.json"), []byte(`{"peft_type": "LORA", "r": "eight"}`), 0o644))
	r = runCmd(t, "fsinspect", bad)
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "fsinspect: "+filepath.Join(bad, "adapter_config.json")+": r must be an integer\n", r.stderr)

	// --base on a model: a usage error.
	r = runCmd(t, "fsinspect", "--base", tiny, tiny)
	assert.Equal(t, 64, r.code)
}

func TestInspectAdapterMergeProof(t *testing.T) {
	py := testmodel.Numpy(t)
	dir := t.TempDir()
	ad := filepath.Join(dir, "lora")
	require.NoError(t, testmodel.WriteAdapter(ad, testmodel.TinyAdapterConfig, testmodel.TinyAdapterTensors()))
	tiny := filepath.Join("..", "testdata", "tiny-qwen3")
	merge := func(out string, args ...string) {
		cmd := append([]string{filepath.Join("..", "adapter", "testdata", "lora.py"), "merge", tiny, ad, out}, args...)
		b, err := exec.Command(py, cmd...).CombinedOutput()
		require.NoError(t, err, string(b))
	}
	good, off := filepath.Join(dir, "merged"), filepath.Join(dir, "off")
	merge(good)
	merge(off, "--off", "model.layers.0.self_attn.q_proj.weight")

	r := runCmd(t, "fsinspect", "--base", tiny, "--compare", good, ad)
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "✓ the merged model is the base plus the adapter")

	r = runCmd(t, "fsinspect", "--base", tiny, "--compare", off, ad)
	assert.Equal(t, 1, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "✗ model.layers.0.self_attn.q_proj.weight (adapted): 1 of 2,048 elements off, first at [0, 0]")

	// The base is not the merged model.
	r = runCmd(t, "fsinspect", "--base", tiny, "--compare", tiny, ad)
	assert.Equal(t, 1, r.code)

	// No base: nothing to prove against.
	r = runCmd(t, "fsinspect", "--compare", good, ad)
	assert.Equal(t, 64, r.code)
	assert.Contains(t, r.stderr, "--compare with an adapter needs its base")
}

// fsmount --base BASE ADAPTER MNT, as a user runs it: the daemon serves
// the base with lora/ in each adapted module, and -u ends it.
func TestMountAdapter(t *testing.T) {
	dir := t.TempDir()
	ad := filepath.Join(dir, "lora")
	require.NoError(t, testmodel.WriteAdapter(ad, testmodel.TinyAdapterConfig, testmodel.TinyAdapterTensors()))
	mnt, pid := mountModel(t, ad, "--base", filepath.Join("..", "testdata", "tiny-qwen3"))
	out, _ := sh(t, "cat "+mnt+"/verdict")
	assert.Equal(t, "  ✓ all 8 expected tensors present, shapes match the config and the base\n", out)
	out, _ = sh(t, "cat "+mnt+"/layers/1/self_attn/v_proj/lora/delta/shape "+mnt+"/layers/1/self_attn/v_proj/shape")
	assert.Equal(t, "[32, 32]\n[32, 32]\n", out)
	out, _ = sh(t, "wc -c < "+mnt+"/layers/1/self_attn/v_proj/lora/delta/values.f32")
	assert.Equal(t, "4096", strings.TrimSpace(out))
	out, _ = sh(t, "wc -l < "+mnt+"/stats")
	assert.Equal(t, "5", strings.TrimSpace(out))
	report := readFile(t, filepath.Join(mnt, "report"))
	assert.Equal(t, runCmd(t, "fsinspect", "--base", filepath.Join("..", "testdata", "tiny-qwen3"), ad).stdout, string(report))
	// --list names the adapter mounted, not its base.
	list := runCmd(t, "fsmount", "--list").stdout
	assert.Regexp(t, "(?m)^"+regexp.QuoteMeta(mnt)+" +"+regexp.QuoteMeta(ad)+" ", list)
	runCmd(t, "fsmount", "-u", mnt)
	assert.False(t, mounted(t, mnt))
	waitFor(t, "the daemon to exit", func() bool { return !fusetest.Alive(pid) })

	// Without a base, --strict: mounted, exit 3 (a partial check).
	mnt2 := t.TempDir()
	r := runCmd(t, "fsmount", "--strict", ad, mnt2)
	assert.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, r.stdout, "– partial check (no base), LoRA adapter, 4 modules")
	if mounted(t, mnt2) {
		runCmd(t, "fsmount", "-u", mnt2)
	}
}
