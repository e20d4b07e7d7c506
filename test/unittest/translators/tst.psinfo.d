/* @@trigger: setsid /bin/true hello world */
#pragma D option quiet

/*
 * psinfo_t's members for a process with known arguments and no
 * controlling terminal (setsid).
 */
syscall::exit_group:entry
/pid == $target/
{
	printf("%s %s %d\n", curpsinfo->pr_fname, curpsinfo->pr_psargs,
	    curpsinfo->pr_ttydev == PRNODEV);
	printf("%d %d %d\n", curpsinfo->pr_dmodel == PR_MODEL_LP64,
	    curpsinfo->pr_argv > curthread->mm->start_stack,
	    curpsinfo->pr_argv < curthread->mm->arg_start);
	printf("%d %d %d\n", curpsinfo->pr_start.tv_sec > 1000000000,
	    curpsinfo->pr_start.tv_sec <= walltimestamp / 1000000000,
	    curpsinfo->pr_start.tv_nsec < 1000000000);
	printf("%d %d %d %d %d\n", curpsinfo->pr_taskid, curpsinfo->pr_projid,
	    curpsinfo->pr_poolid, curpsinfo->pr_zoneid, curpsinfo->pr_contract);
	printf("%d %d\n", curpsinfo->pr_sid == pid, curpsinfo->pr_pgid == pid);
}
