/* @@trigger: signal */
#pragma D option quiet

/*
 * proc:::exit's args[0] says how a process ended: the "kill" child exits
 * (CLD_EXITED), the "sleep" child dies of SIGUSR1 (CLD_KILLED).
 */
proc:::exit
/ppid == $target/
{
	@[execname, args[0] == CLD_EXITED ? "exited" :
	    args[0] == CLD_KILLED ? "killed" : "other", args[0]] = count();
}

proc:::exit
/pid == $target/
{
	exit(0);
}

END
{
	printa("%s %s %d %@d\n", @);
}
