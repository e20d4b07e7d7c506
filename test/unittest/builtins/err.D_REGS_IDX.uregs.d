/* A negative uregs[] index is refused before it is looked up. */
BEGIN
{
	trace(uregs[-1]);
}
