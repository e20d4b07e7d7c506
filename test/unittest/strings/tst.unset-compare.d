/*
 * A string thread-local or associative array element not yet assigned
 * compares as the empty string (DTrace compares a NULL string so), with
 * every operator, whatever strsize is.
 */
#pragma D option quiet

self string s;
string a[int];

BEGIN
{
	printf("%d %d %d %d\n", self->s == "", a[3] == "", a[3] != "x", a[3] < "x");
	a[3] = "x";
	printf("%d %d\n", a[3] == "x", self->s < a[3]);
	exit(0);
}
