/* @@trigger: fixture signals fault */
#pragma D option quiet

/*
 * The target loads from address 0: proc:::fault fires in it with
 * FLTBOUNDS (an unmapped address) and the siginfo of the SIGSEGV it is
 * sent; then it dies of that signal (proc:::exit, CLD_KILLED).
 */
proc:::fault
/pid == $target/
{
	printf("%s %s signal %d at %x\n", probename,
	    args[0] == FLTBOUNDS ? "FLTBOUNDS" : "other", args[1]->si_signo,
	    (uintptr_t)args[1]->_sifields._sigfault._addr);
}

proc:::exit
/pid == $target/
{
	printf("%s %s\n", probename, args[0] == CLD_KILLED ? "killed" : "other");
}
