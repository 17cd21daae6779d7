package s3

import (
	"encoding/xml"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"strconv"
	"strings"

	"github.com/fsmount/fsmount/source/remote"
)

// Code is the stable identifier of a failure; scripts may match on it.
type Code string

// The error table. Failures of reading bytes that S3 does not explain
// (a network error, a timeout, a changed object) stay [remote.Error]s.
const (
	CodeBadLocation   Code = "bad_location"   // not s3://BUCKET[/KEY], or an endpoint that cannot be used
	CodeNoCredentials Code = "no_credentials" // no AWS credentials found and --no-sign-request not given
	CodeDenied        Code = "denied"         // access denied, unknown key ID, wrong secret, expired token
	CodeNoBucket      Code = "no_bucket"      // the bucket does not exist
	CodeNoKey         Code = "no_key"         // the key does not exist, or nothing is under the prefix: matches fs.ErrNotExist
	CodeWrongRegion   Code = "wrong_region"   // the bucket is in another region than the one requests are signed for
	CodeNotS3         Code = "not_s3"         // the endpoint does not answer as an S3 store
	CodeStore         Code = "store_error"    // any other error answer of the store
)

// Error is a failure of an s3:// location, in one line. Location is the
// s3:// name of the bucket, prefix or object; it never carries a secret.
type Error struct {
	Code     Code
	Location string
	Detail   string // what happened, in plain words
	Status   int    // the HTTP status, when one was received
	S3Code   string // the store's own error code (NoSuchKey…), if any
}

func (e *Error) Error() string { return e.Location + ": " + e.Detail }

// Is makes an Error match its code's sentinel, a no_key error
// fs.ErrNotExist and remote.ErrNotFound, and a denied one
// remote.ErrDenied.
func (e *Error) Is(target error) bool {
	if target == fs.ErrNotExist {
		return e.Code == CodeNoKey
	}
	if r, ok := target.(*remote.Error); ok && r.URL == "" {
		return r.Code == remote.CodeNotFound && e.Code == CodeNoKey || r.Code == remote.CodeDenied && e.Code == CodeDenied
	}
	t, ok := target.(*Error)
	return ok && t.Location == "" && t.Code == e.Code
}

// Sentinels, one per code, for errors.Is.
var (
	ErrBadLocation   = &Error{Code: CodeBadLocation}
	ErrNoCredentials = &Error{Code: CodeNoCredentials}
	ErrDenied        = &Error{Code: CodeDenied}
	ErrNoBucket      = &Error{Code: CodeNoBucket}
	ErrNoKey         = &Error{Code: CodeNoKey}
	ErrWrongRegion   = &Error{Code: CodeWrongRegion}
	ErrNotS3         = &Error{Code: CodeNotS3}
	ErrStore         = &Error{Code: CodeStore}
)

// CodeOf returns the code of the first *Error in err's chain, or "".
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// s3Error is the body of an S3 error answer.
type s3Error struct {
	XMLName xml.Name `xml:"Error"`
	Code    string   `xml:"Code"`
	Message string   `xml:"Message"`
	Region  string   `xml:"Region"`
}

// maxErrorBody bounds the error body read.
const maxErrorBody = 64 << 10

// readError reads an S3 error answer's body; ok is false if it is not one.
func readError(resp *http.Response) (s3Error, bool) {
	var e s3Error
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	if err := xml.Unmarshal(body, &e); err != nil || e.Code == "" {
		return s3Error{}, false
	}
	return e, true
}

// explainer turns a store's error answers into errors in plain words.
type explainer struct {
	endpoint string // the endpoint in messages, without credentials
	region   string // the region requests are signed for
	unsigned bool   // requests are sent without credentials
}

// explain returns the error an answer of status s means, for the object
// or prefix named loc; nil if the answer is not an S3 error (then the
// reader's own handling applies). A 5xx is a remote.Error the reader
// retries (503 SlowDown included).
func (x *explainer) explain(resp *http.Response, loc string) error {
	e, ok := readError(resp)
	s := resp.StatusCode
	region := resp.Header.Get("X-Amz-Bucket-Region")
	if !ok {
		// A 301 from AWS may come without a body (a HEAD, or a proxy).
		if region != "" && (s == http.StatusMovedPermanently || s == http.StatusBadRequest) {
			return x.wrongRegion(loc, region, s, "")
		}
		return nil
	}
	if e.Region != "" {
		region = e.Region
	}
	mk := func(code Code, detail string) *Error {
		return &Error{Code: code, Location: loc, Status: s, S3Code: e.Code, Detail: detail}
	}
	switch e.Code {
	case "NoSuchKey":
		return mk(CodeNoKey, "no such key")
	case "NoSuchBucket":
		return mk(CodeNoBucket, "no such bucket at "+x.endpoint)
	case "AccessDenied", "AllAccessDisabled", "AccountProblem":
		if x.unsigned {
			return mk(CodeDenied, "access denied to an unsigned request (--no-sign-request): the bucket is not public; set AWS credentials instead")
		}
		return mk(CodeDenied, "access denied: the credentials in use may not read it ("+e.Code+")")
	case "InvalidAccessKeyId":
		return mk(CodeDenied, "access denied: the store does not know the access key ID in use (InvalidAccessKeyId)")
	case "SignatureDoesNotMatch":
		return mk(CodeDenied, "access denied: the secret access key does not match the access key ID (SignatureDoesNotMatch)")
	case "ExpiredToken", "TokenRefreshRequired", "InvalidToken":
		return mk(CodeDenied, "access denied: the session token has expired or is not valid ("+e.Code+")")
	case "PermanentRedirect", "AuthorizationHeaderMalformed", "IllegalLocationConstraintException", "InvalidRegion":
		if region != "" || e.Code == "PermanentRedirect" {
			return x.wrongRegion(loc, region, s, e.Code)
		}
	case "PreconditionFailed":
		return nil // an If-Match that failed: the object changed
	}
	if s >= 500 || s == http.StatusTooManyRequests || e.Code == "SlowDown" {
		return &remote.Error{Code: remote.CodeUnavailable, URL: loc, Status: s, Detail: e.Code + ": " + oneLine(e.Message)}
	}
	return mk(CodeStore, "the store refused the request (HTTP "+strconv.Itoa(s)+" "+e.Code+"): "+oneLine(e.Message))
}

func (x *explainer) wrongRegion(loc, region string, status int, code string) error {
	d := "wrong region: requests are signed for " + x.region
	if region != "" {
		d = "wrong region: the bucket is in " + region + ", not " + x.region + "; set AWS_REGION=" + region
	}
	return &Error{Code: CodeWrongRegion, Location: loc, Status: status, S3Code: code, Detail: d}
}

// oneLine makes a store's message fit in one line of a few hundred bytes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
