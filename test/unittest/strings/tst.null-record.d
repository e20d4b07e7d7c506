/*
 * Recording a string that is NULL reads address 0, as DTrace's recording
 * does: a global given NULL, a thread-local or an associative array's
 * element that has no value. Each is an invalid address at 0 (the ERROR
 * probe's arg4 DTRACEFLT_BADADDR, arg5 0) and tracing goes on.
 */
#pragma D option quiet

self string t;
string a[int];

BEGIN
{
	g = "abc";
	g = NULL;
	trace(g);
}

BEGIN
{
	trace(self->t);
}

BEGIN
{
	printf("%s\n", a[1]);
}

BEGIN
{
	a[1] = "set";
	self->t = "too";
	printf("%s %s\n", a[1], self->t);
	exit(0);
}

ERROR
{
	printf("fault %d at %d\n", arg4, arg5);
}
