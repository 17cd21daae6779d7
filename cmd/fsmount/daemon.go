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
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fsmount/fsmount/fusefs"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/spec"
)

// notifyEnv names the file descriptor on which a daemon reports that its
// mount is ready; its presence marks the process as the daemon.
const notifyEnv = "FSMOUNT_NOTIFY_FD"

const readyMsg = "ready\n"

// readyTimeout bounds how long the parent waits for the daemon.
const readyTimeout = 2 * time.Minute

// daemonize re-executes fsmount as a daemon in its own session and waits
// until the daemon reports, through a pipe, that the mount answers (like
// squashfuse's notify pipe). If the daemon exits first, its exit status is
// passed on; its error message has already gone to our stderr.
func daemonize(stderr io.Writer) int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "fsmount: %v\n", err)
		return exitFailed
	}
	r, w, err := os.Pipe()
	if err != nil {
		fmt.Fprintf(stderr, "fsmount: %v\n", err)
		return exitFailed
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Env = append(os.Environ(), notifyEnv+"=3")
	cmd.ExtraFiles = []*os.File{w} // fd 3 in the child
	cmd.Stderr = stderr            // errors before readiness reach the user
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "fsmount: starting the daemon: %v\n", err)
		return exitFailed
	}
	w.Close()

	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		got <- line
	}()
	select {
	case line := <-got:
		if line == readyMsg {
			return exitOK
		}
	case <-time.After(readyTimeout):
		cmd.Process.Kill()
		fmt.Fprintf(stderr, "fsmount: the daemon did not report the mount ready within %v\n", readyTimeout)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() > 0 {
		return ee.ExitCode()
	}
	return exitFailed
}

// serve validates and mounts the model, reports readiness if it is the
// daemon, and serves until unmounted or signalled.
func serve(c *config, loc, mnt string, stderr io.Writer) int {
	m, err := model.Open(loc)
	if err != nil {
		fmt.Fprintf(stderr, "fsmount: %v\n", err)
		return exitInvalid
	}
	defer m.Close()
	// files/ serves the tokenizer and the other files beside the weights.
	if err := m.OpenOthers(); err != nil {
		fmt.Fprintf(stderr, "fsmount: %v\n", err)
		return exitInvalid
	}
	r, err := spec.Check(m)
	if err != nil {
		fmt.Fprintf(stderr, "fsmount: %v\n", err)
		return exitInvalid
	}
	logs := &logWriter{w: stderr}
	logger := log.New(logs, "fsmount: ", log.Lmicroseconds)
	// As root, mount(2) directly rather than through fusermount3.
	root := os.Geteuid() == 0
	server, err := fusefs.Mount(mnt, r, &fusefs.Options{AllowOther: c.allowOther, Debug: c.debug, Mmap: c.mmap, Logger: logger, DirectMount: root})
	if err != nil {
		fmt.Fprintf(stderr, "fsmount: mounting %s: %v\n", mnt, err)
		return exitFailed
	}
	if root {
		// Best effort: without it the mount works, with smaller reads.
		if err := setReadahead(mnt, readaheadKB); err != nil {
			logger.Printf("readahead not raised: %v", err)
		}
	}

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		for range sigs {
			if err := server.Unmount(); err != nil {
				// Busy: detach now, the kernel lets go when the last
				// file is closed.
				lazyUnmount(mnt)
			}
		}
	}()

	if fd := os.Getenv(notifyEnv); fd != "" {
		if err := notifyReady(fd); err != nil {
			fmt.Fprintf(stderr, "fsmount: %v\n", err)
			server.Unmount()
			return exitFailed
		}
		detach()
		// Once detached, warnings (a model file that shrank, a failed
		// read) go to syslog, as other FUSE daemons' do.
		if sl, err := syslog.New(syslog.LOG_WARNING|syslog.LOG_DAEMON, "fsmount"); err == nil {
			defer sl.Close()
			logs.set(sl)
		} else {
			logs.set(io.Discard)
		}
	}
	server.Wait()
	return exitOK
}

// logWriter is where the daemon's log goes: stderr until it detaches,
// then syslog.
type logWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *logWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *logWriter) set(w io.Writer) {
	l.mu.Lock()
	l.w = w
	l.mu.Unlock()
}

func notifyReady(fdEnv string) error {
	fd, err := strconv.Atoi(fdEnv)
	if err != nil {
		return fmt.Errorf("bad %s=%q", notifyEnv, fdEnv)
	}
	f := os.NewFile(uintptr(fd), "notify")
	defer f.Close()
	_, err = io.WriteString(f, readyMsg)
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
