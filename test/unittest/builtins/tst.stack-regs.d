/* @@trigger: getpid 1 */

/*
 * The stack built-ins and uregs[] at the target's getpid(2): the kernel
 * and user stacks have frames, the kernel one a caller; the saved user
 * registers hold the system call number (R_ERR, orig_ax: 39 is getpid)
 * and the entry code's -ENOSYS in R_RAX; zonename is the global zone.
 */

#pragma D option quiet

syscall::getpid:entry
/pid == $target/
{
	printf("%d %d %d\n", stackdepth > 1, ustackdepth > 0, caller != 0);
	printf("%d %d %d %d\n", sizeof (caller), sizeof (ucaller),
	    sizeof (stackdepth), sizeof (ustackdepth));
	printf("%d %d\n", uregs[R_ERR], (long)uregs[R_RAX]);
	printf("%d %d %d\n", uregs[R_PC] != 0, uregs[R_SP] != 0,
	    uregs[R_RIP] == uregs[R_PC]);
	printf("%d %d\n", uregs[R_FS] != 0, uregs[R_TRAPNO] >= 0);
	printf("%s\n", zonename);
	exit(0);
}
