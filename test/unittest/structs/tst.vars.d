#pragma D option quiet

/* Struct values in variables of every scope: assigned by value from
   kernel memory and from each other, members read (nested, array and
   string members), sizeof; an unassigned thread-local or element reads
   as zeros. */
struct task_struct g;
self struct task_struct u;

BEGIN
{
	this->t = *curthread;
	self->t = this->t;
	g = self->t;
	a[pid] = g;
	x = a[pid];
	printf("%d %d %d %d %d\n", this->t.pid == tid, self->t.tgid == pid,
	    g.pid == tid, a[pid].tgid == pid, x.pid == tid);
	printf("%s %s %s\n", this->t.comm, g.comm, x.comm);
	printf("%d %d\n", this->t.comm[0] == 'd', g.se.load.weight != 0);
	printf("%d %d\n", sizeof (this->t) == sizeof (struct task_struct),
	    sizeof (g) == sizeof (x));
	printf("%d %d %d\n", self->u.pid, a[0].pid, a[0].comm == "");
	printf("%d\n", (this->t.pid == tid ? g : x).tgid == pid);
	exit(0);
}
