/* cwd is a built-in variable: it is not assignable. */
BEGIN
{
	cwd = "/";
}
