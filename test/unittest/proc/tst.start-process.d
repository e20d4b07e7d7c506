/* @@trigger: spawn /bin/true */
#pragma D option quiet

/*
 * The target starts a child: proc:::start fires once in the child, in
 * its own context, before it execs /bin/true (so its name is still the
 * parent's, and it is the process's first thread).
 */
proc:::start
/ppid == $target/
{
	printf("%s %d %d\n", probename, tid == pid, curpsinfo->pr_ppid == $target);
}
