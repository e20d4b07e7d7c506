/* A void pointer cannot be dereferenced. */
BEGIN
{
	trace(*(void *)0);
}
