#pragma D option quiet

/* this-> variables are local to the clauses of one firing. */
BEGIN
{
	this->x = 7;
	this->s = "loc";
}

BEGIN
{
	printf("%d %s\n", this->x, this->s);
	exit(0);
}
