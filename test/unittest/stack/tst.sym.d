#pragma D option quiet

/*
 * sym() and func() print an address as module`function, mod() as its
 * module, %a as module`function+0xoffset (no offset at the first byte,
 * 0xaddr for no function); sym() keys merge addresses of one function.
 */
BEGIN
{
	trace(sym((uintptr_t)&`vfs_read + 3));
	printf("|\n");
	trace(func((uintptr_t)&`vfs_read));
	printf("|\n");
	trace(mod((uintptr_t)&`vfs_read));
	printf("|\n");
	printf("%a %a %a\n", (uintptr_t)&`vfs_read, (uintptr_t)&`vfs_read + 16, 0);
	printf("[%30a]\n", (uintptr_t)&`vfs_read + 1);
	@s[sym((uintptr_t)&`vfs_read + 1)] = count();
	@s[sym((uintptr_t)&`vfs_read + 2)] = count();
	@s[func((uintptr_t)&`vfs_write)] = count();
	@m[mod((uintptr_t)&`vfs_read)] = count();
	printa("%a %@d\n", @s);
	exit(0);
}
