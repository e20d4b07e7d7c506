#pragma D option quiet

/*
 * %p a pointer in hex, %S a string with its unprintable characters
 * escaped, %Y nanoseconds since the epoch as a date, %a a kernel address
 * as module`function+offset, with widths and flags.
 */
BEGIN
{
	printf("[%p] [%#p] [%20p]\n", (void *)0x1234, 0x1234, 0x10);
	printf("[%S] [%-8S|]\n", "a\tb\n\\", "x");
	printf("[%Y] [%Y]\n", 0, 31536000123456789);
	printf("[%a] [%-30a] [%a]\n", (uintptr_t)&`vfs_read, (uintptr_t)&`vfs_read + 2, 0);
	exit(0);
}
