/* A } with no { before it. */
BEGIN
{
	exit(0);
}
}
