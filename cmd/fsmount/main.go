// Command fsmount mounts a model as a read-only FUSE filesystem: every
// tensor a directory with shape, dtype and data, next to the verdict of
// the cross-check against config.json.
//
//	fsmount [options] MODEL MOUNTPOINT
//	fsmount -u MOUNTPOINT
//	fsmount --list
//
// By default it validates the model, mounts it in a background daemon and
// returns once the mount answers, printing one line with the verdict;
// -f keeps it in the foreground.
//
// Its exit codes are internal/cli's table (fsmount --help, README.md).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsmount/fsmount/internal/cli"
	"github.com/fsmount/fsmount/internal/version"
)

const usage = `usage: fsmount [options] MODEL MOUNTPOINT
       fsmount -u MOUNTPOINT
       fsmount --list

Mounts MODEL read-only at MOUNTPOINT: every tensor is a directory holding
shape, dtype, data, location and its decoded views (values, values.f32,
values.npy, stats, sha256, hist); verdict, report, shapes, stats,
expected/, by-name/ and files/ sit at the top. MODEL is a directory with
config.json and model.safetensors (or model.safetensors.index.json and its
shards; or pytorch_model.bin, or its index and shards, read without running
pickle and also served as files/model.safetensors; or a PyTorch Distributed
Checkpoint, .metadata and its .distcp files, its weights served the same
way and an optimizer's state under optim/), one .safetensors, .bin,
.pt or .pth file, a .gguf file (or a directory holding one), an http(s)://
URL of any of these, hf://ORG/NAME[@REVISION], or s3://BUCKET/PREFIX/ or
s3://BUCKET/KEY (AWS S3 or a store set by AWS_ENDPOINT_URL; AWS
credentials, AWS_PROFILE, AWS_REGION).


Returns once the mount is ready and prints one line, e.g.
  mounted /mnt/q: ✓ 311 tensors, 596M params — cat /mnt/q/verdict
The daemon serves the mount until it is unmounted (fsmount -u, umount,
fusermount3 -u) or sent SIGINT/SIGTERM. Options may come before or after
the operands; -- ends them.

Options:
  -f, --foreground    stay in the foreground (warnings go to stderr)
  -u, --unmount       unmount MOUNTPOINT (also a dead mount left by a killed
                      daemon; refuses anything that is not an fsmount mount)
  --list              list this user's fsmount mounts (all of them for root)
  -o OPTIONS          comma-separated mount options: allow_other, ro
  --allow-other       let other users read the mount (same as -o allow_other;
                      as a user other than root, needs user_allow_other in
                      /etc/fuse.conf)
  --compare OTHER     add compare/: MODEL against the checkpoint OTHER,
                      tensor by tensor (summary, stats, delta.f32, delta.npy)
  --base BASE         when MODEL is a LoRA adapter (a directory holding
                      adapter_config.json): its base model; each adapted
                      module's directory gets lora/ with A, B and delta
                      (scale·B·A). Without it, the base the adapter names
                      when that is a local directory, else the adapter alone
  --cache-dir DIR     for a remote MODEL: the on-disk chunk cache (default
                      $XDG_CACHE_HOME/fsmount, else ~/.cache/fsmount, else
                      $XDG_RUNTIME_DIR/fsmount, else none); refused unless
                      yours and writable by nobody else
  --cache-size SIZE   its bound, e.g. 10G, 512M, or 0 for none (default 2G)
  --timeout DURATION  for a remote MODEL: the longest a read may wait for
                      the server, retries included, before it fails with
                      EIO, e.g. 30s (default 2m); a connection, a response
                      or a stalled body is not waited for longer either. A
                      read fails sooner once its 4 retries (backing off
                      from 250 ms, about 4 s in all) are spent
  --no-sign-request   for an s3:// MODEL: send requests unsigned, for a
                      public bucket (no credentials are looked for)
  --mmap              serve data from the model's mapping rather than by
                      splicing from the file (as fast; see bench/)
  --passthrough       serve files/ of a local model by kernel FUSE
                      passthrough where the kernel allows it (as root, on a
                      kernel with CONFIG_FUSE_PASSTHROUGH): files/ then
                      reads as fast as the model files themselves, but
                      every open of any file costs a request, so a cat of
                      many small files is several times slower; without
                      it (the default) files/ is spliced, as data is
  --log FILE          append the daemon's warnings to FILE (default: syslog
                      once in the background, stderr with -f)
  -q, --quiet         print nothing on success
  --strict            once mounted, exit with the verdict's status: 1 for
                      cross-check problems, 3 if the model was not checked
  -d, --debug         log every FUSE request (implies --foreground)
  --help              show this help
  --version           print the version

`

// config is the parsed command line.
type config struct {
	foreground  bool
	unmount     bool
	list        bool
	allowOther  bool
	debug       bool
	mmap        bool
	passthrough bool
	quiet       bool
	strict      bool
	logFile     string
	other       string // --compare
	base        string // --base, for an adapter
	cacheDir    string // --cache-dir
	cacheSize   string // --cache-size
	timeout     cli.Timeout
	noSign      bool // --no-sign-request
	args        []string
}

// usageError is a bad command line.
type usageError = cli.UsageError

func parseArgs(args []string) (*config, error) {
	c := &config{}
	fl := flag.NewFlagSet("fsmount", flag.ContinueOnError)
	// the switches and the string options, each under its names
	for names, p := range map[string]*bool{"f foreground": &c.foreground, "u unmount": &c.unmount, "list": &c.list,
		"allow-other": &c.allowOther, "mmap": &c.mmap, "passthrough": &c.passthrough, "no-sign-request": &c.noSign,
		"d debug": &c.debug, "q quiet": &c.quiet, "strict": &c.strict} {
		for _, n := range strings.Fields(names) {
			fl.BoolVar(p, n, false, "")
		}
	}
	for name, p := range map[string]*string{"compare": &c.other, "base": &c.base, "cache-dir": &c.cacheDir,
		"cache-size": &c.cacheSize, "log": &c.logFile} {
		fl.StringVar(p, name, "", "")
	}
	fl.Var(&c.timeout, "timeout", "")
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
	operands, err := cli.Parse(fl, args)
	if err != nil {
		return nil, err
	}
	c.args = operands
	if *showVersion {
		return nil, errVersion
	}
	if c.debug {
		c.foreground = true
	}
	switch {
	case c.list && c.unmount:
		return nil, &usageError{Msg: "--list and -u exclude each other"}
	case c.list && len(c.args) != 0:
		return nil, &usageError{Msg: fmt.Sprintf("--list takes no arguments, got %d", len(c.args))}
	case c.list:
	case c.unmount && len(c.args) != 1:
		return nil, &usageError{Msg: fmt.Sprintf("-u takes one MOUNTPOINT, got %d arguments", len(c.args))}
	case !c.unmount && len(c.args) != 2:
		return nil, &usageError{Msg: fmt.Sprintf("expected MODEL and MOUNTPOINT, got %d arguments; usage: fsmount [options] MODEL MOUNTPOINT", len(c.args))}
	}
	if c.cacheSize != "" {
		if _, err := parseSize(c.cacheSize); err != nil {
			return nil, &usageError{Msg: fmt.Sprintf("--cache-size %q: %v", c.cacheSize, err)}
		}
	}
	return c, nil
}

var errVersion = errors.New("version")

func main() {
	openNotify()
	code := cli.Main("fsmount", os.Stderr, func() int { return run(os.Args[1:], os.Stdout, os.Stderr) })
	notifyExit(code)
	os.Exit(code)
}

func run(args []string, stdout, stderr io.Writer) int {
	c, err := parseArgs(args)
	var ue *usageError
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, usage+cli.Help("fsmount"))
		return cli.ExitOK
	case errors.Is(err, errVersion):
		fmt.Fprintf(stdout, "fsmount %s\n", version.String())
		return cli.ExitOK
	case errors.As(err, &ue):
		io.WriteString(stderr, ue.Line("fsmount"))
		return cli.ExitUsage
	case err != nil:
		fmt.Fprintf(stderr, "fsmount: %v\n", err)
		return cli.ExitUsage
	}
	if c.list {
		return list(stdout, stderr)
	}
	// The daemon leaves its working directory once ready, so a relative
	// mount point must be made absolute now (it is needed to unmount).
	mntArg := c.args[len(c.args)-1]
	mnt, err := absPath(mntArg)
	if err != nil {
		fmt.Fprintf(stderr, "fsmount: %v\n", err)
		return cli.ExitMountPoint
	}
	if c.unmount {
		if err := unmount(mnt, stderr); err != nil {
			fmt.Fprintf(stderr, "fsmount: %v\n", err)
			return cli.ExitFailed
		}
		return cli.ExitOK
	}
	if c.logFile != "" {
		if c.logFile, err = filepath.Abs(c.logFile); err != nil {
			fmt.Fprintf(stderr, "fsmount: --log: %v\n", err)
			return cli.ExitUsage
		}
	}
	model := c.args[0]
	if err := checkFUSE(c.allowOther); err != nil {
		fmt.Fprintf(stderr, "fsmount: %v\n", err)
		return cli.ExitMountPoint
	}
	if err := checkFree(mnt); err != nil {
		fmt.Fprintf(stderr, "fsmount: %v\n", err)
		return cli.ExitMountPoint
	}
	if c.foreground || os.Getenv(notifyEnv) != "" {
		return serve(c, model, mnt, stdout, stderr)
	}
	return daemonize(c, mnt, stdout, stderr)
}
