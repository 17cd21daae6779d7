package main

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fsmount/fsmount/internal/fusetest"
	"github.com/fsmount/fsmount/internal/testmodel"
)

// system is one way of serving the tree.
type system struct {
	name  string
	mount func(mnt string) error
	ratio bool
}

type bench struct {
	root            string // the repository
	cache, bin, shm string
	dense, moe      string // model directories
	bin06           string // the dense model as a torch.save pytorch_model.bin
	dcp06           string // the dense model as a 2-rank Distributed Checkpoint
	deepseek        string // the full-size DeepSeek-V3 layout, sparse shards
	modelFile       string // the dense model's safetensors file
	image           string // squashfs image of the dense tree, "" without the peer
	systems         []system

	dataFiles, smallFiles, metaFiles []string // relative to a tree root
	bigFile                          string   // the largest tensor's data file
	smallRanges                      []string // "off:len" of the small tensors in modelFile
	bigRange                         [2]int64
	dataBytes, smallBytes            int64

	// vals[figure][column] holds one value per round.
	vals map[string]map[string][]float64
	// lists are the temporary file lists, removed by cleanup.
	lists []string
}

const (
	colBase = "baseline"
)

// buildCommands checks that the bench runs as root (its rows mount and
// use /dev/shm) and builds the commands into cache/bin, which it returns.
func buildCommands(cache string) (string, error) {
	if os.Geteuid() != 0 {
		return "", fmt.Errorf("run as root: the benchmark mounts")
	}
	root, err := testmodel.RepoRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(cache, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return "", err
	}
	build := exec.Command("go", "build", "-o", bin+"/", "./cmd/...")
	build.Dir, build.Stderr = root, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("go build: %v", err)
	}
	return bin, nil
}

func setup(cache string, short, peer bool) (*bench, error) {
	bin, err := buildCommands(cache)
	if err != nil {
		return nil, err
	}
	root, err := testmodel.RepoRoot()
	if err != nil {
		return nil, err
	}
	b := &bench{root: root, cache: cache, bin: bin, vals: map[string]map[string][]float64{}}
	layout := filepath.Join(root, "testdata", "qwen3-0.6b-layout")
	if short {
		b.dense = filepath.Join(root, "testdata", "tiny-qwen3")
	} else {
		b.dense = filepath.Join(cache, "qwen3-0.6b-dense")
		if _, err := os.Stat(filepath.Join(b.dense, "model.safetensors")); err != nil {
			fmt.Fprintln(os.Stderr, "bench: writing the 1.5 GB Qwen3-0.6B layout (once)…")
			if err := testmodel.WriteDenseModel(b.dense, filepath.Join(layout, "model.safetensors.tensor-listing.tsv"), filepath.Join(layout, "config.json")); err != nil {
				return nil, err
			}
		}
	}
	b.modelFile = filepath.Join(b.dense, "model.safetensors")
	// The same model as a torch.save pytorch_model.bin.
	b.bin06 = filepath.Join(cache, filepath.Base(b.dense)+"-bin")
	if _, err := os.Stat(filepath.Join(b.bin06, "pytorch_model.bin")); err != nil {
		if err := testmodel.ConvertToTorch(b.dense, b.bin06); err != nil {
			return nil, err
		}
	}
	// The same model as FSDP2's dcp.save over 2 ranks.
	b.dcp06 = filepath.Join(cache, filepath.Base(b.dense)+"-dcp")
	if _, err := os.Stat(filepath.Join(b.dcp06, ".metadata")); err != nil {
		if err := testmodel.WriteModelDCP(b.dense, b.dcp06, 2); err != nil {
			return nil, err
		}
	}
	b.moe = filepath.Join(cache, "qwen3-coder-30b-a3b-sparse")
	if _, err := os.Stat(filepath.Join(b.moe, "config.json")); err != nil {
		if err := os.MkdirAll(b.moe, 0o755); err != nil {
			return nil, err
		}
		if _, err := testmodel.WriteRealSharded(b.moe, filepath.Join(root, "testdata", "realworld", "Qwen3-Coder-30B-A3B-Instruct")); err != nil {
			return nil, err
		}
	}

	// The full-size DeepSeek-V3 (45,395 tensors): transformers' names and
	// shapes from the reference layout, grown to 61 layers of 256 experts.
	b.deepseek = filepath.Join(cache, "deepseek-v3-full-sparse")
	if _, err := os.Stat(filepath.Join(b.deepseek, "config.json")); err != nil {
		if err := writeDeepSeekV3(root, b.deepseek); err != nil {
			return nil, err
		}
	}

	fsmount := filepath.Join(b.bin, "fsmount")
	b.systems = []system{
		{name: "fsmount", ratio: true, mount: func(mnt string) error { return sh(fsmount + " " + b.dense + " " + mnt) }},
		{name: "fsmount --mmap", ratio: true, mount: func(mnt string) error { return sh(fsmount + " --mmap " + b.dense + " " + mnt) }},
		// The third serves the files/ row with passthrough (views.go).
		{name: "fsmount --passthrough", ratio: true, mount: func(mnt string) error { return sh(fsmount + " --passthrough " + b.dense + " " + mnt) }},
		// The same model as pytorch_model.bin: its column against the first.
		{name: "fsmount .bin", ratio: true, mount: func(mnt string) error { return sh(fsmount + " " + b.bin06 + " " + mnt) }},
	}

	// The same tree on tmpfs, copied from a mount; it also gives the file
	// lists and, from the location files, the byte ranges.
	b.shm = filepath.Join("/dev/shm", "fsmount-bench-tree")
	os.RemoveAll(b.shm)
	mnt, err := os.MkdirTemp("", "fsmount-bench-mnt")
	if err != nil {
		return nil, err
	}
	defer os.Remove(mnt)
	if err := b.systems[0].mount(mnt); err != nil {
		return nil, err
	}
	// The layout files are copied; files/ (the model again) and the
	// decoded views (values is several times the data) are not read, but
	// made as empty files, so that find and cat walk the same tree.
	err = sh(fmt.Sprintf(`mkdir -p %[2]s && cd %[1]s && tar --exclude=./files --exclude='values*' --exclude=stats --exclude=hist --exclude=sha256 -cf - . | tar -C %[2]s -xf - &&
		find . -path ./files -prune -o \( -name 'values*' -o -name stats -o -name hist -o -name sha256 \) -print | (cd %[2]s && xargs touch) && mkdir -p %[2]s/files`, mnt, b.shm))
	if err2 := sh("umount " + mnt); err == nil {
		err = err2
	}
	if err != nil {
		return nil, err
	}
	if err := b.listFiles(); err != nil {
		return nil, err
	}
	if peer {
		if err := b.setupPeer(); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// setupPeer makes an uncompressed squashfs image of the same tree, once.
func (b *bench) setupPeer() error {
	for _, tool := range []string{"squashfuse", "mksquashfs"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%s not found (Debian packages squashfuse, squashfs-tools); or pass -no-squashfuse", tool)
		}
	}
	b.image = filepath.Join(b.cache, filepath.Base(b.dense)+".squashfs")
	if _, err := os.Stat(b.image); err != nil {
		fmt.Fprintln(os.Stderr, "bench: making the squashfs image (once)…")
		if err := sh(fmt.Sprintf("mksquashfs %s %s -noI -noD -noF -noX -no-xattrs -quiet -no-progress", b.shm, b.image)); err != nil {
			return err
		}
	}
	b.systems = append(b.systems, system{name: "squashfuse", ratio: true, mount: func(mnt string) error {
		return sh("squashfuse " + b.image + " " + mnt)
	}})
	return nil
}

func (b *bench) listFiles() error {
	type sized struct {
		rel  string
		size int64
	}
	var data []sized
	err := filepath.WalkDir(b.shm, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(b.shm, p)
		if d.IsDir() && (rel == "by-name" || rel == "expected" || rel == "files") {
			return filepath.SkipDir
		}
		switch d.Name() {
		case "shape", "dtype":
			b.metaFiles = append(b.metaFiles, rel)
		case "data":
			info, err := d.Info()
			if err != nil {
				return err
			}
			data = append(data, sized{rel, info.Size()})
			b.dataFiles = append(b.dataFiles, rel)
			b.dataBytes += info.Size()
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Slice(data, func(i, j int) bool { return data[i].size > data[j].size })
	b.bigFile = data[0].rel
	loc := func(rel string) (int64, int64, error) {
		raw, err := os.ReadFile(filepath.Join(b.shm, filepath.Dir(rel), "location"))
		if err != nil {
			return 0, 0, err
		}
		f := strings.Fields(string(raw))
		off, _ := strconv.ParseInt(f[1], 10, 64)
		n, _ := strconv.ParseInt(f[2], 10, 64)
		return off, n, nil
	}
	var err2 error
	b.bigRange[0], b.bigRange[1], err2 = loc(b.bigFile)
	if err2 != nil {
		return err2
	}
	// The small tensors: all but the two large ones (embed_tokens, lm_head).
	for _, d := range data[min(2, len(data)-1):] {
		off, n, err := loc(d.rel)
		if err != nil {
			return err
		}
		if n == 0 {
			continue
		}
		b.smallFiles = append(b.smallFiles, d.rel)
		b.smallRanges = append(b.smallRanges, fmt.Sprintf("%d:%d", off, n))
		b.smallBytes += n
	}
	return nil
}

func (b *bench) cleanup() {
	os.RemoveAll(b.shm)
	for _, l := range b.lists {
		os.Remove(l)
	}
}

func (b *bench) add(figure, col string, v float64) {
	if b.vals[figure] == nil {
		b.vals[figure] = map[string][]float64{}
	}
	b.vals[figure][col] = append(b.vals[figure][col], v)
}

// timeIt runs a shell command and returns its wall time.
func timeIt(script string) (time.Duration, error) {
	start := time.Now()
	err := sh(script)
	return time.Since(start), err
}

// catFiles writes a NUL-separated list of files under root and returns a
// command that cats them all to /dev/null.
func (b *bench) catCmd(root string, rels []string) (string, error) {
	f, err := os.CreateTemp("", "fsmount-bench-list")
	if err != nil {
		return "", err
	}
	b.lists = append(b.lists, f.Name())
	w := bufio.NewWriter(f)
	for _, r := range rels {
		w.WriteString(filepath.Join(root, r))
		w.WriteByte(0)
	}
	if err := w.Flush(); err != nil {
		return "", err
	}
	f.Close()
	return "xargs -0 cat < " + f.Name() + " > /dev/null", nil
}

func mbps(bytes int64, d time.Duration) float64 { return float64(bytes) / 1e6 / d.Seconds() }
func ms(d time.Duration) float64                { return float64(d.Microseconds()) / 1000 }

// Figure names, in table order.
const (
	figReady06    = "mount-ready, 0.6B (ms)"
	figReadyMoE   = "mount-ready, 18,867-tensor MoE (ms)"
	figReadyDS    = "mount-ready, 45,395-tensor DeepSeek-V3 (ms)"
	figCatFirst   = "cat every data file, first read (MB/s)"
	figCatReread  = "cat every data file, re-read (MB/s)"
	figSmallFirst = "the small tensors, first read (MB/s)"
	figFindCold   = "find, cold (ms)"
	figFindWarm   = "find, warm (ms)"
	figMetaCold   = "cat every shape+dtype, cold (ms)"
	figMetaWarm   = "cat every shape+dtype, warm (ms)"
	figMmap       = "mmap consumer, first read (MB/s)"
	figRssAnon    = "daemon RssAnon after all (MiB)"
	figVmRSS      = "daemon VmRSS after all (MiB)"
)

var figures = []struct {
	name, baseline, target string
	higherBetter           bool
}{
	{figReady06, "fsinspect", "≤ 200 ms", false},
	{figReadyMoE, "fsinspect", "≤ 300 ms", false},
	{figReadyDS, "fsinspect", "≤ 45,395/18,867 × the MoE row", false},
	{figCatFirst, "cat model.safetensors, hot", "≥ 0.5×", true},
	{figCatReread, "cat model.safetensors, hot", "≥ 0.8×", true},
	{figSmallFirst, "pread of the same ranges", "≥ 0.4×", true},
	{figFindCold, "tmpfs copy", "≤ 3×", false},
	{figFindWarm, "tmpfs copy", "≤ 1.3×", false},
	{figMetaCold, "tmpfs copy", "≤ 3×", false},
	{figMetaWarm, "tmpfs copy", "≤ 1.3×", false},
	{figMmap, "mmap of the model's range", "", true},
	{figRssAnon, "", "≤ 32 MiB", false},
	{figVmRSS, "", "", false},
}

func (b *bench) run(rounds int) error {
	for r := 0; r < rounds; r++ {
		fmt.Fprintf(os.Stderr, "bench: run %d of %d\n", r+1, rounds)
		if err := b.round(); err != nil {
			return err
		}
		if err := b.viewRound(); err != nil {
			return fmt.Errorf("views: %w", err)
		}
	}
	return nil
}

func (b *bench) round() error {
	// Baselines of this round.
	if err := sh("cat " + b.modelFile + " > /dev/null"); err != nil {
		return err
	}
	d, err := timeIt("cat " + b.modelFile + " > /dev/null")
	if err != nil {
		return err
	}
	st, _ := os.Stat(b.modelFile)
	direct := mbps(st.Size(), d)
	b.add(figCatFirst, colBase, direct)
	b.add(figCatReread, colBase, direct)
	fsinspect := filepath.Join(b.bin, "fsinspect")
	for fig, model := range map[string]string{figReady06: b.dense, figReadyMoE: b.moe, figReadyDS: b.deepseek} {
		d, err := timeIt(fsinspect + " " + model + " > /dev/null")
		if err != nil {
			return err
		}
		b.add(fig, colBase, ms(d))
	}
	self, _ := os.Executable()
	d, err = timeIt(self + " -helper ranges " + b.modelFile + " " + strings.Join(b.smallRanges, " "))
	if err != nil {
		return err
	}
	b.add(figSmallFirst, colBase, mbps(b.smallBytes, d))
	d, err = timeIt(fmt.Sprintf("%s -helper mmap %s %d %d", self, b.modelFile, b.bigRange[0], b.bigRange[1]))
	if err != nil {
		return err
	}
	b.add(figMmap, colBase, mbps(b.bigRange[1], d))
	if err := b.metadata(b.shm, colBase); err != nil {
		return err
	}

	for _, s := range b.systems {
		if err := b.session(s); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	// The MoE mounts, fsmount only (a 61 GB squashfs image is not made).
	for fig, model := range map[string]string{figReadyMoE: b.moe, figReadyDS: b.deepseek} {
		for _, s := range b.systems[:2] {
			mnt, err := os.MkdirTemp("", "fsmount-bench-moe")
			if err != nil {
				return err
			}
			flag := ""
			if strings.Contains(s.name, "mmap") {
				flag = "--mmap "
			}
			d, err := timeIt(filepath.Join(b.bin, "fsmount") + " " + flag + model + " " + mnt)
			if err != nil {
				return err
			}
			b.add(fig, s.name, ms(d))
			if err := unmount(mnt); err != nil {
				return err
			}
			os.Remove(mnt)
		}
	}
	return nil
}

// metadata times `find` of the tree at root and one `cat` of every shape
// and dtype file: the first run (cold) and the median of three more (warm).
func (b *bench) metadata(root, col string) error {
	catMeta, err := b.catCmd(root, b.metaFiles)
	if err != nil {
		return err
	}
	var findT, metaT []float64
	for i := 0; i < 4; i++ {
		d1, err := timeIt("find " + root + " > /dev/null")
		if err != nil {
			return err
		}
		d2, err := timeIt(catMeta)
		if err != nil {
			return err
		}
		findT, metaT = append(findT, ms(d1)), append(metaT, ms(d2))
	}
	b.add(figFindCold, col, findT[0])
	b.add(figFindWarm, col, median(findT[1:]))
	b.add(figMetaCold, col, metaT[0])
	b.add(figMetaWarm, col, median(metaT[1:]))
	return nil
}

// session runs the per-system measurements on two fresh mounts.
func (b *bench) session(s system) error {
	if s.name == "squashfuse" {
		if err := sh("cat " + b.image + " > /dev/null"); err != nil {
			return err
		}
	}
	mnt, err := os.MkdirTemp("", "fsmount-bench-mnt")
	if err != nil {
		return err
	}
	defer os.Remove(mnt)
	start := time.Now()
	if err := s.mount(mnt); err != nil {
		return err
	}
	b.add(figReady06, s.name, ms(time.Since(start)))
	if err := b.metadata(mnt, s.name); err != nil {
		return err
	}
	catData, err := b.catCmd(mnt, b.dataFiles)
	if err != nil {
		return err
	}
	d, err := timeIt(catData)
	if err != nil {
		return err
	}
	b.add(figCatFirst, s.name, mbps(b.dataBytes, d))
	if d, err = timeIt(catData); err != nil {
		return err
	}
	b.add(figCatReread, s.name, mbps(b.dataBytes, d))
	if pid := fusetest.DaemonPid(mnt); pid > 0 {
		anon, rss := status(pid)
		b.add(figRssAnon, s.name, anon/1024)
		b.add(figVmRSS, s.name, rss/1024)
	}
	if err := unmount(mnt); err != nil {
		return err
	}

	// Second mount: the small tensors, then a consumer that maps the
	// largest tensor, both cold.
	if err := s.mount(mnt); err != nil {
		return err
	}
	catSmall, err := b.catCmd(mnt, b.smallFiles)
	if err != nil {
		return err
	}
	if d, err = timeIt(catSmall); err != nil {
		return err
	}
	b.add(figSmallFirst, s.name, mbps(b.smallBytes, d))
	self, _ := os.Executable()
	if d, err = timeIt(fmt.Sprintf("%s -helper mmap %s 0 %d", self, filepath.Join(mnt, b.bigFile), b.bigRange[1])); err != nil {
		return err
	}
	b.add(figMmap, s.name, mbps(b.bigRange[1], d))
	return unmount(mnt)
}

// mountTemp mounts s on a new temporary directory named after prefix;
// done unmounts it and removes the directory.
func mountTemp(s system, prefix string) (mnt string, done func() error, err error) {
	mnt, err = os.MkdirTemp("", prefix)
	if err != nil {
		return "", nil, err
	}
	if err := s.mount(mnt); err != nil {
		os.Remove(mnt)
		return "", nil, err
	}
	return mnt, func() error {
		err := unmount(mnt)
		os.Remove(mnt)
		return err
	}, nil
}

func unmount(mnt string) error {
	for i := 0; ; i++ {
		err := sh("umount " + mnt)
		if err == nil || i == 20 {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// status returns RssAnon and VmRSS of pid, in kB (0 where unread).
func status(pid int) (anon, rss float64) {
	a, _ := fusetest.StatusKB(pid, "RssAnon")
	r, _ := fusetest.StatusKB(pid, "VmRSS")
	return float64(a), float64(r)
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// ratio is the median of the per-round ratios of col to the baseline.
func (b *bench) ratio(fig, col string) (float64, bool) {
	sv, bv := b.vals[fig][col], b.vals[fig][colBase]
	if len(sv) == 0 || len(bv) != len(sv) {
		return 0, false
	}
	r := make([]float64, len(sv))
	for i := range sv {
		r[i] = sv[i] / bv[i]
	}
	return median(r), true
}

func (b *bench) print(w io.Writer) {
	cols := []string{}
	for _, s := range b.systems {
		cols = append(cols, s.name)
	}
	fmt.Fprintf(w, "| figure |")
	for _, c := range cols {
		fmt.Fprintf(w, " %s | × |", c)
	}
	fmt.Fprintf(w, " baseline | target |\n|---|")
	for range cols {
		fmt.Fprintf(w, "---:|---:|")
	}
	fmt.Fprintf(w, "---|---|\n")
	for _, f := range figures {
		fmt.Fprintf(w, "| %s |", f.name)
		for _, c := range cols {
			v := b.vals[f.name][c]
			if len(v) == 0 {
				fmt.Fprintf(w, " n/a | |")
				continue
			}
			fmt.Fprintf(w, " %s |", num(median(v)))
			if r, ok := b.ratio(f.name, c); ok {
				fmt.Fprintf(w, " %.2f |", r)
			} else {
				fmt.Fprintf(w, " |")
			}
		}
		base := ""
		if v := b.vals[f.name][colBase]; len(v) > 0 {
			base = num(median(v)) + " (" + f.baseline + ")"
		}
		fmt.Fprintf(w, " %s | %s |\n", base, f.target)
	}
	fmt.Fprintf(w, "\nmedians of %d runs; × is the median per-run ratio to the baseline (for times, lower is better)\n", len(b.vals[figCatFirst][colBase]))
	fmt.Fprintf(w, "model: %s (%d data files, %s MB; %d small tensors, %s MB)\n", b.dense, len(b.dataFiles), num(float64(b.dataBytes)/1e6), len(b.smallFiles), num(float64(b.smallBytes)/1e6))
	b.printViews(w)
}

func num(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// writeDeepSeekV3 writes the full-size DeepSeek-V3 layout into dir.
func writeDeepSeekV3(root, dir string) error {
	ls, err := testmodel.ReadLayouts(filepath.Join(root, "spec", "testdata", "layouts.tar.gz"))
	if err != nil {
		return err
	}
	for _, l := range ls {
		if l.Arch == "deepseek_v3" && l.Variant == "a" {
			cfg, ts, err := testmodel.ExpandMoELayout(l, 61, 256, 3)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			return testmodel.WriteShardedLayout(dir, cfg, ts, 1000)
		}
	}
	return fmt.Errorf("no deepseek_v3/a layout")
}
