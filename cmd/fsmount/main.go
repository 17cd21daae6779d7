// Command fsmount mounts a model as a read-only FUSE filesystem: every
// tensor a directory with shape, dtype and data, next to the verdict of
// the cross-check against config.json.
//
//	fsmount [options] MODEL MOUNTPOINT
//	fsmount -u MOUNTPOINT
//
// By default it validates the model, mounts it in a background daemon and
// returns once the mount answers; -f keeps it in the foreground.
//
// Exit codes:
//
//	0  mounted (or unmounted)
//	1  the mount or unmount failed
//	2  the model is unreadable or invalid; nothing was mounted
//	10 the mount point is unusable (missing, not a directory, not empty,
//	   a dead mount) or FUSE is unavailable
//	64 usage error
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsmount/fsmount/internal/version"
)

// Exit codes.
const (
	exitOK         = 0
	exitFailed     = 1
	exitInvalid    = 2
	exitMountPoint = 10
	exitUsage      = 64
)

const usage = `usage: fsmount [options] MODEL MOUNTPOINT
       fsmount -u MOUNTPOINT

Mounts MODEL read-only at MOUNTPOINT: every tensor is a directory holding
shape, dtype and data; verdict, report, shapes, expected/ and by-name/ sit
at the top. MODEL is a directory with config.json and model.safetensors
(or model.safetensors.index.json and its shards), or one .safetensors file.

Returns once the mount is ready; the daemon serves it until it is
unmounted (fsmount -u, umount, fusermount3 -u) or sent SIGINT/SIGTERM.

Options:
  -f, --foreground    stay in the foreground
  -u, --unmount       unmount MOUNTPOINT (also a dead mount left by a killed daemon)
  -o OPTIONS          comma-separated mount options: allow_other, ro
  --allow-other       let other users read the mount (same as -o allow_other)
  --mmap              serve data from the model's mapping rather than by
                      splicing from the file (as fast; see bench/)
  -d, --debug         log every FUSE request (implies --foreground)
  --help              show this help
  --version           print the version

Exit status: 0 ok, 1 mount failed, 2 invalid model (nothing mounted),
10 unusable mount point or no FUSE, 64 usage error.
`

// config is the parsed command line.
type config struct {
	foreground bool
	unmount    bool
	allowOther bool
	debug      bool
	mmap       bool
	args       []string
}

// usageError is a bad command line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func parseArgs(args []string) (*config, error) {
	c := &config{}
	fl := flag.NewFlagSet("fsmount", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	fl.BoolVar(&c.foreground, "f", false, "")
	fl.BoolVar(&c.foreground, "foreground", false, "")
	fl.BoolVar(&c.unmount, "u", false, "")
	fl.BoolVar(&c.unmount, "unmount", false, "")
	fl.BoolVar(&c.allowOther, "allow-other", false, "")
	fl.BoolVar(&c.mmap, "mmap", false, "")
	fl.BoolVar(&c.debug, "d", false, "")
	fl.BoolVar(&c.debug, "debug", false, "")
	showVersion := fl.Bool("version", false, "")
	fl.Func("o", "", func(s string) error {
		for _, o := range strings.Split(s, ",") {
			switch o {
			case "allow_other":
				c.allowOther = true
			case "ro", "default_permissions", "":
			case "debug":
				c.debug = true
			default:
				return fmt.Errorf("unknown mount option %q", o)
			}
		}
		return nil
	})
	// Options may come before, between or after the operands.
	for {
		if err := fl.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, &usageError{err.Error()}
		}
		if fl.NArg() == 0 {
			break
		}
		c.args = append(c.args, fl.Arg(0))
		args = fl.Args()[1:]
	}
	if *showVersion {
		return nil, errVersion
	}
	if c.debug {
		c.foreground = true
	}
	switch {
	case c.unmount && len(c.args) != 1:
		return nil, &usageError{fmt.Sprintf("-u takes one MOUNTPOINT, got %d arguments", len(c.args))}
	case !c.unmount && len(c.args) != 2:
		return nil, &usageError{fmt.Sprintf("expected MODEL and MOUNTPOINT, got %d arguments", len(c.args))}
	}
	return c, nil
}

var errVersion = errors.New("version")

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	c, err := parseArgs(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, usage)
		return exitOK
	case errors.Is(err, errVersion):
		fmt.Fprintf(stdout, "fsmount %s\n", version.String())
		return exitOK
	case err != nil:
		fmt.Fprintf(stderr, "fsmount: %v\n%s", err, usage)
		return exitUsage
	}
	// The daemon leaves its working directory once ready, so a relative
	// mount point must be made absolute now (it is needed to unmount).
	mntArg := c.args[len(c.args)-1]
	mnt, err := filepath.Abs(mntArg)
	if err != nil {
		fmt.Fprintf(stderr, "fsmount: %v\n", err)
		return exitMountPoint
	}
	if c.unmount {
		if err := unmount(mnt, stderr); err != nil {
			fmt.Fprintf(stderr, "fsmount: %v\n", err)
			return exitFailed
		}
		return exitOK
	}
	model := c.args[0]
	if err := checkFUSE(); err != nil {
		fmt.Fprintf(stderr, "fsmount: %v\n", err)
		return exitMountPoint
	}
	if err := checkMountpoint(mnt); err != nil {
		fmt.Fprintf(stderr, "fsmount: %v\n", err)
		return exitMountPoint
	}
	if c.foreground || os.Getenv(notifyEnv) != "" {
		return serve(c, model, mnt, stderr)
	}
	return daemonize(stderr)
}
