//go:build !purego

#include "textflag.h"

// func fold16SSE2(S *int16, U *uint16, k *uint16, cols, stride, rows int)
//
// For each block of 32 columns, the running maxima are kept in registers
// while the rows go by: X0-X3 the signed ones (PMAXSW), X4-X7 the
// unsigned ones, held with their sign bits flipped (X15 = 0x8000 in every
// lane) so that PMAXSW orders them as unsigned. cols is a positive
// multiple of 32, rows positive.
TEXT ·fold16SSE2(SB), NOSPLIT, $0-48
	MOVQ S+0(FP), DI
	MOVQ U+8(FP), SI
	MOVQ k+16(FP), DX
	MOVQ cols+24(FP), R9
	MOVQ stride+32(FP), R8
	MOVQ rows+40(FP), BX
	SHLQ $1, R8          // stride in bytes
	SHRQ $5, R9          // blocks of 32 columns
	MOVL $0x80008000, AX
	MOVQ AX, X15
	PSHUFL $0, X15, X15

block:
	MOVOU 0(DI), X0
	MOVOU 16(DI), X1
	MOVOU 32(DI), X2
	MOVOU 48(DI), X3
	MOVOU 0(SI), X4
	MOVOU 16(SI), X5
	MOVOU 32(SI), X6
	MOVOU 48(SI), X7
	PXOR X15, X4
	PXOR X15, X5
	PXOR X15, X6
	PXOR X15, X7
	MOVQ DX, R10
	MOVQ BX, R11

row:
	MOVOU 0(R10), X8
	MOVOU 16(R10), X9
	MOVOU 32(R10), X10
	MOVOU 48(R10), X11
	PMAXSW X8, X0
	PMAXSW X9, X1
	PMAXSW X10, X2
	PMAXSW X11, X3
	PXOR X15, X8
	PXOR X15, X9
	PXOR X15, X10
	PXOR X15, X11
	PMAXSW X8, X4
	PMAXSW X9, X5
	PMAXSW X10, X6
	PMAXSW X11, X7
	ADDQ R8, R10
	DECQ R11
	JNZ row

	PXOR X15, X4
	PXOR X15, X5
	PXOR X15, X6
	PXOR X15, X7
	MOVOU X0, 0(DI)
	MOVOU X1, 16(DI)
	MOVOU X2, 32(DI)
	MOVOU X3, 48(DI)
	MOVOU X4, 0(SI)
	MOVOU X5, 16(SI)
	MOVOU X6, 32(SI)
	MOVOU X7, 48(SI)
	ADDQ $64, DI
	ADDQ $64, SI
	ADDQ $64, DX
	DECQ R9
	JNZ block
	RET
