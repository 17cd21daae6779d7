package download_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/download"
)

// A Git LFS pointer as git writes it when the object was not pulled.
const lfsPointer = "version https://git-lfs.github.com/spec/v1\noid sha256:4dd1ec84e5b4aa6f7544dd012071ae1b961721d24be5c27dc38893760ea2c321\nsize 3152768\n"

// The page the Hub answers a gated repository's file with, without a token.
const gatedPage = "\n<!doctype html>\n<html class=\"\">\n<head>\n<meta charset=\"utf-8\" />\n<title>meta-llama/Llama-3.2-1B &middot; Hugging Face</title>\n</head>\n<body>Access to model meta-llama/Llama-3.2-1B is restricted.</body></html>\n"

func TestSniff(t *testing.T) {
	cause := errors.New("the format's error")
	for _, tc := range []struct {
		name, data string
		code       download.Code
		msg        string
	}{
		{"LFS pointer", lfsPointer, download.CodeLFSPointer, "m.safetensors: this is a Git LFS pointer of 132 bytes, not the file (the real file is 3,152,768 bytes): run `git lfs pull` in its clone (or download the file itself)"},
		{"LFS pointer without size", "version https://git-lfs.github.com/spec/v1\n", download.CodeLFSPointer, "m.safetensors: this is a Git LFS pointer of 43 bytes, not the file: run `git lfs pull`"},
		{"gated page", gatedPage, download.CodeHTML, `m.safetensors: an HTML page ("meta-llama/Llama-3.2-1B · Hugging Face"), not the file: a login or error page was saved in its place; download the file again`},
		{"error page, no title", "<html><body>502 Bad Gateway</body></html>", download.CodeHTML, "m.safetensors: an HTML page, not the file"},
		{"XHTML", `<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><title>Sign in</title></html>`, download.CodeHTML, `("Sign in")`},
		{"the Hub's JSON error", `{"error":"Access to model meta-llama/Llama-3.2-1B is restricted. You must have access to it and be authenticated to access it. Please log in."}`,
			download.CodeErrorAnswer, `m.safetensors: this is a server's error answer ("Access to model meta-llama/Llama-3.2-1B is restricted. You must have access to it and be authenticated to access it. Ple…"), not the file: download it again`},
		{"the Hub's 404 text", "Entry not found", download.CodeErrorAnswer, `("Entry not found")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := download.Sniff("m.safetensors", strings.NewReader(tc.data), int64(len(tc.data)), cause)
			require.Error(t, err)
			assert.ErrorIs(t, err, tc.code)
			assert.ErrorIs(t, err, download.ErrBroken)
			assert.ErrorIs(t, err, cause, "the format's error is kept as the cause")
			assert.Contains(t, err.Error(), tc.msg)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
	for _, data := range []string{"", "GGUF\x03\x00\x00\x00", "PK\x03\x04", "\x08\x00\x00\x00\x00\x00\x00\x00{}      ", "version 1\n", "<htm", `{"architectures": []}`, "Entry\x00not found"} {
		assert.NoError(t, download.Sniff("x", strings.NewReader(data), int64(len(data)), nil), "%q", data)
	}
	// A huge file: only its start is read.
	big := bytes.Repeat([]byte{'A'}, 1<<20)
	assert.NoError(t, download.Sniff("x", bytes.NewReader(big), int64(len(big)), nil))
}

func TestTruncated(t *testing.T) {
	err := download.Truncated("m.safetensors", 68504, 5000, errors.New("cause"))
	assert.ErrorIs(t, err, download.CodeTruncated)
	assert.Equal(t, "m.safetensors: a truncated download: its header says 68,504 bytes, the file has 5,000: re-download it", err.Error())
	err = download.TruncatedUnknown("m.bin", 3000, "its ZIP archive lacks the end record", nil)
	assert.Equal(t, "m.bin: a truncated download: its ZIP archive lacks the end record (the file has 3,000 bytes): re-download it", err.Error())
}

// hfCache lays out a repository as huggingface_hub's cache does:
// blobs/, refs/main, snapshots/REV/ with links into blobs.
func hfCache(t *testing.T, root, repo, rev string) string {
	t.Helper()
	dir := filepath.Join(root, repo)
	for _, d := range []string{"blobs", "refs", filepath.Join("snapshots", rev)} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "refs", "main"), []byte(rev), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "blobs", "ab12"), []byte("{}"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join("..", "..", "blobs", "ab12"), filepath.Join(dir, "snapshots", rev, "config.json")))
	return dir
}

func TestHFCache(t *testing.T) {
	root := t.TempDir()
	const rev = "c1899de289a04d12100db370d81485cdf75e47ca"
	repo := hfCache(t, root, "models--Qwen--Qwen3-0.6B", rev)
	snap := filepath.Join(repo, "snapshots", rev)
	for _, dir := range []string{repo, filepath.Join(repo, "snapshots")} {
		err := download.HFCache(dir)
		require.Error(t, err, dir)
		assert.ErrorIs(t, err, download.CodeHFCache)
		assert.Equal(t, dir+": this is a Hugging Face cache directory, not a model: give its snapshot, "+snap, err.Error())
	}
	err := download.HFCache(root)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "this is a Hugging Face cache (1 repository), not a model: give a model's snapshot, such as "+filepath.Join(root, "models--Qwen--Qwen3-0.6B", "snapshots", "REVISION"))
	assert.NoError(t, download.HFCache(snap), "a snapshot is a model")
	assert.NoError(t, download.HFCache(t.TempDir()))
	// refs/main naming no snapshot: the newest by name there.
	require.NoError(t, os.WriteFile(filepath.Join(repo, "refs", "main"), []byte("../../etc"), 0o644))
	assert.Contains(t, download.HFCache(repo).Error(), snap)
	// No snapshot: the download did not finish.
	require.NoError(t, os.RemoveAll(filepath.Join(repo, "snapshots", rev)))
	assert.Contains(t, download.HFCache(repo).Error(), "with no snapshot: the download did not finish")
}

func TestNoSuchPath(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "Qwen3-0.6B"), 0o755))
	cause := os.ErrNotExist
	err := download.NoSuchPath(filepath.Join(dir, "Qwen3-06B"), cause)
	assert.ErrorIs(t, err, download.CodeNoSuchPath)
	assert.ErrorIs(t, err, os.ErrNotExist)
	assert.Equal(t, filepath.Join(dir, "Qwen3-06B")+": nothing at this path (no such file or directory); did you mean "+filepath.Join(dir, "Qwen3-0.6B")+"?", err.Error())
	err = download.NoSuchPath(filepath.Join(dir, "something-else"), cause)
	assert.Equal(t, filepath.Join(dir, "something-else")+": nothing at this path (no such file or directory)", err.Error())
	err = download.NoSuchPath(filepath.Join(dir, "no", "model"), cause)
	assert.Contains(t, err.Error(), "not even its directory")
	assert.NotContains(t, err.Error(), "stat ")
}
