package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log"
	"log/syslog"
	"os"
	"os/exec"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"

	"github.com/fsmount/fsmount/adapter"
	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/fusefs"
	"github.com/fsmount/fsmount/internal/cli"
	"github.com/fsmount/fsmount/internal/mountinfo"
	"github.com/fsmount/fsmount/internal/par"
	"github.com/fsmount/fsmount/internal/progress"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/source/remote"
)

// notifyEnv names the file descriptor on which a daemon reports that its
// mount is ready; its presence marks the process as the daemon.
const notifyEnv = "FSMOUNT_NOTIFY_FD"

// readyPrefix starts the daemon's report on the notify pipe, which goes
// on with the verdict's exit status and the summary line:
// "ready 0\tmounted /mnt/q: ✓ …\n".
const readyPrefix = "ready "

// exitPrefix starts the report of a daemon that exits before its mount
// is ready, followed by its exit status: "exit 2\n".
const exitPrefix = "exit "

// notifyPipe is the daemon's end of the notify pipe until it has
// reported (ready, or its exit status); nil in any other process.
var notifyPipe *os.File

// openNotify takes the notify pipe named by notifyEnv, if any, before
// anything else runs, so that every exit of the daemon is reported.
func openNotify() {
	if fd, err := strconv.Atoi(os.Getenv(notifyEnv)); err == nil && fd > 2 {
		notifyPipe = os.NewFile(uintptr(fd), "notify")
	}
}

// notifyExit tells the waiting parent, if the daemon has not reported yet,
// the status it exits with.
func notifyExit(code int) {
	if notifyPipe != nil {
		fmt.Fprintf(notifyPipe, "%s%d\n", exitPrefix, code)
		notifyPipe.Close()
		notifyPipe = nil
	}
}

// readyTimeout bounds how long the parent waits for the daemon.
const readyTimeout = 2 * time.Minute

// daemonize re-executes fsmount as a daemon in its own session and waits
// until the daemon reports, through a pipe, that the mount answers (like
// squashfuse's notify pipe). If the daemon exits first, its exit status is
// passed on; its error message has already gone to our stderr.
func daemonize(c *config, mnt string, stdout, stderr io.Writer) int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "fsmount: %v\n", err)
		return cli.ExitFailed
	}
	r, w, err := os.Pipe()
	if err != nil {
		fmt.Fprintf(stderr, "fsmount: %v\n", err)
		return cli.ExitFailed
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Env = append(os.Environ(), notifyEnv+"=3")
	cmd.ExtraFiles = []*os.File{w} // fd 3 in the child
	cmd.Stderr = stderr            // errors before readiness reach the user
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "fsmount: starting the daemon: %v\n", err)
		return cli.ExitFailed
	}
	w.Close()

	got := make(chan string, 1)
	par.Go(func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		got <- line
	})
	var line string
	select {
	case line = <-got:
		if rest, ok := strings.CutPrefix(line, readyPrefix); ok {
			codeStr, text, _ := strings.Cut(strings.TrimSuffix(rest, "\n"), "\t")
			code, _ := strconv.Atoi(codeStr)
			return mounted(c, text, code, stdout, stderr)
		}
	case <-time.After(readyTimeout):
		cmd.Process.Kill()
		fmt.Fprintf(stderr, "fsmount: the daemon did not report the mount ready within %v\n", readyTimeout)
	}
	return daemonEnded(line, cmd.Wait(), mnt, stderr)
}

// daemonEnded is the exit status of a daemon that ended before its mount
// was ready: the code it reported on the notify pipe (exitPrefix), which
// is its own exit status. One that died without reporting crashed (a
// panic off the main goroutine exits 2, which must not read as an
// invalid model) or was killed.
func daemonEnded(line string, waitErr error, mnt string, stderr io.Writer) int {
	if rest, ok := strings.CutPrefix(line, exitPrefix); ok {
		if code, err := strconv.Atoi(strings.TrimSuffix(rest, "\n")); err == nil {
			return code
		}
	}
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) && ee.ExitCode() > 0 {
		fmt.Fprintf(stderr, "fsmount: internal error, please report: the daemon crashed (%v) before the mount was ready (its stack is above); fsmount -u %s clears anything it left\n", waitErr, mnt)
		return cli.ExitInternal
	}
	// Killed (or exited 0 without a word): whatever it left at mnt,
	// fsmount -u clears.
	how := "exited without a word"
	if waitErr != nil {
		how = waitErr.Error()
	}
	fmt.Fprintf(stderr, "fsmount: the daemon ended before the mount was ready (%s); fsmount -u %s clears anything it left\n", how, mnt)
	return cli.ExitFailed
}

// mounted tells the user, once the mount is ready, what was mounted and
// (in the background, at a terminal) where the daemon's warnings go, and
// returns the exit status: 0, or the verdict's with --strict.
func mounted(c *config, line string, verdict int, stdout, stderr io.Writer) int {
	if !c.quiet {
		fmt.Fprintln(stdout, line)
		if !c.foreground && c.logFile == "" && progress.IsTerminal(stderr) {
			fmt.Fprintln(stderr, "fsmount: the daemon's warnings go to syslog (journalctl -t fsmount); --log FILE sends them to a file")
		}
	}
	if c.strict {
		return verdict
	}
	return cli.ExitOK
}

// serve validates and mounts the model, reports readiness if it is the
// daemon, and serves until unmounted or signalled.
// mountGCPercent is the collector's GOGC while mounting.
const mountGCPercent = 400

// servingGCPercent is its GOGC once mounted. The live heap is then
// mostly the architecture table and the tree, and serving allocates
// little (data is never copied), so a tighter pace costs little CPU and
// keeps the heap's slack, up to GOGC% of the live heap, small: at the
// default 100 the daemon's RssAnon grew by 15 MB while reading the 1.5
// GB 0.6B layout once the table held 1,175 classes (TestDaemonMemoryFlat).
const servingGCPercent = 50

func serve(c *config, loc, mnt string, stdout, stderr io.Writer) int {
	// A closed stderr (fsmount -f -d … 2>&1 | head) must not kill the
	// daemon: Go exits on SIGPIPE from a write to fd 1 or 2, and a daemon
	// that dies while one of its own threads waits on its mount leaves
	// that thread, and the mount, stuck.
	signal.Ignore(syscall.SIGPIPE)
	// Take SIGINT and SIGTERM from the start: one that arrives while
	// mounting unmounts cleanly once the mount is up, rather than killing
	// the process half-way.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	if stop := cpuProfile(stderr); stop != nil {
		defer stop()
	}
	// The heap grown while mounting is first touched in 2 MB pages
	// (hugepages.go), until mounted.
	hugeDone := hugeHeap()
	// Opening, checking and laying out a large model allocates several
	// times what it keeps (1.2 GB for 500,000 tensors, to keep 250 MB),
	// and at the default pace the collector took a third of mount-ready
	// time: collect less often until mounted. The mount's watcher hands
	// the garbage back to the system once it is idle.
	// Once mounted the collector runs at servingGCPercent, unless GOGC
	// says otherwise.
	serveGC := debug.SetGCPercent(mountGCPercent)
	if os.Getenv("GOGC") == "" {
		serveGC = servingGCPercent
	}
	restoreGC := sync.OnceFunc(func() { debug.SetGCPercent(serveGC) })
	defer restoreGC()

	ro, err := remoteOptions(c)
	if err != nil {
		fmt.Fprintf(stderr, "fsmount: %v\n", err)
		return cli.ExitInvalid
	}
	var ar *adapter.Report
	var m *model.Model
	isAdapter := adapter.IsAdapter(loc) || c.base != "" && adapter.IsRemote(loc)
	if !isAdapter && c.base != "" {
		fmt.Fprintf(stderr, "fsmount: --base is for an adapter (a directory holding adapter_config.json); %s is not one\n", loc)
		return cli.ExitUsage
	}
	if !isAdapter {
		if m, err = model.OpenWith(loc, ro); err != nil {
			// A remote adapter without --base: probed only when there is
			// no model there.
			if !errors.Is(err, model.ErrNoWeights) || !adapter.IsRemote(loc) {
				fmt.Fprintf(stderr, "fsmount: %v\n", err)
				return cli.ExitInvalid
			}
			isAdapter = true
		}
	}
	if isAdapter {
		var aerr error
		if ar, m, aerr = openAdapter(c, loc, ro); aerr != nil {
			// A remote location that is neither a model nor an adapter
			// is reported as the model it was first taken for.
			if err == nil || !errors.Is(aerr, adapter.ErrNotAdapter) {
				err = aerr
			}
			fmt.Fprintf(stderr, "fsmount: %v\n", err)
			return cli.ExitInvalid
		}
		defer ar.Adapter.Close()
	}
	defer m.Close()
	// files/ serves the tokenizer and the other files beside the weights.
	if err := m.OpenOthers(); err != nil {
		fmt.Fprintf(stderr, "fsmount: %v\n", err)
		return cli.ExitInvalid
	}
	// The tensors' directories are laid out on the other core while the
	// model is checked.
	pre := fusefs.Prepare(m)
	r, err := check.Check(m)
	if err != nil {
		fmt.Fprintf(stderr, "fsmount: %v\n", err)
		return cli.ExitInvalid
	}
	logs := &logWriter{w: stderr}
	var logFile *os.File
	if c.logFile != "" {
		if logFile, err = os.OpenFile(c.logFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err != nil {
			fmt.Fprintf(stderr, "fsmount: --log: %v\n", err)
			return cli.ExitFailed
		}
		defer logFile.Close()
		logs.set(logFile)
	}
	logger := log.New(logs, "fsmount: ", log.Lmicroseconds)
	var cmp *fusefs.Comparison
	if c.other != "" {
		// The other model is opened as MODEL is: a remote one with the
		// same --timeout and cache.
		o, err := model.OpenWith(c.other, ro)
		if err != nil {
			fmt.Fprintf(stderr, "fsmount: --compare: %v\n", err)
			return cli.ExitInvalid
		}
		defer o.Close()
		if cmp, err = fusefs.NewComparison(o, m); err != nil {
			fmt.Fprintf(stderr, "fsmount: --compare: %v\n", err)
			return cli.ExitInvalid
		}
	}
	server, code := mountExclusive(c, mnt, r, logger, stderr, cmp, ar, pre)
	restoreGC()
	hugeDone()
	if server == nil {
		return code
	}
	connGone := connectionGone()
	if os.Geteuid() == 0 {
		// Best effort: without it the mount works, with smaller reads.
		if err := setReadahead(mnt, readaheadKB); err != nil {
			logger.Printf("readahead not raised: %v", err)
		}
	}

	conn := ownConnection(mnt)
	left := make(chan struct{})
	par.Go(func() {
		for range sigs {
			if unmountOnSignal(mnt, conn) {
				close(left)
				return
			}
		}
	})
	ended := make(chan struct{})
	par.Go(func() {
		select {
		case <-connGone:
		case <-left:
		}
		close(ended)
	})

	line, vcode := summary(mnt, r), cli.VerdictCode(r.Clean(), r.Checked())
	if ar != nil {
		line, vcode = adapterSummary(mnt, ar), adapterCode(ar)
	}
	if notifyPipe != nil {
		if err := notifyReady(vcode, line); err != nil {
			fmt.Fprintf(stderr, "fsmount: %v\n", err)
			server.Unmount()
			return cli.ExitFailed
		}
		detach()
		// Once detached, warnings (a model file that shrank, a failed
		// read) go to the --log file, or to syslog, as other FUSE
		// daemons' do.
		if logFile == nil {
			if sl, err := syslog.New(syslog.LOG_WARNING|syslog.LOG_DAEMON, "fsmount"); err == nil {
				defer sl.Close()
				logs.set(sl)
			} else {
				logs.set(io.Discard)
			}
		}
		waitServed(server, ended)
		return cli.ExitOK
	}
	code = mounted(c, line, vcode, stdout, stderr)
	waitServed(server, ended)
	return code
}

// cpuProfileEnv names a file to which the daemon writes a CPU profile
// of its whole life, from mount to unmount (go tool pprof reads it): a
// hidden switch for measuring, not a user's option.
const cpuProfileEnv = "FSMOUNT_CPUPROFILE"

// cpuProfile starts the CPU profile cpuProfileEnv asks for, and returns
// what stops it; nil when none is asked for or it cannot start.
func cpuProfile(stderr io.Writer) func() {
	name := os.Getenv(cpuProfileEnv)
	if name == "" {
		return nil
	}
	f, err := os.Create(name)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(stderr, "fsmount: %s: %v\n", cpuProfileEnv, err)
		if f != nil {
			f.Close()
		}
		return nil
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// ownConnection returns the FUSE connection number of the mount at mnt
// (this daemon's, just made), or -1 if the table does not show it.
func ownConnection(mnt string) int {
	if es, err := readMountinfo(); err == nil {
		if e := mountinfo.Top(es, canonical(mnt)); e != nil && e.FSType == fsType {
			return e.Minor
		}
	}
	return -1
}

// unmountOnSignal unmounts the mount at mnt, connection conn, on SIGINT
// or SIGTERM, and reports whether the daemon is to exit now. A busy
// mount is detached, and its open files served until they are closed
// (the connection's end then ends the daemon); a second signal ends it
// at once. Otherwise the daemon exits once its mount is gone from its
// own mount namespace, even where copies of the mount in other
// namespaces (unshare -m, a container) keep the connection up: serving
// them on would make the signal do nothing a user can see, and go-fuse's
// Server.Unmount would wait for them. The exit ends the connection,
// which leaves the copies dead (ENOTCONN) for their namespaces to
// unmount.
func unmountOnSignal(mnt string, conn int) bool {
	err := unmountOnce(mnt)
	if errors.Is(err, syscall.EBUSY) {
		// The kernel lets go when the last file is closed.
		lazyUnmount(mnt)
		return false
	}
	if conn < 0 {
		return err == nil
	}
	es, rerr := readMountinfo()
	if rerr != nil {
		return err == nil
	}
	for _, e := range es {
		if e.FSType == fsType && e.Major == 0 && e.Minor == conn {
			return false
		}
	}
	return true
}

// waitServed returns once the server has stopped serving, or once its
// FUSE connection is gone or a signal has unmounted it (gone closed),
// whichever comes first: a request still being handled then (a page
// rendered for a reader killed meanwhile, a read waiting on a stalled
// server) has nobody left to answer, and the daemon must not outlive its
// mount for it, or a new mount at the same place (which may get the same
// connection number) would find it there.
func waitServed(server *fuse.Server, gone <-chan struct{}) {
	done := make(chan struct{})
	par.Go(func() {
		server.Wait()
		close(done)
	})
	select {
	case <-done:
	case <-gone:
		// What is quick to end ends; the rest is cut by the exit.
		select {
		case <-done:
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// connectionGone returns a channel closed once the FUSE connection of
// this process (its open /dev/fuse) is gone: the mount unmounted (and no
// longer busy), or its connection aborted. The kernel then reports
// POLLERR on /dev/fuse, which a poll for no event at all still returns.
// Where no /dev/fuse is found the channel never closes.
func connectionGone() <-chan struct{} {
	gone := make(chan struct{})
	var fds []unix.PollFd
	ents, _ := os.ReadDir("/proc/self/fd")
	for _, e := range ents {
		if l, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && l == "/dev/fuse" {
			if fd, err := strconv.Atoi(e.Name()); err == nil {
				fds = append(fds, unix.PollFd{Fd: int32(fd)})
			}
		}
	}
	if len(fds) == 0 {
		return gone
	}
	par.Go(func() {
		for {
			if _, err := unix.Poll(fds, -1); err != nil && !errors.Is(err, unix.EINTR) {
				return
			}
			for _, p := range fds {
				if p.Revents&(unix.POLLERR|unix.POLLHUP|unix.POLLNVAL) != 0 {
					close(gone)
					return
				}
			}
		}
	})
	return gone
}

// mountExclusive mounts r at mnt unless another fsmount mounts there at
// the same time or already has: of racing calls exactly one wins, the
// others get exit status 10. It returns the server, or nil and the exit
// status after printing why.
func mountExclusive(c *config, mnt string, r *check.Report, logger *log.Logger, stderr io.Writer, cmp *fusefs.Comparison, ar *adapter.Report, pre *fusefs.Prepared) (*fuse.Server, int) {
	release, err := lockMountpoint(mnt)
	if err != nil {
		fmt.Fprintf(stderr, "fsmount: %v\n", err)
		return nil, cli.ExitMountPoint
	}
	defer release()
	// Checked again under the lock: another call may have mounted since.
	if err := checkFree(mnt); err != nil {
		fmt.Fprintf(stderr, "fsmount: %v\n", err)
		return nil, cli.ExitMountPoint
	}
	// As root, mount(2) directly rather than through fusermount3.
	server, err := fusefs.Mount(mnt, r, &fusefs.Options{AllowOther: c.allowOther, Debug: c.debug, Mmap: c.mmap, Passthrough: c.passthrough, Logger: logger, DirectMount: os.Geteuid() == 0, Compare: cmp, Adapter: ar, Prepared: pre})
	if err != nil {
		if strings.Contains(err.Error(), "fusermount exited") {
			// fusermount3 has printed its reason on stderr already.
			fmt.Fprintf(stderr, "fsmount: fusermount3 refused to mount %s (its reason is above): FUSE is unavailable for this mount\n", mnt)
			return nil, cli.ExitMountPoint
		}
		fmt.Fprintf(stderr, "fsmount: mounting %s: %v\n", mnt, strings.TrimSpace(err.Error()))
		return nil, cli.ExitFailed
	}
	return server, cli.ExitOK
}

// logWriter is where the daemon's log goes: stderr until it detaches,
// then syslog.
type logWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write never fails: a log that cannot be written (a closed pipe, a full
// disk) must not stop the daemon or the request that logs.
func (l *logWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Write(p)
	return len(p), nil
}

func (l *logWriter) set(w io.Writer) {
	l.mu.Lock()
	l.w = w
	l.mu.Unlock()
}

// notifyReady tells the waiting parent that the mount is ready, with the
// verdict's exit status and the summary line.
func notifyReady(verdict int, line string) error {
	f := notifyPipe
	notifyPipe = nil
	defer f.Close()
	_, err := fmt.Fprintf(f, "%s%d\t%s\n", readyPrefix, verdict, line)
	return err
}

// detach does what a daemon should once it is ready: leave the working
// directory and let go of the terminal's stdio.
func detach() {
	os.Chdir("/")
	signal.Ignore(syscall.SIGHUP)
	if null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0); err == nil {
		for _, fd := range []int{0, 1, 2} {
			syscall.Dup2(int(null.Fd()), fd)
		}
		null.Close()
	}
}

// readaheadKB is the mount's readahead: with 1 MiB the kernel sends 1 MiB
// READ requests (its cap), a quarter of the requests of its 128 KiB
// default for a sequential read.
const readaheadKB = 1024

// setReadahead raises the mount's readahead, which go-fuse cannot do: the
// kernel offers its 128 KiB default and go-fuse may only lower it. It
// writes /sys/class/bdi, which needs root.
func setReadahead(mountpoint string, kb int) error {
	var st syscall.Stat_t
	if err := syscall.Stat(mountpoint, &st); err != nil {
		return err
	}
	path := fmt.Sprintf("/sys/class/bdi/%d:%d/read_ahead_kb", unix.Major(st.Dev), unix.Minor(st.Dev))
	return os.WriteFile(path, []byte(fmt.Sprint(kb)), 0)
}

// remoteOptions are the cache and timeout options of a remote model.
func remoteOptions(c *config) (*remote.Options, error) {
	o := &remote.Options{CacheDir: c.cacheDir, NoSignRequest: c.noSign}
	*o = o.WithTimeout(time.Duration(c.timeout))
	if c.cacheSize != "" {
		n, err := parseSize(c.cacheSize)
		if err != nil {
			return nil, fmt.Errorf("--cache-size %q: %v", c.cacheSize, err)
		}
		o.CacheSize = n
		if n == 0 {
			o.CacheSize = -1 // none
		}
	}
	return o, nil
}

// parseSize reads "10G", "512M", "64K" or a byte count.
func parseSize(s string) (int64, error) {
	mult := int64(1)
	switch strings.ToUpper(s[len(s)-1:]) {
	case "K":
		mult = 1 << 10
	case "M":
		mult = 1 << 20
	case "G":
		mult = 1 << 30
	case "T":
		mult = 1 << 40
	}
	if mult > 1 {
		s = s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, errors.New("not a size such as 10G, 512M or 0")
	}
	return n * mult, nil
}
