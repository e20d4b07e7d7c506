/* zonename is a built-in variable: it is not assignable. */
BEGIN
{
	zonename = "mine";
}
