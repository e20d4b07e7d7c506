/* The actions are checked before the predicate: a variable they assign may be read there. */
#pragma D option quiet

BEGIN
/x == 0/
{
	printf("x is %d\n", x++);
	exit(0);
}
