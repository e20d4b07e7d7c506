/* exit( ) takes an int; a pointer is not one. */
BEGIN
{
	exit(curthread);
}
