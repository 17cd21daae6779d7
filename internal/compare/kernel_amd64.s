//go:build !purego

#include "textflag.h"

// exp16 is the BF16 exponent mask, broadcast to every 16-bit lane.
DATA exp16<>+0(SB)/2, $0x7f80
GLOBL exp16<>(SB), RODATA|NOPTR, $2

// abs64 clears a float64's sign.
DATA abs64<>+0(SB)/8, $0x7fffffffffffffff
GLOBL abs64<>(SB), RODATA|NOPTR, $8

// func sumBF16AVX2(a, b *byte, groups int, acc *[6][4]float64, differ *uint64) int
//
// Reduces groups of 8 BF16 pairs, stopping before the first group that
// holds a NaN or an infinity; returns the groups reduced. acc receives
// the lane sums of |d|², a², b², a·b, |d| and the lane maxima of |d|
// (d = a − b, in float64); differ the count of d ≠ 0.
TEXT ·sumBF16AVX2(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ groups+16(FP), CX
	XORQ AX, AX
	XORQ DX, DX
	VPBROADCASTW exp16<>(SB), Y14
	VBROADCASTSD abs64<>(SB), Y15
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	VXORPD Y12, Y12, Y12
	VXORPD Y13, Y13, Y13

loop:
	CMPQ AX, CX
	JGE  done
	VMOVDQU (SI), X0
	VMOVDQU (DI), X1
	VPAND    X14, X0, X2
	VPAND    X14, X1, X3
	VPCMPEQW X14, X2, X2
	VPCMPEQW X14, X3, X3
	VPOR     X2, X3, X2
	VPTEST   X2, X2
	JNE      done
	VPMOVZXWD X0, Y0
	VPMOVZXWD X1, Y1
	VPSLLD    $16, Y0, Y0
	VPSLLD    $16, Y1, Y1
	VCVTPS2PD X0, Y2
	VCVTPS2PD X1, Y3
	VEXTRACTF128 $1, Y0, X0
	VEXTRACTF128 $1, Y1, X1
	VCVTPS2PD X0, Y4
	VCVTPS2PD X1, Y5
	VSUBPD Y3, Y2, Y6
	VSUBPD Y5, Y4, Y7
	VANDPD Y15, Y6, Y6
	VANDPD Y15, Y7, Y7
	VFMADD231PD Y6, Y6, Y8
	VFMADD231PD Y2, Y2, Y9
	VFMADD231PD Y3, Y3, Y10
	VFMADD231PD Y3, Y2, Y11
	VADDPD Y6, Y12, Y12
	VMAXPD Y6, Y13, Y13
	VFMADD231PD Y7, Y7, Y8
	VFMADD231PD Y4, Y4, Y9
	VFMADD231PD Y5, Y5, Y10
	VFMADD231PD Y5, Y4, Y11
	VADDPD Y7, Y12, Y12
	VMAXPD Y7, Y13, Y13
	VXORPD Y0, Y0, Y0
	VCMPPD $4, Y0, Y6, Y1
	VMOVMSKPD Y1, R8
	POPCNTL R8, R8
	ADDQ R8, DX
	VCMPPD $4, Y0, Y7, Y1
	VMOVMSKPD Y1, R8
	POPCNTL R8, R8
	ADDQ R8, DX
	ADDQ $16, SI
	ADDQ $16, DI
	INCQ AX
	JMP  loop

done:
	MOVQ acc+24(FP), R9
	VMOVUPD Y8, 0(R9)
	VMOVUPD Y9, 32(R9)
	VMOVUPD Y10, 64(R9)
	VMOVUPD Y11, 96(R9)
	VMOVUPD Y12, 128(R9)
	VMOVUPD Y13, 160(R9)
	MOVQ differ+32(FP), R9
	MOVQ DX, 0(R9)
	MOVQ AX, ret+40(FP)
	VZEROUPPER
	RET
