/* args[] is an array: named alone, it is refused as DTrace refuses it. */
BEGIN
{
	trace(args);
}
