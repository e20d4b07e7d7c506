#pragma D option quiet

/* A fault in a predicate is reported as such. */
BEGIN
/copyinstr(0) == "x"/
{
	printf("not reached\n");
}

BEGIN
{
	exit(0);
}
