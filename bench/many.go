package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsmount/fsmount/internal/fusetest"
	"github.com/fsmount/fsmount/internal/testmodel"
)

// The half-million-tensor figures: `go run ./bench -many` mounts
// the 499,971-tensor model of testmodel.WriteManyTensors (48 sparse
// shards, made once in the cache) and measures what a tree that size
// costs: mount-ready, the idle daemon, a full find and what it leaves,
// and the first MiB of the root index.html. The daemon's CPU time is
// given beside each wall time: on a shared machine it is the steadier
// figure. With the peer, a find of one layer is timed against squashfuse
// serving the same names, and the whole tree's find at squashfuse's rate
// is the floor any FUSE server would meet on the machine.
const (
	figManyReady    = "mount-ready (s)"
	figManyReadyCPU = "mount-ready, daemon CPU (s)"
	figManyFaults   = "mount-ready, daemon minor page faults"
	figManyIdle     = "idle RssAnon (MiB)"
	figManyFind     = "find of the whole tree (s)"
	figManyFindCPU  = "find, daemon CPU (s)"
	figManyFindPeak = "RssAnon peak during find (MiB)"
	figManyAfter    = "RssAnon idle after find (MiB)"
	figManyIndex    = "first MiB of index.html (s)"
	figManyIndexCPU = "first MiB of index.html, daemon CPU (s)"
	figManyLayer    = "find of one layer, 13,889 directories (s)"
	figManyLayerSq  = "the same names from squashfuse (s)"
	figManyFloor    = "the whole tree's directories at squashfuse's rate (s, estimated)"
)

var manyFigures = []struct{ name, target string }{
	{figManyReady, "≤ 2"},
	{figManyReadyCPU, ""},
	{figManyFaults, "≤ 16,384 (the tensor table in 2 MB pages, never touched whole)"},
	{figManyIdle, "≤ 250"},
	{figManyFind, "≤ 60"},
	{figManyFindCPU, ""},
	{figManyFindPeak, "≤ 1024"},
	{figManyAfter, "≤ 300"},
	{figManyIndex, "≤ 1"},
	{figManyIndexCPU, ""},
	{figManyLayer, ""},
	{figManyLayerSq, "(peer)"},
	{figManyFloor, "(floor of the find row)"},
}

// many runs the half-million-tensor rounds and prints their table.
func many(cache string, rounds int, peer bool, w io.Writer) error {
	bin, err := buildCommands(cache)
	if err != nil {
		return err
	}
	dir := filepath.Join(cache, "many-tensors")
	n := 0
	if _, err := os.Stat(filepath.Join(dir, "config.json")); err != nil {
		fmt.Fprintln(os.Stderr, "bench: writing the half-million-tensor model (once)…")
		if n, err = testmodel.WriteManyTensors(dir); err != nil {
			return err
		}
	}
	vals := map[string][]float64{}
	for r := 0; r < rounds; r++ {
		fmt.Fprintf(os.Stderr, "bench: half a million tensors, run %d of %d\n", r+1, rounds)
		if err := manyRound(filepath.Join(bin, "fsmount"), dir, peer, vals); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "\n| %d tensors, 48 sparse shards | fsmount | target |\n|---|---:|---|\n", max(n, testmodel.ManyTensorsLayers*(3*testmodel.ManyTensorsExperts+9)+3))
	for _, f := range manyFigures {
		if len(vals[f.name]) > 0 {
			fmt.Fprintf(w, "| %s | %s | %s |\n", f.name, num(median(vals[f.name])), f.target)
		}
	}
	fmt.Fprintf(w, "\nmedian%s of %d run%[1]s; RssAnon from /proc/PID/status, sampled every 100 ms during find; idle is 3 s without a request, 15 s after the find (by-name/ and expected/ are dropped after 10 s)\n", plural(rounds), rounds)
	return nil
}

// cpu returns the user and system time of pid, in seconds (0 if it
// cannot be read).
func cpu(pid int) float64 {
	s, _ := fusetest.CPUSeconds(pid)
	return s
}

func manyRound(fsmount, dir string, peer bool, vals map[string][]float64) error {
	mnt, err := os.MkdirTemp("", "fsmount-bench-many")
	if err != nil {
		return err
	}
	defer os.Remove(mnt)
	d, err := timeIt(fsmount + " " + dir + " " + mnt)
	if err != nil {
		return err
	}
	defer unmount(mnt)
	pid := fusetest.DaemonPid(mnt)
	if pid <= 0 {
		return fmt.Errorf("no daemon for %s", mnt)
	}
	vals[figManyReady] = append(vals[figManyReady], d.Seconds())
	vals[figManyReadyCPU] = append(vals[figManyReadyCPU], cpu(pid))
	faults, err := fusetest.MinorFaults(pid)
	if err != nil {
		return err
	}
	vals[figManyFaults] = append(vals[figManyFaults], float64(faults))
	idle := func(d time.Duration) float64 {
		time.Sleep(d)
		anon, _ := status(pid)
		return anon / 1024
	}
	// The watcher trims the heap after a second without a request.
	vals[figManyIdle] = append(vals[figManyIdle], idle(3*time.Second))
	if peer {
		if err := layerPeer(mnt, vals); err != nil {
			return err
		}
	}

	// find, sampling RssAnon.
	var peak float64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			anon, _ := status(pid)
			peak = max(peak, anon/1024)
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	before := cpu(pid)
	d, err = timeIt("find " + mnt + " > /dev/null")
	close(stop)
	wg.Wait()
	if err != nil {
		return err
	}
	vals[figManyFind] = append(vals[figManyFind], d.Seconds())
	vals[figManyFindCPU] = append(vals[figManyFindCPU], cpu(pid)-before)
	vals[figManyFindPeak] = append(vals[figManyFindPeak], peak)
	// by-name/ and expected/, which a find makes, are dropped after 10 s
	// without a request (fusefs's lazyIdle): what stays is measured past it.
	vals[figManyAfter] = append(vals[figManyAfter], idle(15*time.Second))

	before = cpu(pid)
	d, err = timeIt("head -c 1048576 " + filepath.Join(mnt, "index.html") + " > /dev/null")
	if err != nil {
		return err
	}
	vals[figManyIndex] = append(vals[figManyIndex], d.Seconds())
	vals[figManyIndexCPU] = append(vals[figManyIndexCPU], cpu(pid)-before)
	return nil
}

// layerPeer times a find of layers/1 of the mount against a find of
// squashfuse serving an image of layers/0's names (directories and empty
// files: the same counts), neither visited before. A find costs two FUSE
// round trips a directory at least (the second READDIRPLUS finds the
// end); squashfuse's time, scaled to the whole tree's directories (the
// tensors' and expected/'s, as many again), is what those round trips
// cost a FUSE server written in C on this machine.
func layerPeer(mnt string, vals map[string][]float64) error {
	tmp, err := os.MkdirTemp("", "fsmount-bench-layer")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	names, src := filepath.Join(tmp, "names"), filepath.Join(mnt, "layers", "0")
	dirs := 0
	err = filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			dirs++
			return os.Mkdir(filepath.Join(names, rel), 0o755)
		}
		return os.WriteFile(filepath.Join(names, rel), nil, 0o644)
	})
	if err != nil {
		return err
	}
	image, sq := filepath.Join(tmp, "layer.sqfs"), filepath.Join(tmp, "mnt")
	if err := sh("mksquashfs " + names + " " + image + " -quiet -no-progress -noappend"); err != nil {
		return err
	}
	if err := os.Mkdir(sq, 0o755); err != nil {
		return err
	}
	if err := sh("squashfuse " + image + " " + sq); err != nil {
		return err
	}
	defer unmount(sq)
	d, err := timeIt("find " + filepath.Join(mnt, "layers", "1") + " > /dev/null")
	if err != nil {
		return err
	}
	p, err := timeIt("find " + sq + " > /dev/null")
	if err != nil {
		return err
	}
	vals[figManyLayer] = append(vals[figManyLayer], d.Seconds())
	vals[figManyLayerSq] = append(vals[figManyLayerSq], p.Seconds())
	whole := 2 * testmodel.ManyTensorsLayers * dirs
	vals[figManyFloor] = append(vals[figManyFloor], p.Seconds()*float64(whole)/float64(dirs))
	return nil
}
