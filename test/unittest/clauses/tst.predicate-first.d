/* A variable only the predicate makes: the predicate is checked first. */
#pragma D option quiet

BEGIN
/n++ == 0/
{
	printf("n is %d\n", n);
	exit(0);
}
