// Command bench measures fsmount (splicing, --mmap, --passthrough) against
// direct reads of the same bytes, a tmpfs copy of the same tree, and
// squashfuse serving the same tree from an uncompressed squashfs image,
// and prints one table.
//
//	go run ./bench -cache DIR            # full: the 1.5 GB Qwen3-0.6B layout, 5 rounds
//	go run ./bench -cache DIR -short     # the tiny model, 3 rounds (CI)
//	go run ./bench -cache DIR -many      # only the half-million-tensor model, 1 round
//	go run ./bench -cache DIR -walk [-walk-peer BINDIR]  # only the walk row (walk.go)
//	go run ./bench -cache DIR -write docs/performance.md
//
// With -write it also runs one round of the half-million-tensor model
// (as -many) and writes the tables as docs/performance.md, with the
// machine, the command and what each figure measures: that file is never
// edited by hand.
//
// Every figure is the median over the rounds; every ratio is the median of
// the per-round ratios against a baseline measured in the same round. The
// models are made once in the cache directory. Run as root: it mounts, and
// copies a tree to /dev/shm.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-helper" {
		os.Exit(helper(os.Args[2:]))
	}
	cache := flag.String("cache", filepath.Join(os.TempDir(), "fsmount-bench"), "directory for the models, binaries and images (kept between runs)")
	short := flag.Bool("short", false, "the tiny model, 3 rounds: checks that the script works")
	rounds := flag.Int("rounds", 0, "rounds (default 5, or 3 with -short)")
	noPeer := flag.Bool("no-squashfuse", false, "skip the squashfuse peer")
	manyOnly := flag.Bool("many", false, "only the half-million-tensor model (1 round unless -rounds)")
	walkOnly := flag.Bool("walk", false, "only the walk row: the daemon's CPU for find, ls -lR and stat of the 0.6B tree (5 rounds unless -rounds)")
	walkPeer := flag.String("walk-peer", "", "with -walk: a directory holding another build's fsmount, walked in the same rounds")
	write := flag.String("write", "", "also write the tables, the machine and the command as Markdown to FILE (docs/performance.md)")
	flag.Parse()
	if *manyOnly {
		if err := many(*cache, max(*rounds, 1), !*noPeer, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *walkOnly {
		n := *rounds
		if n == 0 {
			n = walkDefault
		}
		if err := walk(*cache, n, *walkPeer, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *rounds == 0 {
		*rounds = 5
		if *short {
			*rounds = 3
		}
	}
	b, err := setup(*cache, *short, !*noPeer)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	defer b.cleanup()
	if err := b.run(*rounds); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	b.print(os.Stdout)
	if *write != "" {
		// The half-million-tensor table: one round (it takes minutes).
		var manyTable bytes.Buffer
		if err := many(*cache, 1, !*noPeer, io.MultiWriter(os.Stdout, &manyTable)); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		if err := writeDoc(*write, b, manyTable.Bytes()); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
	}
}

// sh runs a shell command and fails loudly.
func sh(script string) error {
	out, err := exec.Command("sh", "-c", script).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v: %s", script, err, strings.TrimSpace(string(out)))
	}
	return nil
}
