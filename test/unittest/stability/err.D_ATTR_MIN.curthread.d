/*
 * dtrace:::BEGIN is Stable, but curthread's data is the kernel's own
 * (Stable/Private/Common): below a minimum of Evolving data.
 */
#pragma D option amin=Evolving/Evolving/Common

dtrace:::BEGIN
{
	trace(timestamp);
	trace(curthread->pid);
	exit(0);
}
