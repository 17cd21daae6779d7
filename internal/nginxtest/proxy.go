package nginxtest

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// FaultKind is what a [Fault] does to one request.
type FaultKind int

// The faults a [Proxy] can inject.
const (
	Pass              FaultKind = iota // forward untouched (Latency still applies)
	Status                             // answer Fault.Status (with Retry-After if set) without forwarding
	Reset                              // send the headers and Fault.After body bytes, then reset the connection
	Stall                              // send the headers and Fault.After body bytes, then stop sending for Fault.Stall
	IgnoreRange                        // forward without Range and If-Range: a 200 with the whole file
	WrongContentRange                  // forward, then shift the Content-Range start by one byte
	ChangeETag                         // forward, then answer with another ETag than the file's
)

// Fault is injected into one request.
type Fault struct {
	Kind       FaultKind
	Status     int           // for Status
	RetryAfter string        // for Status: the Retry-After header, if any
	After      int64         // for Reset and Stall: body bytes sent first
	Stall      time.Duration // for Stall (ends early when the client goes away)
	Latency    time.Duration // added before the request is handled, for every kind
	// Hold, if non-nil, holds the request before it is handled (after
	// Latency), for every kind, until Hold is closed or the client goes
	// away: a slow answer without a clock to race. Held, if non-nil, is
	// sent to (without blocking) when a request starts waiting for Hold.
	Hold chan struct{}
	Held chan<- struct{}
}

// Proxy is a reverse proxy on 127.0.0.1 in front of an upstream (nginx),
// injecting faults: the faults queued for a path apply to its next
// requests, one each, and then the default (Pass unless set) applies.
// It can be stopped and restarted on the same port to play a server that
// goes down and comes back.
type Proxy struct {
	URL string // http://127.0.0.1:PORT, no trailing slash

	upstream string
	addr     string
	tr       *http.Transport

	mu       sync.Mutex
	queue    map[string][]Fault
	def      Fault
	srv      *http.Server
	log      []ProxyRequest
	stopping chan struct{}
	locFrom  string // RewriteLocation's prefix, "" for none
	locTo    string
	hung     []io.Closer // what Hang holds the port with
	keepHost bool        // forward the client's Host (KeepHost)
}

// ProxyRequest is a request the proxy saw.
type ProxyRequest struct {
	Path   string
	Range  string
	Auth   bool // whether it carried an Authorization header
	Fault  FaultKind
	Status int       // the status injected or forwarded
	At     time.Time // when the request arrived (before any Latency)
}

// NewProxy starts a proxy to upstream (http://127.0.0.1:PORT), stopped
// when the test ends.
func NewProxy(t testing.TB, upstream string) *Proxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{
		upstream: strings.TrimSuffix(upstream, "/"),
		addr:     l.Addr().String(),
		tr:       &http.Transport{MaxIdleConnsPerHost: 16, DisableCompression: true},
		queue:    map[string][]Fault{},
	}
	p.URL = "http://" + p.addr
	p.serve(l)
	t.Cleanup(func() { p.Stop(); p.tr.CloseIdleConnections() })
	return p
}

func (p *Proxy) serve(l net.Listener) {
	srv := &http.Server{Handler: http.HandlerFunc(p.handle), ReadHeaderTimeout: 10 * time.Second}
	p.mu.Lock()
	p.srv = srv
	p.stopping = make(chan struct{})
	p.mu.Unlock()
	go srv.Serve(l)
}

// Stop closes the listener and every connection: new connections are
// refused until [Proxy.Restart].
func (p *Proxy) Stop() {
	p.mu.Lock()
	srv := p.srv
	p.srv = nil
	if srv != nil {
		close(p.stopping)
	}
	p.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}

// Hang stops the proxy and holds its port with a listener that never
// accepts, its queue filled: a connection to it is neither accepted nor
// refused (the kernel drops the SYN), so connecting times out, like a
// server behind a firewall that drops packets. [Proxy.Restart] ends it.
func (p *Proxy) Hang(t testing.TB) {
	t.Helper()
	p.Stop()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	ln := os.NewFile(uintptr(fd), "hung listener")
	tcp, err := net.ResolveTCPAddr("tcp", p.addr)
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	sa := &syscall.SockaddrInet4{Port: tcp.Port}
	copy(sa.Addr[:], tcp.IP.To4())
	syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1)
	for range 50 {
		if err = syscall.Bind(fd, sa); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err == nil {
		// A backlog of 0 queues one connection: fill it.
		err = syscall.Listen(fd, 0)
	}
	if err != nil {
		ln.Close()
		t.Fatalf("proxy cannot hold %s: %v", p.addr, err)
	}
	filler, err := net.DialTimeout("tcp", p.addr, 5*time.Second)
	if err != nil {
		ln.Close()
		t.Fatalf("filling the queue of %s: %v", p.addr, err)
	}
	p.mu.Lock()
	p.hung = []io.Closer{filler, ln}
	p.mu.Unlock()
	t.Cleanup(p.unhang)
}

func (p *Proxy) unhang() {
	p.mu.Lock()
	hung := p.hung
	p.hung = nil
	p.mu.Unlock()
	for _, c := range hung {
		c.Close()
	}
}

// Restart listens again on the same port after [Proxy.Stop] or
// [Proxy.Hang].
func (p *Proxy) Restart(t testing.TB) {
	t.Helper()
	p.unhang()
	var l net.Listener
	var err error
	for range 50 {
		if l, err = net.Listen("tcp", p.addr); err == nil {
			p.serve(l)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("proxy cannot listen on %s again: %v", p.addr, err)
}

// Inject queues faults for the next requests whose path is path, one
// fault per request.
func (p *Proxy) Inject(path string, faults ...Fault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.queue[path] = append(p.queue[path], faults...)
}

// SetDefault sets the fault for requests with nothing queued.
func (p *Proxy) SetDefault(f Fault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.def = f
}

// RewriteLocation makes the proxy rewrite a Location header that starts
// with from to start with to instead: pointed at another proxy in front of
// nginx's storage server, a client follows the Hub's redirect through that
// proxy too, so that every hop pays its latency.
func (p *Proxy) RewriteLocation(from, to string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.locFrom, p.locTo = from, to
}

// KeepHost makes the proxy forward the client's Host header rather than
// the upstream's: an S3 store checks the Host a request was signed for.
func (p *Proxy) KeepHost() {
	p.mu.Lock()
	p.keepHost = true
	p.mu.Unlock()
}

// Requests returns the requests seen so far.
func (p *Proxy) Requests() []ProxyRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]ProxyRequest(nil), p.log...)
}

func (p *Proxy) location(loc string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if rest, ok := strings.CutPrefix(loc, p.locFrom); ok && p.locFrom != "" {
		return p.locTo + rest
	}
	return loc
}

func (p *Proxy) next(path string) (Fault, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if q := p.queue[path]; len(q) > 0 {
		p.queue[path] = q[1:]
		return q[0], p.stopping
	}
	return p.def, p.stopping
}

func (p *Proxy) record(r *http.Request, f Fault, status int, at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.log) < 100000 {
		p.log = append(p.log, ProxyRequest{Path: r.URL.Path, Range: r.Header.Get("Range"),
			Auth: r.Header.Get("Authorization") != "", Fault: f.Kind, Status: status, At: at})
	}
}

func (p *Proxy) handle(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	f, stopping := p.next(r.URL.Path)
	if f.Latency > 0 {
		select {
		case <-time.After(f.Latency):
		case <-r.Context().Done():
			return
		}
	}
	if f.Hold != nil {
		if f.Held != nil {
			select {
			case f.Held <- struct{}{}:
			default:
			}
		}
		select {
		case <-f.Hold:
		case <-r.Context().Done():
			return
		case <-stopping:
			return
		}
	}
	if f.Kind == Status {
		p.record(r, f, f.Status, at)
		if f.RetryAfter != "" {
			w.Header().Set("Retry-After", f.RetryAfter)
		}
		http.Error(w, http.StatusText(f.Status), f.Status)
		return
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, p.upstream+r.URL.RequestURI(), nil)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	for k, vs := range r.Header {
		out.Header[k] = vs
	}
	p.mu.Lock()
	if p.keepHost {
		out.Host = r.Host
	}
	p.mu.Unlock()
	if f.Kind == IgnoreRange {
		out.Header.Del("Range")
		out.Header.Del("If-Range")
	}
	resp, err := p.tr.RoundTrip(out)
	if err != nil {
		p.record(r, f, http.StatusBadGateway, at)
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	p.record(r, f, resp.StatusCode, at)
	h := w.Header()
	for k, vs := range resp.Header {
		h[k] = vs
	}
	if loc := h.Get("Location"); loc != "" {
		h.Set("Location", p.location(loc))
	}
	switch f.Kind {
	case WrongContentRange:
		if cr := resp.Header.Get("Content-Range"); cr != "" {
			h.Set("Content-Range", shiftRange(cr))
		}
	case ChangeETag:
		h.Set("ETag", `"replaced-`+strconv.FormatInt(time.Now().UnixNano(), 16)+`"`)
	}
	w.WriteHeader(resp.StatusCode)
	switch f.Kind {
	case Reset, Stall:
		io.CopyN(w, resp.Body, f.After)
		w.(http.Flusher).Flush()
		if f.Kind == Stall {
			select {
			case <-time.After(f.Stall):
			case <-r.Context().Done():
			case <-stopping:
			}
		}
		resetConn(w)
		return
	}
	io.Copy(w, resp.Body)
}

// resetConn drops the client's connection with a TCP reset.
func resetConn(w http.ResponseWriter) {
	// Without a hijackable connection, returning with the body short of
	// its Content-Length makes the server close the connection anyway.
	hj, ok := w.(http.Hijacker)
	if !ok {
		return
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

// shiftRange turns "bytes a-b/n" into "bytes a+1-b+1/n".
func shiftRange(cr string) string {
	var a, b int64
	var total string
	if _, err := fmt.Sscanf(cr, "bytes %d-%d/%s", &a, &b, &total); err != nil {
		return "bytes 1-0/0"
	}
	return fmt.Sprintf("bytes %d-%d/%s", a+1, b+1, total)
}
