/* A description that matches nothing is an error without -Z. */
syscall::nosuchsyscall:entry
{
}
