/* strjoin() takes strings, not integers. */
BEGIN
{
	trace(strjoin("a", 1));
}
