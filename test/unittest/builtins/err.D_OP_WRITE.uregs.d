/* uregs[] is read-only: it is not a new associative array. */
BEGIN
{
	uregs[R_SP] = 1;
}
