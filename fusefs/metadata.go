package fusefs

import (
	"strings"
	"time"

	"github.com/fsmount/fsmount/internal/layout"
	"github.com/fsmount/fsmount/model"
)

// tokenizerPrefix marks the metadata keys that tokenizer/ also serves.
const tokenizerPrefix = "tokenizer.ggml."

// metadata adds metadata/, one file per key of a GGUF file (a scalar on
// one line, an array one element per line), and tokenizer/, the
// tokenizer.ggml.* keys under their short names.
func (t *tree) metadata(m *model.Model, mtime *time.Time, p *perm) {
	meta := t.mkdirs(t.root, []string{layout.Metadata}, mtime)
	var tok *entry
	for _, kv := range m.Metadata {
		var b strings.Builder
		for _, l := range kv.Value.Lines() {
			b.WriteString(l)
			b.WriteByte('\n')
		}
		c := bytesContent(b.String())
		comps := layout.Escape(kv.Key)
		dir := t.mkdirs(meta, comps[:len(comps)-1], mtime)
		t.file(dir, comps[len(comps)-1], c, mtime, p)
		if short, ok := strings.CutPrefix(kv.Key, tokenizerPrefix); ok && short != "" {
			if tok == nil {
				tok = t.mkdirs(t.root, []string{layout.Tokenizer}, mtime)
			}
			comps := layout.Escape(short)
			dir := t.mkdirs(tok, comps[:len(comps)-1], mtime)
			t.file(dir, comps[len(comps)-1], c, mtime, p)
		}
	}
}
