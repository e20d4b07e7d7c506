/* Indexing a NULL string reads address 0 plus the index, and faults. */
#pragma D option quiet

string s;

ERROR
{
	printf("fault %d at %d\n", arg4, arg5);
}

BEGIN
{
	s = NULL;
	trace(s[3]);
}

BEGIN
{
	exit(0);
}
