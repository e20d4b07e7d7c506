/*
 * A compound assignment reads its left operand before it evaluates the
 * right: i += i++ adds i's old value, not the incremented one.
 */
#pragma D option quiet

BEGIN
{
	i = 4;
	i += i++;
	printf("%d\n", i);
	self->j = 10;
	self->j -= self->j++ * 2;
	printf("%d\n", self->j);
	a["k"] = 1;
	a["k"] *= ++a["k"] + 1;
	printf("%d\n", a["k"]);
	exit(0);
}
