#pragma D option quiet

/*
 * %A prints a user address as object`function+offset, looked up in the
 * $target process's mappings and ELF symbols; without a process, or
 * outside any object, as 0xADDR. The target stays alive while its records
 * are read (DTrace holds a target it controls; this one sleeps).
 */
/* @@trigger: fixture linger getpid */

syscall::getpid:entry
/pid == $target/
{
	printf("%A\n", uregs[R_PC]);
	printf("%A\n", 8);
}
