package s3

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/smithy-go/logging"

	"github.com/fsmount/fsmount/source/remote"
)

// DefaultRegion is the region requests are signed for when none is set.
const DefaultRegion = "us-east-1"

// emptyHash is the SHA-256 of the empty payload of a GET.
const emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// account is what requests need: where to send them and how to sign them.
type account struct {
	endpoint  *url.URL // a custom endpoint, path-style; nil for AWS
	region    string
	creds     aws.CredentialsProvider // nil: unsigned
	signer    *v4.Signer
	pathStyle bool
}

// loadAccount reads the AWS configuration the way the AWS CLI does. With
// unsigned, no credentials are looked for. loc names the location in
// errors.
func loadAccount(ctx context.Context, loc string, unsigned bool) (*account, error) {
	// The SDK's own log lines (an IMDS fallback warning) would break the
	// one-line errors: silence them.
	cfg, err := config.LoadDefaultConfig(ctx, config.WithLogger(logging.Nop{}))
	if err != nil {
		// A profile that does not exist, a config file that does not
		// parse: the SDK's words, on one line.
		return nil, &Error{Code: CodeBadLocation, Location: loc, Detail: "AWS configuration: " + oneLine(err.Error())}
	}
	a := &account{region: cfg.Region, signer: v4.NewSigner()}
	if a.region == "" {
		a.region = DefaultRegion
	}
	if ep := serviceEndpoint(ctx, cfg); ep != "" {
		u, err := url.Parse(ep)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
			return nil, &Error{Code: CodeBadLocation, Location: loc, Detail: "the S3 endpoint " + remote.Redact(ep) + " is not an http:// or https:// URL with a host"}
		}
		if u.User != nil {
			return nil, &Error{Code: CodeBadLocation, Location: loc, Detail: "the S3 endpoint " + remote.Redact(ep) + " carries credentials; set them in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"}
		}
		u.Path = strings.TrimRight(u.Path, "/")
		u.RawPath = ""
		a.endpoint, a.pathStyle = u, true
	}
	if unsigned {
		return a, nil
	}
	if cfg.Credentials == nil {
		return nil, noCredentials(loc, nil)
	}
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	c, err := cfg.Credentials.Retrieve(cctx)
	if err != nil || !c.HasKeys() {
		return nil, noCredentials(loc, err)
	}
	a.creds = cfg.Credentials
	return a, nil
}

func noCredentials(loc string, err error) *Error {
	d := "no AWS credentials found (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE); for a public bucket, use --no-sign-request"
	if p := os.Getenv("AWS_PROFILE"); p != "" && err != nil {
		d = "no AWS credentials from profile " + p + " (" + oneLine(firstLine(err.Error())) + "); for a public bucket, use --no-sign-request"
	}
	return &Error{Code: CodeNoCredentials, Location: loc, Detail: d}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// serviceEndpoint returns the configured S3 endpoint: AWS_ENDPOINT_URL_S3
// or a profile's services section, else AWS_ENDPOINT_URL or a profile's
// endpoint_url; "" for AWS itself.
func serviceEndpoint(ctx context.Context, cfg aws.Config) string {
	type serviceEndpointer interface {
		GetServiceBaseEndpoint(ctx context.Context, sdkID string) (string, bool, error)
	}
	for _, src := range cfg.ConfigSources {
		if s, ok := src.(serviceEndpointer); ok {
			if ep, found, err := s.GetServiceBaseEndpoint(ctx, "S3"); err == nil && found && ep != "" {
				return ep
			}
		}
	}
	if cfg.BaseEndpoint != nil {
		return *cfg.BaseEndpoint
	}
	return ""
}

// sign adds Signature Version 4 to req (nothing for unsigned requests).
// Requests carry the hash of the empty payload and no checksum headers.
func (a *account) sign(req *http.Request) error {
	if a.creds == nil {
		return nil
	}
	c, err := a.creds.Retrieve(req.Context())
	if err != nil {
		return errors.New("AWS credentials: " + oneLine(firstLine(err.Error())))
	}
	req.Header.Set("X-Amz-Content-Sha256", emptyHash)
	return a.signer.SignHTTP(req.Context(), c, req, emptyHash, "s3", a.region, time.Now(),
		func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })
}

// bucketURL returns the URL of the bucket's root, ending in "/": on a
// custom endpoint ENDPOINT/BUCKET/, on AWS https://BUCKET.s3.REGION.
// amazonaws.com/ (path-style for a bucket whose name has a dot, which
// the wildcard certificate does not cover).
func (a *account) bucketURL(bucket string) *url.URL {
	if a.endpoint != nil {
		u := *a.endpoint
		u.Path += "/" + bucket + "/"
		return &u
	}
	if strings.Contains(bucket, ".") {
		return &url.URL{Scheme: "https", Host: "s3." + a.region + ".amazonaws.com", Path: "/" + bucket + "/"}
	}
	return &url.URL{Scheme: "https", Host: bucket + ".s3." + a.region + ".amazonaws.com", Path: "/"}
}

// endpointName names where requests go, for messages.
func (a *account) endpointName() string {
	if a.endpoint != nil {
		return a.endpoint.Redacted()
	}
	return "s3." + a.region + ".amazonaws.com"
}
