package s3

import (
	"context"
	"encoding/xml"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/fsmount/fsmount/source/remote"
)

// Bounds of listing. A page of ListObjectsV2 holds at most the keys
// asked for (listPageKeys), each at most 1,024 bytes with some 400 of
// XML around it: its body is bounded by maxListBody and read as a
// stream, no deeper than maxListDepth elements, so that an answer of
// unclosed tags costs no more than its bytes. The keys of all pages
// are bounded by maxListKeys (a store may send fewer than asked a
// page), the pages by maxListPages.
const (
	maxListBody  = 4 << 20
	maxListDepth = 8
	listPageKeys = 1000
	maxListKeys  = 100_000
	maxListPages = 1000
)

// listing is one page of ListObjectsV2.
type listing struct {
	IsTruncated bool
	NextToken   string
	Contents    []object
	// CommonPrefixes is the number of CommonPrefixes (the names are not
	// used).
	CommonPrefixes int
}

type object struct {
	Key  string
	Size int64
}

// keys returns the number of keys and prefixes of the page.
func (l *listing) keys() int { return len(l.Contents) + l.CommonPrefixes }

// errListing is an answer that is not a ListObjectsV2 page, or (bound)
// one past the bounds of a page.
type errListing struct {
	msg   string
	bound bool
}

func (e *errListing) Error() string { return e.msg }

func notListing(msg string) error { return &errListing{msg: msg} }

// decodeListing reads a ListObjectsV2 page from r, token by token.
func decodeListing(r io.Reader) (*listing, error) {
	d := xml.NewDecoder(r)
	var res listing
	var path [maxListDepth]string
	var text strings.Builder
	depth := 0
	for {
		tok, err := d.Token()
		if err == io.EOF && depth == 0 && path[0] == "ListBucketResult" {
			return &res, nil
		}
		if err != nil {
			return nil, notListing("not XML: " + oneLine(err.Error()))
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == maxListDepth {
				return nil, notListing("XML nested more than " + strconv.Itoa(maxListDepth) + " elements deep")
			}
			name := t.Name.Local
			path[depth] = name
			depth++
			text.Reset()
			switch {
			case depth == 1 && name != "ListBucketResult":
				return nil, notListing("a <" + oneLine(name) + "> document, not a ListBucketResult")
			case depth == 2 && (name == "Contents" || name == "CommonPrefixes"):
				if res.keys() >= listPageKeys {
					return nil, &errListing{msg: "a listing page of more than " + strconv.Itoa(listPageKeys) + " keys, the most asked for", bound: true}
				}
				if name == "Contents" {
					res.Contents = append(res.Contents, object{})
				} else {
					res.CommonPrefixes++
				}
			}
		case xml.CharData:
			if depth == 2 || depth == 3 && path[1] == "Contents" {
				text.Write(t)
			}
		case xml.EndElement:
			name := path[depth-1]
			switch {
			case depth == 2 && name == "IsTruncated":
				res.IsTruncated = strings.TrimSpace(text.String()) == "true"
			case depth == 2 && name == "NextContinuationToken":
				res.NextToken = text.String()
			case depth == 3 && path[1] == "Contents" && name == "Key":
				res.Contents[len(res.Contents)-1].Key = text.String()
			case depth == 3 && path[1] == "Contents" && name == "Size":
				n, err := strconv.ParseInt(strings.TrimSpace(text.String()), 10, 64)
				if err != nil || n < 0 {
					return nil, notListing("an object size " + strconv.Quote(oneLine(text.String())))
				}
				res.Contents[len(res.Contents)-1].Size = n
			}
			depth--
			text.Reset()
		}
	}
}

// lister sends ListObjectsV2 requests for one bucket.
type lister struct {
	acct    *account
	x       *explainer
	bucket  *url.URL // the bucket's root URL
	hc      *http.Client
	timeout time.Duration
}

// page lists the keys right under prefix (delimiter "/"), from token on.
// loc names the prefix in errors.
func (l *lister) page(loc, prefix, token string) (*listing, error) {
	ctx, cancel := context.WithTimeout(context.Background(), l.timeout)
	defer cancel()
	q := "list-type=2&delimiter=%2F&max-keys=" + strconv.Itoa(listPageKeys) + "&prefix=" + queryEscape(prefix)
	if token != "" {
		q += "&continuation-token=" + queryEscape(token)
	}
	var last error
	for attempt := 0; attempt < 4; attempt++ {
		if attempt > 0 {
			select {
			case <-time.After(250 * time.Millisecond << attempt):
			case <-ctx.Done():
				return nil, last
			}
		}
		res, err := l.attempt(ctx, loc, q)
		if err == nil {
			return res, nil
		}
		last = err
		if remote.CodeOf(err) != remote.CodeUnavailable {
			break
		}
	}
	return nil, last
}

func (l *lister) attempt(ctx context.Context, loc, query string) (*listing, error) {
	u := *l.bucket
	u.RawQuery = query
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, &Error{Code: CodeBadLocation, Location: loc, Detail: err.Error()}
	}
	req.Header.Set("User-Agent", "fsmount")
	if err := l.acct.sign(req); err != nil {
		return nil, &Error{Code: CodeNoCredentials, Location: loc, Detail: err.Error()}
	}
	resp, err := l.hc.Do(req)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return nil, &remote.Error{Code: remote.CodeTimeout, URL: loc, Detail: "no answer from " + l.acct.endpointName()}
		}
		return nil, &remote.Error{Code: remote.CodeUnavailable, URL: loc, Detail: "cannot reach " + l.acct.endpointName() + ": " + netCause(err)}
	}
	defer resp.Body.Close()
	notS3 := func() error {
		return &Error{Code: CodeNotS3, Location: loc, Status: resp.StatusCode,
			Detail: l.acct.endpointName() + " does not answer as an S3 store (HTTP " + strconv.Itoa(resp.StatusCode) + " " + contentType(resp) + " to a ListObjectsV2 request)"}
	}
	if resp.StatusCode != http.StatusOK {
		if err := l.x.explain(resp, loc); err != nil {
			return nil, err
		}
		if resp.StatusCode >= 500 {
			return nil, &remote.Error{Code: remote.CodeUnavailable, URL: loc, Status: resp.StatusCode}
		}
		return nil, notS3()
	}
	body := &countingReader{r: io.LimitReader(resp.Body, maxListBody+1)}
	res, err := decodeListing(body)
	var le *errListing
	switch {
	case body.n > maxListBody:
		return nil, &Error{Code: CodeStore, Location: loc, Detail: "a listing page over " + strconv.Itoa(maxListBody>>20) + " MiB (" +
			strconv.Itoa(listPageKeys) + " keys were asked for); not an answer of S3"}
	case body.err != nil && body.err != io.EOF:
		return nil, &remote.Error{Code: remote.CodeUnavailable, URL: loc, Detail: "listing cut short", Err: body.err}
	case errors.As(err, &le) && le.bound:
		return nil, &Error{Code: CodeStore, Location: loc, Detail: err.Error() + "; not an answer of S3"}
	case err != nil:
		return nil, notS3()
	}
	return res, nil
}

// countingReader counts the bytes read through it and keeps the error
// of its reader.
type countingReader struct {
	r   io.Reader
	n   int64
	err error
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err != nil {
		c.err = err
	}
	return n, err
}

// netCause is the last part of a network error ("connection refused").
func netCause(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		s = s[i+2:]
	}
	return oneLine(s)
}

func contentType(resp *http.Response) string {
	ct, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
	if ct == "" {
		return "without a content type"
	}
	return oneLine(ct)
}

// queryEscape percent-encodes a query value as SigV4 does.
func queryEscape(s string) string {
	return strings.ReplaceAll(escapeKey(s), "/", "%2F")
}
