#pragma D option quiet
#pragma D option bufpolicy=fill
#pragma D option bufsize=8k

/*
 * The fill policy: records go into the CPU's buffer until one would not
 * leave room for END's; that one is dropped, tracing stops, END still
 * records (its room was kept), and everything is printed at the end.
 * A buffer of 8k holds 340 24-byte records beside END's 16 bytes
 * (and the 8 a BPF ring buffer keeps back).
 */
/* @@trigger: getpid 1000 */

int n;

syscall::getpid:entry
/pid == $target/
{
	printf("%d\n", n++);
}

END
{
	printf("end\n");
}
