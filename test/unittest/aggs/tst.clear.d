#pragma D option quiet

/*
 * clear() zeroes the values but keeps the keys.  The consumer clears
 * when it processes the record, so the later addition is made in END.
 */
BEGIN
{
	@a["x"] = count();
	@a["y"] = count();
	@a["y"] = count();
	clear(@a);
	exit(0);
}

END
{
	@a["z"] = count();
}
