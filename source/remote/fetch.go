package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// client does the ranged GETs of one FS over one http.Client.
type client struct {
	hc    *http.Client
	tr    *http.Transport
	opts  Options
	store Store
}

func newClient(opts Options, authOrigin string, st Store) *client {
	dialer := &net.Dialer{Timeout: opts.ConnectTimeout, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   opts.ConnectTimeout,
		ResponseHeaderTimeout: opts.ResponseTimeout,
		ExpectContinueTimeout: time.Second,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConns:          4 * opts.MaxConnsPerHost,
		// The default of 2 idle connections per host would make parallel
		// shard readers dial again for every request.
		MaxIdleConnsPerHost: opts.MaxConnsPerHost,
		MaxConnsPerHost:     opts.MaxConnsPerHost,
		// Ranges are of the bytes as stored: never ask for a coding.
		DisableCompression: true,
	}
	hc := &http.Client{
		Transport: &authTransport{base: tr, token: opts.Token, origin: authOrigin, sign: st.Sign},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if s := strings.ToLower(req.URL.Scheme); s != "http" && s != "https" {
				return &badRedirect{scheme: s}
			}
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			return nil
		},
	}
	return &client{hc: hc, tr: tr, opts: opts, store: st}
}

// badRedirect is a redirect to a URL that is not http(s): a bad location,
// which no retry mends. Only the scheme is told (the target's query may
// hold a signature).
type badRedirect struct{ scheme string }

func (b *badRedirect) Error() string {
	return "redirected to a " + b.scheme + ":// URL, not http:// or https://"
}

// authTransport adds the bearer token, or a Store's signature, to
// requests for its origin only. It acts on every hop of a redirect chain,
// so a redirect to another host never carries the token nor the store's
// credentials (a SigV4 Authorization naming the access key ID, the
// session token), whatever http.Client copies: as the AWS SDKs, which
// never send credentials to a host a redirect names.
type authTransport struct {
	base   http.RoundTripper
	token  string
	origin string
	sign   func(*http.Request) error // a Store's signing, or nil
}

// credentialHeaders are the headers that carry credentials, dropped from
// a request to another origin.
var credentialHeaders = []string{"Authorization", "X-Amz-Security-Token", "Cookie"}

func (a *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	own := originOf(req.URL) == a.origin
	if !own {
		for _, h := range credentialHeaders {
			if req.Header.Get(h) != "" {
				req = req.Clone(req.Context())
				for _, h := range credentialHeaders {
					req.Header.Del(h)
				}
				break
			}
		}
		return a.base.RoundTrip(req)
	}
	if a.token != "" {
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	if a.sign != nil {
		req = req.Clone(req.Context())
		if err := a.sign(req); err != nil {
			return nil, err
		}
	}
	return a.base.RoundTrip(req)
}

// originOf returns scheme://host:port with the default port made explicit.
func originOf(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// version is what the first response told about a file; later responses
// must agree with it.
type version struct {
	size    int64 // -1 until known
	etag    string
	modTime time.Time
	lastMod string // the Last-Modified header as sent, "" if none or unreadable
	// lmStrong is whether lastMod may go in If-Range: RFC 9110 (8.8.2.2)
	// takes a Last-Modified for a strong validator only if it is at least
	// 60 seconds before the answer's Date (a file modified within the
	// second of its Last-Modified could have changed twice in it).
	lmStrong bool
}

// strongETag returns the ETag to send in If-Range, "" if it has none or a
// weak one (which If-Range must not carry).
func (v *version) strongETag() string {
	if strings.HasPrefix(v.etag, "W/") || !strings.HasSuffix(v.etag, `"`) {
		return ""
	}
	return v.etag
}

// validator returns what If-Range carries: the strong ETag, else the
// Last-Modified date if strong (http.FileServer, Python's and many
// proxies send no ETag), else "". Without one a retry starts its range
// over rather than resuming; every answer's Last-Modified is compared
// all the same (see check).
func (v *version) validator() string {
	if e := v.strongETag(); e != "" {
		return e
	}
	if v.lmStrong {
		return v.lastMod
	}
	return ""
}

// check returns a [CodeChanged] error unless an answer with this total
// size (-1: not told), ETag and Last-Modified is of version v: the same
// size and ETag and, where Last-Modified is the validator, the same
// Last-Modified.
func (v *version) check(display string, total int64, etag string, h http.Header) error {
	switch {
	case total >= 0 && total != v.size:
		return &Error{Code: CodeChanged, URL: display, Detail: fmt.Sprintf("the size is %d bytes, was %d when opened", total, v.size)}
	case v.etag != "" && etag != v.etag:
		return changedError(display, v, etag)
	case v.strongETag() == "" && v.lastMod != "":
		lm := h.Get("Last-Modified")
		if t, err := http.ParseTime(lm); err != nil || !t.Equal(v.modTime) {
			return &Error{Code: CodeChanged, URL: display, Detail: fmt.Sprintf("Last-Modified is %s, was %s when opened", quoteOrNone(lm), v.lastMod)}
		}
	}
	return nil
}

// result is what one successful fetch brought.
type result struct {
	n        int    // bytes read into the buffer
	finalURL string // the URL that answered, after redirects
}

var errStalled = errors.New("body stalled")

// fetch reads the range [off, off+buf.len()) of the file at url into buf,
// retrying what can be retried, within opts.ReadTimeout. If v.size is
// unknown the first response sets v, and the range is clamped to the
// file's end; otherwise every response must match v. display names the
// file in errors. progress, if not nil, is told how many bytes of buf
// have arrived each time one of its pieces is whole.
func (c *client) fetch(display, rawURL string, off int64, buf span, v *version, progress func(n int)) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.ReadTimeout)
	defer cancel()
	want := buf.len()
	if v.size >= 0 {
		want = int(max(min(int64(want), v.size-off), 0))
	}
	got := 0
	var last error
	for attempt := 0; ; attempt++ {
		var told func(int)
		if progress != nil {
			base := got
			told = func(n int) { progress(base + n) }
		}
		n, final, retryAfter, err := c.attempt(ctx, display, rawURL, off+int64(got), buf.slice(got, want), v, told)
		if v.size >= 0 {
			want = int(max(min(int64(want), v.size-off), int64(got)))
		}
		if err == nil {
			return result{n: got + n, finalURL: final}, nil
		}
		// Resume after what arrived only where If-Range guards against
		// joining two versions of the file.
		if v.validator() != "" {
			got += n
		}
		last = err
		if !retryable(err) || attempt >= c.opts.MaxRetries || ctx.Err() != nil {
			break
		}
		wait := min(c.opts.RetryBase<<attempt, c.opts.RetryMax)
		if retryAfter > 0 {
			wait = min(retryAfter, c.opts.MaxRetryAfter)
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	// Out of time: say so, unless the last attempt's own timeout (a
	// stall, a connect or response timeout) tells more. An attempt cut
	// by the deadline itself tells nothing more than "context deadline
	// exceeded", which is what a --timeout as short as the attempts'
	// timeouts would otherwise show.
	if ctx.Err() != nil && (CodeOf(last) != CodeTimeout || errors.Is(last, context.DeadlineExceeded)) {
		detail := "no answer within " + c.opts.ReadTimeout.String() + " (with retries)"
		var e *Error
		if errors.As(last, &e) {
			if e.Code != CodeTimeout {
				detail += ", the last attempt " + string(e.Code)
				if e.Status != 0 {
					detail += " (HTTP " + strconv.Itoa(e.Status) + ")"
				}
			}
			if e.Detail != "" {
				detail += ": " + e.Detail
			}
			last = e.Err
		}
		return result{}, &Error{Code: CodeTimeout, URL: display, Detail: detail, Err: last}
	}
	return result{}, last
}

// attempt does one GET of bytes [off, off+buf.len()). It returns the bytes
// read into buf even when it fails (a body cut short), and the wait a
// Retry-After asked for.
func (c *client) attempt(ctx context.Context, display, rawURL string, off int64, buf span, v *version, progress func(n int)) (n int, finalURL string, retryAfter time.Duration, err error) {
	if buf.len() == 0 {
		return 0, rawURL, 0, nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return 0, "", 0, &Error{Code: CodeBadLocation, URL: display, Err: err}
	}
	last := off + int64(buf.len()) - 1
	req.Header.Set("Range", "bytes="+strconv.FormatInt(off, 10)+"-"+strconv.FormatInt(last, 10))
	req.Header.Set("Accept-Encoding", "identity")
	req.Header.Set("User-Agent", c.opts.UserAgent)
	if etag := v.strongETag(); etag != "" && c.store.IfMatch {
		req.Header.Set("If-Match", etag)
	} else if ir := v.validator(); ir != "" {
		req.Header.Set("If-Range", ir)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, "", 0, transportError(display, err, ctx)
	}
	defer resp.Body.Close()
	finalURL = resp.Request.URL.String()
	etag := resp.Header.Get("ETag")
	if s := resp.StatusCode; c.store.Explain != nil && s != http.StatusOK && s != http.StatusPartialContent && s != http.StatusRequestedRangeNotSatisfiable {
		if err := c.store.Explain(resp, display); err != nil {
			return 0, "", parseRetryAfter(resp.Header.Get("Retry-After")), err
		}
	}
	if ce := resp.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") &&
		(resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusPartialContent) {
		// Asked for identity: compressed bytes are not the file's, and
		// their length is not the range's.
		return 0, "", 0, &Error{Code: CodeBadContentRange, URL: display, Status: resp.StatusCode,
			Detail: fmt.Sprintf("server compressed a range response (Content-Encoding: %s)", ce)}
	}

	switch s := resp.StatusCode; {
	case s == http.StatusPartialContent:
	case s == http.StatusOK:
		// The whole file: acceptable only when it is exactly what was
		// asked for (a file that fits in the first range), of the same
		// version.
		if v.size >= 0 {
			if err := v.check(display, -1, etag, resp.Header); err != nil {
				return 0, "", 0, err
			}
		}
		size := resp.ContentLength
		if off != 0 || size < 0 || size > int64(buf.len()) || (v.size >= 0 && size != v.size) {
			return 0, "", 0, &Error{Code: CodeRangeIgnored, URL: display, Status: s,
				Detail: fmt.Sprintf("asked for bytes %d-%d, got the whole file (%s bytes)", off, last, lengthString(size))}
		}
		if v.size < 0 {
			setVersion(v, size, etag, resp.Header)
		}
		n, err = readBody(ctx, cancel, resp.Body, buf.slice(0, int(size)), c.opts.StallTimeout, display, progress)
		return n, finalURL, 0, err
	case s == http.StatusRequestedRangeNotSatisfiable:
		total, ok := unsatisfiedTotal(resp.Header.Get("Content-Range"))
		if ok && off == 0 && total == 0 && v.size < 0 {
			setVersion(v, 0, etag, resp.Header)
			return 0, finalURL, 0, nil
		}
		return 0, "", 0, changedError(display, v, etag)
	case s == http.StatusPreconditionFailed:
		// Only the If-Match of a Store asks a precondition.
		return 0, "", 0, &Error{Code: CodeChanged, URL: display, Status: s,
			Detail: "the store now has another version of the file (its ETag is not " + v.etag + ")"}
	case s == http.StatusNotFound || s == http.StatusGone:
		return 0, "", 0, &Error{Code: CodeNotFound, URL: display, Status: s}
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		return 0, "", 0, &Error{Code: CodeDenied, URL: display, Status: s}
	case s == http.StatusRequestTimeout || s == http.StatusTooManyRequests || s >= 500:
		return 0, "", parseRetryAfter(resp.Header.Get("Retry-After")), &Error{Code: CodeUnavailable, URL: display, Status: s}
	default:
		return 0, "", 0, &Error{Code: CodeStatus, URL: display, Status: s}
	}

	first, end, total, ok := parseContentRange(resp.Header.Get("Content-Range"))
	if !ok {
		return 0, "", 0, &Error{Code: CodeBadContentRange, URL: display, Status: resp.StatusCode,
			Detail: fmt.Sprintf("Content-Range %q is not one known byte range", resp.Header.Get("Content-Range"))}
	}
	if v.size >= 0 {
		if err := v.check(display, total, etag, resp.Header); err != nil {
			return 0, "", 0, err
		}
	}
	wantEnd := min(last, total-1)
	if first != off || end != wantEnd {
		return 0, "", 0, &Error{Code: CodeBadContentRange, URL: display, Status: resp.StatusCode,
			Detail: fmt.Sprintf("asked for bytes %d-%d of %d, got Content-Range %q", off, wantEnd, total, resp.Header.Get("Content-Range"))}
	}
	if resp.ContentLength >= 0 && resp.ContentLength != end-first+1 {
		return 0, "", 0, &Error{Code: CodeBadContentRange, URL: display, Status: resp.StatusCode,
			Detail: fmt.Sprintf("Content-Length %d does not match Content-Range %q (%d bytes)", resp.ContentLength, resp.Header.Get("Content-Range"), end-first+1)}
	}
	if v.size < 0 {
		setVersion(v, total, etag, resp.Header)
	}
	n, err = readBody(ctx, cancel, resp.Body, buf.slice(0, int(end-first+1)), c.opts.StallTimeout, display, progress)
	return n, finalURL, 0, err
}

func setVersion(v *version, size int64, etag string, h http.Header) {
	v.size, v.etag = size, etag
	if lm := h.Get("Last-Modified"); lm != "" {
		if t, err := http.ParseTime(lm); err == nil {
			v.modTime, v.lastMod = t, lm
			date, err := http.ParseTime(h.Get("Date"))
			v.lmStrong = err == nil && date.Sub(t) >= time.Minute
		}
	}
}

func lengthString(n int64) string {
	if n < 0 {
		return "unknown"
	}
	return strconv.FormatInt(n, 10)
}

func changedError(display string, v *version, etag string) *Error {
	detail := "the server now has another version of the file"
	if v.etag != "" && etag != v.etag {
		detail = fmt.Sprintf("ETag is %s, was %s when opened", quoteOrNone(etag), v.etag)
	}
	return &Error{Code: CodeChanged, URL: display, Detail: detail}
}

func quoteOrNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// readBody fills buf from body, cancelling the request when no byte
// arrives for stall, and telling progress (if not nil) how many bytes have
// arrived each time a piece of buf is whole. The pieces of a lazy span are
// made one by one as the bytes reach them.
func readBody(ctx context.Context, cancel context.CancelCauseFunc, body io.Reader, buf span, stall time.Duration, display string, progress func(n int)) (int, error) {
	timer := time.AfterFunc(stall, func() { cancel(errStalled) })
	defer timer.Stop()
	want := buf.len()
	n := 0
	for p := range buf.each() {
		for got := 0; got < len(p); {
			k, err := body.Read(p[got:])
			got += k
			n += k
			if k > 0 {
				timer.Reset(stall)
			}
			if err != nil {
				if n == want {
					return n, nil
				}
				if errors.Is(context.Cause(ctx), errStalled) {
					return n, &Error{Code: CodeTimeout, URL: display, Detail: fmt.Sprintf("body stalled for %s after %d of %d bytes", stall, n, want)}
				}
				if ctx.Err() != nil {
					return n, &Error{Code: CodeTimeout, URL: display, Detail: fmt.Sprintf("body cut after %d of %d bytes", n, want), Err: ctx.Err()}
				}
				return n, &Error{Code: CodeShortBody, URL: display, Detail: fmt.Sprintf("body ended after %d of %d bytes", n, want), Err: err}
			}
		}
		if progress != nil {
			progress(n)
		}
	}
	return n, nil
}

// transportError classifies a failed round trip.
func transportError(display string, err error, ctx context.Context) *Error {
	var ne net.Error
	var br *badRedirect
	switch {
	case errors.As(err, &br):
		return &Error{Code: CodeBadLocation, URL: display, Detail: br.Error()}
	case errors.Is(context.Cause(ctx), errStalled):
		return &Error{Code: CodeTimeout, URL: display, Err: errStalled}
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return &Error{Code: CodeTimeout, URL: display, Err: err}
	case strings.Contains(err.Error(), "redirects"):
		return &Error{Code: CodeStatus, URL: display, Err: err}
	}
	return &Error{Code: CodeUnavailable, URL: display, Err: err}
}

// parseContentRange parses "bytes first-last/total" (a known total only).
func parseContentRange(s string) (first, last, total int64, ok bool) {
	rest, found := strings.CutPrefix(s, "bytes ")
	if !found {
		return 0, 0, 0, false
	}
	rng, tot, found := strings.Cut(rest, "/")
	if !found {
		return 0, 0, 0, false
	}
	a, b, found := strings.Cut(rng, "-")
	if !found {
		return 0, 0, 0, false
	}
	var err1, err2, err3 error
	first, err1 = strconv.ParseInt(a, 10, 64)
	last, err2 = strconv.ParseInt(b, 10, 64)
	total, err3 = strconv.ParseInt(tot, 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || first < 0 || last < first || total <= last {
		return 0, 0, 0, false
	}
	return first, last, total, true
}

// unsatisfiedTotal parses the "bytes */total" of a 416.
func unsatisfiedTotal(s string) (int64, bool) {
	tot, found := strings.CutPrefix(s, "bytes */")
	if !found {
		return 0, false
	}
	n, err := strconv.ParseInt(tot, 10, 64)
	return n, err == nil && n >= 0
}

// parseRetryAfter reads a Retry-After of seconds or an HTTP date; 0 if
// absent or unreadable.
func parseRetryAfter(s string) time.Duration {
	if s == "" {
		return 0
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return 0
		}
		return time.Duration(min(n, 3600)) * time.Second
	}
	if t, err := http.ParseTime(s); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}
