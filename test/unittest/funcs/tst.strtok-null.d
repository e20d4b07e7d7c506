#pragma D option quiet

/*
 * strtok()'s string may be NULL when it runs (a search that found
 * nothing): it then asks for the next token of the string kept in this
 * firing, as a NULL written so does; past its last token there is
 * none (NULL, and recording NULL reads address 0), and with none kept,
 * it is DTrace's invalid address.
 */
BEGIN
{
	printf("%s\n", strtok("a,b", ","));
	printf("%s\n", strtok(strstr("abc", "x"), ","));
}

BEGIN
{
	printf("[%s]\n", strtok(NULL, ","));
}

BEGIN
{
	printf("%s\n", strtok(NULL, ","));
}

ERROR
{
	printf("fault %d at %d\n", arg4, arg5);
}

BEGIN
{
	exit(0);
}
