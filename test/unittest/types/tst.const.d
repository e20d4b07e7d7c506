#pragma D option quiet

/*
 * const changes a type's name, not what can be done with it: a const
 * pointer is read, compared and stored as the unqualified one.
 */
BEGIN
{
	this->c = curthread->real_cred;
	this->d = (struct cred *)curthread->real_cred;
	printf("%d %d\n", this->c->uid.val == uid, this->c == this->d);
	x = curthread->real_cred;
	x = (struct cred *)0;
	printf("%d %d\n", x == NULL, sizeof (const int));
	exit(0);
}
