package s3

import (
	"context"
	"errors"
	"net/http"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/source/remote"
)

// FS is a prefix of a bucket: its files are read by a [remote.FS] with
// signed ranged GETs, and listed with ListObjectsV2. An FS is safe for
// concurrent use.
type FS struct {
	*remote.FS
	l      *lister
	name   string // s3://BUCKET/PREFIX/
	prefix string // the key prefix, "" or ending in "/"

	mu       sync.Mutex
	names    []string // the listing, once complete
	listable bool     // false once listing was refused
}

var _ source.FS = (*FS)(nil)

// ParseLocation recognises an s3:// location and returns its FS:
//
//   - s3://BUCKET/PREFIX/ (or s3://BUCKET): the prefix, file "";
//   - s3://BUCKET/KEY: if keys exist under KEY/, that prefix, file "";
//     else the FS of KEY's prefix and KEY's last segment as the file.
//
// It sends one request, a ListObjectsV2 of the prefix, which reports a
// missing bucket, refused credentials, a wrong region, an endpoint that
// is not S3 and an empty prefix as an [*Error]. Where listing is refused
// but reading may be allowed (a public bucket), a KEY ending in
// .safetensors, .json or .gguf is taken as a file, anything else as a
// prefix, and the FS cannot list. ok is false, with no error, for a
// location that is not s3://.
func ParseLocation(loc string, opts remote.Options) (fsys source.FS, file string, ok bool, err error) {
	if !IsLocation(loc) {
		return nil, "", false, nil
	}
	f, file, err := Open(loc, opts)
	if err != nil {
		return nil, "", true, err
	}
	return f, file, true, nil
}

// Open is [ParseLocation] for a location known to be s3://, returning the
// concrete type.
func Open(loc string, opts remote.Options) (*FS, string, error) {
	bucket, key, err := splitLocation(loc)
	if err != nil {
		return nil, "", err
	}
	acct, err := loadAccount(context.Background(), loc, opts.NoSignRequest)
	if err != nil {
		return nil, "", err
	}
	timeout := opts.ReadTimeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	x := &explainer{endpoint: acct.endpointName(), region: acct.region, unsigned: opts.NoSignRequest}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DisableCompression = true
	l := &lister{acct: acct, x: x, bucket: acct.bucketURL(bucket), timeout: timeout,
		hc: &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}

	dir, file := key, ""
	var first *listing
	listable := true
	if key != "" && !strings.HasSuffix(key, "/") {
		dir = key + "/"
	}
	first, err = l.page(Scheme+bucket+"/"+dir, dir, "")
	switch {
	case listRefused(err):
		// Reading may be allowed where listing is not.
		listable, first = false, nil
		if !strings.HasSuffix(key, "/") && hasFileSuffix(key) {
			dir, file = parentOf(key), path.Base(key)
		}
	case err != nil:
		return nil, "", err
	case first.keys() == 0:
		if key == "" || strings.HasSuffix(key, "/") {
			return nil, "", &Error{Code: CodeNoKey, Location: Scheme + bucket + "/" + key, Detail: "no such prefix: the bucket holds nothing under it"}
		}
		// No keys under KEY/: KEY is one object (Open tells if it is not).
		dir, file, first = parentOf(key), path.Base(key), nil
	}
	name := Scheme + bucket + "/" + dir
	rf, err := remote.NewStore(under(l.bucket, dir).String(), opts, remote.Store{
		Name:    name,
		Sign:    acct.sign,
		Explain: x.explain,
		IfMatch: true,
	})
	if err != nil {
		return nil, "", err
	}
	f := &FS{FS: rf, l: l, name: name, prefix: dir, listable: listable}
	if first != nil && !first.IsTruncated {
		f.names = f.namesOf(first)
	}
	return f, file, nil
}

// listRefused reports whether err is a refusal of listing alone, after
// which reading may still be allowed (not a key ID or secret the store
// rejects).
func listRefused(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == CodeDenied && (e.S3Code == "AccessDenied" || e.S3Code == "AllAccessDisabled")
}

// parentOf returns the prefix of key's last segment: "" or ending in "/".
func parentOf(key string) string {
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		return key[:i+1]
	}
	return ""
}

// hasFileSuffix reports whether a key names a model file.
func hasFileSuffix(key string) bool {
	for _, s := range []string{".safetensors", ".json", ".gguf"} {
		if strings.HasSuffix(key, s) {
			return true
		}
	}
	return false
}

// Open opens the named file (source.FS). A name right under the prefix
// that the listing sent when the location was opened does not hold is
// missing at once, without a request: probing model.safetensors beside
// an index, say, costs nothing.
func (f *FS) Open(name string) (source.File, error) {
	file, err := f.OpenFile(name)
	if err != nil {
		return nil, err
	}
	return file, nil
}

// OpenFile is [FS.Open] returning the concrete type.
func (f *FS) OpenFile(name string) (*remote.File, error) {
	if f.absent(name) {
		// What the store would answer (a 404 NoSuchKey).
		return nil, &Error{Code: CodeNoKey, Location: f.name + name, Status: http.StatusNotFound, Detail: "no such key"}
	}
	return f.FS.OpenFile(name)
}

// absent reports whether the listing taken when the location was opened
// (if whole) shows that no object name is right under the prefix.
func (f *FS) absent(name string) bool {
	if strings.Contains(name, "/") {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.names == nil {
		return false
	}
	_, found := slices.BinarySearch(f.names, name)
	return !found
}

// String returns the s3:// location of the prefix.
func (f *FS) String() string { return f.name }

// List returns the names of the objects right under the prefix, sorted:
// from the listing sent when the location was opened if it was whole,
// else with ListObjectsV2 (1,000 names a request, at most 100,000 keys
// and prefixes in all, however many a page holds). It
// returns source.ErrNotListable where listing is refused.
func (f *FS) List() ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.listable {
		return nil, source.ErrNotListable
	}
	if f.names != nil {
		return slices.Clone(f.names), nil
	}
	var names []string
	token := ""
	keys := 0
	for range maxListPages {
		page, err := f.l.page(f.name, f.prefix, token)
		if err != nil {
			return nil, err
		}
		if keys += page.keys(); keys > maxListKeys {
			return nil, &Error{Code: CodeStore, Location: f.name, Detail: "more than 100,000 objects right under the prefix"}
		}
		names = append(names, f.namesOf(page)...)
		if !page.IsTruncated || page.NextToken == "" {
			slices.Sort(names)
			f.names = names
			return slices.Clone(names), nil
		}
		token = page.NextToken
	}
	return nil, &Error{Code: CodeStore, Location: f.name, Detail: "more than 1,000 listing pages for the prefix"}
}

// namesOf returns the names of a page's objects relative to the prefix.
func (f *FS) namesOf(p *listing) []string {
	names := []string{}
	for _, c := range p.Contents {
		n := strings.TrimPrefix(c.Key, f.prefix)
		if n == "" || strings.Contains(n, "/") || len(n) == len(c.Key) && f.prefix != "" {
			continue
		}
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
