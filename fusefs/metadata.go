package fusefs

import (
	"strings"
	"time"

	"github.com/fsmount/fsmount/internal/layout"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/source"
)

// metaView serves a metadata value's text as a view.
type metaView struct{ v model.MetaValue }

func (m metaView) Size() int64 { return m.v.TextSize() }

func (m metaView) ReadAt(p []byte, off int64) (int, error) { return m.v.ReadTextAt(p, off) }

// tokenizerPrefix marks the metadata keys that tokenizer/ also serves.
const tokenizerPrefix = "tokenizer.ggml."

// metadata adds metadata/, one file per key of a GGUF file (a scalar on
// one line, an array one element per line), and tokenizer/, the
// tokenizer.ggml.* keys under their short names. Each file is rendered
// from the model file when read: a key costs its entry, whatever its
// value holds.
func (t *tree) metadata(m *model.Model, mtime *time.Time, p *perm) {
	meta := t.mkdirs(t.root, []string{layout.Metadata}, mtime)
	var tok *entry
	var file source.File // the first, which holds the metadata
	if len(m.Files) > 0 {
		file = m.Files[0]
	}
	md := m.Metadata
	for i := range md.Len() {
		key := md.Key(i)
		c := viewContent{metaView{md.Value(i)}, file}
		comps := layout.Escape(key)
		dir := t.mkdirs(meta, comps[:len(comps)-1], mtime)
		t.file(dir, comps[len(comps)-1], c, mtime, p)
		if short, ok := strings.CutPrefix(key, tokenizerPrefix); ok && short != "" {
			if tok == nil {
				tok = t.mkdirs(t.root, []string{layout.Tokenizer}, mtime)
			}
			comps := layout.Escape(short)
			dir := t.mkdirs(tok, comps[:len(comps)-1], mtime)
			t.file(dir, comps[len(comps)-1], c, mtime, p)
		}
	}
}
