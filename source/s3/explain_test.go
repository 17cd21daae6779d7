package s3

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fsmount/fsmount/source/remote"
)

// TestExplain: the store's error answers SeaweedFS does not give on
// demand (a 503 SlowDown, an expired session token, an unknown code) and
// answers that are not S3's.
func TestExplain(t *testing.T) {
	x := &explainer{endpoint: "http://127.0.0.1:1", region: "us-east-1"}
	for _, c := range []struct {
		status     int
		body       string
		s3code     Code
		remoteCode remote.Code
		msg        string
	}{
		{503, `<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`, "", remote.CodeUnavailable, "s3://b/k: remote: unavailable (HTTP 503): SlowDown: Please reduce your request rate."},
		{500, `<Error><Code>InternalError</Code><Message>We encountered an internal error.
Please try again.</Message></Error>`, "", remote.CodeUnavailable, "s3://b/k: remote: unavailable (HTTP 500): InternalError: We encountered an internal error. Please try again."},
		{400, `<Error><Code>ExpiredToken</Code><Message>The provided token has expired.</Message></Error>`, CodeDenied, "", "s3://b/k: access denied: the session token has expired or is not valid (ExpiredToken)"},
		{400, `<Error><Code>InvalidArgument</Code><Message>Bad.</Message></Error>`, CodeStore, "", "s3://b/k: the store refused the request (HTTP 400 InvalidArgument): Bad."},
		{404, `<Error><Code>NoSuchKey</Code></Error>`, CodeNoKey, remote.CodeNotFound, "s3://b/k: no such key"},
		{412, `<Error><Code>PreconditionFailed</Code></Error>`, "", "", ""},
		{404, `<html>not found</html>`, "", "", ""},
		{403, ``, "", "", ""},
	} {
		resp := &http.Response{StatusCode: c.status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(c.body))}
		err := x.explain(resp, "s3://b/k")
		if c.msg == "" {
			assert.NoError(t, err, c.body)
			continue
		}
		assert.Equal(t, c.msg, err.Error())
		assert.Equal(t, c.s3code, CodeOf(err), c.body)
		if c.remoteCode != "" {
			assert.ErrorIs(t, err, &remote.Error{Code: c.remoteCode})
		}
	}
}

// TestBadLocations: malformed locations fail before any request or
// configuration is read, without echoing a password.
func TestBadLocations(t *testing.T) {
	for _, loc := range []string{"s3://", "s3://ab", "s3://a b/x", "s3://bucket/../x", "s3://bucket/a//b", "s3://user:hunter2@bucket/x", "s3://bucket:9000/x", "s3://bucket/x\n"} {
		_, _, err := splitLocation(loc)
		assert.Equal(t, CodeBadLocation, CodeOf(err), loc)
		if err != nil {
			assert.NotContains(t, err.Error(), "hunter2")
			assert.True(t, strings.HasPrefix(err.Error(), "s3://"), err.Error())
		}
	}
	b, k, err := splitLocation("s3://my-bucket.v2/a/b c/")
	assert.NoError(t, err)
	assert.Equal(t, "my-bucket.v2", b)
	assert.Equal(t, "a/b c/", k)
	assert.Equal(t, "a/b%20c/%2B", escapeKey("a/b c/+"))
}
