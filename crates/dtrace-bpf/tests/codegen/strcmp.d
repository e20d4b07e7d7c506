/*
 * String comparisons against constants: execname against a name shorter
 * than its 16 bytes is two word compares; a longer constant goes through
 * bpf_strncmp.
 */
syscall::getpid:entry
/execname == "cat"/
{
	trace(1);
}

syscall::getpid:entry
/execname != "a-name-of-16-chr"/
{
	trace(2);
}
