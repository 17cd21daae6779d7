package model_test

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
)

// TestDCPTorchLoadsVirtual: torch loads the virtual model.safetensors of
// each checkpoint torch wrote, and of the tiny model's, every weight
// with its SHA-256 (case.json's; the original safetensors') and, where
// torch has torch.distributed.checkpoint (2.x), equal bit for bit to
// what dcp.load reads from the checkpoint
// (../dcp/testdata/load_virtual.py). Skipped without python3-torch,
// required with FSMOUNT_REQUIRE_TORCH=1. With FSMOUNT_TORCH_CHROOT=DIR,
// python3 runs in that chroot, the files copied into its /tmp: the
// oracle's, with torch 2.6,
//
//	FSMOUNT_TORCH_CHROOT=$HOME/fsmount-oracle go test -run TestDCPTorch ./model
func TestDCPTorchLoadsVirtual(t *testing.T) {
	chroot := os.Getenv("FSMOUNT_TORCH_CHROOT")
	py := "python3"
	if chroot == "" {
		py = testmodel.Torch(t)
	}
	script, err := filepath.Abs("../dcp/testdata/load_virtual.py")
	require.NoError(t, err)
	// Each checkpoint and its virtual file in a directory of root, checked
	// by one run of the script.
	root := t.TempDir()
	if chroot != "" {
		var err error
		root, err = os.MkdirTemp(filepath.Join(chroot, "tmp"), "fsmount-dcp-")
		require.NoError(t, err)
		t.Cleanup(func() { os.RemoveAll(root) })
	}
	in := root // root as the script sees it
	if chroot != "" {
		in = "/tmp/" + filepath.Base(root)
	}
	b, err := os.ReadFile(script)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(root, "load_virtual.py"), b, 0o644))
	args := []string{in + "/load_virtual.py"}
	add := func(t *testing.T, name, dir string, m *model.Model, sums map[string]string) {
		work := filepath.Join(root, name)
		require.NoError(t, os.Mkdir(work, 0o755))
		ckpt := filepath.Join(work, "checkpoint")
		require.NoError(t, os.Mkdir(ckpt, 0o755))
		ents, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range ents {
			if e.Name() == "config.json" {
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(ckpt, e.Name()), b, 0o644))
		}
		virtual, err := m.VirtualFiles()
		require.NoError(t, err)
		require.Len(t, virtual, 1)
		out, err := os.Create(filepath.Join(work, "model.safetensors"))
		require.NoError(t, err)
		_, err = io.Copy(out, io.NewSectionReader(virtual[0], 0, virtual[0].Size()))
		require.NoError(t, err)
		require.NoError(t, out.Close())
		weights := map[string]map[string]string{}
		for _, tt := range m.Tensors() {
			weights[tt.Name] = map[string]string{"key": m.DCP.Keys[tt.Name], "sha256": sums[tt.Name]}
		}
		b, err := json.Marshal(weights)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(work, "weights.json"), b, 0o644))
		args = append(args, in+"/"+name+"/model.safetensors", in+"/"+name+"/weights.json", in+"/"+name+"/checkpoint")
	}
	for _, name := range testmodel.DCPCases {
		t.Run(name, func(t *testing.T) {
			dir, c := testmodel.DCPCaseDir(t, name)
			m, _ := testmodel.Checked(t, dir)
			sums := map[string]string{}
			for _, tt := range m.Tensors() {
				sums[tt.Name] = c.Expected[m.DCP.Keys[tt.Name]].SHA256
			}
			add(t, name, dir, m, sums)
		})
	}
	t.Run("tiny", func(t *testing.T) {
		dir, src := tinyDCP(t, nil)
		m, _ := testmodel.Checked(t, dir)
		sums := map[string]string{}
		for _, tt := range src.Tensors() {
			sums[tt.Name] = sha256Of(t, tt)
		}
		add(t, "tiny", dir, m, sums)
	})
	var cmd *exec.Cmd
	if chroot != "" {
		cmd = exec.Command("chroot", append([]string{chroot, py}, args...)...)
	} else {
		cmd = exec.Command(py, args...)
	}
	got, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", got)
	require.Equal(t, len(testmodel.DCPCases)+1, strings.Count(string(got), "ok 25 weights"), "%s", got)
	if chroot != "" {
		require.Equal(t, len(testmodel.DCPCases)+1, strings.Count(string(got), "(dcp.load: yes)"), "torch 2.x in the chroot loads each checkpoint too:\n%s", got)
	}
	t.Log(strings.TrimSpace(string(got)))
}
