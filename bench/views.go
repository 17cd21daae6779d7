package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fsmount/fsmount/internal/fusetest"
)

// The figures of the decoded views and the scan, each with its peer or
// baseline measured in the same round.
const (
	figScan      = "fsinspect --scan vs numpy (GB/s)"
	figValuesF32 = "cat every values.f32 vs every data (MB/s)"
	figFilesDir  = "cat files/model.safetensors vs the model file (MB/s)"
	figFilesPass = "the same, fsmount --passthrough (MB/s)"
	figFilesBin  = "first cat of files/model.safetensors, fresh mounts: virtual (.bin model) vs real (MB/s)"
	figFilesDCP  = "first cat of files/model.safetensors of a 2-rank DCP (fresh mounts) vs cat of its .distcp files (MB/s)"
	figCheck7B   = "open and check the 291-tensor 7B layout: .bin shards vs safetensors (ms, go test -bench Check7B)"
	figViewsRSS  = "daemon RssAnon after every view of every tensor (MiB)"
	figViewsIdle = "the same, after 2 s idle (MiB)"
)

var viewFigures = []struct{ name, target string }{
	{figScan, "≥ 10×"},
	{figValuesF32, "≥ 0.5×"},
	{figFilesDir, ""},
	{figFilesPass, "≥ 0.9× (root)"},
	{figFilesBin, "≥ 0.9× of files/"},
	{figFilesDCP, "≥ 0.9×"},
	{figCheck7B, "≤ 2×"},
	{figViewsRSS, ""},
	{figViewsIdle, "≤ 32 MiB"},
}

// viewRound measures the views once: the peer's value under colBase,
// ours under "fsmount".
func (b *bench) viewRound() error {
	// The scan against numpy on the same file, both from the page cache.
	if err := sh("cat " + b.modelFile + " > /dev/null"); err != nil {
		return err
	}
	st, _ := os.Stat(b.modelFile)
	d, err := timeIt(filepath.Join(b.bin, "fsinspect") + " --scan " + b.dense + " > /dev/null")
	if err != nil && !strings.Contains(err.Error(), "exit status 1") {
		return err
	}
	b.add(figScan, "fsmount", float64(st.Size())/1e9/d.Seconds())
	py := exec.Command("env", "-u", "OPENBLAS_CORETYPE", "-u", "OPENBLAS_L2_SIZE", "/usr/bin/python3", filepath.Join(b.root, "bench", "scan_numpy.py"), b.modelFile)
	out, err := py.Output()
	if err != nil {
		return fmt.Errorf("numpy scan: %v", err)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		return fmt.Errorf("numpy scan printed %q", out)
	}
	nb, _ := strconv.ParseFloat(f[0], 64)
	secs, _ := strconv.ParseFloat(f[1], 64)
	b.add(figScan, colBase, nb/1e9/secs)

	mnt, done, err := mountTemp(b.systems[0], "fsmount-bench-views")
	if err != nil {
		return err
	}
	defer done()
	catData, err := b.catCmd(mnt, b.dataFiles)
	if err != nil {
		return err
	}
	var f32 []string
	for _, rel := range b.dataFiles {
		f32 = append(f32, filepath.Join(filepath.Dir(rel), "values.f32"))
	}
	catF32, err := b.catCmd(mnt, f32)
	if err != nil {
		return err
	}
	if d, err = timeIt(catData); err != nil {
		return err
	}
	b.add(figValuesF32, colBase, mbps(b.dataBytes, d))
	if d, err = timeIt(catF32); err != nil {
		return err
	}
	b.add(figValuesF32, "fsmount", mbps(b.dataBytes*2, d)) // values.f32 of BF16 is twice the data

	for _, row := range []func() error{
		func() error { return b.filesVsModel(figFilesDir, mnt, st.Size()) },
		func() error { return b.filesPassthrough(st.Size()) },
		b.filesVirtual,
		b.filesDCP,
		b.check7B,
	} {
		if err := row(); err != nil {
			return err
		}
	}

	// Every view of every tensor, then the daemon's anonymous memory.
	var all []string
	for _, rel := range b.dataFiles {
		for _, v := range []string{"values", "values.f32", "values.npy", "stats", "sha256", "hist"} {
			all = append(all, filepath.Join(filepath.Dir(rel), v))
		}
	}
	catAll, err := b.catCmd(mnt, append(all, "stats"))
	if err != nil {
		return err
	}
	if err := sh(catAll); err != nil {
		return err
	}
	if pid := fusetest.DaemonPid(mnt); pid > 0 {
		anon, _ := status(pid)
		b.add(figViewsRSS, "fsmount", anon/1024)
		// The daemon returns its free heap once a second passes idle.
		time.Sleep(2 * time.Second)
		anon, _ = status(pid)
		b.add(figViewsIdle, "fsmount", anon/1024)
	}
	return nil
}

// filesPassthrough times files/model.safetensors through a mount with
// --passthrough, read as the files/ row reads it (once to warm, then
// timed), against a direct read just before.
func (b *bench) filesPassthrough(size int64) error {
	mnt, done, err := mountTemp(b.systems[2], "fsmount-bench-pass")
	if err != nil {
		return err
	}
	defer done()
	return b.filesVsModel(figFilesPass, mnt, size)
}

// filesVsModel adds to fig a cat of the model file and then one of
// files/model.safetensors under mnt, read once to warm and then timed.
func (b *bench) filesVsModel(fig, mnt string, size int64) error {
	d, err := timeIt("cat " + b.modelFile + " > /dev/null")
	if err != nil {
		return err
	}
	b.add(fig, colBase, mbps(size, d))
	file := filepath.Join(mnt, "files", "model.safetensors")
	if err := sh("cat " + file + " > /dev/null"); err != nil {
		return err
	}
	if d, err = timeIt("cat " + file + " > /dev/null"); err != nil {
		return err
	}
	b.add(fig, "fsmount", mbps(size, d))
	return nil
}

func (b *bench) printViews(w io.Writer) {
	fmt.Fprintf(w, "\n| figure | fsmount | baseline | × | target |\n|---|---:|---:|---:|---|\n")
	for _, f := range viewFigures {
		ours, base := b.vals[f.name]["fsmount"], b.vals[f.name][colBase]
		row := fmt.Sprintf("| %s | %s |", f.name, numOr(ours))
		if len(base) > 0 {
			r, _ := b.ratio(f.name, "fsmount")
			row += fmt.Sprintf(" %s | %.2f |", numOr(base), r)
		} else {
			row += " | |"
		}
		fmt.Fprintf(w, "%s %s |\n", row, f.target)
	}
	fmt.Fprintf(w, "\nthe scan's peer is bench/scan_numpy.py (memmap, 16M-element chunks, float64 sums) on the same file;\nvalues.f32 of BF16 holds twice the data's bytes, all counted\n")
}

func numOr(v []float64) string {
	if len(v) == 0 {
		return "n/a"
	}
	return num(median(v))
}

// filesVirtual times the first cat of files/model.safetensors on a fresh
// mount of the model as pytorch_model.bin (a virtual file: its header
// generated, its data read from the .bin's storages) against the same on
// a fresh mount of the safetensors model, in turn.
func (b *bench) filesVirtual() error {
	for _, c := range []struct {
		col string
		sys system
	}{{colBase, b.systems[0]}, {"fsmount", b.systems[3]}} {
		mnt, err := os.MkdirTemp("", "fsmount-bench-virtual")
		if err != nil {
			return err
		}
		if err := c.sys.mount(mnt); err != nil {
			os.Remove(mnt)
			return err
		}
		file := filepath.Join(mnt, "files", "model.safetensors")
		st, err := os.Stat(file)
		if err != nil {
			unmount(mnt)
			os.Remove(mnt)
			return err
		}
		d, err := timeIt("cat " + file + " > /dev/null")
		if err2 := unmount(mnt); err == nil {
			err = err2
		}
		os.Remove(mnt)
		if err != nil {
			return err
		}
		b.add(figFilesBin, c.col, mbps(st.Size(), d))
	}
	return nil
}

// check7B runs model's BenchmarkCheck7B, which opens and checks the real
// mistral-7b-sft layout (291 tensors, sparse shards) as .bin shards and
// as safetensors shards in turn in one process, and records each side's
// time per open and check: safetensors as the baseline.
func (b *bench) check7B() error {
	// Built each round (from the build cache after the first), so that
	// it is never a stale binary of another checkout.
	test := filepath.Join(b.bin, "model.test")
	build := exec.Command("go", "test", "-c", "-o", test, "./model")
	build.Dir = b.root
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go test -c ./model: %v: %s", err, out)
	}
	run := exec.Command(test, "-test.run", "XXX", "-test.bench", "Check7B", "-test.benchtime", "200x")
	run.Dir = filepath.Join(b.root, "model") // its testdata paths are relative
	out, err := run.CombinedOutput()
	if err != nil {
		return fmt.Errorf("BenchmarkCheck7B: %v: %s", err, out)
	}
	f := strings.Fields(string(out))
	got := map[string]float64{}
	for i := 1; i < len(f); i++ {
		if f[i] == "bin-ms/op" || f[i] == "safetensors-ms/op" {
			got[f[i]], _ = strconv.ParseFloat(f[i-1], 64)
		}
	}
	if got["bin-ms/op"] == 0 || got["safetensors-ms/op"] == 0 {
		return fmt.Errorf("BenchmarkCheck7B printed %q", out)
	}
	b.add(figCheck7B, colBase, got["safetensors-ms/op"])
	b.add(figCheck7B, "fsmount", got["bin-ms/op"])
	return nil
}

// filesDCP times the first cat of files/model.safetensors on a fresh
// mount of the model as a 2-rank Distributed Checkpoint (a virtual file:
// its header generated, each tensor's rows read from the two .distcp
// files' chunks in place) against a cat of the .distcp files themselves
// (the same bytes and the items' archive headers), both from the page
// cache; MB/s of each one's own bytes.
func (b *bench) filesDCP() error {
	files, err := filepath.Glob(filepath.Join(b.dcp06, "*.distcp"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no .distcp files in %s", b.dcp06)
	}
	var size int64
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			return err
		}
		size += st.Size()
	}
	cat := "cat " + strings.Join(files, " ") + " > /dev/null"
	if err := sh(cat); err != nil {
		return err
	}
	d, err := timeIt(cat)
	if err != nil {
		return err
	}
	b.add(figFilesDCP, colBase, mbps(size, d))
	mnt, err := os.MkdirTemp("", "fsmount-bench-dcp")
	if err != nil {
		return err
	}
	defer os.Remove(mnt)
	if err := sh(filepath.Join(b.bin, "fsmount") + " " + b.dcp06 + " " + mnt); err != nil {
		return err
	}
	file := filepath.Join(mnt, "files", "model.safetensors")
	st, err := os.Stat(file)
	if err == nil {
		d, err = timeIt("cat " + file + " > /dev/null")
	}
	if err2 := unmount(mnt); err == nil {
		err = err2
	}
	if err != nil {
		return err
	}
	b.add(figFilesDCP, "fsmount", mbps(st.Size(), d))
	return nil
}
