/* @@needs: exit_group_dead */
/* @@trigger: comm 7864747374 */
#pragma D option quiet

/*
 * A kernel tracepoint as an sdt probe, its fields typed arguments: the
 * target (named "xdtst") exits, and the last switch away from it names
 * it too, with no cast.
 */
sdt:sched::sched_switch
/args[1] == $target && args[0] == "xdtst"/
{
	@[args[0], args[1] == pid] = count();
}

sdt:sched::sched_process_exit
/args[1] == $target && args[0] == "xdtst"/
{
	printf("%s %d %d\n", args[0], args[1] == pid, args[3]);
}

END
{
	printa("%s %d\n", @);
}
