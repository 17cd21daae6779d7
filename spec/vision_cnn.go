package spec

// Convolutional and hierarchical vision backbones and their heads:
// ResNet (the backbone of many other models: blocks_cnn.go's
// resnetEncoder), … Each is data built from blocks_cnn.go's stage and
// block helpers: per-stage lists of depths and widths from the config.

// cnnFamily is a vision family of one encoder under base with the usual
// three classes: the base model (names without base), an image
// classifier (head, full names) and, where backbone, a backbone (names
// without base, plus bbHead).
type cnnOpts struct {
	Name, Class, MT string
	Base            string // the base model's prefix: "resnet."
	Enc             encoderPart
	Defs            []Def
	Cls             []T  // the image classifier's head; nil: no such class
	Backbone        bool // a Backbone class
	BackboneHead    []T  // the backbone's further tensors (its output norms)
	BaseHead        []T  // the base model's further tensors (a pooler)
	Tasks           []Task
	Variants        [][][2]string
}

func cnnFamily(o cnnOpts) *Family {
	tasks := []Task{{Suffix: TaskBase, Prefix: "-", Head: o.BaseHead}}
	if o.Cls != nil {
		tasks = append(tasks, Task{Suffix: "ForImageClassification", Head: o.Cls, Labels: true})
	}
	if o.Backbone {
		tasks = append(tasks, Task{Suffix: "Backbone", Prefix: "-", Head: o.BackboneHead})
	}
	embed := ""
	if len(o.Enc.Global) > 0 {
		embed = o.Enc.Global[0].Name
	}
	return &Family{Name: o.Name, Class: o.Class, ModelTypes: []string{o.MT}, Causal: "-", SeqCls: "-",
		Defs: cat(o.Enc.Defs, o.Defs), Global: o.Enc.Global, Stacks: o.Enc.Stacks, Final: o.Enc.Final,
		Embed: embed, BasePrefix: o.Base, Tasks: append(tasks, o.Tasks...), Variants: o.Variants}
}

var _ = register(
	// ResNet: the classifier is a Sequential(Flatten, Linear).
	cnnFamily(cnnOpts{Name: "ResNet", Class: "ResNet", MT: "resnet", Base: "resnet.", Enc: resnetEncoder("resnet.", ""),
		Cls: classifier("classifier.1", "rH"), Backbone: true}),
)
