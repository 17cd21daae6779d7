package fusefs

import (
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"

	"github.com/fsmount/fsmount/adapter"
	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/internal/par"
)

// Options tune a mount. The zero value is what fsmount uses by default.
type Options struct {
	// AllowOther, if set, lets other users enter the mount. The kernel
	// still checks the tree's modes (default_permissions).
	AllowOther bool
	// Debug, if set, logs every FUSE request and reply to Logger.
	Debug bool
	// Logger receives go-fuse's diagnostics; nil means stderr.
	Logger *log.Logger
	// Compare, if set, adds compare/: the comparison of the model with
	// another checkpoint (NewComparison), computed when read.
	Compare *Comparison
	// Adapter, if set, mounts a checked LoRA adapter: its report is the
	// verdict, each adapted module gets lora/ (A, B, delta) under its
	// directory, and the report given to Mount is its base's (or, without
	// a base, that of the adapter's weights file).
	Adapter *adapter.Report
	// maxLiveFiles, if positive, replaces maxLiveFiles, and the watcher
	// then leaves pruning to the caller, so that a test sees the bound
	// passed before it prunes (tests).
	maxLiveFiles int
	// unlinkedFiles lists files unlinked (node ID 0) even in a tree
	// small enough to link them (tree.linkFiles; tests).
	unlinkedFiles bool
	// DirectMount mounts with mount(2) instead of through fusermount3,
	// which needs root; MS_RDONLY then also spares the atime GETATTR
	// after each read.
	DirectMount bool
	// Mmap, if set, serves data by handing the kernel slices of the
	// model's mapping (fuse.ReadResultData) instead of splicing from the
	// file (fuse.ReadResultFd). Both are zero-copy in the daemon and read
	// at the same speed (bench/); splicing is the default because an I/O
	// error of the model file then fails the one read with EIO, and the
	// model's pages stay out of the daemon's RSS.
	Mmap bool
	// Passthrough, if set, serves files/ of a local model with kernel
	// FUSE passthrough where the kernel grants it (passthrough.go): the
	// kernel then reads the model files itself, at the speed of a direct
	// read. It needs an OPEN reply, so every open of every file then
	// costs a request (and its close another), which makes a cat of many
	// small files several times slower (the bench's open-mode rows): it
	// is not the default. Where the kernel does not grant it (not root, a
	// kernel without CONFIG_FUSE_PASSTHROUGH, a remote model, a model on
	// overlayfs) the mount is as without it, and Logger is told why.
	Passthrough bool
	// Prepared, if set, is what Prepare computed of the model while it
	// was being checked; Mount computes what it lacks.
	Prepared *Prepared
	// refusePassthrough, if set, does not negotiate passthrough with the
	// kernel, which then refuses every backing file (tests).
	refusePassthrough bool
}

// cacheTimeout is how long the kernel may trust entries, attributes and
// negative lookups. Nothing changes while mounted, so it is long.
const cacheTimeout = time.Hour

// mountOptions translates Options into go-fuse's, with the reason for
// each value that is not go-fuse's default.
func mountOptions(model string, o *Options) *fs.Options {
	t := cacheTimeout
	logger := logger(o)
	var refused uint64
	if o.refusePassthrough {
		refused = fuse.CAP_PASSTHROUGH
	}
	return &fs.Options{
		// Without explicit timeouts go-fuse sends 0, and the kernel then
		// revalidates attributes on every read(): half the throughput.
		EntryTimeout:    &t,
		AttrTimeout:     &t,
		NegativeTimeout: &t,
		UID:             uint32(os.Getuid()),
		GID:             uint32(os.Getgid()),
		Logger:          logger,
		MountOptions: fuse.MountOptions{
			FsName: model,     // first column of mount and df
			Name:   "fsmount", // type fuse.fsmount
			// ro: writes get EROFS from the kernel. default_permissions:
			// the kernel enforces the tree's 0444/0555 modes.
			Options:    []string{"ro", "default_permissions"},
			AllowOther: o.AllowOther,
			// Requests of up to 1 MiB (the kernel's cap) once readahead is
			// raised. Splicing needs header + payload + a page to fit the
			// 1 MiB pipe, or go-fuse silently falls back to pread: so
			// 1 MiB - 8 KiB. Served from the mapping, splice only adds
			// pipe churn and is disabled.
			MaxWrite:             maxWrite(!o.Mmap),
			DisableSplice:        o.Mmap,
			DirectMount:          o.DirectMount,
			DirectMountFlags:     unix.MS_RDONLY | unix.MS_NOSUID | unix.MS_NODEV,
			DisabledCapabilities: refused,
			// by-name/'s links never change (made again, they are the
			// same): the kernel keeps their targets, and an ls -l of it
			// sends no READLINK per link.
			EnableSymlinkCaching: true,
			Debug:                o.Debug,
			Logger:               logger,
		},
	}
}

// Mount serves the checked model at mountpoint and returns once the kernel
// has answered INIT, i.e. once the mount is usable. The model must stay
// open until the returned server's Wait returns.
func Mount(mountpoint string, r *check.Report, o *Options) (*fuse.Server, error) {
	server, _, err := mount(mountpoint, r, o)
	return server, err
}

// mount is Mount, also returning the tree it serves.
func mount(mountpoint string, r *check.Report, o *Options) (*fuse.Server, *tree, error) {
	if o == nil {
		o = &Options{}
	}
	root, err := newRootPrepared(r, uint32(os.Getuid()), uint32(os.Getgid()), !o.Mmap, logger(o), o.Compare.comparison(), o.Adapter, o.Prepared)
	if err != nil {
		return nil, nil, err
	}
	root.t.live.max = o.maxLiveFiles
	root.t.linkFiles = root.t.nextIno <= linkFilesMax && !o.unlinkedFiles
	root.t.live.byHand = o.maxLiveFiles > 0
	if o.Passthrough {
		root.t.open = &openMode{decided: make(chan struct{})}
		// Decided on every path: an OPEN that arrived meanwhile waits.
		defer root.t.open.decide(false)
	}
	// The mount is named after what the user mounted: an adapter, not
	// its base (mount's first column, fsmount --list).
	name := r.Model.Location
	if o.Adapter != nil {
		name = o.Adapter.Adapter.Location
	}
	// A local path made absolute: fsmount --list is read from anywhere.
	if !strings.Contains(name, "://") {
		if abs, err := filepath.Abs(name); err == nil {
			name = abs
		}
	}
	opts := mountOptions(name, o)
	server, err := fuse.NewServer(&unasked{fs.NewNodeFS(root, opts)}, mountpoint, &opts.MountOptions)
	if err != nil {
		return nil, nil, err
	}
	par.Go(server.Serve)
	if err := server.WaitMount(); err != nil {
		server.Unmount()
		return nil, nil, err
	}
	if o.Passthrough {
		err := probePassthrough(server, r.Model.AllFiles())
		root.t.passthroughErr = err
		root.t.open.decide(err == nil)
		if err != nil {
			root.t.logger.Printf("%v; files/ is served by the daemon", err)
		}
	}
	stop := make(chan struct{})
	// Building the tree of a large model leaves garbage several times what
	// it keeps (1.5 GB for 500,000 tensors): the watcher hands it back
	// once the new mount has been idle a second, as after a burst of reads.
	root.t.busy = true
	files := r.Model.AllFiles()
	par.Go(func() { root.t.watch(files, stop) })
	par.Go(func() {
		server.Wait()
		close(stop)
	})
	return server, root.t, nil
}

func logger(o *Options) *log.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return log.New(os.Stderr, "fsmount: ", log.Lmicroseconds)
}

func maxWrite(splice bool) int {
	if splice {
		return 1<<20 - 8<<10
	}
	return 1 << 20
}
