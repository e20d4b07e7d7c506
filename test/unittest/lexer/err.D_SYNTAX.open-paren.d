/* The predicate ends with a ( still open. */
BEGIN
/(1 + 2/
{
	exit(0);
}
