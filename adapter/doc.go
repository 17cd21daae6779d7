// Package adapter reads a PEFT LoRA adapter (adapter_config.json and
// adapter_model.safetensors) and checks it against its base model.
//
// An adapter's tensors follow from its config and its base's tensors the
// way a model's follow from its config.json. [Open] reads an adapter at a
// location (a directory, an http(s):// URL, hf://ORG/NAME); [Check] derives
// the tensors PEFT would have saved (following PEFT's own rules: the
// target_modules list, regex or "all-linear"; layers_to_transform and
// layers_pattern; rank_pattern and alpha_pattern; fan_in_fan_out and
// GPT-2's Conv1D; embedding LoRA; DoRA's magnitude vectors; the bias
// modes; modules_to_save and the task head of a classification adapter;
// the key prefix base_model.model. with or without the adapter name) and
// compares them with the stored ones, reporting missing, mis-shaped and
// unexpected tensors as package check's problems. Without a base it checks
// what the adapter alone determines and says the check was partial.
//
// [Module.Delta] computes the change an adapted module makes to its base
// weight, scale·B·A (transposed for a Conv1D or an embedding), one row at
// a time, without holding the whole matrix.
//
// Data flows one way: this package reads the adapter's files through
// package source and safetensors, the base through package model, and
// judges them; presenting the result (the mount's tree, the merge proof)
// is the job of the packages that import it.
package adapter
