/*
 * freopen() takes a format string constant first.
 */
BEGIN
{
	freopen(1);
}
