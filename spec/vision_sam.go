package spec

// SAM 2 and its kin (SAM 2 video, EdgeTAM, SAM 3's tracker), built from
// the blocks of blocks_sam.go: a table of option structs, one builder.

// samTracker describes one SAM 2-style promptable segmenter: its image
// encoder, where its names sit, and whether it tracks through video.
type samTracker struct {
	Name, Class, MT, ConfigClass string
	// Suffix is the image model's class suffix ("Model"); VideoSuffix
	// the video model's ("VideoModel", "" none).
	Suffix, VideoSuffix string
	Pre                 string    // every name's prefix ("tracker_model.": SAM 3's tracker)
	MemMLP              [2]string // the memory attention's MLP names
	// Vision: the image encoder, "hiera" (a Sam2VisionConfig under
	// vision_config).
	Vision string
}

// parts are the tensors and fields of t's image model (video: with the
// memory modules).
func (t samTracker) parts(video bool) (defs []Def, global []T, stacks []Stack, final []T) {
	var vg, vf []T
	var vs Stack
	switch t.Vision {
	case "hiera":
		defs = cat(hieraDefs("vision_config.backbone_config."), sam2NeckDefs("vision_config."))
		vg, vs = hieraEncoder(t.Pre + "vision_encoder.backbone.")
		vf = sam2Neck(t.Pre + "vision_encoder.neck.")
	}
	defs = cat(defs, samPromptDefs())
	ms, mf := sam2Decoder.build(t.Pre + "mask_decoder.")
	global = cat(vg, samPrompt{Pos: "pH/2", PointTable: true}.build(t.Pre))
	stacks = []Stack{vs, ms}
	final = cat(vf, mf, []T{{Name: t.Pre + "no_memory_embedding", Shape: []string{"1", "1", "nH"}, Role: RoleNorm}})
	if video {
		defs = cat(defs, samMemoryDefs())
		s, f := samMemory(t.Pre, t.MemMLP)
		stacks = append(stacks, s)
		final = cat(final, f)
	}
	return defs, global, stacks, final
}

// family is t's family: the image model, and the video model where
// t has one (the image class then checked as the image model alone).
func (t samTracker) family() *Family {
	img := func(video bool) *Family {
		d, g, s, f := t.parts(video)
		return &Family{Name: t.Name, Class: t.Class, ConfigClass: t.ConfigClass, ModelTypes: []string{t.MT}, Causal: "-", SeqCls: "-",
			Defs: d, Global: g, Stacks: s, Final: f, Embed: g[0].Name, Tasks: []Task{{Suffix: t.Suffix, KeepFinal: true}}}
	}
	if t.VideoSuffix == "" {
		return img(false)
	}
	f := img(true)
	image := img(false)
	image.ModelTypes = nil
	f.Tasks = []Task{{Suffix: t.Suffix, KeepFinal: true, Of: image}, {Suffix: t.VideoSuffix, KeepFinal: true}}
	return f
}

// sam2VisionFamily is SAM 2's vision model alone (Sam2VisionModel: the
// Hiera backbone and the FPN neck) and the Hiera backbone alone
// (Sam2HieraDetModel).
func sam2VisionFamilies() []*Family {
	g, s := hieraEncoder("backbone.")
	vis := &Family{Name: "SAM 2 vision", Class: "Sam2Vision", ModelTypes: []string{"sam2_vision_model"}, Causal: "-", SeqCls: "-",
		Defs: cat(hieraDefs("backbone_config."), sam2NeckDefs("")), Global: g, Stacks: []Stack{s}, Final: sam2Neck("neck."),
		Embed: g[0].Name, Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}}}
	g, s = hieraEncoder("")
	hiera := &Family{Name: "SAM 2 Hiera", Class: "Sam2HieraDet", ModelTypes: []string{"sam2_hiera_det_model"}, Causal: "-", SeqCls: "-",
		Defs: hieraDefs(""), Global: g, Stacks: []Stack{s}, Embed: g[0].Name, Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}}}
	return []*Family{vis, hiera}
}

var samTrackers = []samTracker{
	{Name: "SAM 2", Class: "Sam2", MT: "sam2", Suffix: TaskBase, Vision: "hiera"},
	{Name: "SAM 2 video", Class: "Sam2", MT: "sam2_video", ConfigClass: "Sam2VideoConfig", Suffix: TaskBase, VideoSuffix: "VideoModel",
		Vision: "hiera", MemMLP: [2]string{"linear1", "linear2"}},
}

var _ = register(sam2VisionFamilies()...)

var _ = register(func() []*Family {
	var fs []*Family
	for _, t := range samTrackers {
		fs = append(fs, t.family())
	}
	return fs
}()...)
