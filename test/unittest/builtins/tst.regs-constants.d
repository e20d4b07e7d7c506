#pragma D option quiet

/*
 * The uregs[] indices of regs.d, as DTrace for Linux numbers them on
 * x86-64: the pt_regs words, the thread_struct ones, and the aliases
 * (R_R0 is RAX and R_R1 RBX).
 */
BEGIN
{
	printf("%d %d %d %d %d %d %d %d %d %d %d\n", R_R15, R_RBP, R_RBX, R_R8,
	    R_RAX, R_RDI, R_ERR, R_RIP, R_CS, R_RFL, R_SS);
	printf("%d %d %d %d %d\n", R_DS, R_ES, R_FS, R_GS, R_TRAPNO);
	printf("%d %d %d %d %d %d\n", R_PC, R_SP, R_FP, R_PS, R_R0, R_R1);
	printf("%d %d %d %d\n", R_EAX, R_EBX, R_EIP, R_ESP);
	exit(0);
}
