/* Using $2 with only one argument given. */
/* @@args: 1 */
BEGIN
{
	trace($2);
}
