/* uregs[] takes a constant index. */
BEGIN
{
	trace(uregs[pid]);
}
