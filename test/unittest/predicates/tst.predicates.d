#pragma D option quiet

/* Predicates select clauses; clauses run in program order. */
BEGIN
{
	x = 3;
}

BEGIN
/x == 3/
{
	printf("a\n");
}

BEGIN
/x != 3/
{
	printf("b\n");
}

BEGIN
/x/
{
	printf("c\n");
	x = 0;
}

BEGIN
/!x/
{
	printf("d\n");
	exit(0);
}
