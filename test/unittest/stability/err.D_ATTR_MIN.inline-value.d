/*
 * Without a pragma, an inline has its value's attributes: using it
 * relies on curthread's Private data.
 */
inline int mypid = curthread->tgid;

#pragma D option amin=Evolving/Evolving/Common

dtrace:::BEGIN
/mypid == pid/
{
	exit(0);
}
