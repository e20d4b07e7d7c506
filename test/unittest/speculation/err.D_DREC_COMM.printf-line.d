/*
 * A data-recording action after commit() is refused where it is: at its
 * own line, a printf() with nothing but its format too.
 */
BEGIN
{
	self->spec = speculation();
}

BEGIN
/self->spec/
{
	commit(self->spec);

	printf("recorded after commit\n");
}
