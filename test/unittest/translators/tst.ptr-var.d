/*
 * A translated pointer kept in a variable of any scope is translated
 * when its members are read.
 */

#pragma D option quiet
BEGIN
{
	this->p = curpsinfo;
	self->l = curlwpsinfo;
	g = curpsinfo;
	printf("%d %d %s\n", this->p->pr_pid == pid, this->p->pr_ppid == ppid,
	    this->p->pr_fname);
	this->s = *this->p;
	printf("%d\n", this->s.pr_pid == pid);
}

BEGIN
{
	printf("%d %d\n", self->l->pr_lwpid == tid, g->pr_uid == uid);
	exit(0);
}
