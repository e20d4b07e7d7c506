/*
 * Notes written as sys/sdt.h writes them describe each argument by the
 * operand the compiler chose: a global relative to %rip, a local in
 * memory, a constant, a signed byte register, an unsigned 16-bit one.
 * Each is read and extended to 64 bits by its size and sign.
 */
/* @@trigger: fixture sdtnotes */
#pragma D option quiet

handmade$target:::operands
{
	printf("%d %d %d %d %d\n", arg0, arg1, arg2, arg3, arg4);
}
