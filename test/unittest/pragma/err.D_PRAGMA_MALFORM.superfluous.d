/* An option pragma takes one word: option or option=value. */
#pragma D option nspec=24 * 44

BEGIN
{
	exit(0);
}
