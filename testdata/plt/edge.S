/* plt-edge's assembly (record.sh links it -z noseparate-code, so .rodata is executable):
 * labeled_loop: a sized local function with size-0 labels inside (STT_NOTYPE, local and
 * global), called through run_labeled;
 * run_rodata: a sized function that calls code in .rodata which no symbol covers, after the
 * object ro_marker (size 4) and beyond the last function, _fini (size 0). */
	.file	"edge.S"
	.text
	.type	labeled_loop, @function
labeled_loop:			/* rdi: rounds */
	push	%rbp
	mov	%rsp, %rbp
	mov	%rdi, %rcx
	mov	$3, %rax
.Lloop:
	imul	%rax, %rax
inner_a:
	imul	%rax, %rax
	.globl	inner_b
inner_b:
	imul	%rax, %rax
inner_c:
	imul	%rax, %rax
	.globl	inner_d
inner_d:
	imul	%rax, %rax
inner_e:
	imul	%rax, %rax
	dec	%rcx
	jnz	.Lloop
	pop	%rbp
	ret
	.size	labeled_loop, .-labeled_loop

	.globl	run_labeled
	.type	run_labeled, @function
run_labeled:			/* rdi: rounds */
	jmp	labeled_loop
	.size	run_labeled, .-run_labeled

	.globl	run_rodata
	.type	run_rodata, @function
run_rodata:			/* rdi: rounds */
	push	%rbp
	mov	%rsp, %rbp
	call	.Lro_code
	pop	%rbp
	ret
	.size	run_rodata, .-run_rodata

	.section .rodata
	.p2align 4
	.globl	ro_marker
	.type	ro_marker, @object
ro_marker:
	.long	0
	.size	ro_marker, 4
	.p2align 4
.Lro_code:
	mov	%rdi, %rcx
1:	nop
	nop
	nop
	dec	%rcx
	jnz	1b
	ret

	.section .note.GNU-stack,"",@progbits
