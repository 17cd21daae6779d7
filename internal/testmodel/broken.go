package testmodel

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsmount/fsmount/internal/download"
)

// LFSPointer is the Git LFS pointer git leaves for an object it did not
// pull, for a file of size bytes.
func LFSPointer(size int64) string {
	return fmt.Sprintf("version https://git-lfs.github.com/spec/v1\noid sha256:4dd1ec84e5b4aa6f7544dd012071ae1b961721d24be5c27dc38893760ea2c321\nsize %d\n", size)
}

// GatedPage is the page the Hub answers a gated repository's file with,
// as a browser or curl without a token saves it.
const GatedPage = "\n<!doctype html>\n<html class=\"\">\n<head>\n<meta charset=\"utf-8\" />\n<title>meta-llama/Llama-3.2-1B &middot; Hugging Face</title>\n</head>\n<body>Access to model meta-llama/Llama-3.2-1B is restricted. You must have access to it and be authenticated to access it. Please log in.</body></html>\n"

// Broken is one broken download: where it is, what it is, and words
// the one-line error must hold.
type Broken struct {
	Name   string
	Path   string
	Code   download.Code
	Phrase string
}

// WriteBroken writes into root the broken downloads users make of the
// tiny model in each format (safetensors, GGUF from ggufPath, PyTorch):
// Git LFS pointers, HTML pages and truncated files in place of the
// weights, a Hugging Face cache directory, indexes naming absent shards.
func WriteBroken(root, ggufPath string) ([]Broken, error) {
	var out []Broken
	st := filepath.Join(root, "safetensors")
	if err := WriteTiny(st, nil); err != nil {
		return nil, err
	}
	pt := filepath.Join(root, "pytorch")
	if err := ConvertToTorch(st, pt); err != nil {
		return nil, err
	}
	ggufData, err := os.ReadFile(ggufPath)
	if err != nil {
		return nil, err
	}
	stData, err := os.ReadFile(filepath.Join(st, "model.safetensors"))
	if err != nil {
		return nil, err
	}
	ptData, err := os.ReadFile(filepath.Join(pt, "pytorch_model.bin"))
	if err != nil {
		return nil, err
	}
	cfg, err := os.ReadFile(filepath.Join(st, "config.json"))
	if err != nil {
		return nil, err
	}
	// A model directory holding config.json and weights named file.
	dir := func(name, file string, data []byte) (string, error) {
		d := filepath.Join(root, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(d, "config.json"), cfg, 0o644); err != nil {
			return "", err
		}
		return d, os.WriteFile(filepath.Join(d, file), data, 0o644)
	}
	formats := []struct {
		name, file string
		data       []byte
		asDir      bool
	}{
		{"safetensors", "model.safetensors", stData, true},
		{"gguf", "model.gguf", ggufData, false},
		{"pytorch", "pytorch_model.bin", ptData, true},
	}
	for _, f := range formats {
		for _, b := range []struct {
			kind   string
			data   []byte
			code   download.Code
			phrase string
		}{
			{"lfs", []byte(LFSPointer(int64(len(f.data)))), download.CodeLFSPointer, fmt.Sprintf("this is a Git LFS pointer of %d bytes", len(LFSPointer(int64(len(f.data)))))},
			{"html", []byte(GatedPage), download.CodeHTML, "an HTML page (\"meta-llama/Llama-3.2-1B · Hugging Face\"), not the file"},
			{"truncated", f.data[:len(f.data)*2/3], download.CodeTruncated, "a truncated download"},
		} {
			name := f.name + "-" + b.kind
			var p string
			var err error
			if f.asDir {
				p, err = dir(name, f.file, b.data)
			} else {
				p = filepath.Join(root, name+".gguf")
				err = os.WriteFile(p, b.data, 0o644)
			}
			if err != nil {
				return nil, err
			}
			out = append(out, Broken{Name: name, Path: p, Code: b.code, Phrase: b.phrase})
		}
	}
	// The Hub's JSON answer to a gated file, saved by a tool that does
	// not check the status.
	p, err := dir("safetensors-error-answer", "model.safetensors", []byte(`{"error":"Access to model meta-llama/Llama-3.2-1B is restricted. You must have access to it and be authenticated to access it. Please log in."}`))
	if err != nil {
		return nil, err
	}
	out = append(out, Broken{Name: "safetensors-error-answer", Path: p, Code: download.CodeErrorAnswer, Phrase: "this is a server's error answer (\"Access to model meta-llama/Llama-3.2-1B is restricted."})
	// The Hub's cache: blobs, refs/main, snapshots/REV linking to blobs.
	const rev = "c1899de289a04d12100db370d81485cdf75e47ca"
	repo := filepath.Join(root, "hub", "models--Qwen--Qwen3-0.6B")
	snap := filepath.Join(repo, "snapshots", rev)
	for _, d := range []string{filepath.Join(repo, "blobs"), filepath.Join(repo, "refs"), snap} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(repo, "refs", "main"), []byte(rev), 0o644); err != nil {
		return nil, err
	}
	for name, data := range map[string][]byte{"config.json": cfg, "model.safetensors": stData} {
		blob := filepath.Join(repo, "blobs", fmt.Sprintf("%x", len(data)))
		if err := os.WriteFile(blob, data, 0o644); err != nil {
			return nil, err
		}
		if err := os.Symlink(filepath.Join("..", "..", "blobs", filepath.Base(blob)), filepath.Join(snap, name)); err != nil {
			return nil, err
		}
	}
	out = append(out, Broken{Name: "hf-cache-repo", Path: repo, Code: download.CodeHFCache, Phrase: "give its snapshot, " + snap})
	// Indexes naming shards that are absent (one of two downloaded).
	for _, ix := range []struct{ name, index, shard string }{
		{"safetensors-index", "model.safetensors.index.json", "model-0000%d-of-00002.safetensors"},
		{"pytorch-index", "pytorch_model.bin.index.json", "pytorch_model-0000%d-of-00002.bin"},
	} {
		d := filepath.Join(root, ix.name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(d, "config.json"), cfg, 0o644); err != nil {
			return nil, err
		}
		var wm []string
		for i, tt := range TinyQwen3Tensors() {
			wm = append(wm, fmt.Sprintf("%q: %q", tt.Name, fmt.Sprintf(ix.shard, 1+i%2)))
		}
		idx := `{"metadata": {}, "weight_map": {` + strings.Join(wm, ", ") + `}}`
		if err := os.WriteFile(filepath.Join(d, ix.index), []byte(idx), 0o644); err != nil {
			return nil, err
		}
		src := filepath.Join(st, "model.safetensors")
		if strings.HasSuffix(ix.shard, ".bin") {
			src = filepath.Join(pt, "pytorch_model.bin")
		}
		if err := copyFile(src, filepath.Join(d, fmt.Sprintf(ix.shard, 1))); err != nil {
			return nil, err
		}
		out = append(out, Broken{Name: ix.name, Path: d, Code: download.CodeMissingShards, Phrase: "an incomplete download: fetch the missing shards"})
	}
	return out, nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
