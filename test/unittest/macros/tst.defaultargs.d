#pragma D option quiet
#pragma D option defaultargs

/* With defaultargs, missing arguments are 0 and "". */
BEGIN
{
	printf("%d [%s]\n", $1, $$2);
	exit(0);
}
