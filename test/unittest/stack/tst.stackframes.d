#pragma D option quiet
#pragma D option stackframes=3
#pragma D option stackindent=4

/*
 * stack(n) records at most n frames, stack() the stackframes option's
 * number; frames are indented by stackindent.
 */
/* @@trigger: getpid 1 */

syscall::getpid:entry
/pid == $target/
{
	@two[stack(2)] = count();
	@three[stack()] = count();
}

END
{
	printa("%k%@d\n", @two);
	printa("%k%@d\n", @three);
}
