/*
 * An unknown name in a predicate is reported on its own line, not on
 * the line after the predicate.
 */
BEGIN
/nosuchvar != 0/
{
	exit(0);
}
