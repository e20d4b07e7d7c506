#pragma D option quiet

/* Quiet trace() prints values bare, with no separators. */
BEGIN
{
	trace(42);
	trace("-");
	trace((short)-1);
	trace("\n");
	exit(0);
}
