/* A tag that is also a global variable is ambiguous. */
BEGIN
{
	PIDTYPE_PID = 3;
	this->t = (enum pid_type)1;
	trace(this->t == PIDTYPE_PID);
}
