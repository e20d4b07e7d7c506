/*
 * -D without -C is refused: it would do nothing.
 */
/* @@runtest-opts: -DVAL=1 */
BEGIN
{
	exit(0);
}
