/*
 * A translated member keeps its declared array type for a constant
 * index: curlwpsinfo->pr_name is char [16].
 */
BEGIN
{
	trace(curlwpsinfo->pr_name[16]);
}
