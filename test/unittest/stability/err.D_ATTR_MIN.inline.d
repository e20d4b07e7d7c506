/* Under the minimum, an inline's value is checked where it is defined. */
#pragma D option amin=Evolving/Evolving/Common

inline int mypid = curthread->tgid;
#pragma D attributes Stable/Stable/Common mypid

dtrace:::BEGIN
{
	exit(0);
}
