#pragma D option quiet
#pragma D option strsize=6
#pragma D option rawbytes

/*
 * With rawbytes a string is dumped as its record: strsize bytes and the
 * NUL, zero past the string's end.
 */
BEGIN
{
	x = "abcdefgh";
	trace(x);
	x = "12";
	trace(x);
	trace("xyz");
	exit(0);
}
