package spec

import "strings"

// Blocks of the dual encoders, vision towers and video models
// (multimodal_towers.go): a class checked as a whole family, towers
// re-rooted under another prefix.

// classOf is the task class suffix of a composite model checked as the
// whole family f (its globals, stacks and finals with their names as
// written), plus head: for models whose classes are not one base model
// with a head (BLIP's dual encoder and its question answering).
func classOf(suffix string, f *Family, head ...T) Task {
	return Task{Suffix: suffix, Of: f, KeepFinal: true, Head: head}
}

// rerootStack is s with its prefix moved by pairs.
func rerootStack(s Stack, pairs [][2]string) Stack {
	s.Prefix = rebase(s.Prefix, pairs)
	return s
}

// headsOf are the tensors of ts whose role is the LM head or a score,
// which a class checked by classOf gives as its head.
func headsOf(ts []T) []T {
	var out []T
	for _, t := range ts {
		if t.Role == RoleHead || t.Role == RoleScore {
			out = append(out, t)
		}
	}
	return out
}

// subDefs are the definitions of defs read under the sub-config cfg
// ("qformer_config."), moved to the top level for the sub-model checked
// alone; derived ones are kept, the others' fields dropped.
func subDefs(defs []Def, cfg string) []Def {
	var out []Def
	for _, d := range defs {
		if d.Field != "" {
			var alts []string
			for _, a := range strings.Split(d.Field, "|") {
				if s, ok := strings.CutPrefix(a, cfg); ok {
					alts = append(alts, s)
				}
			}
			if len(alts) == 0 {
				continue
			}
			d.Field = strings.Join(alts, "|")
		}
		out = append(out, d)
	}
	return out
}
