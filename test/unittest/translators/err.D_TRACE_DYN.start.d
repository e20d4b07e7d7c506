/* A struct member of a translation (pr_start) is read member by member. */
BEGIN
{
	trace(curpsinfo->pr_start);
}
