package s3

import (
	"net/url"
	"strings"
)

// Scheme starts every location of this package.
const Scheme = "s3://"

// IsLocation reports whether loc is an s3:// location.
func IsLocation(loc string) bool { return strings.HasPrefix(loc, Scheme) }

// splitLocation splits s3://BUCKET[/KEY] into its bucket and key (the key
// may end in "/", or be empty for the bucket's root).
func splitLocation(loc string) (bucket, key string, err error) {
	rest := strings.TrimPrefix(loc, Scheme)
	bucket, key, _ = strings.Cut(rest, "/")
	bad := func(detail string) error {
		return &Error{Code: CodeBadLocation, Location: Scheme + safeBucket(bucket) + "/", Detail: detail}
	}
	if strings.Contains(bucket, "@") || strings.Contains(bucket, ":") {
		return "", "", bad("credentials and ports do not go in an s3:// location; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, and AWS_ENDPOINT_URL for a store other than AWS")
	}
	if !validBucket(bucket) {
		return "", "", bad("want s3://BUCKET/PREFIX/ or s3://BUCKET/KEY, BUCKET 3 to 63 letters, digits, '.', '-' or '_'")
	}
	if len(key) > 1024 || strings.ContainsAny(key, "\x00\r\n") || strings.Contains(key, "//") {
		return "", "", bad("the key is longer than 1024 bytes, holds a control character or an empty path segment")
	}
	for _, seg := range strings.Split(strings.TrimSuffix(key, "/"), "/") {
		if seg == "." || seg == ".." {
			return "", "", bad("the key has a . or .. segment")
		}
	}
	return bucket, key, nil
}

// safeBucket is what of a malformed bucket name may be echoed in a
// message: nothing after an '@' (which would be a password).
func safeBucket(b string) string {
	if i := strings.LastIndex(b, "@"); i >= 0 {
		return "…" + b[i:]
	}
	return b
}

// validBucket accepts S3's bucket names and the underscores and capitals
// some compatible stores allow.
func validBucket(b string) bool {
	if len(b) < 3 || len(b) > 63 {
		return false
	}
	for _, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// escapeKey percent-encodes a key as SigV4 does for S3: every byte but
// the unreserved ones and '/'. The store computes the same canonical path
// from what it receives.
func escapeKey(key string) string {
	var b strings.Builder
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.~/", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteString("%" + strings.ToUpper(hex2(c)))
	}
	return b.String()
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}

// under returns the URL of the bucket's root u joined with the key prefix
// dir (which ends in "/" or is empty).
func under(u *url.URL, dir string) *url.URL {
	v := *u
	raw := u.EscapedPath()
	v.Path = u.Path + dir
	v.RawPath = raw + escapeKey(dir)
	return &v
}
