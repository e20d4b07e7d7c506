/* A kernel type is Private/Private/Unknown. */
#pragma D option amin=Evolving/Evolving/Common

dtrace:::BEGIN
{
	trace(sizeof (struct task_struct) > 0);
	exit(0);
}
