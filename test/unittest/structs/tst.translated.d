#pragma D option quiet

/* Translated structs stored whole: each member the translator defines is
   computed at the assignment; members are then read from the copy. */
BEGIN
{
	this->p = *curpsinfo;
	self->l = xlate<lwpsinfo_t>(curthread);
	p[0] = this->p;
	printf("%d %d %s\n", this->p.pr_pid == pid, this->p.pr_ppid == ppid,
	    this->p.pr_fname);
	printf("%d %s %d\n", self->l.pr_lwpid == tid, self->l.pr_name,
	    p[0].pr_pid == pid);
	printf("%d\n", sizeof (this->p) == sizeof (psinfo_t));
	exit(0);
}
