package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/fsmount/fsmount/internal/fusetest"
	"github.com/fsmount/fsmount/internal/testmodel"
)

// The walk row: `go run ./bench -walk [-walk-peer BINDIR]`
// mounts the Qwen3-0.6B layout (sparse: a walk reads no tensor data) and
// walks it as a user would: find, ls -lR, then stat of every file. The
// figure is the daemon's CPU for the walk in clock ticks (utime+stime
// from /proc/PID/stat), not wall time: on a machine shared with other
// work it is the steadier figure. The peer is another build of fsmount
// (BINDIR/fsmount), e.g. the older design at fb334c4, which listed every
// file with its attributes, mounted and walked in the same round,
// alternating with this one; the ratio is the median of the per-round
// ratios. Without the peer, the older design's figure measured by hand
// (25–41 ticks on the loaded 2-core machine) is the reference.
const (
	figWalk     = "walk of Qwen3-0.6B: find, ls -lR, stat of every file (daemon CPU, ticks)"
	walkTarget  = "≤ 30 (0.3 s); fb334c4 measured 25–41, 43–77 before the fix"
	walkDefault = 5
)

// walk runs rounds of the walk row and prints its table.
func walk(cache string, rounds int, peerBin string, w io.Writer) error {
	bin, err := buildCommands(cache)
	if err != nil {
		return err
	}
	dir := filepath.Join(cache, "qwen3-0.6b-sparse")
	if _, err := os.Stat(filepath.Join(dir, "model.safetensors")); err != nil {
		if err := testmodel.WriteSparse06B(dir); err != nil {
			return err
		}
	}
	var ours, peer, ratio []float64
	for r := 0; r < rounds; r++ {
		fmt.Fprintf(os.Stderr, "bench: walk, run %d of %d\n", r+1, rounds)
		t, err := walkTicks(filepath.Join(bin, "fsmount"), dir)
		if err != nil {
			return err
		}
		ours = append(ours, t)
		if peerBin == "" {
			continue
		}
		p, err := walkTicks(filepath.Join(peerBin, "fsmount"), dir)
		if err != nil {
			return fmt.Errorf("peer: %w", err)
		}
		peer = append(peer, p)
		ratio = append(ratio, t/max(p, 1))
	}
	if peerBin == "" {
		fmt.Fprintf(w, "\n| figure | fsmount | target |\n|---|---:|---|\n| %s | %s | %s |\n", figWalk, num(median(ours)), walkTarget)
	} else {
		fmt.Fprintf(w, "\n| figure | fsmount | peer (%s) | × | target |\n|---|---:|---:|---:|---|\n| %s | %s | %s | %.2f | %s |\n",
			peerBin, figWalk, num(median(ours)), num(median(peer)), median(ratio), walkTarget)
	}
	fmt.Fprintf(w, "\nmedian%s of %d run%[1]s, each on a fresh mount\n", plural(rounds), rounds)
	return nil
}

// walkTicks mounts dir with fsmount and returns the daemon's CPU ticks
// for find, ls -lR and a stat of every file of the mount.
func walkTicks(fsmount, dir string) (float64, error) {
	mnt, err := os.MkdirTemp("", "fsmount-bench-walk")
	if err != nil {
		return 0, err
	}
	defer os.Remove(mnt)
	if err := sh(fsmount + " " + dir + " " + mnt); err != nil {
		return 0, err
	}
	defer unmount(mnt)
	pid := fusetest.DaemonPid(mnt)
	if pid <= 0 {
		return 0, fmt.Errorf("no daemon for %s", mnt)
	}
	before, err := fusetest.CPUSeconds(pid)
	if err != nil {
		return 0, err
	}
	if err := sh(fmt.Sprintf("find %[1]s >/dev/null && ls -lR %[1]s >/dev/null && find %[1]s -type f -exec stat {} + >/dev/null", mnt)); err != nil {
		return 0, err
	}
	after, err := fusetest.CPUSeconds(pid)
	if err != nil {
		return 0, err
	}
	return math.Round((after - before) * 100), nil // CPUSeconds' ticks are 1/100 s
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
