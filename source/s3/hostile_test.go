package s3_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

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
			assert.Less(t, allocated, uint64(64<<20), "reading a %d-byte answer allocated %d bytes", len(body), allocated)
		})
	}
	t.Run("pages without end", func(t *testing.T) {
		reqs := hostileStore(t, func(from int) []byte { return keysPage(from, 1000, true) })
		f, _, _, err := s3.ParseLocation("s3://models/m/", opts(t))
		require.NoError(t, err)
		_, err = f.List()
		require.Error(t, err)
		assert.Equal(t, s3.CodeStore, s3.CodeOf(err))
		assert.Contains(t, err.Error(), "more than 100,000 objects")
		assert.LessOrEqual(t, reqs.Load(), int64(102), "requests")
	})
	t.Run("pages of one key without end", func(t *testing.T) {
		reqs := hostileStore(t, func(from int) []byte { return keysPage(from, 1, true) })
		f, _, _, err := s3.ParseLocation("s3://models/m/", opts(t))
		require.NoError(t, err)
		_, err = f.List()
		require.Error(t, err)
		assert.Equal(t, s3.CodeStore, s3.CodeOf(err))
		assert.Contains(t, err.Error(), "more than 1,000 listing pages")
		assert.LessOrEqual(t, reqs.Load(), int64(1002), "requests")
	})
	t.Run("a whole listing", func(t *testing.T) {
		hostileStore(t, func(from int) []byte { return keysPage(from, 1000, from < 2000) })
		f, _, _, err := s3.ParseLocation("s3://models/m/", opts(t))
		require.NoError(t, err)
		names, err := f.List()
		require.NoError(t, err)
		assert.Equal(t, 3000, len(names))
	})
}
