/*
 * probefunc has the attributes of its provider's function part: the
 * dtrace provider's are Private/Private/Unknown.
 */
#pragma D option amin=Evolving/Evolving/Common

dtrace:::BEGIN
{
	trace(probename);
	trace(probefunc);
	exit(0);
}
