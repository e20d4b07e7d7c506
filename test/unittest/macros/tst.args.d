/* @@args: 42 hello "quoted" */
#pragma D option quiet

/* $1..$9 are the script's arguments; $$N their string form. */
BEGIN
{
	printf("%d %d %s %s\n", $1, $1 + 1, $$2, $3);
	exit(0);
}
