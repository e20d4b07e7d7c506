/*
 * getmajor() and getminor() of a Linux dev_t (major in the bits above
 * the low 20, as the kernel's MAJOR() and MINOR()): /dev/null's device
 * number is 1, 3; a disk's 8, 15.
 */
#pragma D option quiet

BEGIN
{
	printf("%d %d\n", getmajor(0x100003), getminor(0x100003));
	printf("%d %d\n", getmajor(0x80000f), getminor(0x80000f));
	exit(0);
}
