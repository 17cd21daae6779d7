package spec

import "strings"

// Whisper in full (WhisperModel, WhisperForConditionalGeneration) and its
// encoder's audio classifier, from the decoder family of model_type
// whisper (WhisperForCausalLM): a two-convolution feature extractor over
// num_mel_bins, max_source_positions learned positions, the decoder's
// layer without cross-attention (k_proj unbiased), and a final norm.

func whisperFull() *Family {
	extra := []Def{
		{Sym: "mel", Field: "num_mel_bins", Default: "80", Legend: "mel", Desc: "log-mel input channels", Show: true, Pos: true},
		{Sym: "Ps", Field: "max_source_positions", Default: "1500", Desc: "encoder positions (audio frames / 2)", Pos: true},
		{Sym: "cps", Field: "classifier_proj_size", Default: "256", Desc: "the audio classifier's projection", Pos: true},
		flag("wls", "use_weighted_layer_sum", "false", "the classifier mixes every layer's output"),
	}
	f := s2sFull(byType["whisper"], false, extra...)
	var dec []T
	for _, t := range f.Global {
		if strings.HasPrefix(t.Name, "model.decoder.") {
			dec = append(dec, t)
		}
	}
	f.Global = cat([]T{{Name: "model.decoder.embed_tokens.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding},
		{Name: "model.encoder.conv1.weight", Shape: []string{"H", "mel", "3"}, Role: RoleLinear},
		{Name: "model.encoder.conv1.bias", Shape: []string{"H"}, Role: RoleBias},
		{Name: "model.encoder.conv2.weight", Shape: []string{"H", "H", "3"}, Role: RoleLinear},
		{Name: "model.encoder.conv2.bias", Shape: []string{"H"}, Role: RoleBias},
		{Name: "model.encoder.embed_positions.weight", Shape: []string{"Ps", "H"}, Role: RoleEmbedding}}, dec)
	f.Embed, f.Head = "model.decoder.embed_tokens.weight", "proj_out.weight"
	return f
}

// encoderOnly is f's encoder alone under "encoder." (Whisper's audio
// classifier).
func encoderOnly(f *Family) *Family {
	g := &Family{Name: f.Name, Class: f.Class, ConfigClass: f.configClass(), ModelTypes: f.ModelTypes, Causal: "-", SeqCls: "-",
		Defs: f.Defs, Embed: "encoder.conv1.weight", Head: "-"}
	re := func(ts []T) []T {
		var out []T
		for _, t := range ts {
			if strings.HasPrefix(t.Name, "model.encoder.") {
				t.Name = strings.TrimPrefix(t.Name, "model.")
				out = append(out, t)
			}
		}
		return out
	}
	g.Global, g.Final = re(f.Global), re(f.Final)
	s := f.Stacks[0]
	s.Prefix = strings.TrimPrefix(s.Prefix, "model.")
	g.Stacks = []Stack{s}
	return g
}

func init() {
	full := whisperFull()
	classTasks["Whisper"] = []Task{
		{Suffix: TaskBase, Prefix: "-", Of: full},
		{Suffix: "ForConditionalGeneration", Of: full, HeadName: "proj_out.weight", Head: []T{
			{Name: "proj_out.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"}}},
		{Suffix: "ForAudioClassification", Of: encoderOnly(full), KeepFinal: true, Labels: true, Head: cat(
			[]T{{Name: "layer_weights", Shape: []string{"Le+1"}, Role: RoleNorm, If: "wls"}},
			linear("projector", "cps", "H", "true"), linear("classifier", "C", "cps", "true"))},
	}
}
