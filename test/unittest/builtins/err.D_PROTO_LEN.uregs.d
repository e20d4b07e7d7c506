/* uregs[] has one index. */
BEGIN
{
	trace(uregs[R_SP, R_PC]);
}
