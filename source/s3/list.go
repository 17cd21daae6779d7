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

// Bounds of listing: the body of one page, and the pages of one prefix.
const (
	maxListBody  = 32 << 20
	maxListPages = 100
	listPageKeys = 1000
)

// listing is one page of ListObjectsV2.
type listing struct {
	XMLName     xml.Name `xml:"ListBucketResult"`
	IsTruncated bool     `xml:"IsTruncated"`
	NextToken   string   `xml:"NextContinuationToken"`
	Contents    []struct {
		Key  string `xml:"Key"`
		Size int64  `xml:"Size"`
	} `xml:"Contents"`
	CommonPrefixes []struct {
		Prefix string `xml:"Prefix"`
	} `xml:"CommonPrefixes"`
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
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxListBody+1))
	if err != nil {
		return nil, &remote.Error{Code: remote.CodeUnavailable, URL: loc, Detail: "listing cut short", Err: err}
	}
	if len(body) > maxListBody {
		return nil, &Error{Code: CodeStore, Location: loc, Detail: "a listing page over " + strconv.Itoa(maxListBody>>20) + " MiB"}
	}
	var res listing
	if err := xml.Unmarshal(body, &res); err != nil {
		return nil, notS3()
	}
	return &res, nil
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
