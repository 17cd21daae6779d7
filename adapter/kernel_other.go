//go:build !amd64 || purego

package adapter

const haveAVX2 = false

func combineAVX2(dst *float32, n int, l *float32, rank int, right *float32, stride int) {
	panic("unreachable")
}
