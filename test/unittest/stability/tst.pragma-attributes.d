/*
 * An inline's attributes are its value's (curthread's data is Private)
 * unless a #pragma D attributes says otherwise. The minimum applies to
 * the inlines after its pragma and to every clause.
 */
#pragma D option quiet

inline int mypid = curthread->tgid;
#pragma D attributes Stable/Stable/Common mypid

#pragma D option amin=Evolving/Evolving/Common

dtrace:::BEGIN
/mypid == pid/
{
	printf("same\n");
	exit(0);
}
