#pragma D option quiet

/* trunc() removes all keys, or keeps the top N. */
BEGIN
{
	@a["x"] = sum(1);
	@a["y"] = sum(2);
	@a["z"] = sum(3);
	@b["gone"] = count();
	trunc(@a, 2);
	trunc(@b);
	exit(0);
}
