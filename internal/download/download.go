// Package download names what a user's download is when it is not what
// it claims, and the fix, in one line: a Git LFS pointer, an HTML page or
// a server's error answer saved in place of a weight file, a truncated file, a Hugging Face
// cache directory given instead of one of its snapshots, an index whose
// shards are absent, a path that names nothing. Each is an *Error with a
// stable Code; every one matches ErrBroken.
package download

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/fsmount/fsmount/internal/formaterr"
	"github.com/fsmount/fsmount/internal/numfmt"
)

// Code names what the download is.
type Code string

func (c Code) Error() string { return string(c) }

// The codes.
const (
	CodeLFSPointer    Code = "lfs_pointer"    // a Git LFS pointer file, not the file
	CodeHTML          Code = "html_page"      // an HTML page (a login or error page) saved as the file
	CodeErrorAnswer   Code = "error_answer"   // a server's error answer (JSON or a line of text) saved as the file
	CodeTruncated     Code = "truncated"      // shorter than its header (or index) says
	CodeHFCache       Code = "hf_cache"       // a Hugging Face cache directory, not a snapshot of it
	CodeMissingShards Code = "missing_shards" // an index naming shards that are absent
	CodeNoSuchPath    Code = "no_such_path"   // nothing at the path given
)

// ErrBroken is matched by every *Error.
var ErrBroken = errors.New("not what it claims to be")

// Error is a download that is not what it claims: Path, the cause and
// the fix (Msg), and the error found first (Err), if any.
type Error struct {
	Path string
	Code Code
	Msg  string
	Err  error
}

func (e *Error) Error() string { return formaterr.Join(e.Path, e.Msg) }

// Is makes every Error match ErrBroken and its own Code.
func (e *Error) Is(target error) bool { return formaterr.Is(target, ErrBroken, e.Code) }

func (e *Error) Unwrap() error { return e.Err }

// sniffSize is how much of a file Sniff reads: an LFS pointer is about
// 130 bytes, and an HTML page names itself in its first line or two.
const sniffSize = 4096

var (
	lfsSize = regexp.MustCompile(`(?m)^size ([0-9]{1,19})$`)
	title   = regexp.MustCompile(`(?is)<title[^>]*>(.{0,200}?)</title>`)
)

// Sniff returns an *Error when the file name (r, of size bytes) is a Git
// LFS pointer or an HTML page, else nil; err is what the format said of
// it, kept as the cause.
func Sniff(name string, r io.ReaderAt, size int64, err error) error {
	buf := make([]byte, min(size, sniffSize))
	n, _ := r.ReadAt(buf, 0)
	head := buf[:n]
	if bytes.HasPrefix(head, []byte("version https://git-lfs.github.com/spec/")) {
		real := ""
		if m := lfsSize.FindSubmatch(head); m != nil {
			if v, perr := strconv.ParseUint(string(m[1]), 10, 64); perr == nil {
				real = " (the real file is " + numfmt.Commas(v) + " bytes)"
			}
		}
		return &Error{Path: name, Code: CodeLFSPointer, Err: err,
			Msg: fmt.Sprintf("this is a Git LFS pointer of %s bytes, not the file%s: run `git lfs pull` in its clone (or download the file itself)", numfmt.Commas(uint64(size)), real)}
	}
	t := bytes.ToLower(bytes.TrimLeft(head, " \t\r\n\ufeff"))
	if bytes.HasPrefix(t, []byte("<!doctype html")) || bytes.HasPrefix(t, []byte("<html")) || bytes.HasPrefix(t, []byte("<head")) ||
		bytes.HasPrefix(t, []byte("<?xml")) && bytes.Contains(t, []byte("<html")) {
		what := "an HTML page"
		if m := title.FindSubmatch(head); m != nil {
			if s := strings.Join(strings.Fields(html.UnescapeString(string(m[1]))), " "); s != "" {
				what += fmt.Sprintf(" (%q)", s)
			}
		}
		return &Error{Path: name, Code: CodeHTML, Err: err,
			Msg: what + ", not the file: a login or error page was saved in its place; download the file again (a gated or private repository needs a token, HF_TOKEN)"}
	}
	if msg, ok := errorAnswer(head, size); ok {
		return &Error{Path: name, Code: CodeErrorAnswer, Err: err,
			Msg: fmt.Sprintf("this is a server's error answer (%q), not the file: download it again (a gated or private repository needs a token, HF_TOKEN)", msg)}
	}
	return nil
}

// errorPrefixes are how the Hub and S3-like stores begin the error
// answers a download tool may save as the file.
var errorPrefixes = []string{"Entry not found", "Repository not found", "Revision not found", "Access to model", "Invalid username or password",
	"Unauthorized", "Forbidden", "Not Found", "401", "403", "404"}

// errorAnswer returns the message of a small error answer saved as the
// file: JSON {"error": "..."}, or a line of text starting as the Hub's
// do.
func errorAnswer(head []byte, size int64) (string, bool) {
	if size > 4096 || int64(len(head)) < size || bytes.IndexByte(head, 0) >= 0 {
		return "", false
	}
	t := bytes.TrimSpace(head)
	if bytes.HasPrefix(t, []byte("{")) {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(t, &e) == nil && e.Error != "" {
			return clip(e.Error), true
		}
		return "", false
	}
	for _, p := range errorPrefixes {
		if bytes.HasPrefix(t, []byte(p)) {
			line, _, _ := bytes.Cut(t, []byte("\n"))
			return clip(string(line)), true
		}
	}
	return "", false
}

// clip shortens s to 120 characters for a one-line message.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 120 {
		return string(r[:120]) + "…"
	}
	return s
}

// Truncated is the error for the file name of have bytes that its header
// (or index) says is want bytes; found is the format's own words, kept as
// the cause.
func Truncated(name string, want, have int64, err error) error {
	return &Error{Path: name, Code: CodeTruncated, Err: err,
		Msg: fmt.Sprintf("a truncated download: its header says %s bytes, the file has %s: re-download it", numfmt.Commas(uint64(want)), numfmt.Commas(uint64(have)))}
}

// TruncatedUnknown is Truncated where the expected size is not known
// (a ZIP archive whose end record is cut off): detail says what is
// missing.
func TruncatedUnknown(name string, have int64, detail string, err error) error {
	return &Error{Path: name, Code: CodeTruncated, Err: err,
		Msg: fmt.Sprintf("a truncated download: %s (the file has %s bytes): re-download it", detail, numfmt.Commas(uint64(have)))}
}

// MissingShards is the error for an index naming shards that are not
// there; err is the index rule's own error, naming them.
func MissingShards(index string, err error) error {
	return &Error{Path: index, Code: CodeMissingShards, Err: err,
		Msg: strings.TrimPrefix(err.Error(), index+": ") + ": an incomplete download: fetch the missing shards (or the whole repository again)"}
}

// HFCache returns an *Error when dir is a Hugging Face cache directory
// (the hub root, a models--ORG--NAME repository or its snapshots/)
// rather than a snapshot, naming the snapshot to give; else nil.
func HFCache(dir string) error {
	clean := filepath.Clean(dir)
	repo := ""
	switch {
	case isDir(filepath.Join(clean, "snapshots")) && (isDir(filepath.Join(clean, "blobs")) || isDir(filepath.Join(clean, "refs"))):
		repo = clean
	case filepath.Base(clean) == "snapshots" && strings.HasPrefix(filepath.Base(filepath.Dir(clean)), "models--"):
		repo = filepath.Dir(clean)
	default:
		entries, err := os.ReadDir(clean)
		if err != nil {
			return nil
		}
		var models []string
		for _, e := range entries {
			if e.IsDir() && strings.HasPrefix(e.Name(), "models--") {
				models = append(models, e.Name())
			}
		}
		if len(models) == 0 {
			return nil
		}
		ex := filepath.Join(clean, models[0], "snapshots", "REVISION")
		return &Error{Path: dir, Code: CodeHFCache,
			Msg: fmt.Sprintf("this is a Hugging Face cache (%d %s), not a model: give a model's snapshot, such as %s", len(models), plural(len(models), "repository", "repositories"), ex)}
	}
	rev := snapshot(repo)
	if rev == "" {
		return &Error{Path: dir, Code: CodeHFCache,
			Msg: "this is a Hugging Face cache directory with no snapshot: the download did not finish; download it again"}
	}
	return &Error{Path: dir, Code: CodeHFCache,
		Msg: "this is a Hugging Face cache directory, not a model: give its snapshot, " + filepath.Join(repo, "snapshots", rev)}
}

// snapshot is the revision refs/main names, else the snapshot there is
// (the last by name of several), else "".
func snapshot(repo string) string {
	if b, err := os.ReadFile(filepath.Join(repo, "refs", "main")); err == nil {
		if rev := strings.TrimSpace(string(b)); rev != "" && !strings.ContainsAny(rev, "/\\") && isDir(filepath.Join(repo, "snapshots", rev)) {
			return rev
		}
	}
	entries, err := os.ReadDir(filepath.Join(repo, "snapshots"))
	if err != nil {
		return ""
	}
	var revs []string
	for _, e := range entries {
		if e.IsDir() {
			revs = append(revs, e.Name())
		}
	}
	slices.Sort(revs)
	if len(revs) == 0 {
		return ""
	}
	return revs[len(revs)-1]
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// NoSuchPath is the error for a local path that names nothing; err is
// the stat error. It suggests the nearest name in the parent directory,
// when one is within two edits.
func NoSuchPath(path string, err error) error {
	msg := "nothing at this path (no such file or directory)"
	dir, base := filepath.Split(filepath.Clean(path))
	if dir == "" {
		dir = "."
	}
	if !isDir(dir) {
		msg = "nothing at this path: not even its directory " + dir + " exists"
	} else if near := nearest(dir, base); near != "" {
		msg += "; did you mean " + filepath.Join(filepath.Dir(filepath.Clean(path)), near) + "?"
	}
	return &Error{Path: path, Code: CodeNoSuchPath, Msg: msg, Err: err}
}

// maxNearest bounds the entries of a directory nearest compares.
const maxNearest = 10000

// nearest is the entry of dir within two edits of name, the closest.
func nearest(dir, name string) string {
	f, err := os.Open(dir)
	if err != nil {
		return ""
	}
	defer f.Close()
	names, _ := f.Readdirnames(maxNearest)
	best, bestD := "", 3
	for _, n := range names {
		if len(n) > 256 || len(name) > 256 {
			continue
		}
		if d := distance(strings.ToLower(n), strings.ToLower(name)); d < bestD || d == bestD && n < best {
			best, bestD = n, d
		}
	}
	if bestD > 2 {
		return ""
	}
	return best
}

// distance is the Levenshtein distance of a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
