/*
 * lwpsinfo_t declares pr_nice, but its translator, as DTrace's, gives
 * no conversion for it.
 */
BEGIN
{
	trace(curlwpsinfo->pr_nice);
}
