package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsmount/fsmount/internal/fusetest"
	"github.com/fsmount/fsmount/internal/testmodel"
)

// The half-million-tensor figures (#25): `go run ./bench -many` mounts
// the 499,971-tensor model of testmodel.WriteManyTensors (48 sparse
// shards, made once in the cache) and measures what a tree that size
// costs: mount-ready, the idle daemon, a full find and what it leaves,
// and the first MiB of the root index.html. The daemon's CPU time is
// given beside each wall time: on a shared machine it is the steadier
// figure.
const (
	figManyReady    = "mount-ready (s)"
	figManyReadyCPU = "mount-ready, daemon CPU (s)"
	figManyIdle     = "idle RssAnon (MiB)"
	figManyFind     = "find of the whole tree (s)"
	figManyFindCPU  = "find, daemon CPU (s)"
	figManyFindPeak = "RssAnon peak during find (MiB)"
	figManyAfter    = "RssAnon idle after find (MiB)"
	figManyIndex    = "first MiB of index.html (s)"
	figManyIndexCPU = "first MiB of index.html, daemon CPU (s)"
)

var manyFigures = []struct{ name, target string }{
	{figManyReady, "≤ 2"},
	{figManyReadyCPU, ""},
	{figManyIdle, "≤ 250"},
	{figManyFind, "≤ 60"},
	{figManyFindCPU, ""},
	{figManyFindPeak, "≤ 1024"},
	{figManyAfter, "≤ 300"},
	{figManyIndex, "≤ 1"},
	{figManyIndexCPU, ""},
}

// many runs the half-million-tensor rounds and prints their table.
func many(cache string, rounds int, w io.Writer) error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("run as root: the benchmark mounts")
	}
	root, err := testmodel.RepoRoot()
	if err != nil {
		return err
	}
	bin := filepath.Join(cache, "bin")
	build := exec.Command("go", "build", "-o", bin+"/", "./cmd/...")
	build.Dir, build.Stderr = root, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("go build: %v", err)
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
		fmt.Fprintf(os.Stderr, "bench: half a million tensors, round %d of %d\n", r+1, rounds)
		if err := manyRound(filepath.Join(bin, "fsmount"), dir, vals); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "\n| %d tensors, 48 sparse shards | fsmount | target |\n|---|---:|---|\n", max(n, testmodel.ManyTensorsLayers*(3*testmodel.ManyTensorsExperts+9)+3))
	for _, f := range manyFigures {
		fmt.Fprintf(w, "| %s | %s | %s |\n", f.name, num(median(vals[f.name])), f.target)
	}
	fmt.Fprintf(w, "\nmedians of %d rounds; RssAnon from /proc/PID/status, sampled every 100 ms during find; idle is 3 s without a request\n", rounds)
	return nil
}

// cpu returns the user and system time of pid, in seconds (0 if it
// cannot be read).
func cpu(pid int) float64 {
	s, _ := fusetest.CPUSeconds(pid)
	return s
}

func manyRound(fsmount, dir string, vals map[string][]float64) error {
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
	idle := func() float64 {
		time.Sleep(3 * time.Second) // the watcher trims after a second without a read
		anon, _ := status(pid)
		return anon / 1024
	}
	vals[figManyIdle] = append(vals[figManyIdle], idle())

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
	vals[figManyAfter] = append(vals[figManyAfter], idle())

	before = cpu(pid)
	d, err = timeIt("head -c 1048576 " + filepath.Join(mnt, "index.html") + " > /dev/null")
	if err != nil {
		return err
	}
	vals[figManyIndex] = append(vals[figManyIndex], d.Seconds())
	vals[figManyIndexCPU] = append(vals[figManyIndexCPU], cpu(pid)-before)
	return nil
}
