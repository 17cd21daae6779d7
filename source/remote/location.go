package remote

import (
	"net/url"
	"os"
	"path"
	"strings"

	"github.com/fsmount/fsmount/source"
)

// DefaultEndpoint is the Hugging Face Hub, used when HF_ENDPOINT is unset.
const DefaultEndpoint = "https://huggingface.co"

// Endpoint returns HF_ENDPOINT without a trailing slash, or
// [DefaultEndpoint].
func Endpoint() string {
	if e := strings.TrimRight(os.Getenv("HF_ENDPOINT"), "/"); e != "" {
		return e
	}
	return DefaultEndpoint
}

// fileSuffixes mark the last segment of a URL as a file rather than a
// directory (a directory's name may well contain a dot: Qwen3-0.6B).
var fileSuffixes = []string{".safetensors", ".json", ".gguf"}

// ParseLocation is [ParseLocationOptions] with the default options.
func ParseLocation(loc string) (fsys source.FS, file string, ok bool, err error) {
	return ParseLocationOptions(loc, Options{})
}

// ParseLocationOptions recognises a remote location and returns its FS:
//
//   - http(s)://host/dir/ (or a last segment that is not a model file):
//     the directory, file "";
//   - http(s)://host/dir/model.safetensors (a last segment ending in
//     .safetensors, .json or .gguf): the FS of its directory, and the file's
//     name;
//   - hf://ORG/NAME[@REVISION]: the Hub repository at
//     {HF_ENDPOINT}/ORG/NAME/resolve/REVISION/ (REVISION default "main",
//     percent-encoded as one segment, so refs/pr/1 works), file "".
//
// ok is false, with no error, for anything else (a local path). HF_TOKEN,
// if set and opts.Token is not, becomes the token of an FS on the
// endpoint's origin, and of no other.
func ParseLocationOptions(loc string, opts Options) (fsys source.FS, file string, ok bool, err error) {
	var base string
	switch {
	case strings.HasPrefix(loc, "hf://"):
		base, err = hubBase(loc)
		if err != nil {
			return nil, "", true, err
		}
	case strings.HasPrefix(loc, "http://"), strings.HasPrefix(loc, "https://"):
		u, perr := url.Parse(loc)
		if perr != nil || u.Host == "" {
			return nil, "", true, &Error{Code: CodeBadLocation, URL: Redact(loc), Detail: "not a URL with a host", Err: perr}
		}
		if u.RawQuery != "" || u.Fragment != "" {
			return nil, "", true, &Error{Code: CodeBadLocation, URL: u.Redacted(), Detail: "a model URL cannot have a query or fragment"}
		}
		if last := path.Base(u.Path); !strings.HasSuffix(u.Path, "/") && hasFileSuffix(last) {
			file = last
			u.Path = strings.TrimSuffix(u.Path, last)
			u.RawPath = ""
		}
		base = u.String()
	default:
		return nil, "", false, nil
	}
	if opts.Token == "" {
		if tok := os.Getenv("HF_TOKEN"); tok != "" {
			if bu, err := url.Parse(base); err == nil {
				if eu, err := url.Parse(Endpoint()); err == nil && originOf(bu) == originOf(eu) {
					opts.Token = tok
				}
			}
		}
	}
	f, err := New(base, opts)
	if err != nil {
		return nil, "", true, err
	}
	return f, file, true, nil
}

func hasFileSuffix(name string) bool {
	for _, s := range fileSuffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// hubBase turns hf://ORG/NAME[@REVISION] into its resolve URL.
func hubBase(loc string) (string, error) {
	repo, rev, hasRev := strings.Cut(strings.TrimPrefix(loc, "hf://"), "@")
	repo = strings.TrimSuffix(repo, "/")
	if !hasRev {
		rev = "main"
	}
	org, name, found := strings.Cut(repo, "/")
	bad := func(detail string) error {
		return &Error{Code: CodeBadLocation, URL: loc, Detail: detail}
	}
	if !found || !validRepoPart(org) || !validRepoPart(name) {
		return "", bad("want hf://ORG/NAME[@REVISION], ORG and NAME made of letters, digits, '-', '_' and '.'")
	}
	if rev == "" || strings.ContainsAny(rev, "\x00\n\r") || len(rev) > 256 {
		return "", bad("empty or invalid revision")
	}
	endpoint, err := url.Parse(Endpoint())
	if err != nil || (endpoint.Scheme != "http" && endpoint.Scheme != "https") || endpoint.Host == "" {
		return "", bad("HF_ENDPOINT is not an http(s) URL")
	}
	return strings.TrimRight(endpoint.String(), "/") + "/" + org + "/" + name + "/resolve/" + url.PathEscape(rev) + "/", nil
}

func validRepoPart(s string) bool {
	if s == "" || s == "." || s == ".." || len(s) > 96 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}
