/*
 * A string variable holds NULL, given the constant or a string
 * subroutine's NULL: a global or clause-local one compares equal to NULL
 * (its bytes read as the empty string), a thread-local one or an
 * associative array's element is deleted. The empty string is not NULL.
 * (Recording a NULL string is an invalid address: tst.null-record.d.)
 */
#pragma D option quiet

BEGIN
{
	g = "abc"; g = NULL;
	this->l = "abc"; this->l = NULL;
	self->t = "abc"; self->t = NULL;
	a[1] = "abc"; a[1] = NULL;
	printf("constant: %d %d %d %d\n", g == NULL, this->l == NULL,
	    self->t == NULL, a[1] == NULL);

	g = strchr("abc", 'z');
	this->l = strstr("abc", "z");
	self->t = strchr("abc", 'z');
	a[1] = strrchr("abc", 'z');
	printf("subroutine: %d %d %d %d\n", g == NULL, this->l == NULL,
	    self->t == NULL, a[1] == NULL);

	h = g;
	this->m = this->l;
	printf("copied: %d %d\n", h == NULL, this->m == NULL);

	g = ""; this->l = ""; self->t = ""; a[1] = "";
	printf("empty: %d %d %d %d\n", g == NULL, this->l == NULL,
	    self->t == NULL, a[1] == NULL);

	g = "xyz";
	printf("string: %d %s\n", g == NULL, g);
	exit(0);
}
