/* commit() of an ID above nspec is an illegal operation: the ERROR probe fires. */
#pragma D option quiet
#pragma D option nspec=2

BEGIN
{
	commit(3);
}

ERROR
{
	printf("fault %d\n", arg4);
	exit(0);
}
