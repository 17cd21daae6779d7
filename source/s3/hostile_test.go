package s3_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/s3test"
	"github.com/fsmount/fsmount/source/s3"
)

// hostileStore points the AWS variables at a stub that answers every
// ListObjectsV2 with page(from), from the number its continuation token
// gives (0 without one), and returns the count of requests.
func hostileStore(t *testing.T, page func(from int) []byte) *atomic.Int64 {
	var reqs atomic.Int64
	stub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqs.Add(1)
		from, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Query().Get("continuation-token"), "t"))
		w.Header().Set("Content-Type", "application/xml")
		w.Write(page(from))
	}))
	t.Cleanup(stub.Close)
	s := &s3test.Server{URL: stub.URL}
	s.Setenv(t, s3test.Reader)
	return &reqs
}

// keysPage is a ListObjectsV2 page of n keys, truncated (with a next
// token) or not.
func keysPage(from, n int, truncated bool) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>models</Name><Prefix>m/</Prefix>`)
	for i := range n {
		fmt.Fprintf(&b, "<Contents><Key>m/k%d</Key><Size>1</Size></Contents>", from+i)
	}
	if truncated {
		fmt.Fprintf(&b, "<IsTruncated>true</IsTruncated><NextContinuationToken>t%d</NextContinuationToken>", from+n)
	} else {
		b.WriteString("<IsTruncated>false</IsTruncated>")
	}
	b.WriteString("</ListBucketResult>")
	return []byte(b.String())
}

// TestHostileListing: a store that answers ListObjectsV2 with what S3
// never sends — 31 MB of unclosed tags, a page of 5 MB, a page of more
// keys than asked for, pages without end — is refused with a code, in
// one line, and costs the reader no more memory than a page's bytes.
func TestHostileListing(t *testing.T) {
	unclosed := func(n int) []byte {
		return []byte(`<ListBucketResult>` + strings.Repeat("<a>", n/3))
	}
	for _, c := range []struct {
		name   string
		page   func(n int) []byte
		code   s3.Code
		detail string
	}{
		{"31 MB of unclosed tags", func(int) []byte { return unclosed(31 << 20) }, s3.CodeNotS3, "does not answer as an S3 store"},
		{"a page of 5 MB", func(int) []byte {
			return []byte("<ListBucketResult><Name>" + strings.Repeat("x", 5<<20) + "</Name></ListBucketResult>")
		}, s3.CodeStore, "a listing page over 4 MiB"},
		{"a page of 650,000 keys", func(from int) []byte { return keysPage(from, 650000, true) }, s3.CodeStore, "a listing page of more than 1000 keys"},
		{"a page of 1,001 keys", func(from int) []byte { return keysPage(from, 1001, true) }, s3.CodeStore, "a listing page of more than 1000 keys"},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := c.page(0)
			hostileStore(t, func(int) []byte { return body })
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, _, _, err := s3.ParseLocation("s3://models/m/", opts(t))
			runtime.ReadMemStats(&after)
			require.Error(t, err)
			assert.Equal(t, c.code, s3.CodeOf(err), err.Error())
			assert.Contains(t, err.Error(), c.detail)
			assert.NotContains(t, err.Error(), "\n")
			allocated := after.TotalAlloc - before.TotalAlloc
			t.Logf("a %d-byte answer: %d bytes allocated", len(body), allocated)
			assert.Less(t, allocated, uint64(64<<20), "reading a %d-byte answer allocated %d bytes", len(body), allocated)
		})
	}
	for _, c := range []struct {
		name    string
		perPage int
		detail  string
		reqs    int64 // at most
	}{
		{"pages without end", 1000, "more than 100,000 objects", 102},
		{"pages of one key without end", 1, "more than 1,000 listing pages", 1002},
	} {
		t.Run(c.name, func(t *testing.T) {
			reqs := hostileStore(t, func(from int) []byte { return keysPage(from, c.perPage, true) })
			f, _, _, err := s3.ParseLocation("s3://models/m/", opts(t))
			require.NoError(t, err)
			_, err = f.List()
			require.Error(t, err)
			assert.Equal(t, s3.CodeStore, s3.CodeOf(err))
			assert.Contains(t, err.Error(), c.detail)
			assert.LessOrEqual(t, reqs.Load(), c.reqs, "requests")
		})
	}
	t.Run("a whole listing", func(t *testing.T) {
		hostileStore(t, func(from int) []byte { return keysPage(from, 1000, from < 2000) })
		f, _, _, err := s3.ParseLocation("s3://models/m/", opts(t))
		require.NoError(t, err)
		names, err := f.List()
		require.NoError(t, err)
		assert.Equal(t, 3000, len(names))
	})
}

// TestRedirectKeepsCredentials: an endpoint that redirects a read of an
// object to another host has it followed without credentials: the
// other host receives no Authorization (which names the access key ID)
// and no session token, while the endpoint's own requests are signed.
func TestRedirectKeepsCredentials(t *testing.T) {
	data := []byte(strings.Repeat("0123456789", 100))
	var other struct {
		sync.Mutex
		reqs    int
		headers []string
	}
	otherHost := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		other.Lock()
		other.reqs++
		for k := range r.Header {
			if k == "Authorization" || strings.HasPrefix(k, "X-Amz-") {
				other.headers = append(other.headers, k+": "+r.Header.Get(k))
			}
		}
		other.Unlock()
		http.ServeContent(w, r, "blob.bin", time.Time{}, bytes.NewReader(data))
	}))
	defer otherHost.Close()
	var signed, unsigned atomic.Int64
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256") && r.Header.Get("X-Amz-Security-Token") == "the-session-token" {
			signed.Add(1)
		} else {
			unsigned.Add(1)
		}
		if r.URL.Query().Get("list-type") == "2" {
			w.Header().Set("Content-Type", "application/xml")
			w.Write([]byte(`<ListBucketResult><Contents><Key>m/blob.bin</Key><Size>1000</Size></Contents><IsTruncated>false</IsTruncated></ListBucketResult>`))
			return
		}
		http.Redirect(w, r, otherHost.URL+"/elsewhere/blob.bin", http.StatusFound)
	}))
	defer endpoint.Close()
	s := &s3test.Server{URL: endpoint.URL}
	s.Setenv(t, s3test.Reader)
	t.Setenv("AWS_SESSION_TOKEN", "the-session-token")
	f, _, _, err := s3.ParseLocation("s3://models/m/", opts(t))
	require.NoError(t, err)
	file, err := f.Open("blob.bin")
	require.NoError(t, err)
	defer file.Close()
	got, err := io.ReadAll(io.NewSectionReader(file, 0, file.Size()))
	require.NoError(t, err)
	assert.Equal(t, data, got)
	other.Lock()
	defer other.Unlock()
	assert.Positive(t, other.reqs, "the redirect was not followed")
	assert.Empty(t, other.headers, "credentials sent to the host a redirect names")
	assert.Positive(t, signed.Load(), "the endpoint's requests are signed")
	assert.Zero(t, unsigned.Load(), "an endpoint's request unsigned")
}
