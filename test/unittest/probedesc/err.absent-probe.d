/* @@needs-or-skip: !lock_tracepoints */
/*
 * A probe whose every declaration names a hook this kernel lacks is not
 * there: naming it says why (lockstat's spin-spin is the lock
 * tracepoints of Linux 5.19, and has no other form). Not run on a kernel
 * that has them.
 */
lockstat:::spin-spin
{
	exit(0);
}
