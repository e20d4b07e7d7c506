#pragma D option quiet

/*
 * The clause calling exit() finishes; later clauses for the same firing
 * do not run, END does.
 */
BEGIN
{
	printf("one\n");
	exit(0);
	printf("two\n");
}

BEGIN
{
	printf("three\n");
}

END
{
	printf("end\n");
}
