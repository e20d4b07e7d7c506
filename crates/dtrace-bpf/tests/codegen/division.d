/* Division by a run-time value checks for zero and faults to ERROR. */
syscall::getpid:entry
{
	trace(100 / arg0);
}

ERROR
{
	trace(arg4);
}
