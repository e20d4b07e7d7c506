#pragma D option quiet

/*
 * trace() of bytes that hold a string (printable characters, then NULs)
 * shows the string, as DTrace's consumer does; other bytes, and any
 * bytes under the rawbytes option (set here by setopt()), a hex dump.
 */
struct s {
	char a[8];
};

struct s v;

BEGIN
{
	v.a[0] = 104;
	v.a[1] = 105;
	trace(v);
	printf("|\n");
	v.a[3] = 1;
	trace(v);
	printf("|\n");
}

BEGIN
{
	setopt("rawbytes");
}

BEGIN
{
	v.a[3] = 0;
	trace(v);
	exit(0);
}
