package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/internal/cli"
	"github.com/fsmount/fsmount/internal/par"
)

// list prints this user's fsmount mounts (every one for root), one line
// each: mount point, model, daemon pid, ✓ or ✗ from the verdict, and the
// state of the daemon. It reads /proc/self/mountinfo, finds each daemon by
// the FUSE connection of the /dev/fuse it holds, and never blocks on a
// daemon that does not answer.
func list(stdout, stderr io.Writer) int {
	entries, err := readMountinfo()
	if err != nil {
		fmt.Fprintf(stderr, "fsmount: %v\n", err)
		return cli.ExitFailed
	}
	uid := os.Geteuid()
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MOUNTPOINT\tMODEL\tPID\tVERDICT\tDAEMON")
	for _, e := range entries {
		if e.FSType != fsType || (uid != 0 && e.UserID != uid) {
			continue
		}
		pid := "-"
		if p := daemonPid(e.Minor); p != 0 {
			pid = strconv.Itoa(p)
		}
		verdict, state := "?", probe(e.Point).String()
		if state == healthy.String() {
			verdict = readVerdict(e.Point)
		}
		// Names as another user chose them (root lists every user's
		// mounts): control characters escaped, so that none reaches the
		// terminal or breaks the table.
		point, source := check.Escape(e.Point), check.Escape(e.Source)
		switch state {
		case dead.String():
			state = "dead (ENOTCONN): run fsmount -u " + point
		case hung.String():
			state = "not answering: run fsmount -u " + point
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", point, source, pid, verdict, state)
	}
	tw.Flush()
	return cli.ExitOK
}

// readVerdict returns ✓, ✗ or – (not checked) from the mount's verdict
// file, whose first line starts with that sign; "?" if it cannot be read
// in time.
func readVerdict(mnt string) string {
	got := make(chan string, 1)
	par.Go(func() {
		b, err := os.ReadFile(filepath.Join(mnt, "verdict"))
		if err != nil {
			got <- "?"
			return
		}
		first, _, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
		got <- first
	})
	select {
	case v := <-got:
		return v
	case <-time.After(probeTimeout):
		return "?"
	}
}
