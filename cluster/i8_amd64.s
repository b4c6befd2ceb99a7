#include "textflag.h"

// func dotsI8AVX2(q, x *int8, dim, n int, out *int32)
// For each of n rows: sum over dim int8 pairs, 64 bytes per step.
// VPMADDUBSW needs an unsigned operand: |x| with the sign moved onto q.
TEXT ·dotsI8AVX2(SB), NOSPLIT, $0-40
	MOVQ q+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ dim+16(FP), DX
	MOVQ n+24(FP), R8
	MOVQ out+32(FP), R9
	VPCMPEQW Y15, Y15, Y15
	VPSRLW $15, Y15, Y15
	TESTQ R8, R8
	JZ done

row:
	MOVQ SI, R10
	MOVQ DX, CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1

inner:
	VMOVDQU (DI), Y2
	VMOVDQU 32(DI), Y3
	VMOVDQU (R10), Y4
	VMOVDQU 32(R10), Y5
	VPSIGNB Y2, Y4, Y4
	VPSIGNB Y3, Y5, Y5
	VPABSB Y2, Y2
	VPABSB Y3, Y3
	VPMADDUBSW Y4, Y2, Y2
	VPMADDUBSW Y5, Y3, Y3
	VPMADDWD Y15, Y2, Y2
	VPMADDWD Y15, Y3, Y3
	VPADDD Y2, Y0, Y0
	VPADDD Y3, Y1, Y1
	ADDQ $64, DI
	ADDQ $64, R10
	SUBQ $64, CX
	JNZ inner

	VPADDD Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0x4E, X0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0xB1, X0, X1
	VPADDD X1, X0, X0
	VMOVD X0, (R9)
	ADDQ $4, R9
	DECQ R8
	JNZ row

done:
	VZEROUPPER
	RET

// func prefetch(p *int8, n int)
// Asks for the n bytes at p (n > 0) in the cache, one line per 64 bytes.
TEXT ·prefetch(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
pf:
	PREFETCHT0 (AX)
	ADDQ $64, AX
	SUBQ $64, CX
	JGT pf
	RET

// func dotsU4AVX2(q *int8, x *byte, dim, n int, out *int32)
// For each of n rows: 32 bytes of nibbles per 64 components; low nibbles
// pair with q[0:32] of the block, high nibbles with q[32:64].
TEXT ·dotsU4AVX2(SB), NOSPLIT, $0-40
	MOVQ q+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ dim+16(FP), DX
	MOVQ n+24(FP), R8
	MOVQ out+32(FP), R9
	VPCMPEQW Y15, Y15, Y15
	VPSRLW $15, Y15, Y15
	MOVL $0x0F0F0F0F, AX
	MOVD AX, X14
	VPBROADCASTD X14, Y14
	TESTQ R8, R8
	JZ done4

row4:
	MOVQ SI, R10
	MOVQ DX, CX
	VPXOR Y0, Y0, Y0

inner4:
	VMOVDQU (DI), Y2
	VPSRLW $4, Y2, Y3
	VPAND Y14, Y2, Y2
	VPAND Y14, Y3, Y3
	VPMADDUBSW (R10), Y2, Y2
	VPMADDUBSW 32(R10), Y3, Y3
	VPADDW Y3, Y2, Y2
	VPMADDWD Y15, Y2, Y2
	VPADDD Y2, Y0, Y0
	ADDQ $32, DI
	ADDQ $64, R10
	SUBQ $64, CX
	JNZ inner4

	VEXTRACTI128 $1, Y0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0x4E, X0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0xB1, X0, X1
	VPADDD X1, X0, X0
	VMOVD X0, (R9)
	ADDQ $4, R9
	DECQ R8
	JNZ row4

done4:
	VZEROUPPER
	RET

// func dotsU2AVX2(q *int8, x *byte, dim, n int, out *int32)
// For each of n rows: 32 bytes of 2-bit values per 128 components; bits
// 2k..2k+1 of byte j pair with q[32k+j] of the block.
TEXT ·dotsU2AVX2(SB), NOSPLIT, $0-40
	MOVQ q+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ dim+16(FP), DX
	MOVQ n+24(FP), R8
	MOVQ out+32(FP), R9
	VPCMPEQW Y15, Y15, Y15
	VPSRLW $15, Y15, Y15
	MOVL $0x03030303, AX
	MOVD AX, X14
	VPBROADCASTD X14, Y14
	TESTQ R8, R8
	JZ done2

row2:
	MOVQ SI, R10
	MOVQ DX, CX
	VPXOR Y0, Y0, Y0

inner2:
	VMOVDQU (DI), Y2
	VPSRLW $2, Y2, Y3
	VPSRLW $4, Y2, Y4
	VPSRLW $6, Y2, Y5
	VPAND Y14, Y2, Y2
	VPAND Y14, Y3, Y3
	VPAND Y14, Y4, Y4
	VPAND Y14, Y5, Y5
	VPMADDUBSW (R10), Y2, Y2
	VPMADDUBSW 32(R10), Y3, Y3
	VPMADDUBSW 64(R10), Y4, Y4
	VPMADDUBSW 96(R10), Y5, Y5
	VPADDW Y3, Y2, Y2
	VPADDW Y5, Y4, Y4
	VPADDW Y4, Y2, Y2
	VPMADDWD Y15, Y2, Y2
	VPADDD Y2, Y0, Y0
	ADDQ $32, DI
	ADDQ $128, R10
	SUBQ $128, CX
	JNZ inner2

	VEXTRACTI128 $1, Y0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0x4E, X0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0xB1, X0, X1
	VPADDD X1, X0, X0
	VMOVD X0, (R9)
	ADDQ $4, R9
	DECQ R8
	JNZ row2

done2:
	VZEROUPPER
	RET
