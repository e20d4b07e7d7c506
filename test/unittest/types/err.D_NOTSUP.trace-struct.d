/* A struct is not traced as the number of its address. */
BEGIN
{
	trace(*curthread);
}
