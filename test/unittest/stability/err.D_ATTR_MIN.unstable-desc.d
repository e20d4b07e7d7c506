/*
 * A description without its provider is Unstable/Unstable/Common; a
 * minimum of Evolving refuses the clause, at its end, before anything
 * in it.
 */
#pragma D option amin=Evolving/Evolving/Common

BEGIN
{
	trace(nosuchvariable);
	exit(0);
}
