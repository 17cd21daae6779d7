package decode

import (
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/tensor"
)

// memFile and memTensor are testmodel's.
type memFile = testmodel.MemFile

var errInjected = testmodel.ErrInjected

func memTensor(name string, dt tensor.DType, shape []uint64, data []byte) *tensor.Tensor {
	return testmodel.MemTensor(name, dt, shape, data)
}
