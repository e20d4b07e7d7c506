/* A struct cannot be stored in a variable yet. */
BEGIN
{
	x = *curthread;
}
