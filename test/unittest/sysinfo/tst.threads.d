/* @@trigger: threads 3 */
#pragma D option quiet

/*
 * Three threads started in the target: nthreads fires for each, and
 * neither fork probe does.
 */
sysinfo:::nthreads,
sysinfo:::sysfork,
sysinfo:::sysvfork
/pid == $target/
{
	@[probename] = sum(arg0);
}

END
{
	printa("%s %@d\n", @);
}
