/*
 * alloca() takes a size.
 */
BEGIN
{
	alloca("x");
}
