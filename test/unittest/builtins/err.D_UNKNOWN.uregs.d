/* uregs[] has 26 registers: R_TRAPNO is the last. */
BEGIN
{
	trace(uregs[R_TRAPNO + 1]);
}
