/* @@trigger: getpid 1 */
#pragma D option quiet

/*
 * lwpsinfo_t's members for a thread making a system call: on its CPU,
 * in getpid (39), bound to CPU 0 as the test runs dtrace and its target.
 */
syscall::getpid:entry
/pid == $target/
{
	printf("%d %c %d\n", curlwpsinfo->pr_state == SONPROC, curlwpsinfo->pr_sname,
	    curlwpsinfo->pr_syscall);
	printf("%s %d %d %d\n", curlwpsinfo->pr_clname, curlwpsinfo->pr_pri, curlwpsinfo->pr_bindpro, curlwpsinfo->pr_bindpset);
	printf("%d %d %d\n", curlwpsinfo->pr_stype, curlwpsinfo->pr_wchan,
	    curlwpsinfo->pr_flag & (PR_STOPPED | PR_ISSYS | PR_IDLE));
	printf("%d %d\n", curlwpsinfo->pr_lwpid == tid, curlwpsinfo->pr_onpro == cpu);
}

/* The idle task (pid 0, init's parent): a kernel thread, in no system call. */
syscall::getpid:entry
/pid == $target/
{
	this->t = curthread->nsproxy->pid_ns_for_children->child_reaper->real_parent;
	printf("%d %x %d\n", this->t->pid,
	    xlate<lwpsinfo_t *>(this->t)->pr_flag & (PR_ISSYS | PR_IDLE),
	    xlate<lwpsinfo_t *>(this->t)->pr_syscall);
	printf("%d %d %s\n", xlate<psinfo_t *>(this->t)->pr_dmodel == PR_MODEL_LP64,
	    xlate<psinfo_t *>(this->t)->pr_argv, xlate<psinfo_t *>(this->t)->pr_psargs);
}
