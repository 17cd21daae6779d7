package nginxtest

import (
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func get(t *testing.T, c *http.Client, url, rng string) (*http.Response, []byte, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rng != "" {
		req.Header.Set("Range", rng)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, body, err
}

func TestNginx(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "blob.bin"), []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := Start(t, root)
	c := &http.Client{}

	resp, body, err := get(t, c, s.URL+"/blob.bin", "bytes=2-4")
	if err != nil || resp.StatusCode != http.StatusPartialContent || string(body) != "234" {
		t.Fatalf("range: %v %v %q", err, resp, body)
	}
	if cr := resp.Header.Get("Content-Range"); cr != "bytes 2-4/10" {
		t.Errorf("Content-Range %q", cr)
	}
	resp, body, err = get(t, c, s.URL+"/norange/blob.bin", "bytes=2-4")
	if err != nil || resp.StatusCode != http.StatusOK || string(body) != "0123456789" {
		t.Fatalf("norange: %v %v %q", err, resp, body)
	}
	resp, body, err = get(t, c, s.URL+"/org/model/resolve/main/blob.bin", "bytes=0-0")
	if err != nil || resp.StatusCode != http.StatusPartialContent || string(body) != "0" {
		t.Fatalf("resolve: %v %v %q", err, resp, body)
	}
	if got := resp.Request.URL.String(); got != s.StorageURL+"/storage/blob.bin" {
		t.Errorf("redirected to %s", got)
	}

	for file, want := range map[string]int{"blob.bin": 200, "absent.bin": 404} {
		req, _ := http.NewRequest(http.MethodHead, s.URL+"/org/model/raw/main/"+file, nil)
		resp, err := c.Do(req)
		if err != nil || resp.StatusCode != want {
			t.Fatalf("raw HEAD of %s: %v %v, want %d", file, err, resp, want)
		}
		resp.Body.Close()
	}

	reqs := s.Requests(t)
	if len(reqs) != 6 {
		t.Fatalf("logged %d requests, want 6: %+v", len(reqs), reqs)
	}
	if r := reqs[0]; r.Path != "/blob.bin" || r.Range != "bytes=2-4" || r.Status != 206 || r.Bytes != 3 {
		t.Errorf("first request logged as %+v", r)
	}
	if r := reqs[2]; r.Status != 302 || reqs[3].Path != "/storage/blob.bin" || reqs[3].Status != 206 {
		t.Errorf("redirect logged as %+v, %+v", r, reqs[3])
	}
	if n := Count(reqs, "/blob.bin", nil); n != 1 {
		t.Errorf("Count = %d", n)
	}
}

func TestProxyFaults(t *testing.T) {
	root := t.TempDir()
	data := strings.Repeat("x", 100000)
	if err := os.WriteFile(filepath.Join(root, "blob.bin"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	s := Start(t, root)
	p := NewProxy(t, s.URL)
	c := &http.Client{Timeout: 5 * time.Second}
	u := p.URL + "/blob.bin"

	p.Inject("/blob.bin",
		Fault{Kind: Status, Status: 503, RetryAfter: "1"},
		Fault{Kind: Reset, After: 10},
		Fault{Kind: IgnoreRange},
		Fault{Kind: WrongContentRange},
		Fault{Kind: ChangeETag},
		Fault{Kind: Stall, After: 5, Stall: 300 * time.Millisecond},
	)
	resp, _, err := get(t, c, u, "bytes=0-99")
	if err != nil || resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("status fault: %v %v", err, resp)
	}
	if _, body, err := get(t, c, u, "bytes=0-99"); err == nil {
		t.Fatalf("reset fault: read %d bytes without an error", len(body))
	}
	if resp, body, err := get(t, c, u, "bytes=0-99"); err != nil || resp.StatusCode != 200 || len(body) != len(data) {
		t.Fatalf("ignore-range fault: %v %v %d", err, resp, len(body))
	}
	if resp, _, err := get(t, c, u, "bytes=0-99"); err != nil || resp.Header.Get("Content-Range") != "bytes 1-100/100000" {
		t.Fatalf("wrong Content-Range fault: %v %v", err, resp)
	}
	resp, _, _ = get(t, c, u, "bytes=0-99")
	if etag := resp.Header.Get("ETag"); !strings.HasPrefix(etag, `"replaced-`) {
		t.Fatalf("ETag fault: %q", etag)
	}
	start := time.Now()
	_, _, err = get(t, c, u, "bytes=0-99")
	if err == nil || time.Since(start) < 250*time.Millisecond {
		t.Fatalf("stall fault: %v after %v", err, time.Since(start))
	}

	p.Stop()
	if _, _, err := get(t, c, u, ""); err == nil || !isRefused(err) {
		t.Fatalf("stopped proxy: %v", err)
	}
	p.Restart(t)
	if resp, _, err := get(t, c, u, "bytes=0-0"); err != nil || resp.StatusCode != 206 {
		t.Fatalf("restarted proxy: %v %v", err, resp)
	}

	p.Hang(t)
	quick := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{Timeout: 300 * time.Millisecond}).DialContext}}
	var ne net.Error
	if _, _, err := get(t, quick, u, ""); !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("hung proxy: %v, want a connect timeout", err)
	}
	p.Restart(t)
	if resp, _, err := get(t, c, u, "bytes=0-0"); err != nil || resp.StatusCode != 206 {
		t.Fatalf("proxy restarted after hanging: %v %v", err, resp)
	}
}

// TestProxyRewriteLocation follows the Hub's redirect through a second
// proxy in front of the storage server: both hops pay the latency.
func TestProxyRewriteLocation(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "blob.bin"), []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := Start(t, root)
	hub, storage := NewProxy(t, s.URL), NewProxy(t, s.StorageURL)
	hub.RewriteLocation(s.StorageURL, storage.URL)
	lat := Fault{Kind: Pass, Latency: 50 * time.Millisecond}
	hub.SetDefault(lat)
	storage.SetDefault(lat)
	start := time.Now()
	resp, body, err := get(t, &http.Client{Timeout: 5 * time.Second}, hub.URL+"/org/model/resolve/main/blob.bin", "bytes=1-2")
	if err != nil || resp.StatusCode != http.StatusPartialContent || string(body) != "12" {
		t.Fatalf("resolve through both proxies: %v %v %q", err, resp, body)
	}
	if got := resp.Request.URL.String(); got != storage.URL+"/storage/blob.bin" {
		t.Errorf("redirected to %s", got)
	}
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Errorf("two hops took %v, want two latencies", d)
	}
	if h, st := hub.Requests(), storage.Requests(); len(h) != 1 || h[0].Status != 302 || len(st) != 1 || st[0].Status != 206 {
		t.Errorf("hub proxy saw %+v, storage proxy %+v", h, st)
	}
}

func isRefused(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "refused") || errors.Is(err, io.EOF))
}
