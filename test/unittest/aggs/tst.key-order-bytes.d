#pragma D option quiet
#pragma D option aggsortkey

/*
 * Integer keys sort as DTrace sorts them, their bytes as an unsigned
 * integer of their size (-1 after 2), and 8- and 16-bit keys print as
 * those bytes; with aggsortrev the aggregations print last first.
 */
BEGIN
{
	@a[(char)-1] = count();
	@a[(char)2] = count();
	@b[(short)-2] = count();
	@b[(short)3] = count();
	@c[-1] = count();
	@c[1] = count();
	exit(0);
}
