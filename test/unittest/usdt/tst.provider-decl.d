/*
 * A script may define a provider beside its clauses: the definition is
 * checked, and the clauses run.
 */
#pragma D option quiet

provider shapes {
	probe moved(int, int);
	probe resized__to(unsigned long, char *);
	probe none(void);
};

BEGIN
{
	printf("ok\n");
	exit(0);
}
