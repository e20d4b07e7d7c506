#pragma D option quiet

/*
 * A fault stops the clause, fires ERROR with DTrace's arguments and
 * tracing goes on: the next clause for the same firing runs.
 */
ERROR
{
	printf("ERROR epid %d action %d offset %d fault %d addr %x\n",
	    arg1, arg2, arg3, arg4, arg5);
}

BEGIN
{
	x = copyinstr(0);
	printf("not reached\n");
}

BEGIN
{
	printf("next clause\n");
	exit(0);
}
