/*
 * copyinstr( ) takes a uintptr_t: a pointer, even to char, is refused as
 * DTrace refuses it (cast it, or use stringof).
 */
syscall::openat:entry
{
	trace(copyinstr(args[1]));
}
