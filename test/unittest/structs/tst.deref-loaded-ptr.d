#pragma D option quiet

/*
 * A struct read through a pointer that is itself read from memory: the
 * address is the pointer loaded from curthread, not a byte of it.
 */
BEGIN
{
	this->p = *curthread->real_parent;
	this->c = *curthread->cred;
	printf("%d %d\n", this->p.pid == curthread->real_parent->pid,
	    this->c.uid.val == uid);
	printf("%d\n", sizeof (*curthread->cred) == sizeof (struct cred));
	exit(0);
}
