/* Only pointers and arrays can be dereferenced. */
BEGIN
{
	trace(*timestamp);
}
