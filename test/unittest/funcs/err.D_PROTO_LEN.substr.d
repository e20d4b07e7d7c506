/* substr() takes a string, an index and at most a length. */
BEGIN
{
	trace(substr("hello", 1, 2, 3));
}
