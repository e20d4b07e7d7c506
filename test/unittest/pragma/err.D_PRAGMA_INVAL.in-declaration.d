/*
 * A control line is read where it stands, even inside a declaration
 * not yet finished.
 */
inline int foo
#pragma D attributes no_such_attributes foo
    = 3;

BEGIN
{
	exit(0);
}
