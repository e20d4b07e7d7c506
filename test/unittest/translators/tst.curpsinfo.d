#pragma D option quiet

/* The standard library's translators: curpsinfo, curlwpsinfo and curcpu
   describe the running thread as the built-in variables do. */
BEGIN
{
	printf("%d %d %d %d\n", curpsinfo->pr_pid == pid, curpsinfo->pr_ppid == ppid,
	    curpsinfo->pr_uid == uid, curpsinfo->pr_gid == gid);
	printf("%d %d %d\n", curpsinfo->pr_fname == execname, curpsinfo->pr_nlwp >= 1,
	    curpsinfo->pr_addr == (uintptr_t)curthread);
	printf("%d %d %d\n", curlwpsinfo->pr_lwpid == tid, curlwpsinfo->pr_name == execname,
	    curlwpsinfo->pr_onpro == cpu);
	printf("%d %d\n", curcpu->cpu_id == cpu, curcpu->cpu_pset);
	printf("%d\n", xlate<psinfo_t>(curthread).pr_pid == pid);
	exit(0);
}
