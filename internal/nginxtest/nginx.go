// Package nginxtest runs real HTTP servers on the loopback interface for
// the remote source's tests: Debian's nginx serving a directory, and a
// fault-injecting reverse proxy written in Go to put in front of it.
//
// [Start] runs nginx as a child process of the test, in the foreground
// (daemon off, master_process off), with a configuration generated in
// t.TempDir(): pid file, logs and temporary directories all live there, so
// no root path is written and root is not needed. nginx listens on two
// free ports of 127.0.0.1:
//
//   - the main server ([Server.URL]) serves the directory at "/", the same
//     directory with Range ignored under "/norange/", and Hub-style resolve
//     URLs "/{org}/{name}/resolve/{rev}/{file}" that answer 302 to the
//     storage server, like the Hugging Face Hub sends its downloads to a
//     storage host, and Hub-style raw URLs "/{org}/{name}/raw/{rev}/{file}"
//     that serve the file itself (the Hub serves a weights file's LFS
//     pointer there; the clients tested only ask whether it exists);
//   - the storage server ([Server.StorageURL]) serves the directory under
//     "/storage/".
//
// Every request is written to an access log with its Range and If-Range
// headers, its status, its connection and whether it carried an Authorization
// header (never its value). [Server.Requests] parses the log, after a synchronisation
// request that makes sure every earlier request has been logged.
//
// The tests skip when nginx is not installed, unless FSMOUNT_REQUIRE_NGINX=1
// is set, in which case a missing nginx fails them. On Debian:
// apt-get install nginx-light (or nginx).
package nginxtest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsmount/fsmount/internal/fusetest"
)

// RequireEnv is the environment variable that turns a missing nginx from a
// skip into a failure.
const RequireEnv = "FSMOUNT_REQUIRE_NGINX"

// Server is a running nginx.
type Server struct {
	URL        string // http://127.0.0.1:PORT of the main server, no trailing slash
	StorageURL string // http://127.0.0.1:PORT2 of the storage server
	Root       string // the directory served

	run     string
	logPath string
	cmd     *exec.Cmd
	stderr  *fusetest.SyncBuffer
	done    chan struct{}

	mu   sync.Mutex
	sync int
}

// Request is one line of the access log.
type Request struct {
	Port    int    // the port of the server that answered
	Method  string // GET, HEAD
	Path    string // the request's path, as nginx decoded it
	Range   string // the Range header, "" if none
	IfRange string // the If-Range header, "" if none
	Status  int
	Bytes   int64 // body bytes sent
	Auth    bool  // whether an Authorization header was sent
	Conn    int64 // nginx's connection serial number: equal for requests on one connection
}

// Binary returns the path of the nginx binary, or skips the test (fails it
// when FSMOUNT_REQUIRE_NGINX=1) if there is none.
func Binary(t testing.TB) string {
	t.Helper()
	for _, p := range []string{"nginx", "/usr/sbin/nginx"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("nginx is not installed and %s=1: apt-get install nginx-light", RequireEnv)
	}
	t.Skipf("nginx is not installed (apt-get install nginx-light); set %s=1 to make this a failure", RequireEnv)
	return ""
}

const confTemplate = `daemon off;
master_process off;
worker_processes 1;
pid @RUN@/nginx.pid;
error_log @RUN@/error.log info;
events { worker_connections 256; }
http {
    map $http_authorization $fsm_auth { "" "-"; default "auth"; }
    log_format fsm '$server_port	$request_method	$uri	"$http_range"	"$http_if_range"	$status	$body_bytes_sent	$fsm_auth	$connection';
    access_log @RUN@/access.log fsm;
    client_body_temp_path @RUN@/tmp/body;
    proxy_temp_path @RUN@/tmp/proxy;
    fastcgi_temp_path @RUN@/tmp/fastcgi;
    uwsgi_temp_path @RUN@/tmp/uwsgi;
    scgi_temp_path @RUN@/tmp/scgi;
    default_type application/octet-stream;
    sendfile on;
    keepalive_requests 10000;
    server {
        listen 127.0.0.1:@PORT@;
        root @ROOT@;
        etag on;
        max_ranges 1;
        location = /__fsmount_sync { return 204; }
        location /norange/ { alias @ROOT@/; max_ranges 0; }
        location ~ ^/[^/]+/[^/]+/resolve/[^/]+/(.+)$ {
            add_header X-Repo-Commit 0123456789abcdef0123456789abcdef01234567 always;
            return 302 http://127.0.0.1:@PORT2@/storage/$1;
        }
        location ~ ^/[^/]+/[^/]+/raw/[^/]+/(.+)$ {
            alias @ROOT@/$1;
        }
    }
    server {
        listen 127.0.0.1:@PORT2@;
        root @ROOT@;
        etag on;
        max_ranges 1;
        location = /__fsmount_sync { return 204; }
        location /storage/ { alias @ROOT@/; }
        location / { return 404; }
    }
}
`

// Start runs nginx serving root until the test ends.
func Start(t testing.TB, root string) *Server {
	t.Helper()
	bin := Binary(t)
	root, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		s, err := start(t, bin, root)
		if err == nil {
			return s
		}
		lastErr = err
	}
	t.Fatalf("nginx did not start: %v", lastErr)
	return nil
}

func start(t testing.TB, bin, root string) (*Server, error) {
	run := t.TempDir()
	for _, d := range []string{"body", "proxy", "fastcgi", "uwsgi", "scgi"} {
		if err := os.MkdirAll(filepath.Join(run, "tmp", d), 0o700); err != nil {
			return nil, err
		}
	}
	port, err := fusetest.FreePort()
	if err != nil {
		return nil, err
	}
	port2, err := fusetest.FreePort()
	if err != nil {
		return nil, err
	}
	conf := strings.NewReplacer("@RUN@", run, "@ROOT@", root,
		"@PORT@", strconv.Itoa(port), "@PORT2@", strconv.Itoa(port2)).Replace(confTemplate)
	confPath := filepath.Join(run, "nginx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o600); err != nil {
		return nil, err
	}
	s := &Server{
		URL:        "http://127.0.0.1:" + strconv.Itoa(port),
		StorageURL: "http://127.0.0.1:" + strconv.Itoa(port2),
		Root:       root,
		run:        run,
		logPath:    filepath.Join(run, "access.log"),
		stderr:     &fusetest.SyncBuffer{Max: 1 << 16},
		done:       make(chan struct{}),
	}
	s.cmd = exec.Command(bin, "-e", filepath.Join(run, "early-error.log"), "-p", run, "-c", confPath)
	s.cmd.Stdout = s.stderr
	s.cmd.Stderr = s.stderr
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { s.cmd.Wait(); close(s.done) }()
	t.Cleanup(s.stop)
	deadline := time.Now().Add(10 * time.Second)
	for _, addr := range []string{s.URL, s.StorageURL} {
		addr = strings.TrimPrefix(addr, "http://")
		for {
			c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
			if err == nil {
				c.Close()
				break
			}
			select {
			case <-s.done:
				log, _ := os.ReadFile(filepath.Join(run, "error.log"))
				early, _ := os.ReadFile(filepath.Join(run, "early-error.log"))
				return nil, fmt.Errorf("nginx exited: %s%s%s", s.stderr.String(), early, log)
			case <-time.After(20 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				s.stop()
				return nil, fmt.Errorf("nginx did not listen on %s within 10s", addr)
			}
		}
	}
	return s, nil
}

// stop kills the child nginx and waits for it.
func (s *Server) stop() {
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Kill()
	<-s.done
}

// Requests returns every request logged so far, in the order nginx
// finished them. It first sends a synchronisation request and waits until
// it is logged: nginx here is one process with one worker, which logs a
// request when it has sent the response, so every response a caller has
// received before calling Requests is in the log. The sync requests
// themselves are left out.
func (s *Server) Requests(t testing.TB) []Request {
	t.Helper()
	s.mu.Lock()
	s.sync++
	marker := "/__fsmount_sync"
	n := s.sync
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+marker+"?n="+strconv.Itoa(n), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("nginx sync request: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	for {
		reqs, syncs, err := s.parseLog()
		if err != nil {
			t.Fatal(err)
		}
		if syncs >= n {
			return reqs
		}
		select {
		case <-ctx.Done():
			t.Fatalf("nginx did not log the sync request within 5s")
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Count returns how many logged requests for path satisfy keep (nil: all).
func Count(reqs []Request, path string, keep func(Request) bool) int {
	n := 0
	for _, r := range reqs {
		if r.Path == path && (keep == nil || keep(r)) {
			n++
		}
	}
	return n
}

func (s *Server) parseLog() (reqs []Request, syncs int, err error) {
	data, err := os.ReadFile(s.logPath)
	if err != nil && !os.IsNotExist(err) {
		return nil, 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		f := strings.Split(line, "\t")
		if len(f) != 9 {
			// A line being written; the sync marker comes after it.
			continue
		}
		if f[2] == "/__fsmount_sync" {
			syncs++
			continue
		}
		var r Request
		r.Port, _ = strconv.Atoi(f[0])
		r.Method = f[1]
		r.Path = f[2]
		r.Range = unquote(f[3])
		r.IfRange = unquote(f[4])
		r.Status, _ = strconv.Atoi(f[5])
		r.Bytes, _ = strconv.ParseInt(f[6], 10, 64)
		r.Auth = f[7] == "auth"
		r.Conn, _ = strconv.ParseInt(f[8], 10, 64)
		reqs = append(reqs, r)
	}
	return reqs, syncs, sc.Err()
}

// unquote undoes the log's quoting: an absent header is logged as "-",
// and nginx escapes a double quote as \x22.
func unquote(s string) string {
	s = strings.TrimSuffix(strings.TrimPrefix(s, `"`), `"`)
	if s == "-" {
		return ""
	}
	return strings.ReplaceAll(s, `\x22`, `"`)
}
