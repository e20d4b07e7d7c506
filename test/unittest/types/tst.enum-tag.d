/*
 * On the right of a comparison with an enum, a bare name is one of the
 * enum's tags: the kernel's enums' too, which are not in scope
 * elsewhere.
 */

#pragma D option quiet

BEGIN
{
	this->t = (enum pid_type)1;
	printf("%d %d %d %d\n", this->t == PIDTYPE_TGID, this->t != PIDTYPE_PID,
	    this->t < PIDTYPE_MAX, this->t >= PIDTYPE_SID);
	exit(0);
}
