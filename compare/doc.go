// Package compare compares two checkpoints tensor by tensor.
package compare
