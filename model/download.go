package model

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"

	"github.com/fsmount/fsmount/gguf"
	"github.com/fsmount/fsmount/internal/download"
	"github.com/fsmount/fsmount/pytorch"
	"github.com/fsmount/fsmount/safetensors"
	"github.com/fsmount/fsmount/source"
)

// Diagnose turns the error a format gave for the weight file f into what
// the download is, where it is a broken download of a known kind (package
// download: a Git LFS pointer, an HTML page, a truncated file, an index
// with absent shards); any other err is returned as it is.
func Diagnose(f source.File, err error) error {
	if err == nil || !errors.Is(err, safetensors.ErrFormat) && !errors.Is(err, gguf.ErrFormat) && !errors.Is(err, pytorch.ErrFormat) {
		return err
	}
	if errors.Is(err, download.ErrBroken) {
		return err
	}
	if d := download.Sniff(f.Name(), f, f.Size(), err); d != nil {
		return d
	}
	d := truncated(f, err)
	var de *download.Error
	if errors.As(d, &de) {
		de.Msg += " (" + formatCode(err) + ")" // the words a search for the format's error finds
		return de
	}
	return err
}

// formatCode is the format's name for the rule err broke.
func formatCode(err error) string {
	var se *safetensors.FormatError
	var ge *gguf.FormatError
	var pe *pytorch.FormatError
	switch {
	case errors.As(err, &se):
		if ref := se.RefName(); ref != "" {
			return "safetensors: " + string(se.Code) + ", " + ref
		}
		return "safetensors: " + string(se.Code)
	case errors.As(err, &ge):
		return "gguf: " + string(ge.Code)
	case errors.As(err, &pe):
		return "pytorch: " + string(pe.Code)
	}
	return err.Error()
}

// truncated returns a *download.Error when the format error err says f
// ends before its header (or its ZIP directory) says it does.
func truncated(f source.File, err error) error {
	switch {
	case errors.Is(err, safetensors.CodeIncompleteBuffer), errors.Is(err, safetensors.CodeInvalidHeaderLength):
		if want, ok := safetensorsSize(f); ok && want > f.Size() {
			return download.Truncated(f.Name(), want, f.Size(), err)
		}
	case errors.Is(err, gguf.CodeTruncated), errors.Is(err, gguf.CodeOutOfBounds), errors.Is(err, gguf.CodeBadCount):
		var ge *gguf.FormatError
		if errors.As(err, &ge) {
			return download.TruncatedUnknown(f.Name(), f.Size(), "it ends before what its header describes ("+ge.Detail+")", err)
		}
	case errors.Is(err, pytorch.CodeCorruptArchive):
		if !zipEnd(f) {
			return download.TruncatedUnknown(f.Name(), f.Size(), "its ZIP archive lacks the end record torch.save writes last", err)
		}
	}
	return err
}

// diagnoseIndex names an index's absent shards as an incomplete download.
func diagnoseIndex(index string, err error) error {
	if errors.Is(err, safetensors.CodeMissingShard) && !errors.Is(err, download.ErrBroken) {
		return download.MissingShards(index, err)
	}
	return err
}

// diagnoseDir says what a local directory without weights is, when it is
// a Hugging Face cache rather than a snapshot of it.
func diagnoseDir(loc string, err error) error {
	if !errors.Is(err, ErrNoWeights) {
		return err
	}
	if st, serr := os.Stat(loc); serr != nil || !st.IsDir() {
		return err
	}
	if d := download.HFCache(loc); d != nil {
		return d
	}
	return err
}

// safetensorsSize is the size a safetensors file's header says the file
// has (8 + header + the end of the last tensor's data), or, when the
// header itself runs past the file's end, the size the length prefix
// says the header part has.
func safetensorsSize(f source.File) (int64, bool) {
	var pre [8]byte
	if n, _ := f.ReadAt(pre[:], 0); n < 8 {
		return 0, false
	}
	hl := binary.LittleEndian.Uint64(pre[:])
	if hl > safetensors.MaxHeaderSize {
		return 0, false
	}
	if int64(8+hl) > f.Size() {
		return int64(8 + hl), true
	}
	h := make([]byte, hl)
	if n, _ := f.ReadAt(h, 8); n < len(h) {
		return 0, false
	}
	var entries map[string]struct {
		Offsets []uint64 `json:"data_offsets"`
	}
	if json.Unmarshal(h, &entries) != nil {
		return 0, false
	}
	var end uint64
	for _, e := range entries {
		if len(e.Offsets) == 2 && e.Offsets[1] < 1<<62 {
			end = max(end, e.Offsets[1])
		}
	}
	return int64(8 + hl + end), true
}

// zipEnd reports whether f ends with a ZIP end-of-central-directory
// record (within its last 64 KiB + 22 bytes, the most a comment allows).
func zipEnd(f source.File) bool {
	n := min(f.Size(), 65536+22)
	tail := make([]byte, n)
	if m, _ := f.ReadAt(tail, f.Size()-n); int64(m) < n {
		return false
	}
	return bytes.Contains(tail, []byte("PK\x05\x06"))
}
