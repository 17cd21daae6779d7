package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// helper runs in a child process so that its time is measured like a
// command's:
//
//	-helper ranges FILE OFF:LEN...   pread each range in 128 KiB reads, as cat does
//	-helper mmap FILE OFF LEN        map the range and copy it out in 1 MiB chunks
func helper(args []string) int {
	if err := runHelper(args); err != nil {
		fmt.Fprintln(os.Stderr, "bench helper:", err)
		return 1
	}
	return 0
}

func runHelper(args []string) error {
	if len(args) < 2 {
		return fmt.Errorf("usage: -helper ranges|mmap FILE …")
	}
	f, err := os.Open(args[1])
	if err != nil {
		return err
	}
	defer f.Close()
	switch args[0] {
	case "ranges":
		buf := make([]byte, 128<<10)
		for _, r := range args[2:] {
			o, l, _ := strings.Cut(r, ":")
			off, _ := strconv.ParseInt(o, 10, 64)
			n, _ := strconv.ParseInt(l, 10, 64)
			for done := int64(0); done < n; {
				k, err := f.ReadAt(buf[:min(int64(len(buf)), n-done)], off+done)
				if err != nil {
					return err
				}
				done += int64(k)
			}
		}
	case "mmap":
		off, _ := strconv.ParseInt(args[2], 10, 64)
		n, _ := strconv.ParseInt(args[3], 10, 64)
		page := int64(os.Getpagesize())
		start := off / page * page
		m, err := unix.Mmap(int(f.Fd()), start, int(off+n-start), unix.PROT_READ, unix.MAP_SHARED)
		if err != nil {
			return err
		}
		defer unix.Munmap(m)
		buf := make([]byte, 1<<20)
		for p := off - start; p < int64(len(m)); p += int64(len(buf)) {
			copy(buf, m[p:])
		}
	default:
		return fmt.Errorf("unknown helper %q", args[0])
	}
	return nil
}
