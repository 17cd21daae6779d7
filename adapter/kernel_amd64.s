//go:build !purego

#include "textflag.h"

// func combineAVX2(dst *float32, n int, l *float32, rank int, right *float32, stride int)
//
// dst[j] = Σₖ l[k]·right[k·stride+j] for j < n (n a multiple of 8,
// rank ≥ 1): 32 columns at a time in four accumulators, each column
// block reading the rank rows of right once, then 8 at a time.
TEXT ·combineAVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ l+16(FP), SI
	MOVQ rank+24(FP), R8
	MOVQ right+32(FP), DX
	MOVQ stride+40(FP), R9
	SHLQ $2, R9

loop32:
	CMPQ CX, $32
	JL   loop8
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	MOVQ DX, R10
	MOVQ SI, R11
	MOVQ R8, R12

k32:
	VBROADCASTSS (R11), Y4
	VFMADD231PS  (R10), Y4, Y0
	VFMADD231PS  32(R10), Y4, Y1
	VFMADD231PS  64(R10), Y4, Y2
	VFMADD231PS  96(R10), Y4, Y3
	ADDQ         $4, R11
	ADDQ         R9, R10
	DECQ         R12
	JNZ          k32
	VMOVUPS      Y0, (DI)
	VMOVUPS      Y1, 32(DI)
	VMOVUPS      Y2, 64(DI)
	VMOVUPS      Y3, 96(DI)
	ADDQ         $128, DI
	ADDQ         $128, DX
	SUBQ         $32, CX
	JMP          loop32

loop8:
	CMPQ CX, $8
	JL   done
	VXORPS Y0, Y0, Y0
	MOVQ DX, R10
	MOVQ SI, R11
	MOVQ R8, R12

k8:
	VBROADCASTSS (R11), Y4
	VFMADD231PS  (R10), Y4, Y0
	ADDQ         $4, R11
	ADDQ         R9, R10
	DECQ         R12
	JNZ          k8
	VMOVUPS      Y0, (DI)
	ADDQ         $32, DI
	ADDQ         $32, DX
	SUBQ         $8, CX
	JMP          loop8

done:
	VZEROUPPER
	RET
